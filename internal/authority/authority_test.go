package authority

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNormalHost(t *testing.T) {
	for in, want := range map[string]string{
		"shop.example": "shop.example", "SHOP.Example.": "shop.example", "shop.example:443": "shop.example",
		"shop.example:80": "shop.example", "shop.example:8443": "shop.example:8443", "[::1]:8080": "[::1]:8080",
		"[::1]": "[::1]", "[::1]:443": "[::1]", "127.0.0.1:0": "127.0.0.1:0", "Shop.Example.:8443": "shop.example:8443",
	} {
		if got, ok := normalHost(in); !ok || got != want {
			t.Errorf("normalHost(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", ":80", "::1", "a:b:c", "shop.example:x", "[]:80", "."} {
		if got, ok := normalHost(bad); ok {
			t.Errorf("normalHost(%q) = %q, want refused", bad, got)
		}
	}
	if _, err := New([]string{"shop.example", "https://shop.example", "shop.example/x", "user@shop.example", ""}); err == nil ||
		!strings.Contains(err.Error(), "https://") || !strings.Contains(err.Error(), "/x") || !strings.Contains(err.Error(), "user@") {
		t.Errorf("bad entries: %v", err)
	}
}

// TestHostsCheck: a listed host in any spelling, the address the request
// arrived on and, on a loopback listener, localhost, 127.0.0.1 and [::1]
// on any port are admitted; anything else is refused with what is.
func TestHostsCheck(t *testing.T) {
	h, err := New([]string{"shop.example", "api.shop.example:8443"})
	if err != nil {
		t.Fatal(err)
	}
	req := func(host, local string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		if local != "" {
			a, err := net.ResolveTCPAddr("tcp", local)
			if err != nil {
				t.Fatal(err)
			}
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, a))
		}
		return r
	}
	for _, tc := range []struct {
		host, local string
		ok          bool
	}{
		{"shop.example", "", true},
		{"SHOP.EXAMPLE.", "", true},
		{"shop.example:443", "", true},
		{"api.shop.example:8443", "", true},
		{"api.shop.example", "", false},
		{"evil.example", "", false},
		{"shop.example.evil.example", "", false},
		{"", "", false},
		{"shop.example:8443", "", false},
		{"10.0.0.5:8080", "10.0.0.5:8080", true},
		{"10.0.0.5:8081", "10.0.0.5:8080", false},
		{"localhost:9999", "10.0.0.5:8080", false},
		{"localhost:9999", "127.0.0.1:8080", true},
		{"127.0.0.1", "127.0.0.1:8080", true},
		{"[::1]:1", "[::1]:8080", true},
		{"LOCALHOST.:1", "127.0.0.1:8080", true},
		{"evil.example", "127.0.0.1:8080", false},
	} {
		err := h.Check(req(tc.host, tc.local))
		if (err == nil) != tc.ok {
			t.Errorf("Host %q on %q: %v, want admitted %v", tc.host, tc.local, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "shop.example, api.shop.example:8443") {
			t.Errorf("Host %q: %v does not name the hosts admitted", tc.host, err)
		}
	}
}
