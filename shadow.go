package agentready

import (
	"log/slog"
	"net/http"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/verifier"
	"github.com/agentready/agentready/ratelimit"
)

// WithShadow evaluates candidate, a declaration being considered, beside
// the enforced one on live traffic, and never applies it: every request is
// also decided by the candidate as Explain decides (nothing served, no
// token consumed, nothing recorded), and both decisions go to hook (which
// may be nil). A request the two would answer differently is logged at
// Info. A candidate that fails validation makes New fail. What a
// Capability binding behind Handler decides afterwards is not compared.
func WithShadow(candidate config.Site, hook func(enforced, candidate enforce.Decision)) Option {
	return func(st *settings) error {
		c := candidate
		st.shadow = &shadowSpec{site: &c, hook: hook}
		return nil
	}
}

type shadowSpec struct {
	site *config.Site
	hook func(enforced, candidate enforce.Decision)
}

// shadow is a candidate declaration evaluated beside the enforced one.
type shadow struct {
	m    *compiled
	hook func(enforced, candidate enforce.Decision)
	log  *slog.Logger
}

// newShadow builds the candidate's Middleware with the enforced one's
// settings, rate-limit store and, when it has sessions, session and audit
// stores (the candidate must find the sessions agents hold), and without
// its hooks. The candidate checks its own verified-only policies with a
// Verifier of its own, never the enforced one.
func newShadow(st settings, store ratelimit.Store, sess *sessionLayer) (*shadow, error) {
	spec := st.shadow
	cst := st
	cst.shadow, cst.onDecision, cst.store, cst.verifier = nil, nil, store, nil
	if sess != nil {
		cst.sessionStore = sess.mgr.Store()
		if sess.audit != nil {
			cst.auditStore = sess.audit
		}
	}
	log := st.log()
	// What building the candidate logs (contradictions, presence-only auth)
	// is about the candidate, not the declaration enforced: it says so.
	cst.logger = log.With("declaration", "shadow")
	m, err := build(*spec.site, cst, nil)
	if err != nil {
		return nil, err
	}
	return &shadow{m: m, hook: spec.hook, log: log}, nil
}

// observe is enforcer.Config.Shadow: it decides r with the candidate and
// compares.
func (s *shadow) observe(r *http.Request, enforced enforce.Decision) {
	// The candidate decides on the request path of a request it does not
	// serve: nothing it does may fail that request.
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("agentready: the shadow declaration panicked", "panic", v, "path", r.URL.Path)
		}
	}()
	cand := s.m.explain(r)
	if cand.Outcome != enforced.Outcome || cand.Status != enforced.Status {
		s.log.Info("agentready: the shadow declaration would decide this request differently",
			"path", r.URL.Path, "enforced", enforced.Outcome, "candidate", cand.Outcome,
			"enforced_rule", enforced.Rule, "candidate_rule", cand.Rule, "agent", enforced.Agent)
	}
	if s.hook != nil {
		// The hook runs on the request path: its panic must not fail a
		// request the shadow never decides.
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("agentready: the shadow hook panicked", "panic", v)
			}
		}()
		s.hook(enforced, cand)
	}
}

// shadowVerifier is the Verifier of c's shadow declaration, nil without
// WithShadow or when the candidate has no verified-only policy.
func (c *compiled) shadowVerifier() *verifier.Verifier {
	if c.shadow == nil {
		return nil
	}
	return c.shadow.m.ver
}
