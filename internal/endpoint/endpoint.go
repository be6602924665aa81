// Package endpoint reads the URLs of a declaration the one way config's
// validation, the renderers and the enforcer must all read them: the
// site's host and origin, an endpoint's path as written, an endpoint
// relative to the site, and the method a capability is called with.
package endpoint

import (
	"net/url"
	"strings"
)

// Method is the upper-cased method m, GET when empty (config.Capability's
// documented default).
func Method(m string) string {
	if m == "" {
		return "GET"
	}
	return strings.ToUpper(m)
}

// Host is the host (with port) of rawURL, "" when it does not parse.
func Host(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// Origin is scheme://host of rawURL, without a trailing slash.
func Origin(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return strings.TrimRight(rawURL, "/")
	}
	return u.Scheme + "://" + u.Host
}

// Path is the path and query of an endpoint URL, as written: what follows
// its scheme and authority, up to any fragment; "/" when the path is empty
// ("https://shop.example?q=1" is "/?q=1"). An endpoint that is already a
// path is returned as is, less any fragment; one that does not parse as a
// URL is returned unchanged.
//
// It cuts the text instead of re-serialising the parsed URL, so that URI
// templates keep their spelling: "/api/jobs/{job_id}" must not become
// "/api/jobs/%7Bjob_id%7D", which no longer names the template variable.
func Path(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	return pathOf(u, endpoint)
}

// Relative is endpoint as a path relative to origin when it is on that
// origin (same scheme and host, in any case, and no userinfo), and
// endpoint unchanged otherwise: an MCP server on another host keeps its
// full URL rather than losing its host. A path, and an endpoint that does
// not parse, are returned as is. The path is cut as Path cuts it, so
// templates such as "/api/jobs/{job_id}" keep their spelling.
func Relative(origin, endpoint string) string {
	if endpoint == "" {
		return ""
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil {
		return endpoint
	}
	o, err := url.Parse(origin)
	if err != nil || !strings.EqualFold(u.Scheme, o.Scheme) || !strings.EqualFold(u.Host, o.Host) {
		return endpoint
	}
	return pathOf(u, endpoint)
}

// pathOf cuts the path and query out of endpoint, which parses as u. It
// splits the text where url.Parse splits it (RFC 3986 3): the fragment
// first, then the scheme, then an authority introduced by "//".
func pathOf(u *url.URL, endpoint string) string {
	rest, _, _ := strings.Cut(endpoint, "#")
	if u.Scheme != "" {
		rest = rest[len(u.Scheme)+len(":"):]
	}
	switch {
	case u.Opaque != "":
		// "mailto:ops@shop.example" has no path; keep only the query.
		rest = rest[len(u.Opaque):]
	case strings.HasPrefix(rest, "//") && (u.Scheme != "" || !strings.HasPrefix(rest, "///")):
		// The authority runs to the path or the query; a path that starts
		// with "///" without a scheme has none (url.Parse agrees).
		rest = rest[len("//"):]
		if i := strings.IndexAny(rest, "/?"); i >= 0 {
			rest = rest[i:]
		} else {
			rest = ""
		}
	}
	if rest == "" || rest[0] == '?' {
		rest = "/" + rest
	}
	return rest
}
