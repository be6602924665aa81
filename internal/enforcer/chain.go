package enforcer

import (
	"context"
	"net/http"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/fields"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/session"
)

// chain runs the stages, in order, on the scope of one request. A stage is
// one file and one concern: it reads what the stages before it wrote to
// the scope, writes what it finds, and returns false once it has decided,
// which ends the chain; the session check runs whatever was decided.
// Adding a stage is one file and one line here, or in forCapability for a
// stage of the capability, which a binding behind Wrap runs again
// (docs/design.md, "Enforcement").
func (e *Enforcer) chain(s *scope) {
	_ = e.classify(s) &&
		e.probe(s) &&
		e.preview(s) &&
		e.grade(s) &&
		e.host(s) &&
		e.target(s) &&
		e.access(s) &&
		e.forCapability(s)
	e.session(s)
}

// forCapability runs the stages of the capability in force: the tool a
// tools/call names, the capability's scope, auth, limits, its declared
// params (after the limits: a refused call counts against them) and an
// MCP session's owner.
func (e *Enforcer) forCapability(s *scope) bool {
	return e.tool(s) &&
		e.capability(s) &&
		e.auth(s) &&
		e.limits(s) &&
		e.params(s) &&
		e.mcpSession(s)
}

// Wrap enforces the policy on every request before next.
func (e *Enforcer) Wrap(next http.Handler) http.Handler {
	rf, _ := next.(routeFinder)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Whoever sends it: an upgrade to HTTP/2 that next took would
		// carry every later request on the connection past Wrap.
		// HTTP2-Settings means nothing without an Upgrade.
		if _, ok := r.Header["Upgrade"]; ok {
			httpsyntax.OnlyWebSocket(r.Header)
		}
		if e.usage != nil {
			e.setContentUsage(w, r)
		}
		var s scope
		newScope(&s, r, rf, -1)
		e.chain(&s)
		e.exit(w, next, &s)
	})
}

// setContentUsage adds the Content-Usage header of the request's target
// (draft-ietf-aipref-attach-05 section 2) to the response: the value was
// rendered once, so this allocates nothing. The target is matched in the
// form the enforcement of config.Usage matches (access): the RFC 9309
// canonical form of the path as sent and its query, so that the header
// says what a crawler is held to.
func (e *Enforcer) setContentUsage(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.RawPath
	if raw == "" {
		raw = r.URL.EscapedPath()
	}
	rule := e.usage.Match(string(policy.Canonical(nil, raw, r.URL.RawQuery)))
	if rule.Header != nil {
		w.Header()["Content-Usage"] = rule.Header
	}
}

// Explain returns the decision for r without serving it and without
// consuming any rate-limit token: the same stages run with the scope's
// explain flag set. Limits lists the limits that would apply and, when the
// store implements Peeker, Results what each would answer (an exhausted
// limit makes the decision DenyRate).
func (e *Enforcer) Explain(r *http.Request) enforce.Decision {
	var s scope
	ci := -1
	if ws := e.wrapped(r); ws != nil {
		ci = ws.ci
	}
	newScope(&s, r, nil, ci)
	return e.explain(&s)
}

// explain runs the chain on s with its explain flag set.
func (e *Enforcer) explain(s *scope) enforce.Decision {
	s.explain = true
	e.chain(s)
	e.settle(s)
	return s.Decision
}

// settle gives the decision its status and says whether report-only
// serves it: a denial, but for a recorded one failing closed (a session
// store that cannot answer). Explain and the session endpoint report as
// enforced.
func (e *Enforcer) settle(s *scope) {
	if s.settled {
		return // a recording's amendments stand
	}
	s.settled = true
	if s.Class.Kind == "" {
		s.setClass(s.class) // a pass classify left in its policy form
	}
	if s.Status == 0 {
		s.Status = statusOf(&s.Decision)
	}
	s.ReportOnly = e.reportOnly && !s.explain && !s.limitOnly && s.Outcome != enforce.Allow && s.Outcome != enforce.Pass &&
		(!s.recorded || s.Status < 500)
}

