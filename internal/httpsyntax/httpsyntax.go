// Package httpsyntax holds small pieces of HTTP syntax (RFC 9110) and of
// host handling that more than one agentready package needs.
package httpsyntax

import (
	"net/netip"
	"strings"
)

// TrimOWS trims optional whitespace, spaces and horizontal tabs (RFC 9110
// 5.6.3), from both ends of s. strings.Trim would build its byte set on
// every call.
func TrimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// IsLoopbackHost reports whether host is localhost, in 127.0.0.0/8 or ::1.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return a.As4()[0] == 127
	}
	return a == netip.IPv6Loopback()
}

// DomainName returns d without its leading and trailing dots, and whether
// it is a domain name a reverse-DNS check can end in: at least two labels,
// and no space, '/', ':' or '*'.
func DomainName(d string) (string, bool) {
	d = strings.Trim(d, ".")
	return d, strings.Contains(d, ".") && !strings.ContainsAny(d, " /:*")
}

// URIChar reports whether c may appear in a URI: unreserved, reserved or
// "%" (RFC 3986 2).
func URIChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}
