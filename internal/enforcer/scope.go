package enforcer

import (
	"net/http"
	"net/netip"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/session"
)

// scope is one request on its way through the stages (chain.go): what the
// middleware works out once at its top and what each stage adds to it,
// ending in the decision that the response and the recording layer read
// (docs/design.md, "Enforcement"). It lives on the caller's stack; a route
// binding behind Wrap reads a copy.
type scope struct {
	enforce.Decision

	r  *http.Request
	rf routeFinder // the router behind Wrap, asked which route r reaches

	// class is Decision.Class as the classifier returned it; ai and ci the
	// agent policy and capability in force (-1: none); bound: a route
	// binding named ci, so no reading routes r elsewhere.
	class  policy.Class
	ai, ci int
	bound  bool
	// mcp is what the stages found of a request to an MCP capability.
	mcp mcpScope
	// subject and issuer are the verified token's (auth.go), "" without
	// one, and tokenScopes its scopes (nil: unknown).
	subject, issuer string
	tokenScopes     []string
	// explain: Explain, which consumes no token and records nothing;
	// limitOnly: the session endpoint, held to the site and agent limits
	// alone; own: a route binding behind Wrap, which counts only its
	// capability's limit (Wrap counted the others); call: a gateway's
	// call of a capability (gateway.go), which counts only the
	// capability's limit too, and is otherwise a request of its own.
	explain, limitOnly, own, call bool
	// settled: the decision has its status and report-only (settle).
	settled bool

	// path is the request's path in its canonical form, the one decided
	// on (target.go); normal is path when it is not the path as sent, the
	// one then forwarded, "" otherwise.
	path, normal string

	n      int // limits and Decision.Limits/Results in use
	client ratelimit.Key
	key    ratelimit.Key // the bucket Key of every limit
	set    *limitSet     // their declarations and RateLimit fields

	// recorded: the request is a v0.1.0 session's to record (session.go);
	// sess is its valid session, rec the recording the layer after the
	// stages began (nil until then).
	recorded bool
	sess     *session.Session
	rec      recording
	// pending is the session's lookup the limits carried (session.go,
	// prefetch), for the session stage to finish; nil: none.
	pending *sessionmgr.Pending
}

// mcpScope is what the stages find of a request to an MCP capability
// (tool.go, mcp_session.go, mcp_list.go).
type mcpScope struct {
	// rpc: a refusal is a JSON-RPC error, for id (nil: none); mismatch:
	// the Mcp-Method or Mcp-Name header disagrees with the body (-32020).
	rpc, mismatch bool
	id            []byte
	// ti is the declared tool a tools/call names (-1: none), asked the
	// name as sent, calls how many calls of it the request makes (a
	// batch's).
	ti    int
	asked string
	calls int
	// listing: the answer may list tools, filtered by what the caller may
	// call.
	listing listing
	// owner and presented are what the session stage found, presented nil
	// when there is no answer to hear.
	owner     string
	presented *mcpsession.Presented
}

// newScope starts the scope of r; ci is the capability a lone route
// binding names (-1 under Wrap).
func newScope(s *scope, r *http.Request, rf routeFinder, ci int) {
	s.r, s.rf, s.ai, s.ci, s.mcp.ti, s.bound = r, rf, -1, ci, -1, ci >= 0
}

// clientAddr is the client address of r (trusted proxies honoured, the
// one rate limits are keyed by), derived once a request: every stage that
// needs it reads it here.
func (e *Enforcer) clientAddr(s *scope) netip.Addr {
	if !s.Client.IsValid() {
		s.Client = e.ip.Addr(s.r)
	}
	return s.Client
}

// setClass records how the client was classified, in both forms.
func (s *scope) setClass(c policy.Class) {
	s.class = c
	s.Class = enforce.Class{Kind: c.Kind.String(), Name: c.Name, Purpose: c.Purpose.String()}
	// A name is a claim until grade proves it.
	s.Grade = enforce.GradeAnonymous
	if c.Kind == policy.Declared || c.Kind == policy.Known {
		s.Grade = enforce.GradeClaimed
	}
}

// setAgent makes agent policy ai (-1: none) the one in force.
func (s *scope) setAgent(p *policy.Policy, ai int) {
	s.ai, s.Agent = ai, ""
	if ai >= 0 {
		s.Agent = p.Agents[ai].Name
	}
}

// forwarded reports whether the request goes on to the handler: passed,
// allowed, or a denial report-only does not apply.
func (s *scope) forwarded() bool {
	return s.Outcome == enforce.Pass || s.Outcome == enforce.Allow || s.ReportOnly
}

// handsOn reports whether the request goes on in its canonical form and
// with its decision field: not a binding's behind Wrap, nor the session
// endpoint's.
func (s *scope) handsOn() bool { return s.forwarded() && !s.own && !s.limitOnly }

// statusOf maps a denial to its HTTP status.
func statusOf(d *enforce.Decision) int {
	switch d.Outcome {
	case enforce.DenyIdentity:
		if d.Identity.Reason == webbotauth.ReasonReplay {
			// draft-ietf-webbotauth-httpsig-protocol-01 5.3: a replayed
			// nonce is answered 429, with a fresh Accept-Signature.
			return http.StatusTooManyRequests
		}
		return http.StatusForbidden
	case enforce.DenyPath, enforce.DenyCapability, enforce.DenyPreference:
		return http.StatusForbidden
	case enforce.DenyHost:
		return http.StatusMisdirectedRequest
	case enforce.DenyAuth, enforce.DenySession:
		return http.StatusUnauthorized
	case enforce.DenyRate:
		return http.StatusTooManyRequests
	case enforce.StoreError:
		return http.StatusServiceUnavailable
	case enforce.DenyTarget, enforce.DenyBody, enforce.DenyParams:
		return http.StatusBadRequest
	}
	return 0
}
