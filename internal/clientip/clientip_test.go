package clientip

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []string
		want    []string // prefixes, when valid
		errs    []string // substrings of the error, when not
		nerrors int
	}{
		{name: "none", in: nil, want: []string{}},
		{name: "CIDRs and single addresses", in: []string{"10.0.0.0/8", " 192.0.2.10 ", "2001:db8::/32", "::1"},
			want: []string{"10.0.0.0/8", "192.0.2.10/32", "2001:db8::/32", "::1/128"}},
		{name: "host bits masked", in: []string{"10.1.2.3/8"}, want: []string{"10.0.0.0/8"}},
		{name: "4in6 means IPv4", in: []string{"::ffff:10.0.0.0/104", "::ffff:192.0.2.1"},
			want: []string{"10.0.0.0/8", "192.0.2.1/32"}},
		{name: "every problem reported", in: []string{"", "10.0.0.0/33", "not-an-ip", "fe80::1%eth0", "10.0.0.1"},
			errs: []string{`0 ""`, "empty entry", `1 "10.0.0.0/33"`, "not a CIDR", `2 "not-an-ip"`, "not an IP address or CIDR", `3 "fe80::1%eth0"`, "zone"}, nerrors: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.in)
			if tc.errs != nil {
				if err == nil {
					t.Fatal("no error")
				}
				for _, s := range tc.errs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != tc.nerrors {
					t.Errorf("%d errors, want %d", n, tc.nerrors)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(c.trusted))
			for i, p := range c.trusted {
				got[i] = p.String()
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("trusted = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestResolverAddr(t *testing.T) {
	proxies, err := New([]string{"10.0.0.0/8", "2001:db8:ffff::/48", "192.0.2.254"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		c       *Resolver
		remote  string
		xff     []string
		want    string // "" for the invalid Addr
		comment string
	}{
		{name: "no proxies, no header", c: nil, remote: "203.0.113.7:5555", want: "203.0.113.7"},
		{name: "no proxies: XFF ignored", c: nil, remote: "203.0.113.7:5555", xff: []string{"198.51.100.1"}, want: "203.0.113.7"},
		{name: "untrusted peer: XFF ignored", c: proxies, remote: "203.0.113.7:5555", xff: []string{"198.51.100.1"}, want: "203.0.113.7"},
		{name: "trusted peer without header is the client", c: proxies, remote: "10.1.1.1:80", want: "10.1.1.1"},
		{name: "trusted peer: rightmost entry", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "chain of trusted proxies", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1, 10.2.2.2, 192.0.2.254"}, want: "198.51.100.1"},
		{name: "attacker-prepended entries never reached", c: proxies, remote: "10.1.1.1:80", xff: []string{"1.1.1.1, 2.2.2.2, 198.51.100.1, 10.2.2.2"}, want: "198.51.100.1"},
		{name: "attacker prepends a trusted address", c: proxies, remote: "10.1.1.1:80", xff: []string{"10.9.9.9, 198.51.100.1"}, want: "198.51.100.1"},
		{name: "several header lines, last line last", c: proxies, remote: "10.1.1.1:80", xff: []string{"1.1.1.1", "198.51.100.1, 10.2.2.2", "10.3.3.3"}, want: "198.51.100.1"},
		{name: "walk crosses header lines", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1", "10.2.2.2"}, want: "198.51.100.1"},
		{name: "all trusted: leftmost hop", c: proxies, remote: "10.1.1.1:80", xff: []string{"10.3.3.3, 10.2.2.2"}, want: "10.3.3.3"},
		{name: "garbage stops at the last trusted hop", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1, garbage, 10.2.2.2"}, want: "10.2.2.2"},
		{name: "garbage right away keeps the peer", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1, unknown"}, want: "10.1.1.1"},
		{name: "empty elements and whitespace ignored", c: proxies, remote: "10.1.1.1:80", xff: []string{" ,\t198.51.100.1 ,, ", ""}, want: "198.51.100.1"},
		{name: "entry with port", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1:4711"}, want: "198.51.100.1"},
		{name: "bracketed IPv6 entry with port", c: proxies, remote: "10.1.1.1:80", xff: []string{"[2001:db8:1::5]:4711"}, want: "2001:db8:1::5"},
		{name: "IPv6 entry with zone", c: proxies, remote: "10.1.1.1:80", xff: []string{"fe80::1%eth0"}, want: "fe80::1"},
		{name: "4in6 entry unmapped, then trusted", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1, ::ffff:10.2.2.2"}, want: "198.51.100.1"},
		{name: "IPv6 trusted proxy", c: proxies, remote: "[2001:db8:ffff::1]:443", xff: []string{"2001:db8:1::5"}, want: "2001:db8:1::5"},
		{name: "4in6 peer is trusted as IPv4", c: proxies, remote: "[::ffff:10.1.1.1]:80", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "zoned peer", c: nil, remote: "[fe80::1%eth0]:80", want: "fe80::1"},
		{name: "peer without port", c: nil, remote: "203.0.113.7", want: "203.0.113.7"},
		{name: "IPv6 peer without port", c: nil, remote: "2001:db8::7", want: "2001:db8::7"},
		{name: "unparseable peer", c: proxies, remote: "pipe", xff: []string{"198.51.100.1"}, want: ""},
		{name: "empty peer", c: nil, remote: "", want: ""},
		{name: "bad port", c: nil, remote: "203.0.113.7:99999", want: ""},
		{name: "IPv4 in brackets", c: nil, remote: "[203.0.113.7]:80", want: ""},
		{name: "unclosed bracket", c: nil, remote: "[2001:db8::7:80", want: ""},
		{name: "leading zero octet", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.051.100.1"}, want: "10.1.1.1"},
		{name: "zone on IPv4", c: proxies, remote: "10.1.1.1:80", xff: []string{"198.51.100.1%eth0"}, want: "10.1.1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := tc.c.Addr(r)
			if tc.want == "" {
				if got.IsValid() {
					t.Errorf("Addr = %v, want invalid", got)
				}
				return
			}
			if got != netip.MustParseAddr(tc.want) {
				t.Errorf("Addr = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClientKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"203.0.113.7", "203.0.113.7/32"},
		{"::ffff:203.0.113.7", "203.0.113.7/32"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"", "invalid Prefix"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var a netip.Addr
			if tc.in != "" {
				a = netip.MustParseAddr(tc.in)
			}
			if got := Key(a).String(); got != tc.want {
				t.Errorf("Key(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
	// Two addresses of one /64 share a key; neighbouring /64s do not.
	a, b := netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::ffff:1")
	if Key(a) != Key(b) {
		t.Error("one /64, two keys")
	}
	if Key(a) == Key(netip.MustParseAddr("2001:db8:0:1::1")) {
		t.Error("two /64s, one key")
	}
}

// Whatever the headers, Addr never panics, returns a normalised address,
// and ignores X-Forwarded-For from an untrusted peer.
func FuzzResolverAddr(f *testing.F) {
	f.Add("10.1.1.1:80", "198.51.100.1, 10.2.2.2", "")
	f.Add("203.0.113.7:1", "1.1.1.1", "2.2.2.2")
	f.Add("[::ffff:10.0.0.1]:9", "[fe80::1%25eth0]:80,,x", "::ffff:1.2.3.4")
	c, err := New([]string{"10.0.0.0/8", "2001:db8::/32"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, remote, xff1, xff2 string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{"X-Forwarded-For": {xff1, xff2}}}
		got := c.Addr(r)
		if got.IsValid() && (got.Is4In6() || got.Zone() != "") {
			t.Fatalf("Addr = %v: not normalised", got)
		}
		peer, ok := ParseHostPort(remote)
		if !ok && got.IsValid() {
			t.Fatalf("unparseable peer %q gave %v", remote, got)
		}
		if ok && !c.Trusted(peer) && got != peer {
			t.Fatalf("untrusted peer %v, Addr %v: X-Forwarded-For was trusted", peer, got)
		}
	})
}
