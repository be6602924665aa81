package enforcer

import (
	"fmt"
	"net/http"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
)

// Capability binds a route to one declared capability (agentready's
// Middleware.Capability). Behind Wrap it completes Wrap's decision (see
// complete); alone, it runs the whole chain with the capability bound.
// authAll checks the capability's declared auth for every client,
// browsers included (agentready.AuthForEveryClient).
func (e *Enforcer) Capability(id string, authAll bool) func(http.Handler) http.Handler {
	ci, ok := e.p.CapabilityIndex(id)
	e.bound.Add(1)
	if !ok {
		e.log.Error("agentready: route bound to an undeclared capability; it answers 500", "capability", id)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !ok {
				_ = problem.Write(w, problem.Problem{Status: http.StatusInternalServerError,
					Detail: fmt.Sprintf("this route is bound to capability %q, which the site does not declare", id)})
				return
			}
			ws := e.wrapped(r)
			if authAll && resolve.AuthRequired(e.p.Capabilities[ci].Auth) && e.authForPass(w, r, next, ws, ci) {
				return
			}
			switch {
			case ws == nil:
				// No Wrap in front (or one of a declaration a Reload has
				// replaced since): the binding runs the whole chain.
				var s scope
				newScope(&s, r, nil, ci)
				e.chain(&s)
				e.exit(w, next, &s)
			case ws.Outcome == enforce.Pass, ws.ci == ci:
				// A browser or a probe, or an agent's request to the same
				// capability, which Wrap checked.
				next.ServeHTTP(w, r)
			default:
				e.complete(w, r, next, ws, ci)
			}
		})
	}
}

// authForPass checks capability ci's declared auth for a request the
// stages pass (a browser's, a probe's; ws is Wrap's scope, nil without
// Wrap), with the scopes of the MCP tool it calls, and reports whether it
// answered r (DenyAuth, or the tool's refusal).
func (e *Enforcer) authForPass(w http.ResponseWriter, r *http.Request, next http.Handler, ws *scope, ci int) bool {
	var s scope
	newScope(&s, r, nil, ci)
	if ws != nil {
		if s.setClass(ws.class); ws.Outcome != enforce.Pass {
			return false
		}
	} else if e.classify(&s) && e.probe(&s) {
		return false
	}
	s.Outcome, s.Rule, s.own = enforce.Allow, "", true
	s.Capability = e.p.Capabilities[ci].ID
	// An MCP call's tool first: its scopes are the call's (tool.go).
	if e.tool(&s) && e.auth(&s) {
		return false
	}
	e.exit(w, next, &s)
	return true
}

// complete finishes Wrap's decision ws for bound capability ci, which Wrap
// did not resolve: the capability's stages (Wrap counted the site and agent
// limits), then the session check, or Wrap's recording hears of it.
func (e *Enforcer) complete(w http.ResponseWriter, r *http.Request, next http.Handler, ws *scope, ci int) {
	s := *ws
	s.Decision = enforce.Decision{Outcome: enforce.Allow, Class: ws.Class, Agent: ws.Agent, Grade: ws.Grade, Identity: ws.Identity,
		Client: ws.Client}
	s.r, s.ci, s.bound, s.own, s.n, s.settled = r, ci, true, true, 0, false
	s.pending = nil          // a lookup goes with the capability's own limit, if any
	s.mcp = mcpScope{ti: -1} // the binding's capability's, found again; Wrap's hears its own answer
	s.subject, s.issuer, s.tokenScopes = "", "", nil
	_ = e.forCapability(&s)
	s.recorded = false
	if s.sess == nil {
		e.session(&s) // else Wrap's recording hears of the decision
	}
	e.settle(&s)
	if s.rec != nil {
		s.Decision = s.rec.Bind(s.Decision)
	}
	e.exit(w, next, &s)
}
