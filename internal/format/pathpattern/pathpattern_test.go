package pathpattern

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		pattern string
		err     string // substring of the error; "" when valid
	}{
		{"/", ""},
		{"*", ""},
		{"/api/*", ""},
		{"/*.pdf$", ""},
		{"/$", ""},
		{"*/private/*", ""},
		{"/a%20b", ""},
		{"/%E2%82%AC", ""},
		{"/ünïcödé", ""},
		{"/a**b", ""},
		{"/" + strings.Repeat("a", 2047), ""},

		{"", "empty pattern"},
		{"api/*", `must start with "/" or "*"`},
		{"$", `must start with "/" or "*"`},
		{"/a$b", `"$" may only be the last character`},
		{"/a$$", `"$" may only be the last character`},
		{"/a b", "whitespace"},
		{"/a\u00a0b", "whitespace"},
		{"/a\tb", "control character U+0009"},
		{"/a\nDisallow: /", "control character U+000A"},
		{"/a\x00", "control character U+0000"},
		{"/a\u0085", "control character U+0085"},
		{"/a#b", `contains "#"`},
		{"/100%", "does not start a %XX escape"},
		{"/a%2", "does not start a %XX escape"},
		{"/a%zz", "does not start a %XX escape"},
		{"/\xff", "not valid UTF-8"},
		{"/" + strings.Repeat("a", 2048), "2049 bytes long; at most 2048"},
	}
	for _, tt := range tests {
		name := tt.pattern
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		t.Run(name, func(t *testing.T) {
			err := Check(tt.pattern)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tt.pattern, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Check(%q) = %v, want an error containing %q", tt.pattern, err, tt.err)
			}
		})
	}
}

// FuzzCheck: Check never panics, and whatever it
// accepts obeys the documented syntax.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"/", "*", "/api/*", "/*.pdf$", "/a$b", "/a b", "/100%", "/%41", "", "/\xff", "/a#b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if Check(p) != nil {
			return
		}
		switch {
		case p == "" || len(p) > 2048 || !utf8.ValidString(p):
			t.Fatalf("accepted %q: empty, too long or not UTF-8", p)
		case p[0] != '/' && p[0] != '*':
			t.Fatalf("accepted %q, which does not start with / or *", p)
		case strings.Contains(p[:len(p)-1], "$"):
			t.Fatalf("accepted %q with a $ before its end", p)
		case strings.ContainsAny(p, "#"):
			t.Fatalf("accepted %q with a #", p)
		case strings.IndexFunc(p, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			t.Fatalf("accepted %q with whitespace or a control character", p)
		}
	})
}
