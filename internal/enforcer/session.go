package enforcer

import (
	"context"
	"net/http"
	"net/netip"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/session"
)

// session is the stage of v0.1.0 sessions, after the limits: a request to
// record (with X-Agent-Session, or to a session-required capability) has
// its session looked up whatever was decided, a denial's too (its audit
// trail records it); the recorder may refuse more, never less.
func (e *Enforcer) session(s *scope) {
	if e.rec == nil || s.limitOnly || s.Outcome == enforce.Pass {
		return
	}
	_, presented := s.r.Header[session.HeaderSession]
	requires := s.Capability != "" && e.p.Capabilities[s.ci].RequiresSession(s.Tool)
	if !presented && !requires {
		return
	}
	s.recorded = true
	agent, client := e.identityOf(s)
	s.Decision, s.sess = e.rec.Check(s.r, s.Decision, agent, client, s.pending)
}

// prefetch is the context the limits stage takes s's limits with. When
// the session stage will look up the session s's request carries, and
// the limits are keyed by its client (the default), it carries that
// lookup: a Redis session store on the limit store's client reads the
// session in the limits' round trip (redisstore/prefetch.go), with the
// outcome of the two in turn (the limits first: a request refused for its
// session has taken its tokens). Keyed by subject (Config.Key returned
// one) or by agent policy (Config.ByAgent), the limits are not those of
// the client the session is bound to, and the lookup stays after them
// (docs/sessions.md, "Round trips on Redis").
func (e *Enforcer) prefetch(s *scope) context.Context {
	if e.rec == nil || s.limitOnly || s.explain || !s.client.Net.IsValid() || len(s.r.Header[session.HeaderSession]) == 0 {
		return s.r.Context()
	}
	ctx, p := e.rec.Prefetch(s.r)
	s.pending = p
	return ctx
}

// Identify returns who is calling, the way sessions are bound: the
// declared agent policy the User-Agent names ("claude"), else "*/" and the
// name it was classified as or its first product token ("*/ClaudeBot",
// "*/ShopAgent"), or "*"; and the client's network (an IPv6 client's /64).
// ok is false for browsers: only agents hold sessions.
func (e *Enforcer) Identify(r *http.Request) (agent string, client netip.Prefix, ok bool) {
	c := e.classOf(r)
	if !c.Agent() {
		return "", netip.Prefix{}, false
	}
	var s scope
	newScope(&s, r, nil, -1)
	return e.agentIdentity(r, c), clientip.Key(e.clientAddr(&s)), true
}

// identityOf is Identify from the scope of a request already decided: the
// class is s's, and the client network is the one the rate limits used
// when they were keyed by it.
func (e *Enforcer) identityOf(s *scope) (string, netip.Prefix) {
	client := s.client.Net
	if e.lim.keyFn != nil || e.lim.byAgent || !client.IsValid() {
		client = clientip.Key(e.clientAddr(s))
	}
	return e.agentIdentity(s.r, s.class), client
}

// agentIdentity is the agent a session is bound to (see Identify).
func (e *Enforcer) agentIdentity(r *http.Request, c policy.Class) (agent string) {
	if c.Kind == policy.Declared && c.Policy >= 0 && c.Policy < len(e.p.Agents) {
		return e.p.Agents[c.Policy].Name
	}
	if c.Name != "" {
		return "*/" + c.Name
	}
	tokens := policy.ProductTokens(r.Header.Get("User-Agent"))
	if name, ok := tokens.Next(); ok {
		return "*/" + name[:min(len(name), maxProductLen)]
	}
	return "*"
}

// maxProductLen bounds the product token an unknown agent's session
// identity keeps.
const maxProductLen = 64

// LimitOnly applies only the site-wide and agent rate limits before next
// (the v0.1.0 session endpoint, exempt from path rules): the chain runs
// with the scope's limitOnly flag. An allowed decision has Rule
// RuleSessionEndpoint.
func (e *Enforcer) LimitOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s scope
		newScope(&s, r, nil, -1)
		s.limitOnly = true
		e.chain(&s)
		e.exit(w, next, &s)
	})
}

// ExplainLimitOnly is Explain for a request LimitOnly would serve: the
// limits that would be checked, none consumed.
func (e *Enforcer) ExplainLimitOnly(r *http.Request) enforce.Decision {
	var s scope
	newScope(&s, r, nil, -1)
	s.limitOnly = true
	return e.explain(&s)
}
