package enforce

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/agentready/agentready/internal/policy"
)

// canonicalTarget answers with the canonical form itself, or "".
func TestCanonicalTarget(t *testing.T) {
	for _, tc := range []struct {
		name, target, requestURI string
		ok                       bool
	}{
		{"path", "/api/search", "", true},
		{"path and query", "/api/search?q=tent", "", true},
		{"empty query is dropped", "/api/search?", "", true},
		{"absolute form", "/api/search?q=tent", "http://example.com/api/search?q=tent", true},
		{"other target", "/api/search?q=tent", "/api/search?q=tenT", true},
		{"escaped query", "/api/search?q=%7e", "", false},
		{"dot segment", "/api/../admin?q=1", "", false},
		{"double slash", "//admin", "", false},
		{"escaped path", "/a%2Fb?q=1", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", tc.target, nil)
			if tc.requestURI != "" {
				r.RequestURI = tc.requestURI
			}
			raw := r.URL.EscapedPath()
			got := canonicalTarget(r, raw)
			if ok := got != ""; ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if want := string(policy.Canonical(nil, raw, r.URL.RawQuery)); got != "" && got != want {
				t.Errorf("canonicalTarget = %q, Canonical = %q", got, want)
			}
		})
	}
}

// FuzzUnescapesTo holds unescapesTo to net/url: raw decodes to path
// exactly when url.PathUnescape(raw) == path.
func FuzzUnescapesTo(f *testing.F) {
	for _, s := range [][2]string{{"/a%3Bb", "/a;b"}, {"/s%65arch", "/search"}, {"/a%2Fb", "/a/b"}, {"/x", "/y"}, {"/%zz", "/%zz"}, {"/a%", "/a%"}, {"/%41", "/A"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, raw, path string) {
		want, err := url.PathUnescape(raw)
		if got := unescapesTo(raw, path); got != (err == nil && want == path) {
			t.Fatalf("unescapesTo(%q, %q) = %v; url.PathUnescape gives %q, %v", raw, path, got, want, err)
		}
		if err == nil && !unescapesTo(raw, want) {
			t.Fatalf("unescapesTo(%q, %q) = false", raw, want)
		}
	})
}
