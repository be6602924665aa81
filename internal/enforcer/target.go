package enforcer

import (
	"net/http"
	"net/url"
)

// withTarget returns a shallow copy of r (as r.WithContext makes one) whose
// target is the canonical path normal (policy.NormalPath) with r's query
// as sent: what the handler or the upstream sees in URL.Path, URL.RawPath
// and RequestURI alike is what was decided on (docs/enforcement.md, "One
// canonical target").
func withTarget(r *http.Request, normal string) *http.Request {
	path, err := url.PathUnescape(normal)
	if err != nil {
		return r // unreachable: NormalPath leaves only valid escapes
	}
	u := *r.URL
	u.Path, u.RawPath = path, ""
	if u.EscapedPath() != normal {
		// net/url would escape Path otherwise ("(" as %28): keep the
		// canonical spelling.
		u.RawPath = normal
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = &u
	r2.RequestURI = u.RequestURI()
	return r2
}
