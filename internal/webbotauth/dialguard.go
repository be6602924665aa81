package webbotauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// The draft asks verifiers to keep directory fetches off private,
// loopback and link-local addresses (6.7, "Network address ranges"). Only
// URLs the site trusts are fetched, but a trusted name can still resolve
// to an internal address (a lapsed domain, a DNS answer an attacker
// controls), so the address each connection is made to is checked as it
// is dialled: a name is never resolved twice, so it cannot resolve to a
// public address for the check and a private one for the connection.

// errPrivateAddress: a directory host resolved to an address a directory
// fetch must not reach.
var errPrivateAddress = errors.New("webbotauth: a key directory must not be fetched from a private, loopback or link-local address (6.7)")

// sharedAddressSpace is RFC 6598's carrier-grade NAT range, which
// netip.Addr.IsPrivate does not cover.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// forbiddenAddress reports whether a directory fetch must not connect to
// a.
func forbiddenAddress(a netip.Addr, allowLoopback bool) bool {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return !allowLoopback
	case a.IsPrivate(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast(),
		a.IsMulticast(), a.IsUnspecified(), sharedAddressSpace.Contains(a):
		return true
	}
	return false
}

// hostOnly is the host of host[:port], without IPv6 brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// guardDial makes c's connections to the directory hosts refuse forbidden
// addresses (GuardDial).
func guardDial(c *http.Client, hosts map[string]bool, allowLoopback bool) {
	GuardDial(c, func(host string) bool { return hosts[host] }, allowLoopback)
}

// GuardDial makes c's connections to the hosts guarded reports true for (a
// lower-case name or IP address, without port or brackets) refuse
// private, loopback (unless allowLoopback) and link-local addresses, as
// key directory fetches do (6.7); internal/oauthrs fetches an
// authorization server's metadata and JWK Set through it. It applies to
// the default transport and to an *http.Transport that dials the default
// way (cloned, so the caller's is left alone); a transport with its own
// DialContext, or another RoundTripper, is the caller's to guard.
// Connections to other hosts (a proxy the environment names) are not
// checked: the proxy resolves the fetched host's name.
func GuardDial(c *http.Client, guarded func(host string) bool, allowLoopback bool) {
	var t *http.Transport
	switch rt := c.Transport.(type) {
	case nil:
		dt, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			return
		}
		t = dt.Clone()
	case *http.Transport:
		if rt.DialContext != nil || rt.DialTLSContext != nil {
			return
		}
		t = rt.Clone()
	default:
		return
	}
	plain := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	guardedDialer := &net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", errPrivateAddress, address)
			}
			if forbiddenAddress(ap.Addr(), allowLoopback) {
				return fmt.Errorf("%w: %s", errPrivateAddress, ap.Addr())
			}
			return nil
		},
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if guarded(strings.ToLower(hostOnly(addr))) {
			return guardedDialer.DialContext(ctx, network, addr)
		}
		return plain.DialContext(ctx, network, addr)
	}
	c.Transport = t
}
