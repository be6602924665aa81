package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintAndRender: lint accepts the demo's file and reports a broken
// one's problems with lines and field paths; render prints its documents.
func TestLintAndRender(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"lint", "../../examples/stdlib/site.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("lint of the demo's file: %d\n%s%s", code, out.String(), errb.String())
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "site.yaml")
	os.WriteFile(bad, []byte("name: x\nurl: https://x.example\nrateLimit: 1/minute\ncapabilities:\n  - id: Bad_ID\n    endpoint: https://x.example/a\n    protocol: REST\n    rate_limit: 0/minute\n"), 0o644)
	out.Reset()
	if code := run([]string{"lint", bad}, &out, &errb); code != 1 {
		t.Fatalf("lint of a broken file: %d", code)
	}
	// One pass: the decoding problems and the validation problems, by line,
	// in the file's spelling.
	for _, want := range []string{bad + `:3: unknown key "rateLimit"`, bad + `:5: capabilities[0].id: "Bad_ID" is not allowed`, bad + `:8: capabilities[0].rate_limit: rate "0/minute"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lint output lacks %q:\n%s", want, out.String())
		}
	}
	os.WriteFile(bad, []byte("name: x\nurl: https://x.example\ncapabilities:\n  - id: Bad_ID\n    description: d\n    endpoint: https://x.example/a\n    protocol: REST\n"), 0o644)
	out.Reset()
	if code := run([]string{"lint", bad}, &out, &errb); code != 1 || !strings.Contains(out.String(), bad+`:4: capabilities[0].id: "Bad_ID" is not allowed by draft-car`) {
		t.Errorf("lint of an invalid declaration: %d\n%s", code, out.String())
	}
	// A problem with no line is said without one (not "FILE:0:").
	os.WriteFile(bad, nil, 0o644)
	out.Reset()
	if code := run([]string{"lint", bad}, &out, &errb); code != 1 || !strings.HasPrefix(out.String(), bad+": ") {
		t.Errorf("lint of an empty file: %d\n%s", code, out.String())
	}
	if code := run([]string{"lint", "-dialect", "v9", bad}, &out, &errb); code != 2 {
		t.Errorf("a bad -dialect: %d", code)
	}
	out.Reset()
	if code := run([]string{"render", "../../examples/stdlib/site.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("render: %d %s", code, errb.String())
	}
	for _, want := range []string{"==> agents.txt (/.well-known/agents.txt, /agents.txt) <==\n# agents.txt\nSpec-Version: 1.0", "==> agents.json", "==> agent.json", "==> MCP server card store-assistant"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("render output lacks %q", want)
		}
	}
}
