package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/cmd/agentready/internal/settings"
	"github.com/agentready/agentready/config"
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

// TestPrepareOverrides: serve's flags win over the file's serve section
// and upstream key, -dialect over its dialect key; a reload that would
// change them is named and refused.
func TestPrepareOverrides(t *testing.T) {
	file := "testdata/verdict/good-serve-section.yaml"
	d, err := prepare(file, overrides{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if !d.strictUpstream || !d.reportOnly || !d.robots || len(d.trusted) != 3 || d.m == nil {
		t.Errorf("the file's settings: %+v", d)
	}
	no, none := false, []string{}
	o, err := prepare(file, overrides{reportOnly: &no, robots: &no, strict: &no, trusted: none}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if o.strictUpstream || o.reportOnly || o.robots || len(o.trusted) != 0 {
		t.Errorf("the flags' settings: %+v", o)
	}
	err = sameSettings(file, d, o)
	for _, want := range []string{"upstream.strict is now false, true when serve started", "serve.report_only is now false",
		"serve.robots is now false", "serve.trusted_proxies is now []", "restart agentready serve"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sameSettings lacks %q: %v", want, err)
		}
	}
	if err := sameSettings(file, d, d); err != nil {
		t.Errorf("an unchanged file: %v", err)
	}
	a, err := prepare("testdata/verdict/good-audit.yaml", overrides{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if a.auditKey == nil || a.Audit.PublicKey == "" {
		t.Errorf("the audit key: %v %q", a.auditKey, a.Audit.PublicKey)
	}
	if err := sameSettings(file, d, a); err == nil || !strings.Contains(err.Error(), "serve.audit_key_file") {
		t.Errorf("another audit key: %v", err)
	}
	// -dialect wins over the file's dialect.
	var out bytes.Buffer
	if code := run([]string{"lint", "-dialect", "draft-car", "../../examples/shop/site.yaml"}, &out, &out); code != 1 || !strings.Contains(out.String(), `capabilities[3].id: "cart.add" is not allowed by draft-car`) {
		t.Errorf("-dialect draft-car over the file's v0.1.0: %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"lint", "../../examples/shop/site.yaml"}, &out, &out); code != 0 || !strings.Contains(out.String(), "valid (v0.1.0, 8 capabilities") {
		t.Errorf("the shop's file, as docs/declaration.md lints it: %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"schema"}, &out, &out); code != 0 || !strings.Contains(out.String(), `"$schema": "https://json-schema.org/draft/2020-12/schema"`) {
		t.Errorf("schema: %d %.200s", code, out.String())
	}
	shipped, err := os.ReadFile("../../config/site.schema.json")
	if err != nil || out.String() != string(shipped) {
		t.Errorf("agentready schema does not print config/site.schema.json: %v", err)
	}
}

// TestPrepareReadsOnce: a load, serve's start and each reload read the
// declaration file once and decode it once, the Site and serve's keys
// together (before issue 34, serve's keys were decoded a second time).
// It swaps the package's hooks: no test of the package runs in parallel.
func TestPrepareReadsOnce(t *testing.T) {
	file := "testdata/verdict/good-serve-section.yaml"
	var reads, parses int
	defer func(r func(string) ([]byte, error), p func([]byte) (settings.File, config.Lines, error)) {
		readFile, parse = r, p
	}(readFile, parse)
	readFile = func(name string) ([]byte, error) {
		if name == file {
			reads++
		}
		return os.ReadFile(name)
	}
	parse = func(b []byte) (settings.File, config.Lines, error) {
		parses++
		return settings.Parse(b)
	}
	check := func(what string, err error) {
		t.Helper()
		if err != nil || reads != 1 || parses != 1 {
			t.Errorf("%s: %d reads, %d decodings, want 1 each: %v", what, reads, parses, err)
		}
		reads, parses = 0, 0
	}
	d, err := prepare(file, overrides{}, quiet)
	check("prepare", err)
	if !d.strictUpstream || !d.robots || len(d.trusted) != 3 {
		t.Errorf("the file's settings: %+v", d)
	}
	p, err := newProxy(proxyConfig{configFile: file, upstream: "http://127.0.0.1:9", log: discard})
	check("serve's start", err)
	if err != nil {
		return
	}
	defer p.close()
	check("a reload", p.reload())
	check("another reload", p.reload())
}

// TestOneDecoder: the only decoder of a declaration file in the command
// is settings.Parse, named once (the hook TestPrepareReadsOnce counts):
// no other file of the package decodes the file's bytes with config or
// yaml.v3 (check_docs.go reads documents' front matter with yaml.v3).
func TestOneDecoder(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	uses := map[string]int{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(gotoken.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok {
				switch use := x.Name + "." + sel.Sel.Name; {
				case use == "settings.Parse", use == "config.ParseSite", use == "config.ParseFile", use == "config.LoadSite":
					uses[use]++
				case x.Name == "yaml" && name != "check_docs.go":
					uses[name+": "+use]++
				}
			}
			return true
		})
	}
	if want := map[string]int{"settings.Parse": 1}; !maps.Equal(uses, want) {
		t.Errorf("decoders of a declaration file: %v, want %v", uses, want)
	}
}
