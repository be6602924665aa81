package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
)

// TestStarNotes: a trailing '*' is noted where dropping it changes no
// verdict, and only there: never where nothing is left, and never where
// the shorter pattern would lose to a rule of the other kind.
func TestStarNotes(t *testing.T) {
	for _, c := range []struct {
		name            string
		allow, disallow []string
		want            []string // the patterns noted
	}{
		{"admin", nil, []string{"/admin/*", "/internal/*"}, []string{`"/admin/*" is "/admin/"`, `"/internal/*" is "/internal/"`}},
		{"root", []string{"/api/*"}, []string{"/*"}, []string{`"/api/*" is "/api/"`, `"/*" is "/"`}},
		{"several stars", nil, []string{"/a/**"}, []string{`"/a/**" is "/a/"`}},
		{"nothing left", nil, []string{"*"}, nil},
		{"only stars", []string{"**"}, []string{"/x"}, nil},
		{"a tie lost", []string{"/ab*"}, []string{"/abc"}, nil},
		{"a lead lost", []string{"/abcd"}, []string{"/abc**"}, nil},
		{"an allow that ties after", []string{"/a"}, []string{"/a*"}, nil},
		{"a lead kept", []string{"/ab*"}, []string{"/a"}, []string{`"/ab*" is "/ab"`}},
		{"anchored", nil, []string{"/a*$", "/*.pdf$"}, nil},
		{"inner star", nil, []string{"/*.pdf*"}, []string{`"/*.pdf*" is "/*.pdf"`}},
		{"no star", []string{"/api/"}, []string{"/admin"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := config.Site{Access: config.Access{Allow: c.allow, Disallow: c.disallow}}
			notes := starNotes("f.yaml", &s, config.Lines{})
			if len(notes) != len(c.want) {
				t.Fatalf("notes %q, want %q", notes, c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(notes[i], w) {
					t.Errorf("note %q, want %q", notes[i], w)
				}
			}
		})
	}
}

// TestStarNotesChangeNoVerdict: on every path the cases' patterns reach,
// the rules with every noted '*' dropped decide as the declared ones do
// (policy.Rules, the matcher agentready enforces with).
func TestStarNotesChangeNoVerdict(t *testing.T) {
	allow := []string{"/ab*", "/api/*", "/x/*.pdf*", "/m*"}
	disallow := []string{"/a", "/abc", "/x/*", "/*", "/mn*"}
	s := config.Site{Access: config.Access{Allow: allow, Disallow: disallow}}
	notes := starNotes("f.yaml", &s, config.Lines{})
	shorten := func(list []string, key string) []string {
		out := append([]string(nil), list...)
		for i, p := range out {
			for _, n := range notes {
				if strings.Contains(n, "access."+key+"[") && strings.Contains(n, `: "`+p+`" is`) {
					out[i] = strings.TrimRight(p, "*")
				}
			}
		}
		return out
	}
	before, err := policy.CompileRules(allow, disallow)
	if err != nil {
		t.Fatal(err)
	}
	after, err := policy.CompileRules(shorten(allow, "allow"), shorten(disallow, "disallow"))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) == 0 || len(notes) == len(allow)+len(disallow) {
		t.Fatalf("notes %q: the case should note some patterns and not others", notes)
	}
	for _, p := range []string{"/", "/a", "/ab", "/abc", "/abcd", "/api", "/api/", "/api/x", "/x/", "/x/a.pdf", "/x/a.pdfz",
		"/x/b", "/m", "/mn", "/mno", "/other", "/ab*", "/a?q"} {
		path, query, _ := strings.Cut(p, "?")
		canon := string(policy.Canonical(nil, path, query))
		b, bok := before.Match(canon)
		a, aok := after.Match(canon)
		if bok != aok || (bok && b.Allow != a.Allow) {
			t.Errorf("%s: declared %v %+v, shortened %v %+v (notes %q)", p, bok, b, aok, a, notes)
		}
	}
}

// TestLintStarNote: lint prints the note at the pattern's line, and the
// file stays valid.
func TestLintStarNote(t *testing.T) {
	src := "name: x\nurl: https://x.example\ndescription: d\ncontact: a@x.example\naccess:\n  allow: [\"/ab*\"]\n  disallow:\n    - /abc\n    - \"/admin/*\"\n"
	file := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := lint([]string{file}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), `site.yaml:9: note: access.disallow[1]: "/admin/*" is "/admin/"`) ||
		strings.Contains(out.String(), `"/ab*" is`) {
		t.Errorf("lint: exit %d:\n%s%s", code, &out, &errOut)
	}
}

// TestRenderWritesPatternsAsDeclared: render keeps a pattern's trailing
// '*' when declared, and writes none where none is: the note is lint's
// suggestion, never a rewrite.
func TestRenderWritesPatternsAsDeclared(t *testing.T) {
	src := "name: x\nurl: https://x.example\ndescription: d\ncontact: a@x.example\naccess:\n  allow: [\"/ab*\", /api/]\n  disallow: [/abc, \"/admin/*\"]\n"
	file := filepath.Join(t.TempDir(), "site.yaml")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := render([]string{file}, &out, &errOut); code != 0 {
		t.Fatalf("render: exit %d: %s", code, &errOut)
	}
	for _, want := range []string{"\nAllow: /ab*\n", "\nAllow: /api/\n", "\nDisallow: /abc\n", "\nDisallow: /admin/*\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, &out)
		}
	}
}

// TestShippedDeclarationsHaveNoStarNote: the example declaration lints
// without a trailing-'*' note.
func TestShippedDeclarationsHaveNoStarNote(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := lint([]string{"../../examples/stdlib/site.yaml"}, &out, &errOut); code != 0 || strings.Contains(out.String(), "trailing '*'") {
		t.Errorf("lint: exit %d:\n%s%s", code, &out, &errOut)
	}
}
