package cards

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// The name a card gives its server, and the identifiers the AI Catalog
// gives its entries, are derived from the site's host. A site can declare
// any host url.Parse accepts: a DNS name in any case, with or without a
// trailing dot, an internationalized name in Unicode or already in
// punycode, an IPv4 literal, an IPv6 literal (with a zone), with a port.
// Everything below maps each of them to what the formats accept.

// Limits of ServerCard.name in the MCP server card schema
// (experimental-ext-server-card schema.json, $defs/ServerCard/name:
// pattern ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, minLength 3, maxLength 200).
const (
	maxNameLen      = 200
	maxNamespaceLen = 150 // leaves a capability ID at least 49 characters
	hashSuffixLen   = 9   // "-" and 8 hex digits of SHA-256
)

// serverName is a card's name: the site host in reverse-DNS order, "/",
// the capability ID. The schema describes name as "Server name in
// reverse-DNS format" and the MCP discovery document (docs/discovery.md,
// "Server Card Entries") pairs the card com.example/weather with the
// domain example.com; the namespace is therefore the host's labels
// reversed, not the host as written. A name longer than the schema allows
// keeps a prefix and ends in a hash of what it cut, so that two long names
// stay distinct.
func serverName(host, id string) string {
	ns := namespace(host)
	if len(ns) > maxNamespaceLen {
		ns = shorten(ns, maxNamespaceLen)
	}
	id = strings.Map(func(r rune) rune {
		if isNameByte(r) || r == '_' {
			return r
		}
		return '-'
	}, id)
	if id == "" {
		id = "server"
	}
	if len(ns)+1+len(id) > maxNameLen {
		id = shorten(id, maxNameLen-len(ns)-1)
	}
	return ns + "/" + id
}

// namespace is the reverse-DNS form of a URL host (url.URL.Hostname: no
// brackets, no port).
//
// A DNS name is written in ASCII, internationalized labels as their
// A-labels (IDNA, RFC 5891 4.4; "xn--bcher-kva" for "bücher"), lower case,
// without the root's trailing dot, and its labels reversed. A byte the
// schema's pattern refuses (an underscore, say) becomes "-".
//
// An IP literal has no domain name, but it has the name reverse DNS gives
// it: 192.0.2.1 is 1.2.0.192.in-addr.arpa (RFC 1035 3.5) and an IPv6
// address its nibbles under ip6.arpa (RFC 3596 2.5). Reversed like any
// other name, those read arpa.in-addr.192.0.2.1 and
// arpa.ip6.2.0.0.1.0.d.b.8...: valid, distinct from every name a DNS host
// gives, and the address is legible in them. A zone (fe80::1%eth0) is not
// part of the address and is dropped.
func namespace(host string) string {
	if addr, err := netip.ParseAddr(host); err == nil {
		addr = addr.WithZone("")
		if addr.Is4() {
			b := addr.As4()
			return "arpa.in-addr." + dotted(b[:], false)
		}
		b := addr.As16()
		return "arpa.ip6." + dotted(b[:], true)
	}
	labels := strings.Split(asciiHost(host), ".")
	labels = slices.DeleteFunc(labels, func(l string) bool { return l == "" })
	for i, l := range labels {
		labels[i] = strings.Map(func(r rune) rune {
			if isNameByte(r) && r != '.' {
				return r
			}
			return '-'
		}, l)
	}
	slices.Reverse(labels)
	if len(labels) == 0 {
		return "host" // url.Parse gave no host name: nothing to reverse
	}
	return strings.Join(labels, ".")
}

// dotted writes bytes as decimal octets, or as hexadecimal nibbles, joined
// by dots, most significant first.
func dotted(b []byte, nibbles bool) string {
	const hexDigits = "0123456789abcdef"
	var sb strings.Builder
	for _, c := range b {
		if nibbles {
			sb.WriteByte(hexDigits[c>>4])
			sb.WriteByte('.')
			sb.WriteByte(hexDigits[c&0xf])
		} else {
			sb.WriteString(strconv.Itoa(int(c)))
		}
		sb.WriteByte('.')
	}
	return strings.TrimSuffix(sb.String(), ".")
}

// isNameByte reports whether r may appear in the namespace of a card name.
func isNameByte(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '-'
}

// shorten cuts s to n bytes, the last hashSuffixLen of them "-" and a hash
// of s.
func shorten(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return s[:n-hashSuffixLen] + "-" + hex.EncodeToString(sum[:4])
}

// asciiHost is a DNS host name in ASCII, lower case, without a trailing
// dot (the root label is not part of the name a card or catalog gives).
// Non-ASCII labels are mapped as UTS #46 maps them for lookup, as far as
// the Unicode normalization forms carry that mapping: compatibility forms
// folded (NFKC: full-width letters and the full-width full stop become
// ASCII), lower case, the ideographic full stops U+3002 and U+FF61 as
// label separators (RFC 3490 3.1, UTS #46 4), NFC. Then each label that is
// not ASCII is written as its A-label, "xn--" and its Punycode (RFC 5891
// 4.4, RFC 3492). So "BÜCHER.example", "bücher.example" in NFD and
// "bücher.example" all give "xn--bcher-kva.example". IDNA2008's validity
// rules (disallowed code points, bidi, joiners) are not checked: a name
// they refuse resolves nowhere, and it still gets a well-formed ASCII name.
func asciiHost(host string) string {
	if isASCII(host) {
		return strings.ToLower(strings.TrimSuffix(host, "."))
	}
	host = norm.NFC.String(strings.ToLower(norm.NFKC.String(host)))
	host = strings.NewReplacer("\u3002", ".", "\uff61", ".").Replace(host)
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	for i, l := range labels {
		if !isASCII(l) {
			labels[i] = "xn--" + punycode(l)
		}
	}
	return strings.Join(labels, ".")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// publisherDomain is the host as the {publisher} of an urn:air identifier
// (AI Catalog, "Catalog Entry", identifier: "the domain name of the
// organization publishing the artifact"), which the did:web profiles
// restrict to lower-case ASCII without a port, an IP address, a trailing
// dot or a U-label ("The did:web Signer Profile"). ok is false for an IP
// literal, and for a name with a byte outside letters, digits, "-" and
// ".", or an empty label: such a host has no urn:air identifier.
func publisherDomain(host string) (string, bool) {
	if _, err := netip.ParseAddr(host); err == nil {
		return "", false
	}
	d := asciiHost(host)
	if d == "" {
		return "", false
	}
	for _, l := range strings.Split(d, ".") {
		if l == "" || strings.ContainsFunc(l, func(r rune) bool { return !isNameByte(r) || r == '.' }) {
			return "", false
		}
	}
	return d, true
}
