package policy

import (
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, path, query, want string
	}{
		{"root", "/", "", "/"},
		{"empty path", "", "", "/"},
		{"relative path gets a root", "admin", "", "/admin"},
		{"unreserved escape decoded", "/%61dmin", "", "/admin"},
		{"unreserved escapes of every class", "/%41%7a%30%2D%2e%5F%7e", "", "/Az0-._~"},
		{"reserved escape upper-cased", "/a%3cb%3Fc", "", "/a%3Cb%3Fc"},
		{"sub-delim escape kept (RFC 9309 2.2.2)", "/a%3bb", "", "/a%3Bb"},
		{"encoded slash kept", "/a%2fb", "", "/a%2Fb"},
		{"dot segments kept", "/x/../admin", "", "/x/../admin"},
		{"empty segments kept", "//admin", "", "//admin"},
		{"invalid escape", "/a%zz", "", "/a%25zz"},
		{"truncated escape", "/a%4", "", "/a%254"},
		{"lone percent", "/a%", "", "/a%25"},
		{"percent cannot build an escape", "/a%%32%46b", "", "/a%252Fb"},
		{"star is escaped in a request", "/a*b", "", "/a%2Ab"},
		{"dollar is escaped in a request", "/a$", "", "/a%24"},
		{"space and controls encoded", "/a b\x00\x7f", "", "/a%20b%00%7F"},
		{"non-ASCII encoded (RFC 9309 2.2.2)", "/foo/bar/ツ", "", "/foo/bar/%E3%83%84"},
		{"sub-delims stay", "/a!&'()+,;=:@b", "", "/a!&'()+,;=:@b"},
		{"question mark in path encoded", "/a?b", "", "/a%3Fb"},
		{"query appended", "/search", "q=go", "/search?q=go"},
		{"query escapes normalised", "/s", "q=%7e%2f%2a", "/s?q=~%2F%2A"},
		{"query keeps slashes and dots", "/s", "next=/a/../b", "/s?next=/a/../b"},
		{"query star escaped", "/s", "q=*", "/s?q=%2A"},
		{"query invalid escape", "/s", "q=%", "/s?q=%25"},
		{"query with question mark", "/s", "a?b", "/s?a?b"},
		{"empty query omitted", "/s", "", "/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Canonical(nil, tt.path, tt.query))
			if got != tt.want {
				t.Errorf("Canonical(%q, %q) = %q, want %q", tt.path, tt.query, got, tt.want)
			}
		})
	}
}

func TestDecoded(t *testing.T) {
	tests := []struct{ path, query, want string }{
		{"/a%3Bb", "", "/a;b"},
		{"/a%3bb%3A%40%2C%3D%2B%21%26%27%28%29", "", "/a;b:@,=+!&'()"},
		{"/a%2Ab%24", "", "/a%2Ab%24"}, // operators stay encoded
		{"/a%2Fb", "", "/a%2Fb"},
		{"/a%20b%3F", "", "/a%20b%3F"},
		{"/%61", "q=%3B", "/a?q=%3B"}, // the query is not routed
	}
	for _, tt := range tests {
		if got := string(Decoded(nil, tt.path, tt.query)); got != tt.want {
			t.Errorf("Decoded(%q, %q) = %q, want %q", tt.path, tt.query, got, tt.want)
		}
		want := string(Canonical(nil, tt.path, "")) != string(Decoded(nil, tt.path, ""))
		if got := HasDecodable(tt.path); got != want {
			t.Errorf("HasDecodable(%q) = %v, want %v", tt.path, got, want)
		}
	}
}

func TestCanonicalAppends(t *testing.T) {
	buf := []byte("keep:")
	buf = Canonical(buf, "/a%7e", "b=1")
	if got := string(buf); got != "keep:/a~?b=1" {
		t.Fatalf("got %q", got)
	}
}

func TestCanonicalAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		buf = Canonical(buf[:0], "/x/%61dmin/%7euser/page.html", "q=%7e&x=1")
		buf = Decoded(buf[:0], "/x/a%3Bb", "")
		_, _ = NormalPath("/x/admin/%C3%A9/page.html")
	})
	if allocs != 0 {
		t.Fatalf("Canonical allocates %v times per call with a large enough buffer", allocs)
	}
}

func TestCanonicalPattern(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/", "/"},
		{"/%61dmin", "/admin"},
		{"/admin/", "/admin/"},
		{"/fish*", "/fish*"},
		{"/*.php$", "/*.php$"},
		{"*.php$", "*.php$"},
		{"*", "*"},
		{"/$", "/$"},
		{"/path/file-with-a-%2a.html", "/path/file-with-a-%2A.html"},
		{"/search?q=%7e*", "/search?q=~*"},
		{"/*?sessionid=", "/*?sessionid="},
		{"/caf\u00e9", "/caf%C3%A9"},
		{"/a?", "/a?"},
		{"/a;b", "/a;b"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := canonicalPattern(tt.in); got != tt.want {
				t.Errorf("canonicalPattern(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzCanonical checks the invariants of the canonical form on any input:
// no panic, a rooted path, only upper-case escapes of bytes that are not
// unreserved, no raw operators, idempotence, and Decoded differing only
// where HasDecodable says.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"/", "/x/..%2fadmin", "//a/./b/../c", "/%zz%", "/a?b", "/ツ*$", "%2e%2E/%2f", "/a%3Bb"} {
		f.Add(s, "q=%7e*")
	}
	f.Fuzz(func(t *testing.T, path, query string) {
		out := string(Canonical(nil, path, query))
		p, q, hasQ := strings.Cut(out, "?")
		if !strings.HasPrefix(p, "/") {
			t.Fatalf("not rooted: %q", out)
		}
		if hasQ != (query != "") {
			t.Fatalf("query presence changed: %q", out)
		}
		for i := 0; i < len(out); i++ {
			c := out[i]
			if c == '*' || c == '$' || c <= ' ' || c >= 0x7f {
				t.Fatalf("raw %q in %q", c, out)
			}
			if c == '%' {
				if i+2 >= len(out) {
					t.Fatalf("truncated escape in %q", out)
				}
				v, ok := escapeAt(out, i)
				if !ok || strings.ToUpper(out[i+1:i+3]) != out[i+1:i+3] || urlClass[v]&clsUnreserved != 0 {
					t.Fatalf("non-canonical escape %q in %q", out[i:i+3], out)
				}
			}
		}
		again := string(Canonical(nil, p, q))
		if again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", path, out, again)
		}
		dec := string(Decoded(nil, path, query))
		if (dec != out) != HasDecodable(path) {
			t.Fatalf("HasDecodable(%q) = %v, but Canonical %q, Decoded %q", path, HasDecodable(path), out, dec)
		}
	})
}
