package endpoint

import (
	"net/url"
	"strings"
	"testing"
)

// TestEndpoint holds the two cuts side by side: Path takes the path
// of any URL; Relative only of one on the site's origin, and keeps
// everything else as written.
func TestEndpoint(t *testing.T) {
	origin := Origin("https://shop.example")
	tests := []struct{ endpoint, path, relative string }{
		{"", "/", ""},
		{"/", "/", "/"},
		{"/already/a/path", "/already/a/path", "/already/a/path"},
		{"/api/search#frag", "/api/search", "/api/search#frag"},
		{"/api/jobs/{job_id}", "/api/jobs/{job_id}", "/api/jobs/{job_id}"},
		{"https://shop.example/api/search", "/api/search", "/api/search"},
		{"HTTPS://SHOP.example/api/search", "/api/search", "/api/search"},
		{"https://shop.example", "/", "/"},
		{"https://shop.example?q=1", "/?q=1", "/?q=1"},
		{"https://shop.example/x?", "/x?", "/x?"},
		{"https://shop.example/api/jobs/{job_id}", "/api/jobs/{job_id}", "/api/jobs/{job_id}"},
		{"https://shop.example/api/{version}/items/{id}?fields={fields}", "/api/{version}/items/{id}?fields={fields}", "/api/{version}/items/{id}?fields={fields}"},
		{"https://shop.example/a%20b?x=%2F#frag", "/a%20b?x=%2F", "/a%20b?x=%2F"},
		{"https://shop.example/a%41", "/a%41", "/a%41"},
		{"http://shop.example/api", "/api", "http://shop.example/api"},
		{"https://shop.example:8443/api", "/api", "https://shop.example:8443/api"},
		{"https://mcp.shop.example/", "/", "https://mcp.shop.example/"},
		{"https://mcp.shop.example/jobs/{job_id}", "/jobs/{job_id}", "https://mcp.shop.example/jobs/{job_id}"},
		{"https://user@shop.example/api", "/api", "https://user@shop.example/api"},
		{"https://user:pw@shop.example/api", "/api", "https://user:pw@shop.example/api"},
		{"https://[::1]:8080/x?y=1", "/x?y=1", "https://[::1]:8080/x?y=1"},
		{"//shop.example/x", "/x", "//shop.example/x"},
		{"?q=1", "/?q=1", "?q=1"},
		{"relative/path", "relative/path", "relative/path"},
		{"mailto:ops@shop.example", "/", "mailto:ops@shop.example"},
		{"mailto:ops@shop.example?subject=x", "/?subject=x", "mailto:ops@shop.example?subject=x"},
		{"https://shop.example/%zz", "https://shop.example/%zz", "https://shop.example/%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.endpoint, func(t *testing.T) {
			if got := Path(tt.endpoint); got != tt.path {
				t.Errorf("Path(%q) = %q, want %q", tt.endpoint, got, tt.path)
			}
			if got := Relative(origin, tt.endpoint); got != tt.relative {
				t.Errorf("Relative(%q) = %q, want %q", tt.endpoint, got, tt.relative)
			}
		})
	}
}

// TestRelativeOrigin: the origin is the site URL's scheme and host,
// port included; its path plays no part.
func TestRelativeOrigin(t *testing.T) {
	tests := []struct{ site, endpoint, want string }{
		{"https://s.example:8443/shop", "https://s.example:8443/api/{id}", "/api/{id}"},
		{"https://s.example:8443/shop", "https://s.example/api", "https://s.example/api"},
		{"https://S.Example/", "https://s.example/x", "/x"},
		{"http://localhost:8080", "http://localhost:8080/api", "/api"},
		{"", "https://s.example/x", "https://s.example/x"},
		{"s.example", "https://s.example/x", "https://s.example/x"},
		{"https://s.example/%zz", "https://s.example/x", "https://s.example/x"},
	}
	for _, tt := range tests {
		t.Run(tt.site+" "+tt.endpoint, func(t *testing.T) {
			origin := Origin(tt.site)
			if got := Relative(origin, tt.endpoint); got != tt.want {
				t.Errorf("Relative(%q) on %q = %q, want %q", tt.endpoint, tt.site, got, tt.want)
			}
		})
	}
}

// FuzzRelative: the result is the endpoint itself or a path that
// the endpoint ends with (before any fragment), and then the one
// Path cuts.
func FuzzRelative(f *testing.F) {
	for _, s := range []string{"https://shop.example/a?b#c", "/x", "https://shop.example", "https://SHOP.example:443/x", "::", "https://shop.example/jobs/{id}"} {
		f.Add(s)
	}
	origin := Origin("https://shop.example")
	f.Fuzz(func(t *testing.T, endpoint string) {
		got := Relative(origin, endpoint)
		if got == endpoint {
			return
		}
		if !strings.HasPrefix(got, "/") {
			t.Fatalf("%q -> %q: not a path", endpoint, got)
		}
		e, _, _ := strings.Cut(endpoint, "#")
		if got != "/" && !strings.HasSuffix(e, strings.TrimPrefix(got, "/")) {
			t.Fatalf("%q -> %q: not a suffix of the endpoint", endpoint, got)
		}
		if p := Path(endpoint); got != p {
			t.Fatalf("%q -> %q, but Path gives %q", endpoint, got, p)
		}
	})
}

// FuzzPath: the result is the endpoint itself when it does not
// parse, else text the endpoint ends with (before any fragment), with at
// most a "/" put in front; and it means what the parsed URL means, so that
// cutting the text loses nothing re-serialising would have kept.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"https://shop.example/a?b#c", "/x", "", "//h/x", "///x", "mailto:a@b?c", "https://shop.example/jobs/{id}", "/a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, endpoint string) {
		got := Path(endpoint)
		u, err := url.Parse(endpoint)
		if err != nil {
			if got != endpoint {
				t.Fatalf("%q does not parse, but came back as %q", endpoint, got)
			}
			return
		}
		e, _, _ := strings.Cut(endpoint, "#")
		if !strings.HasSuffix(e, got) && !(strings.HasPrefix(got, "/") && strings.HasSuffix(e, got[1:])) {
			t.Fatalf("%q -> %q: not a suffix of the endpoint", endpoint, got)
		}
		if strings.HasPrefix(got, "//") {
			return // a path of its own would read as an authority
		}
		p, err := url.Parse(got)
		if err != nil {
			t.Fatalf("%q -> %q, which does not parse: %v", endpoint, got, err)
		}
		want := u.Path
		if want == "" {
			want = "/" // documented: an empty path (or an opaque URL's) is "/"
		}
		if p.Path != want || p.RawQuery != u.RawQuery {
			t.Fatalf("%q -> %q: path %q query %q, want path %q query %q", endpoint, got, p.Path, p.RawQuery, want, u.RawQuery)
		}
	})
}
