package enforce

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

// ClientIP finds the address a request came from, for rate limiting.
//
// Forwarding headers are attacker-controlled, so by default none is
// trusted: the client is the peer address, Request.RemoteAddr. Only when
// the peer is a configured trusted proxy is X-Forwarded-For read, from the
// right (the entry that proxy appended) to the left, skipping trusted
// proxies; the first untrusted address is the client. Whatever a client
// puts on the left of the header is therefore never reached unless every
// address to its right is a trusted proxy. A malformed entry ends the walk
// at the last trusted hop, so garbage cannot pick a bucket; a trusted peer
// that sends no X-Forwarded-For is itself the client.
//
// Addresses are normalised: IPv4-mapped IPv6 becomes IPv4 and zones are
// dropped. Addr does not allocate, whatever the input. A nil *ClientIP
// trusts no proxy.
type ClientIP struct {
	trusted []netip.Prefix
}

// NewClientIP returns a ClientIP trusting the given proxies, each a CIDR
// ("10.0.0.0/8", "2001:db8::/32") or a single address ("192.0.2.10").
// Host bits of a CIDR are masked off; IPv4-mapped forms mean their IPv4
// equivalent. Every invalid entry is reported at once.
func NewClientIP(trustedProxies []string) (*ClientIP, error) {
	c := &ClientIP{trusted: make([]netip.Prefix, 0, len(trustedProxies))}
	var errs []error
	for i, s := range trustedProxies {
		p, err := parseTrusted(strings.TrimSpace(s))
		if err != nil {
			errs = append(errs, fmt.Errorf("enforce: trusted proxy %d %q: %w", i, s, err))
			continue
		}
		c.trusted = append(c.trusted, p)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func parseTrusted(s string) (netip.Prefix, error) {
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
func (c *ClientIP) Trusted(a netip.Addr) bool {
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
// RemoteAddr cannot be parsed. It never panics and never allocates.
func (c *ClientIP) Addr(r *http.Request) netip.Addr {
	hop, ok := parseHostPort(r.RemoteAddr)
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
			a, ok := parseHostPort(entry)
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

// clientKey is the network a client's requests are counted under: the
// address itself for IPv4 (/32), its /64 for IPv6, since one subscriber
// commonly holds a whole /64 and could otherwise rotate through 2^64
// buckets. An invalid address gives the zero Prefix (one shared bucket).
func clientKey(a netip.Addr) netip.Prefix {
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

// parseHostPort parses "ip", "ip:port", "[ipv6]" or "[ipv6]:port", as found
// in RemoteAddr and in X-Forwarded-For entries (some proxies append a
// port). An IPv6 zone is dropped; the result is unmapped.
func parseHostPort(s string) (netip.Addr, bool) {
	if a, ok := parseIPv4Port(s); ok {
		return a, true
	}
	return parseHostPortSlow(s)
}

// parseIPv4Port is parseHostPort's fast path for "a.b.c.d" and
// "a.b.c.d:port", the form of every IPv4 RemoteAddr: one pass, where the
// general path searches the string four times. It reports false for
// anything else, which the general path then decides; what it accepts, the
// general path accepts with the same address (FuzzParseHostPort).
func parseIPv4Port(s string) (netip.Addr, bool) {
	var b [4]byte
	field, val, digits := 0, 0, 0
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if digits == 1 && val == 0 {
				return netip.Addr{}, false // leading zero
			}
			val = val*10 + int(c-'0')
			digits++
			if val > 255 {
				return netip.Addr{}, false
			}
		} else if c == '.' {
			if digits == 0 || field == 3 {
				return netip.Addr{}, false
			}
			b[field] = byte(val)
			field++
			val, digits = 0, 0
		} else {
			break
		}
	}
	if field != 3 || digits == 0 || (i < len(s) && !validPort(s[i:], false)) {
		return netip.Addr{}, false
	}
	b[3] = byte(val)
	return netip.AddrFrom4(b), true
}

// parseHostPortSlow is parseHostPort for every form.
func parseHostPortSlow(s string) (netip.Addr, bool) {
	host := s
	bracketed := false
	if s != "" && s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 || !validPort(s[end+1:], true) {
			return netip.Addr{}, false
		}
		host, bracketed = s[1:end], true
	} else if i := strings.IndexByte(s, ':'); i >= 0 && strings.IndexByte(s[i+1:], ':') < 0 {
		// One colon: IPv4 with a port. IPv6 has at least two.
		if !validPort(s[i:], false) {
			return netip.Addr{}, false
		}
		host = s[:i]
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		if i == len(host)-1 || strings.IndexByte(host[:i], ':') < 0 {
			return netip.Addr{}, false // empty zone, or a zone on IPv4
		}
		host = host[:i]
	}
	a, ok := parseIP(host)
	if !ok || (bracketed && !a.Is6()) {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// validPort accepts ":" followed by a decimal port 0-65535; an empty s is
// accepted where the port is optional.
func validPort(s string, optional bool) bool {
	if s == "" {
		return optional
	}
	if s[0] != ':' || len(s) < 2 || len(s) > 6 {
		return false
	}
	n := 0
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n <= 65535
}

// parseIP accepts exactly what netip.ParseAddr accepts for an address
// without a zone, but never allocates: ParseAddr allocates its error, and
// attackers choose how often that happens. FuzzParseIP holds the two
// together.
func parseIP(s string) (netip.Addr, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			var b [4]byte
			if !parseIPv4(s, b[:]) {
				return netip.Addr{}, false
			}
			return netip.AddrFrom4(b), true
		case ':':
			return parseIPv6(s)
		}
	}
	return netip.Addr{}, false
}

// parseIPv4 parses dotted-quad s into out (4 bytes): four decimal fields of
// 0-255 without leading zeros.
func parseIPv4(s string, out []byte) bool {
	field, val, digits := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits == 1 && val == 0 {
				return false // leading zero
			}
			val = val*10 + int(c-'0')
			digits++
			if val > 255 {
				return false
			}
		case c == '.':
			if digits == 0 || field == 3 {
				return false
			}
			out[field] = byte(val)
			field++
			val, digits = 0, 0
		default:
			return false
		}
	}
	if field != 3 || digits == 0 {
		return false
	}
	out[3] = byte(val)
	return true
}

// parseIPv6 parses s (no zone): up to eight groups of one to four hex
// digits, at most one "::" standing for at least one zero group, and
// optionally a dotted IPv4 in the last 32 bits.
func parseIPv6(s string) (netip.Addr, bool) {
	var ip [16]byte
	gap := -1 // byte offset of "::"
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		gap = 0
		s = s[2:]
		if s == "" {
			return netip.AddrFrom16(ip), true
		}
	}
	i := 0
	for i < 16 {
		n, acc := 0, uint32(0)
		for ; n < len(s); n++ {
			v, ok := hexVal(s[n])
			if !ok {
				break
			}
			if n == 4 {
				return netip.Addr{}, false
			}
			acc = acc<<4 | v
		}
		if n == 0 {
			return netip.Addr{}, false
		}
		if n < len(s) && s[n] == '.' {
			if (gap < 0 && i != 12) || i+4 > 16 {
				return netip.Addr{}, false
			}
			if !parseIPv4(s, ip[i:i+4]) {
				return netip.Addr{}, false
			}
			s = ""
			i += 4
			break
		}
		ip[i], ip[i+1] = byte(acc>>8), byte(acc)
		i += 2
		s = s[n:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return netip.Addr{}, false
		}
		s = s[1:]
		if s[0] == ':' {
			if gap >= 0 {
				return netip.Addr{}, false
			}
			gap = i
			s = s[1:]
			if s == "" {
				break
			}
		}
	}
	if s != "" {
		return netip.Addr{}, false
	}
	if i < 16 {
		if gap < 0 {
			return netip.Addr{}, false
		}
		n := 16 - i
		copy(ip[gap+n:], ip[gap:i])
		clear(ip[gap : gap+n])
	} else if gap >= 0 {
		return netip.Addr{}, false // "::" must stand for at least one group
	}
	return netip.AddrFrom16(ip), true
}

func hexVal(c byte) (uint32, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint32(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint32(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint32(c-'A') + 10, true
	}
	return 0, false
}
