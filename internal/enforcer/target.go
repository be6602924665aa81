package enforcer

import (
	"net/http"
	"net/url"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/override"
	"github.com/agentready/agentready/internal/policy"
)

// errRawPathMismatch is the reason for DenyTarget of a URL whose raw path
// and path disagree; the others are policy.CheckTarget's and override's.
var errRawPathMismatch = &policy.TargetError{Code: "raw-path-mismatch", Reason: "the request URL's raw path and path disagree"}

// target is the stage that gives an agent's request its one canonical
// target (policy.NormalPath), the form decided on and forwarded
// (docs/enforcement.md, "One canonical target"), and refuses one that
// routers would read differently (DenyTarget): a method that is a case
// variant of a standard one ("delete": some frameworks upper-case it,
// others route it as another method), a URL whose two paths disagree, a
// path NormalPath refuses.
func (e *Enforcer) target(s *scope) bool {
	if s.limitOnly {
		return true
	}
	r := s.r
	if override.CaseVariant(r.Method) {
		s.Outcome, s.Err = enforce.DenyTarget, override.ErrMethodCase
		return false
	}
	// The escaped path as sent is RawPath when the client escaped more
	// than net/url would.
	raw := r.URL.RawPath
	if raw == "" {
		raw = r.URL.EscapedPath()
	} else if p, err := url.PathUnescape(raw); err != nil || p != r.URL.Path {
		// The URL's two paths disagree (a middleware changed one): chi
		// routes RawPath, ServeMux the escaped Path.
		s.Outcome, s.Err = enforce.DenyTarget, errRawPathMismatch
		return false
	}
	normal, err := policy.NormalPath(raw)
	if err != nil {
		s.Outcome, s.Err = enforce.DenyTarget, err
		return false
	}
	s.path = normal
	if normal != raw {
		s.normal = normal
	}
	return true
}

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
