package oauthrs

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// The URL rules of resource identifiers (RFC 9728 1.2), issuer
// identifiers (RFC 8414 2) and the URLs fetched.

// resourceURL parses a resource identifier (RFC 9728 1.2): https (http
// only for a loopback host), a host, no userinfo, no fragment, and no
// query, which a metadata path could not be told apart by.
func resourceURL(resource string) (*url.URL, error) {
	u, err := url.Parse(resource)
	switch {
	case err != nil:
		return nil, fmt.Errorf("oauthrs: resource %q: %v", resource, err)
	case u.Host == "" || u.User != nil || u.Opaque != "":
		return nil, fmt.Errorf("oauthrs: resource %q: want https://host/path", resource)
	case u.Scheme != "https" && (u.Scheme != "http" || !httpsyntax.IsLoopbackHost(u.Hostname())):
		return nil, fmt.Errorf("oauthrs: resource %q: want https (RFC 9728 1.2; http only for a loopback host)", resource)
	case u.Fragment != "" || strings.Contains(resource, "#"):
		return nil, fmt.Errorf("oauthrs: resource %q: a resource identifier has no fragment (RFC 9728 1.2)", resource)
	case u.RawQuery != "" || u.ForceQuery:
		return nil, fmt.Errorf("oauthrs: resource %q: a query is not supported in a resource identifier", resource)
	}
	return u, nil
}

// checkIssuer refuses an issuer identifier RFC 8414 2 does not allow:
// "a URL that uses the "https" scheme and has no query or fragment
// components" (http for a loopback host only when allowed).
func checkIssuer(issuer string, allowHTTPLoopback bool) error {
	u, err := url.Parse(issuer)
	switch {
	case err != nil:
		return fmt.Errorf("oauthrs: issuer %q: %v", issuer, err)
	case u.Host == "" || u.User != nil || u.Opaque != "":
		return fmt.Errorf("oauthrs: issuer %q: want https://host[/path]", issuer)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(issuer, "#"):
		return fmt.Errorf("oauthrs: issuer %q: an issuer has no query or fragment (RFC 8414 2)", issuer)
	}
	return checkScheme(u, allowHTTPLoopback, "issuer")
}

// checkScheme admits https, and http to a loopback host when allowed.
func checkScheme(u *url.URL, allowHTTPLoopback bool, what string) error {
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && allowHTTPLoopback && httpsyntax.IsLoopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("oauthrs: %s %q: want https (http only to a loopback host, with AllowHTTPLoopback)", what, u.String())
}
