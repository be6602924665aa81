package enforcer

import (
	"net/http"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/problem"
)

// A gateway is an MCP capability agentready answers itself
// (config.Capability.Gateway, docs/gateway.md): Wrap decides a request to
// it as any MCP request (the tool's grant, the capability's and the tool's
// limits), and each tools/call then becomes a request to the capability
// the tool calls, which Call decides.

// gateway reports whether capability ci (-1: none) is a gateway.
func (e *Enforcer) gateway(ci int) bool {
	return ci >= 0 && e.p.Capabilities[ci].Decl.Gateway
}

// Call decides r, the request a gateway's tool built for the capability
// it calls, and hands it to next or refuses it, as the same client's
// direct call of that capability would be: r's context derives from the
// gateway request's, whose scope Wrap left there, so the client is who
// Wrap found (its class, agent policy, grade and proof, not read again
// from r, which carries no signature of its own); from the target on the
// stages run on r: the path rules, the capability's grant, its auth (r
// carries the client's credentials), its own limit alone (Wrap counted the
// site's and the agent's on the gateway request), its session and
// recording. Without Wrap's scope (a browser's gateway request, which Wrap
// passed, or one a Reload's predecessor decided), r is decided in full.
func (e *Enforcer) Call(w http.ResponseWriter, r *http.Request, next http.Handler) {
	ws := e.wrapped(r)
	var s scope
	switch {
	case ws == nil:
		newScope(&s, r, nil, -1)
		e.chain(&s)
	case !e.gateway(ws.ci):
		_ = problem.Write(w, problem.Problem{Status: http.StatusInternalServerError,
			Detail: "a gateway call outside a request to a gateway capability"})
		return
	default:
		newScope(&s, r, nil, -1)
		s.setClass(ws.class)
		s.ai, s.Agent, s.Grade, s.Identity, s.Client = ws.ai, ws.Agent, ws.Grade, ws.Identity, ws.Client
		s.Outcome, s.call = enforce.Allow, true
		_ = e.target(&s) && e.access(&s) && e.forCapability(&s)
		e.session(&s)
	}
	e.exit(w, next, &s)
}
