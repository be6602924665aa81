package enforce

import (
	"net/http"

	"github.com/agentready/agentready/policy"
)

// canonicalTarget returns the canonical form of r's path and query
// (policy.Canonical of raw, r's escaped path, and its raw query) when the
// request already holds it as one string, so that the rules match it
// without a copy: the path itself when there is no query, or the request
// target (RequestURI, as the client sent it) when it reads exactly
// path?query. ok is false otherwise; the caller then builds the form.
func canonicalTarget(r *http.Request, raw string) (s string, ok bool) {
	q := r.URL.RawQuery
	if !policy.IsCanonical(raw, q) {
		return "", false
	}
	if q == "" {
		return raw, true
	}
	t := r.RequestURI
	if len(t) == len(raw)+1+len(q) && t[len(raw)] == '?' && t[:len(raw)] == raw && t[len(raw)+1:] == q {
		return t, true
	}
	return "", false
}
