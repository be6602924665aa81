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
		{"double slash", "//admin", "", "/admin"},
		{"many slashes", "///a////b//", "", "/a/b/"},
		{"dot segment", "/./admin", "", "/admin"},
		{"dot dot segment", "/x/../admin", "", "/admin"},
		{"encoded dots", "/x/%2e%2e/admin", "", "/admin"},
		{"encoded slash lower", "/x/..%2fadmin", "", "/admin"},
		{"encoded slash upper", "/x/..%2Fadmin", "", "/admin"},
		{"mixed encoded dot", "/x/.%2E/admin", "", "/admin"},
		{"back into the same directory", "/admin/../admin/", "", "/admin/"},
		{"never above root", "/../../admin", "", "/admin"},
		{"trailing dot keeps slash", "/a/b/.", "", "/a/b/"},
		{"trailing dot dot keeps slash", "/a/b/..", "", "/a/"},
		{"dot dot at root", "/..", "", "/"},
		{"three dots is a name", "/a/.../b", "", "/a/.../b"},
		{"dotted names are names", "/a/..b/.c/", "", "/a/..b/.c/"},
		{"encoded slash is a separator", "/a%2Fb", "", "/a/b"},
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

func TestCanonicalAppends(t *testing.T) {
	buf := []byte("keep:")
	buf = Canonical(buf, "/x/../a", "b=1")
	if got := string(buf); got != "keep:/a?b=1" {
		t.Fatalf("got %q", got)
	}
	// The prefix already in dst is never touched by ".." handling.
	buf = Canonical(buf[:0], "/a/", "")
	buf = Canonical(buf, "/../../..", "")
	if got := string(buf); got != "/a//" {
		t.Fatalf("got %q", got)
	}
}

func TestCanonicalAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		buf = Canonical(buf[:0], "/x/..%2fadmin/%7euser//./page.html", "q=%7e&x=1")
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
		{"/x/..$", "/$"},
		{"/a//b/./c", "/a/b/c"},
		{"/path/file-with-a-%2a.html", "/path/file-with-a-%2A.html"},
		{"/search?q=%7e*", "/search?q=~*"},
		{"/*?sessionid=", "/*?sessionid="},
		{"/caf\u00e9", "/caf%C3%A9"},
		{"/a?", "/a"},
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
// no panic, a rooted path without empty or dot segments, only upper-case
// escapes of non-unreserved bytes, no raw operators, and idempotence.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"/", "/x/..%2fadmin", "//a/./b/../c", "/%zz%", "/a?b", "/ツ*$", "%2e%2E/%2f"} {
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
		for _, seg := range strings.Split(p[1:], "/")[:max(0, strings.Count(p, "/")-1)] {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("segment %q left in %q", seg, out)
			}
		}
		if last := p[strings.LastIndexByte(p, '/')+1:]; last == "." || last == ".." {
			t.Fatalf("dot segment left in %q", out)
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
	})
}

func TestIsCanonicalDots(t *testing.T) {
	for p, want := range map[string]bool{
		"/.well-known/agents.txt": true, "/.a": true, "/..a": true, "/a/.b/c": true, "/a.": true, "/a/b..": true,
		"/.": false, "/..": false, "/./a": false, "/../a": false, "/a/.": false, "/a/..": false, "/a/./b": false, "/a/../b": false,
	} {
		if got := IsCanonical(p, ""); got != want {
			t.Errorf("IsCanonical(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzIsCanonical: IsCanonical is true exactly when Canonical changes
// nothing, and then Canonical's fast path agrees with its general one.
func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{"/", "/api/search", "/a//b", "/./a", "/a/..", "/.well-known/x", "/%61", "/a b", "/a*", "/a$", "/..a", "/a/.", "/a/.b/"} {
		f.Add(s, "q=1")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, p, q string) {
		if !IsCanonical(p, q) {
			return
		}
		want := appendPath(nil, p, false)
		if q != "" {
			want = appendQuery(append(want, '?'), q, false)
		}
		got := p
		if q != "" {
			got += "?" + q
		}
		if string(want) != got {
			t.Fatalf("IsCanonical(%q, %q) but the general path gives %q", p, q, want)
		}
	})
}
