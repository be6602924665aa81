package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintParamsNote: with enforce_params off, lint notes per capability
// the params that would start refusing calls (required, typed, enum,
// bounds), at the capability's line, and exits 0; with it on, or with no
// such param, it notes nothing.
func TestLintParamsNote(t *testing.T) {
	src := `name: x
url: https://x.example
description: d
contact: a@x.example
access:
  allow: ["/api/"]%s
capabilities:
  - id: search
    description: s
    endpoint: https://x.example/api/search
    params:
      - {name: q, required: true}
      - {name: note}
      - {name: sort, enum: [price, name]}
      - {name: limit, type: integer, min: 1, max: 50}
      - {name: X-Currency, in: header, enum: [EUR]}
  - id: order
    description: o
    endpoint: https://x.example/api/orders/{id}
    method: PATCH
    params:
      - {name: id, in: path, type: integer}
      - {name: ref, in: path, type: integer}
      - {name: qty, in: body, type: integer, required: true}
  - id: plain
    description: p
    endpoint: https://x.example/api/plain
    params:
      - {name: free}
  - id: mcp
    description: m
    endpoint: https://x.example/mcp
    protocol: MCP
    params:
      - {name: ignored, required: true}
`
	run := func(extra string) string {
		file := filepath.Join(t.TempDir(), "site.yaml")
		if err := os.WriteFile(file, []byte(strings.Replace(src, "%s", extra, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if code := lint([]string{file}, &out, &errOut); code != 0 {
			t.Fatalf("lint: exit %d:\n%s%s", code, &out, &errOut)
		}
		return out.String()
	}
	out := run("")
	for _, want := range []string{
		`site.yaml:8: note: capabilities[0] "search": with access.enforce_params, a call not as its params declare is refused (400); these would start refusing calls: q (query: required); sort (query: enum); limit (query: integer, min 1, max 50); X-Currency (header: enum)`,
		`site.yaml:17: note: capabilities[1] "order": with access.enforce_params, a call not as its params declare is refused (400); these would start refusing calls: id (path: integer); qty (body: required, integer) (`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint says:\n%s\nwant a line with:\n%s", out, want)
		}
	}
	for _, not := range []string{"note (", "ref (", `"plain"`, `"mcp"`} {
		if strings.Contains(out, not) {
			t.Errorf("lint notes %q:\n%s", not, out)
		}
	}
	if out := run("\n  enforce_params: true"); strings.Contains(out, "enforce_params") {
		t.Errorf("with enforce_params on, lint says:\n%s", out)
	}
}

// TestLintOutputsNote: an output whose type is not AWP's is noted, the
// AWP types are not.
func TestLintOutputsNote(t *testing.T) {
	file := filepath.Join(t.TempDir(), "site.yaml")
	src := `name: x
url: https://x.example
description: d
access:
  allow: ["/api/"]
capabilities:
  - id: search
    description: s
    endpoint: https://x.example/api/search
    outputs: {items: "array[object[product]]", total: integer, next: url, kind: "enum[a, b]", raw: object, when: date}
`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := lint([]string{file}, &out, &errOut); code != 0 {
		t.Fatalf("lint: exit %d:\n%s%s", code, &out, &errOut)
	}
	var noted []string
	for _, l := range strings.Split(out.String(), "\n") {
		if _, rest, ok := strings.Cut(l, "note: capabilities[0].outputs."); ok {
			name, _, _ := strings.Cut(rest, ":")
			noted = append(noted, name)
		}
	}
	if strings.Join(noted, ",") != "raw,when" {
		t.Errorf("lint noted the outputs %v, want raw and when:\n%s", noted, &out)
	}
}
