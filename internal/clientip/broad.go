package clientip

import (
	"fmt"
	"net/netip"
	"strings"

	"go4.org/netipx"
)

// A trusted proxy's X-Forwarded-For names the client, so a list of
// trusted proxies that covers much of the internet lets every client
// write its own address: past every per-client limit, into X-Real-IP,
// and into every IP-range proof. Broad refuses such a list; a site that
// means it says so (agentready.Clients.TrustAllProxies, serve's
// trust_all_proxies).

// MaxGlobalIPv4 is the most globally routable IPv4 addresses a list of
// trusted proxies may cover: a /8. MinGlobalIPv6Bits is the shortest
// globally routable IPv6 prefix it may hold.
const (
	MaxGlobalIPv4     = 1 << 24
	MinGlobalIPv6Bits = 16
)

// nonGlobal are the networks that do not count: loopback, RFC 1918,
// shared address space (RFC 6598), link-local and unique local (RFC
// 4193) addresses, which no client on the internet sends from.
var nonGlobal = func() *netipx.IPSet {
	var b netipx.IPSetBuilder
	for _, s := range []string{
		"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16",
		"::1/128", "fe80::/10", "fc00::/7",
	} {
		b.AddPrefix(netip.MustParsePrefix(s))
	}
	s, err := b.IPSet()
	if err != nil {
		panic(err) // the list above is valid
	}
	return s
}()

// Broad says how the trusted proxies cover too much of the globally
// routable address space: their union holds more than MaxGlobalIPv4
// such IPv4 addresses, or an IPv6 prefix shorter than /16 of them. It
// is "" when they do not. Entries that do not parse are left out (New
// refuses them).
func Broad(trustedProxies []string) string {
	ps := make([]netip.Prefix, 0, len(trustedProxies))
	for _, s := range trustedProxies {
		if p, err := ParsePrefix(strings.TrimSpace(s)); err == nil {
			ps = append(ps, p)
		}
	}
	return broad(ps)
}

// broad is Broad of parsed prefixes.
func broad(ps []netip.Prefix) string {
	n, wide := globalCover(ps)
	var why []string
	if n > MaxGlobalIPv4 {
		why = append(why, fmt.Sprintf("cover %s globally routable IPv4 addresses, more than the %s of a /8", count(n), count(MaxGlobalIPv4)))
	}
	if wide.IsValid() {
		why = append(why, fmt.Sprintf("cover globally routable IPv6 prefixes shorter than /%d (%s among them)", MinGlobalIPv6Bits, wide))
	}
	return strings.Join(why, ", and ")
}

// globalCover is what the union of ps covers of the globally routable
// address space: the number of IPv4 addresses, and the shortest IPv6
// prefix (of the union's fewest prefixes) shorter than
// MinGlobalIPv6Bits, invalid when there is none. An aligned block of
// 2^k addresses inside the union is always inside one of those fewest
// prefixes, so the IPv6 answer is that of the union, not of one entry.
func globalCover(ps []netip.Prefix) (ipv4 uint64, wide netip.Prefix) {
	var b netipx.IPSetBuilder
	for _, p := range ps {
		if p.IsValid() {
			b.AddPrefix(p.Masked())
		}
	}
	b.RemoveSet(nonGlobal)
	s, err := b.IPSet()
	if err != nil {
		return 0, netip.Prefix{} // only for invalid prefixes, left out above
	}
	for _, p := range s.Prefixes() {
		if p.Addr().Is4() {
			ipv4 += 1 << (32 - p.Bits())
			continue
		}
		if p.Bits() < MinGlobalIPv6Bits && (!wide.IsValid() || p.Bits() < wide.Bits()) {
			wide = p
		}
	}
	return ipv4, wide
}

// count writes n with thousands separators.
func count(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
