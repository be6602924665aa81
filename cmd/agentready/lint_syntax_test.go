package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintSyntaxPosition: lint reports a YAML syntax error as
// FILE:LINE:COLUMN: at the construct that fails, the line yaml.v3 names
// a line early included (an unclosed [ on line 5 it reports on line 4).
func TestLintSyntaxPosition(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"an unclosed [ on line 5", "name: Shop\nurl: https://shop.example\ndescription: Mugs\nagents:\n  - name: [GPTBot\n    rate_limit: 5/minute\n",
			":5:11: not YAML or JSON: did not find expected ',' or ']'"},
		{"an unclosed {", "name: Shop\nurl: https://shop.example\nserve: {robots: true\nfoo: 1\n", ":3:8: not YAML or JSON: did not find expected ',' or '}'"},
		{"a bad indentation", "name: Shop\nurl: https://shop.example\nagents:\n  - name: GPTBot\n   rate_limit: 5/minute\n", ":5:4: not YAML or JSON: did not find expected '-' indicator"},
		{"a tab", "name: Shop\nagents:\n\t- name: GPTBot\n", ":3:1: not YAML or JSON: found character that cannot start any token"},
		{"an unterminated quoted string", "name: \"Shop\nurl: https://shop.example\nagents: []\n", ":1:7: not YAML or JSON: found unexpected end of stream"},
		// yaml.v3 reports no duplicate key in a node tree: the decoder
		// does, at the key's line (no column: it is no syntax error).
		{"a duplicate key", "name: Shop\nurl: https://shop.example\ndescription: Mugs\nimplicit_access: all-agents\nname: Other\n", `:5: key "name" is already set on line 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "site.yaml")
			if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := run([]string{"lint", file}, &out, &errb); code != 1 {
				t.Fatalf("lint: exit %d, want 1\n%s%s", code, out.String(), errb.String())
			}
			if first, _, _ := strings.Cut(out.String(), "\n"); first != file+c.want {
				t.Errorf("lint printed %q, want %q first", out.String(), file+c.want)
			}
		})
	}
}
