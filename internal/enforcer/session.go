package enforcer

import (
	"net/http"
	"net/netip"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/policy"
)

// This file is what the pipeline knows of v0.1.0 sessions: who a session
// is bound to, the decisions a Recorder makes (their rules), and the
// session endpoint's rate limits. Recording is the Recorder's.

// Identify returns who is calling, the way sessions are bound: the
// declared agent policy the User-Agent names ("claude"), else "*/" and the
// name it was classified as or its first product token ("*/ClaudeBot",
// "*/ShopAgent"), or "*"; and the client's network (an IPv6 client's /64).
// ok is false for browsers: only agents hold sessions.
func (e *Enforcer) Identify(r *http.Request) (agent string, client netip.Prefix, ok bool) {
	c := e.classify(r)
	if !c.Agent() {
		return "", netip.Prefix{}, false
	}
	var d decision
	return e.agentIdentity(r, c), clientip.Key(e.clientAddr(r, &d)), true
}

// identityOf is Identify from a decision already made for r: the class is
// d's, and the client network is the one the rate limits used when they
// were keyed by it.
func (e *Enforcer) identityOf(r *http.Request, d *decision) (string, netip.Prefix) {
	client := d.client.Net
	if e.lim.keyFn != nil || e.lim.byAgent || !client.IsValid() {
		client = clientip.Key(e.clientAddr(r, d))
	}
	return e.agentIdentity(r, d.class), client
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

// LimitOnly returns a handler that applies only the site-wide and agent
// rate limits before next, for endpoints exempt from path rules (the
// v0.1.0 session endpoint). Browsers pass untouched. An allowed decision
// has Rule RuleSessionEndpoint.
func (e *Enforcer) LimitOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var d decision
		e.decideLimitOnly(r, true, &d)
		e.answer(w, r, next, &d)
	})
}

// ExplainLimitOnly is Explain for a request LimitOnly would serve: the
// limits that would be checked, none consumed.
func (e *Enforcer) ExplainLimitOnly(r *http.Request) enforce.Decision {
	var d decision
	e.decideLimitOnly(r, false, &d)
	return d.Decision
}

// decideLimitOnly classifies r and, for an agent, checks the site and
// agent limits (consume=false: lists them only).
func (e *Enforcer) decideLimitOnly(r *http.Request, consume bool, d *decision) {
	d.setClass(e.classify(r))
	if !d.class.Agent() {
		d.Outcome = enforce.Pass
		return
	}
	ai := e.setAgent(d)
	d.Identity.Claimed = d.class.Name
	// Creating a session is no way around verification: the claim is
	// checked here as on every other request.
	ai, ok := e.grade(r, ai, consume, d)
	if !ok {
		d.Status = statusOf(&d.Decision)
		return
	}
	d.Rule = enforce.RuleSessionEndpoint
	e.rateLimit(r, ai, -1, consume, d)
	d.Status = statusOf(&d.Decision)
}
