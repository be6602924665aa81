package config_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
)

// syntaxCases are YAML syntax errors, each with where its failing
// construct starts (line, column, 1-based) and the problem yaml.v3 names.
// yaml.v3 itself reports some of them a line early or at the end of the
// file (config/file_syntax.go says why).
var syntaxCases = []struct {
	name, src    string
	line, column int
	problem      string
}{
	{"an unclosed [ on line 5", "name: Shop\nurl: https://shop.example\ndescription: Mugs\nagents:\n  - name: [GPTBot\n    rate_limit: 5/minute\n",
		5, 11, "did not find expected ',' or ']'"},
	{"an unclosed [ on line 1", "tags: [a, b\nname: x\n", 1, 7, "did not find expected ',' or ']'"},
	{"an unclosed [ around a closed one", "name: x\naccess:\n  allow: [\"/a\", [\"/b\"]\n", 3, 10, "did not find expected ',' or ']'"},
	{"two unclosed [: the inner one", "name: x\naccess:\n  allow: [\"/a\", [\"/b\"\n", 3, 17, "did not find expected ',' or ']'"},
	{"an unclosed { on line 3", "name: Shop\nurl: https://shop.example\nserve: {robots: true\nfoo: 1\n", 3, 8, "did not find expected ',' or '}'"},
	{"an unclosed { in JSON on line 1", "{\"name\": \"x\",\n \"url\": \"u\"\n", 1, 1, "did not find expected ',' or '}'"},
	{"a [ closed by }", "name: x\nagents: [{name: a}}\n", 2, 9, "did not find expected ',' or ']'"},
	{"brackets in strings and comments do not count", "name: \"x [\" # {\ndescription: it's [ here\ntags: ['a]', b\n", 3, 7, "did not find expected ',' or ']'"},
	{"brackets in a block scalar do not count", "description: |\n  a [ b {\n  c\ntags: [a\n", 4, 7, "did not find expected ',' or ']'"},
	{"a bad indentation", "name: Shop\nurl: https://shop.example\nagents:\n  - name: GPTBot\n   rate_limit: 5/minute\n", 5, 4, "did not find expected '-' indicator"},
	{"a key indented under a value", "name: Shop\n  url: https://shop.example\n", 2, 6, "mapping values are not allowed in this context"},
	{"a second mapping indicator", "name: Shop: x\n", 1, 11, "mapping values are not allowed in this context"},
	{"a tab", "name: Shop\nagents:\n\t- name: GPTBot\n", 3, 1, "found character that cannot start any token"},
	{"a tab after spaces", "name: Shop\nagents:\n  - name: GPTBot\n  \trate_limit: 1/minute\n", 4, 3, "found a tab character that violates indentation"},
	{"an unterminated \" on line 1", "name: \"Shop\nurl: https://shop.example\nagents: []\n", 1, 7, "found unexpected end of stream"},
	{"an unterminated ' on line 2", "name: Shop\nurl: 'https://shop.example\nagents: []\n", 2, 6, "found unexpected end of stream"},
	{"an unterminated \" after an escaped one", "name: Shop\ndescription: \"a \\\" b\n", 2, 14, "found unexpected end of stream"},
	{"an unclosed [ at the end", "name: Shop\nurl: https://shop.example\ntags: [", 3, 7, "did not find expected node content"},
	{"an unknown escape on line 1", "name: \"a\\qb\"\n", 1, 7, "found unknown escape character"},
	{"a short \\u escape", "name: Shop\ndescription: 'ok \\q'\ncontact: \"\\u12\"\n", 3, 10, "did not find expected hexdecimal number"},
	{"a stray ] at the top", "name: Shop\n]\n", 2, 1, "did not find expected key"},
}

// TestSyntaxErrorPosition: a YAML syntax error is a *FileError at the line
// and column where its failing construct starts.
func TestSyntaxErrorPosition(t *testing.T) {
	for _, c := range syntaxCases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := config.ParseSite([]byte(c.src))
			var fe *config.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseSite: %v, want a *FileError", err)
			}
			if fe.Line != c.line || fe.Column != c.column {
				t.Errorf("at line %d, column %d, want line %d, column %d: %v", fe.Line, fe.Column, c.line, c.column, err)
			}
			if want := "not YAML or JSON: " + c.problem; fe.Msg != want {
				t.Errorf("Msg %q, want %q", fe.Msg, want)
			}
			if prefix := "line " + itoa(c.line) + ", column " + itoa(c.column) + ": not YAML or JSON: "; !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("%q does not begin %q", err, prefix)
			}
		})
	}
}

// TestDuplicateKeyLine: yaml.v3 decodes a key given twice into its node
// tree without a word; ParseSite reports it at the second key's line.
func TestDuplicateKeyLine(t *testing.T) {
	_, _, err := config.ParseSite([]byte("name: Shop\nurl: https://shop.example\nname: Other\n"))
	var fe *config.FileError
	if !errors.As(err, &fe) || fe.Line != 3 || !strings.Contains(fe.Msg, `key "name" is already set on line 1`) {
		t.Errorf("ParseSite: %v, want line 3: key \"name\" is already set on line 1", err)
	}
}

// FuzzSyntaxPosition: whatever the file, a syntax error's position is in
// it, and locating it never panics.
func FuzzSyntaxPosition(f *testing.F) {
	for _, c := range syntaxCases {
		f.Add(c.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, _, err := config.ParseSite([]byte(src))
		var fe *config.FileError
		if !errors.As(err, &fe) || fe.Column == 0 {
			return
		}
		lines := strings.Split(src, "\n")
		if fe.Line < 1 || fe.Line > len(lines) {
			t.Fatalf("line %d of a %d-line file: %v", fe.Line, len(lines), err)
		}
		if n := len([]rune(lines[fe.Line-1])) + 1; fe.Column < 1 || fe.Column > n {
			t.Fatalf("column %d of a line of %d characters: %v", fe.Column, n-1, err)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
