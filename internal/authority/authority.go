// Package authority holds the hosts an agent's request may name
// (agentready's Clients.Hosts), for the enforcer's host stage.
package authority

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// List is the hosts an agent's request may name (Config.Hosts): the
// site's, those the operator adds, and the address the request arrived
// on. An agent naming another host is answered 421 (RFC 9110 15.5.20):
// behind a proxy or a virtual host, its request would reach a site the
// declaration does not speak for, or one whose paths it decides
// differently. nil checks nothing.
type List struct {
	names  map[string]bool // normalized host[:port], the default ports left out
	listed []string        // as admitted, for the problem's detail
}

// New admits the entries, each a host or host:port (an IP literal in
// IPv6 in brackets). It returns nil for no entries: no check.
func New(entries []string) (*List, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	h := &List{names: map[string]bool{}}
	var errs []error
	for _, e := range entries {
		n, ok := normalHost(e)
		if !ok || strings.ContainsAny(e, "/?#@ ") {
			errs = append(errs, fmt.Errorf("host %q: want a host or host:port", e))
			continue
		}
		if !h.names[n] {
			h.names[n] = true
			h.listed = append(h.listed, n)
		}
	}
	return h, errors.Join(errs...)
}

// Error is a DenyHost's error: the Host the request named and what is
// admitted.
type Error struct {
	host     string
	Admitted []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("the request names the host %q, which this declaration does not speak for; agents may name %s",
		e.host, strings.Join(e.Admitted, ", "))
}

// Check reports nil when r names an admitted host: a listed one, the
// address r arrived on, or, on a loopback address, localhost, 127.0.0.1
// or [::1] on any port. Host is compared without case, a trailing dot or
// the default port of http and https (HTTP/2's :authority is r.Host).
func (h *List) Check(r *http.Request) error {
	name, ok := normalHost(r.Host)
	if ok && h.names[name] {
		return nil
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	admitted := h.listed
	if local != nil {
		la := local.String()
		ln, lok := normalHost(la)
		if ok && lok && name == ln {
			return nil
		}
		if ap, err := netip.ParseAddrPort(la); err == nil && ap.Addr().Unmap().IsLoopback() {
			if host := hostOnly(name); ok && (host == "localhost" || host == "127.0.0.1" || host == "::1") {
				return nil
			}
			admitted = append(slices.Clip(admitted), "localhost, 127.0.0.1 and [::1] on any port")
		} else if lok {
			admitted = append(slices.Clip(admitted), ln)
		}
	}
	return &Error{host: r.Host, Admitted: admitted}
}

// normalHost is hostport in lower case, without a trailing dot on the
// host and without the port 80 or 443; ok is false for an empty or
// malformed one.
func normalHost(hostport string) (string, bool) {
	if hostport == "" {
		return "", false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		if strings.Contains(hostport, ":") && !strings.HasPrefix(hostport, "[") {
			return "", false // a bare IPv6 address or a stray colon
		}
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || strings.ContainsAny(host, "[]") {
		return "", false
	}
	if port == "80" || port == "443" {
		port = ""
	}
	if port != "" {
		for _, c := range port {
			if c < '0' || c > '9' {
				return "", false
			}
		}
		return net.JoinHostPort(host, port), true
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]", true
	}
	return host, true
}

// hostOnly is the host of a normalHost result, IPv6 without brackets.
func hostOnly(name string) string {
	if h, _, err := net.SplitHostPort(name); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
}
