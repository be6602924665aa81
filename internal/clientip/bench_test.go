package clientip

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func BenchmarkResolver(b *testing.B) {
	c, err := New([]string{"10.0.0.0/8", "2001:db8:ffff::/48"})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, remote, xff string }{
		{"direct-v4", "203.0.113.7:5555", ""},
		{"direct-v6", "[2001:db8:1::7]:5555", ""},
		{"proxied-chain", "10.1.1.1:80", "6.6.6.6, 198.51.100.1, 10.2.2.2, 10.3.3.3"},
		{"proxied-garbage", "10.1.1.1:80", "198.51.100.1, not-an-address"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.remote
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = Key(c.Addr(r))
			}
		})
	}
}
