// Package clientip finds the address a request came from, past trusted
// proxies, and the network its rate limits are counted under.
package clientip

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// headerXForwardedFor is the de-facto forwarding header read, right to left,
// past trusted proxies. The RFC 7239 Forwarded header is not read.
const headerXForwardedFor = "X-Forwarded-For"

// Resolver finds the address a request came from, for rate limiting. By
// default no forwarding header is trusted: the client is RemoteAddr. When
// the peer is a trusted proxy, X-Forwarded-For is read from the right,
// skipping trusted proxies; the first untrusted address is the client, and
// a malformed entry ends the walk at the last trusted hop. IPv4-mapped
// addresses become IPv4 and zones are dropped. A nil *Resolver trusts no
// proxy.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver trusting the given proxies, each a CIDR
// ("10.0.0.0/8") or an address ("192.0.2.10"). Every invalid entry is
// reported at once.
func New(trustedProxies []string) (*Resolver, error) {
	c := &Resolver{trusted: make([]netip.Prefix, 0, len(trustedProxies))}
	var errs []error
	for i, s := range trustedProxies {
		p, err := ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			errs = append(errs, fmt.Errorf("clientip: trusted proxy %d %q: %w", i, s, err))
			continue
		}
		c.trusted = append(c.trusted, p)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// ParsePrefix parses a network given as a CIDR ("10.0.0.0/8") or a single
// address ("192.0.2.10"): host bits masked off, IPv4-mapped forms as their
// IPv4 equivalent, zones refused.
func ParsePrefix(s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, errors.New("empty entry")
	}
	if strings.Contains(s, "%") {
		return netip.Prefix{}, errors.New("IPv6 zones do not identify a proxy across hosts; remove the %zone")
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not a CIDR: %w", err)
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("not an IP address or CIDR: %w", err)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// Trusted reports whether a is a trusted proxy.
func (c *Resolver) Trusted(a netip.Addr) bool {
	if c == nil {
		return false
	}
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Addr returns the client address of r, or the zero (invalid) Addr when
// RemoteAddr cannot be parsed. It never panics.
func (c *Resolver) Addr(r *http.Request) netip.Addr {
	hop, ok := ParseHostPort(r.RemoteAddr)
	if !ok {
		return netip.Addr{}
	}
	if c == nil || len(c.trusted) == 0 || !c.Trusted(hop) {
		return hop
	}
	// Every X-Forwarded-For field line, last line first: proxies append
	// to the last one, and RFC 9110 section 5.3 makes several lines one
	// comma-separated list in order.
	lines := r.Header[headerXForwardedFor]
	for i := len(lines) - 1; i >= 0; i-- {
		s := lines[i]
		for end := len(s); end > 0; {
			start := strings.LastIndexByte(s[:end], ',') + 1
			entry := httpsyntax.TrimOWS(s[start:end])
			end = start - 1
			if entry == "" {
				continue // empty list elements are ignored (RFC 9110 5.6.1)
			}
			a, ok := ParseHostPort(entry)
			if !ok {
				return hop
			}
			if !c.Trusted(a) {
				return a
			}
			hop = a
		}
	}
	return hop
}

// Key is the network a client's requests are counted under: the
// address itself for IPv4 (/32), its /64 for IPv6, since one subscriber
// commonly holds a whole /64 and could otherwise rotate through 2^64
// buckets. An invalid address gives the zero Prefix (one shared bucket).
func Key(a netip.Addr) netip.Prefix {
	if !a.IsValid() {
		return netip.Prefix{}
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(64) // cannot fail: 64 is within an IPv6 address
	return p
}

// ParseHostPort parses "ip", "ip:port", "[ipv6]" or "[ipv6]:port", as found
// in RemoteAddr and in X-Forwarded-For entries (some proxies append a
// port). An IPv6 zone is dropped; the result is unmapped. IPv4 fields with
// leading zeros, bracketed IPv4 and IPv6 with a port but no brackets are
// refused, as netip refuses them.
func ParseHostPort(s string) (netip.Addr, bool) {
	if strings.IndexByte(s, ':') < 0 {
		// An IPv4 address without a port, as X-Forwarded-For entries
		// mostly are: ParseAddrPort would fail, and its error allocate.
		a, err := netip.ParseAddr(s)
		return a, err == nil
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().WithZone("").Unmap(), true
	}
	host, bracketed := s, false
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		host, bracketed = s[1:len(s)-1], true
	}
	a, err := netip.ParseAddr(host)
	if err != nil || (bracketed && !a.Is6()) {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}
