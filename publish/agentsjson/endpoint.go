package agentsjson

import (
	"net/url"
	"strings"
)

// originRelative is endpoint as a path relative to origin when it is on that
// origin, and endpoint unchanged otherwise: an MCP server on another host
// keeps its full URL rather than losing its host. A path is returned as is.
//
// It cuts the authority off the text instead of re-serialising the parsed
// URL (config.EndpointPath), so that URI templates keep their spelling:
// "/api/jobs/{job_id}" must not become "/api/jobs/%7Bjob_id%7D".
func originRelative(origin, endpoint string) string {
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
	rest := endpoint[strings.Index(endpoint, "://")+len("://"):]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if !strings.HasPrefix(rest, "/") {
		rest = "/" + rest
	}
	return rest
}