// exit is the one way out of enforcement: it settles the decision, hands
// it to the recording layer, which reads it finished (the audit trail, the
// shadow declaration, the decision hook), and carries it out: next, with
// the request in its canonical form and at most one context write, or a
// problem response. A route binding behind Wrap leaves through it too.
func (e *Enforcer) exit(w http.ResponseWriter, next http.Handler, s *scope) {
	if s.Outcome == enforce.Pass && e.hook == nil && e.shadow == nil && !e.decisionField && (s.bound || e.bound.Load() == 0) {
		next.ServeHTTP(w, s.r) // a browser's: nothing reads its decision
		return
	}
	e.settle(s)
	r := s.r
	if s.handsOn() {
		if s.normal != "" {
			// Forwarded as decided on: in its canonical form. The target
			// was read as sent until now, by a signature's @path among
			// others.
			r = withTarget(r, s.normal)
		}
		if e.decisionField {
			fields.DropDecision(r.Header, r.Trailer)
			fields.SetDecision(r.Header, &s.Decision)
		}
	}
	if s.sess != nil && s.rec == nil {
		var rw http.ResponseWriter
		rw, s.Decision = e.rec.Start(w, r, s.Decision, s.sess) // may refuse more: DenyBody
		s.rec, _ = rw.(recording)
		w = rw
	}
	rec := s.rec
	if s.forwarded() {
		ctx, wrote := r.Context(), false
		if s.sess != nil && !s.own {
			ctx, wrote = session.NewContext(ctx, s.sess), true
		}
		if s.handsOn() && !s.bound && (e.bound.Load() > 0 || e.gateway(s.ci)) && s.Rule != ruleRobots {
			// A binding behind completes this decision, or a gateway's
			// calls start from it (gateway.go): they read a copy, and s
			// stays on the caller's stack. Not robots.txt's pass, Wrap's
			// alone: a route bound behind decides it in full.
			hs := new(scope)
			*hs = *s
			ctx, wrote = context.WithValue(ctx, scopeKey{e}, hs), true
		}
		if wrote { // a flag, not ctx != r.Context(): an interface comparison on every request
			r = r.WithContext(ctx) // the one context write
		}
	}
	e.observe(r, s)
	switch {
	case s.Outcome == enforce.Pass:
		next.ServeHTTP(w, r)
	case s.forwarded():
		if s.Outcome == enforce.Allow {
			e.setRateHeaders(w, s)
		} else {
			setReportHeader(w, s)
		}
		if s.mcp.presented != nil {
			w = &mcpAnswer{ResponseWriter: w, e: e, r: r, s: s}
		}
		lw := e.listFilter(w, r, s)
		if lw != nil {
			w = lw
		}
		if rec == nil || s.own || rec.Begin() {
			next.ServeHTTP(w, r)
		}
		if lw != nil {
			if err := lw.Finish(); err != nil {
				e.log.Debug("agentready: filtering a tools/list answer", "err", err)
			}
		}
	default:
		e.deny(w, r, s)
	}
	if rec != nil && !s.own {
		rec.Finish(r)
	}
}

// observe hands the decision hook and the shadow declaration a copy of
// s's decision: the shadow once a request, the hook once a decision.
func (e *Enforcer) observe(r *http.Request, s *scope) {
	if s.Rule == ruleRobots {
		return // nobody's decision: always served
	}
	if e.shadow != nil && !s.own && !s.limitOnly && !s.call {
		e.shadow(r, s.Decision)
	}
	if e.hook != nil {
		s.Method, s.Path = r.Method, r.URL.Path
		if s.Outcome != enforce.Pass {
			e.clientAddr(s)
		}
		e.hook(s.Decision)
	}
}

// scopeKey is the request context key of the scope an Enforcer's Wrap
// made, for the Capability bindings behind it. It holds the Enforcer: a
// binding of another (a declaration a Reload replaced, a shadow's) finds
// nothing and decides anew.
type scopeKey struct{ e *Enforcer }

// wrapped is the scope this Enforcer's Wrap made for r, nil when it made
// none (no Wrap in front, or no binding when it decided).
func (e *Enforcer) wrapped(r *http.Request) *scope {
	s, _ := r.Context().Value(scopeKey{e}).(*scope)
	return s
}
