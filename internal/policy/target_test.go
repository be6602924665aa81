package policy

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/":                       "/",
		"/api/search":             "/api/search",
		"/.well-known/agents.txt": "/.well-known/agents.txt",
		"/a/..b/.c/...":           "/a/..b/.c/...",
		"/file%2Ephp":             "/file.php",
		"/%61dmin/x":              "/admin/x",
		"/a%3bb":                  "/a%3Bb",
		"/a/":                     "/a/",
		"/cart;jsessionid=A1":     "/cart;jsessionid=A1",
		"/cart/;jsessionid=A1":    "/cart/;jsessionid=A1",
		"/wiki/Foo_(bar)":         "/wiki/Foo_(bar)",
		"/p/o'brien":              "/p/o'brien",
		"/p/a+b":                  "/p/a+b",
		"/u/@alice":               "/u/@alice",
		"/p/a:b":                  "/p/a:b",
		"/p/caf%c3%a9":            "/p/caf%C3%A9",
		"/p/caf\u00e9":            "/p/caf%C3%A9",
		"/p/a*b$c!&=,":            "/p/a*b$c!&=,",
		"/p/[1]":                  "/p/[1]",
		"/p/a|b^c":                "/p/a%7Cb%5Ec",
		"/p/a b\"<>`{}":           "/p/a%20b%22%3C%3E%60%7B%7D",
		"/p/a%20b":                "/p/a%20b",
		"/p/%7euser":              "/p/~user",
		"/p/100%25":               "/p/100%25",
		"/p/%e2%82%ac":            "/p/%E2%82%AC",
	} {
		got, err := NormalPath(in)
		if err != nil || got != want {
			t.Errorf("NormalPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestNormalPathRefuses(t *testing.T) {
	for in, want := range map[string]*TargetError{
		"":                          ErrNotOriginForm,
		"*":                         ErrNotOriginForm,
		"example.com:443":           ErrNotOriginForm,
		"/admin/..%2Fapi":           ErrEncodedSlash,
		"/a%2fb":                    ErrEncodedSlash,
		"/admin/%2e%2e/x":           ErrDotSegment,
		"/admin/.%2e/x":             ErrDotSegment,
		"/admin/%2E/x":              ErrDotSegment,
		"/admin/../x":               ErrDotSegment,
		"/admin/./x":                ErrDotSegment,
		"/admin/..":                 ErrDotSegment,
		"/.":                        ErrDotSegment,
		"/api/..;/admin/users":      ErrDotSegment,
		"/api/search/..;/..;/admin": ErrDotSegment,
		"/api/%2e%2e;/admin/users":  ErrDotSegment,
		"/api/..;x=1/admin":         ErrDotSegment,
		"/api/.;/admin":             ErrDotSegment,
		"/api/..%3B/admin":          ErrDotSegment,
		"/api/..;":                  ErrDotSegment,
		"//admin":                   ErrEmptySegment,
		"/a//b":                     ErrEmptySegment,
		"/;x/admin/users":           ErrEmptySegment,
		"/api/;/admin":              ErrEmptySegment,
		"/admin\\x":                 ErrBackslash,
		"/admin%5cx":                ErrBackslash,
		"/admin%00":                 ErrNUL,
		"/admin\x00":                ErrNUL,
		"/a%0Ab":                    ErrNUL,
		"/a%7F":                     ErrNUL,
		"/a\x7f":                    ErrNUL,
		"/a%zz":                     ErrBadEscape,
		"/a%4":                      ErrBadEscape,
		"/a%":                       ErrBadEscape,
		"/100%":                     ErrBadEscape,
		"/caf%E9":                   ErrNotUTF8,
		"/%C0%AE%C0%AE/admin":       ErrNotUTF8,
		"/a/\xff":                   ErrNotUTF8,
		"/a/%ED%A0%80":              ErrNotUTF8, // a UTF-16 surrogate
		"/a/%E2%82":                 ErrNotUTF8, // a truncated sequence
		"/a/%E2%82/%AC":             ErrNotUTF8, // split by a separator
	} {
		got, err := NormalPath(in)
		var te *TargetError
		if !errors.Is(err, want) || !errors.As(err, &te) {
			t.Errorf("NormalPath(%q) = %q, %v; want %v", in, got, err, want)
			continue
		}
		if te.Part != "" && !strings.Contains(in, te.Part) {
			t.Errorf("NormalPath(%q): part %q is not in the target", in, te.Part)
		}
		if in != "" && in[0] == '/' && te.Part == "" {
			t.Errorf("NormalPath(%q): %v names no part", in, err)
		}
	}
}

func TestStripParams(t *testing.T) {
	for in, want := range map[string]string{
		"/":                      "/",
		"/cart;jsessionid=A1":    "/cart",
		"/admin;x/users":         "/admin/users",
		"/admin;/users;a=b;c=d/": "/admin/users/",
		"/cart/;jsessionid=A1":   "/cart/",
		"/a%3Bb/c":               "/a%3Bb/c",
		"/api/orders;x/42":       "/api/orders/42",
	} {
		if got := StripParams(in); got != want {
			t.Errorf("StripParams(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlainPath(t *testing.T) {
	for _, p := range []string{"/", "/api/search", "/a/b/", "/file.html", "/a/.well-known/x", "/a/...", "/a*b$c!&=,'()+:@[]~_-"} {
		if !plainPath(p) {
			t.Errorf("plainPath(%q) = false", p)
		}
	}
	for _, p := range []string{"", "a", "//", "/a//b", "/.", "/..", "/a/./b", "/a/../b", "/a;b", "/a%20", "/a|b", "/a\\b", "/caf\u00e9", "/a b"} {
		if plainPath(p) {
			t.Errorf("plainPath(%q) = true", p)
		}
	}
}

func TestNormalPathAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = NormalPath("/api/v1/orders/42;x/items.json")
		_ = StripParams("/api/v1/orders/42")
	})
	if allocs != 0 {
		t.Fatalf("NormalPath allocates %v times for a canonical path", allocs)
	}
}

// FuzzNormalPath holds NormalPath to a reference built on net/url: a path
// it accepts decodes to what the input decodes to, in segments none of
// which is empty (but the last), "." or ".." with or without a ";"
// parameter; it is valid UTF-8 with no backslash or control byte; its
// escapes are upper case, of no unreserved byte; and it is its own
// canonical form.
func FuzzNormalPath(f *testing.F) {
	for _, s := range []string{"/", "/a/b", "/admin/..%2Fapi", "/a/%2e%2E/b", "//x", "/a\\b", "/a%5C", "/%00", "/a/.",
		"/.well-known/x", "/a%2Eb", "/..;/x", "/a;b/c", "/caf%e9", "/%c3%a9", "/a|b", "/%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		out, err := NormalPath(p)
		if plainPath(p) {
			// The fast path agrees with the scan.
			if slow, err := normalPath(p); err != nil || slow != p {
				t.Fatalf("plainPath(%q), but the scan gives %q, %v", p, slow, err)
			}
		}
		if err != nil {
			return
		}
		dec, err := url.PathUnescape(out)
		if err != nil {
			t.Fatalf("NormalPath(%q) = %q, which does not unescape: %v", p, out, err)
		}
		if in, err := url.PathUnescape(p); err != nil || in != dec {
			t.Fatalf("NormalPath(%q) = %q decodes to %q, the input to %q (%v)", p, out, dec, in, err)
		}
		if strings.Count(dec, "/") != strings.Count(p, "/") {
			t.Fatalf("NormalPath(%q) accepts an encoded slash", p)
		}
		if !utf8.ValidString(dec) {
			t.Fatalf("NormalPath(%q) accepts bytes that are not UTF-8", p)
		}
		segs := strings.Split(dec, "/")[1:]
		for i, s := range segs {
			base, _, _ := strings.Cut(s, ";")
			if base == "." || base == ".." || (base == "" && i < len(segs)-1) {
				t.Fatalf("NormalPath(%q) accepts segment %q", p, s)
			}
		}
		for i := 0; i < len(dec); i++ {
			if c := dec[i]; c == '\\' || c < 0x20 || c == 0x7f {
				t.Fatalf("NormalPath(%q) accepts byte %q", p, c)
			}
		}
		for i := 0; i < len(out); i++ {
			switch c := out[i]; {
			case c == '%':
				v, _ := escapeAt(out, i)
				if strings.ToUpper(out[i:i+3]) != out[i:i+3] || urlClass[v]&clsUnreserved != 0 {
					t.Fatalf("NormalPath(%q) = %q: escape %q", p, out, out[i:i+3])
				}
				i += 2
			case c >= 0x80 || c == '|' || c == '^' || c == ' ':
				t.Fatalf("NormalPath(%q) = %q: raw %q", p, out, c)
			}
		}
		if again, err := NormalPath(out); err != nil || again != out {
			t.Fatalf("NormalPath(NormalPath(%q)) = %q, %v; want %q", p, again, err, out)
		}
	})
}

func TestPathInfo(t *testing.T) {
	for in, want := range map[string][2]string{
		"/index.php/admin/users":      {"/admin/users", ""},
		"/INDEX.PHP/admin":            {"/admin", ""},
		"/a/app.php;x/api/search":     {"/api/search", ""},
		"/a.php/b.php/admin":          {"/b.php/admin", "/admin"},
		"/index.php":                  {"", ""},
		"/index.php/":                 {"/", ""},
		"/docs/v1.2/admin":            {"", ""},
		"/cgi-bin/run.cgi/x":          {"/x", ""},
		"/Default.aspx/api/orders/42": {"/api/orders/42", ""},
		"/.php/x":                     {"", ""},
		"/api/search":                 {"", ""},
	} {
		if first, last := PathInfo(in); first != want[0] || last != want[1] {
			t.Errorf("PathInfo(%q) = %q, %q; want %q, %q", in, first, last, want[0], want[1])
		}
	}
}

func TestCutParams(t *testing.T) {
	for in, want := range map[string]string{
		"/api/search;/x": "/api/search", "/a;x/b": "/a", "/a/b": "/a/b", "/;x": "/",
	} {
		if got := CutParams(in); got != want {
			t.Errorf("CutParams(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripCookieless(t *testing.T) {
	for in, want := range map[string]string{
		"/(S(lit3py55t21z5v55vlm25s55))/orderform.aspx": "/orderform.aspx",
		"/(S(x))/admin/users":                           "/admin/users",
		"/app/(A(x)S(y)F(z))/admin":                     "/app/admin",
		"/(S(x))/":                                      "/",
		"/(S(x))":                                       "/",
		"/wiki/Foo_(bar)":                               "/wiki/Foo_(bar)",
		"/(s(x))/admin":                                 "/(s(x))/admin",
		"/(S(x)/admin":                                  "/(S(x)/admin",
		"/(S(a(b)))/admin":                              "/(S(a(b)))/admin",
		"/a/b/":                                         "/a/b/",
	} {
		if got := StripCookieless(in); got != want {
			t.Errorf("StripCookieless(%q) = %q, want %q", in, got, want)
		}
	}
}
