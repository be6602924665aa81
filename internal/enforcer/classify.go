package enforcer

import (
	"net/http"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcprpc"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/override"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/session"
)

// ruleRobots is the rule of a /robots.txt request, always served.
const ruleRobots = "robots.txt (always served)"

// classify is the first stage: who the client says it is. A browser
// passes untouched (nothing else applies to it), and so does a plain GET
// of /robots.txt, which is always served (docs/design.md); an agent goes
// on, under the agent policy its User-Agent names (or "*").
func (e *Enforcer) classify(s *scope) bool {
	r := s.r
	s.class = e.classOf(r) // its Decision form waits for settle: a browser's is mostly never read
	robots := !s.limitOnly && !s.bound && !s.explain && r.URL.Path == "/robots.txt" && r.URL.RawPath == "" && plainGet(r)
	if !s.class.Agent() || robots {
		// /robots.txt as sent, not decoded: chi would route
		// "/robots%2Etxt" as another path. Another method or a query is
		// decided as any request: WordPress answers
		// /robots.txt?rest_route=... from its REST API.
		if s.Outcome = enforce.Pass; robots {
			s.Rule = ruleRobots
			s.setAgent(e.p, e.agentPolicy(s.class))
		}
		return false
	}
	s.setClass(s.class)
	s.setAgent(e.p, e.agentPolicy(s.class))
	s.Identity.Claimed = s.class.Name
	return true
}

// classOf classifies r by its User-Agent (or Config.Classify).
func (e *Enforcer) classOf(r *http.Request) policy.Class {
	// The canonical key indexed directly: Header.Values canonicalises it
	// on every request, about 3% of an agent's pipeline (bench/compare).
	v := r.Header["User-Agent"]
	var c policy.Class
	if e.classFn != nil {
		c = e.classFn(r)
	} else {
		var ua string
		if len(v) > 0 {
			ua = v[0]
		}
		c = e.uas.Classify(e.p.Classifier, ua)
	}
	if c.Kind == policy.Browser && (len(v) > 1 || agentHeaders(r.Header)) {
		// Two User-Agents, or a browser's that comes with an agent's
		// session or signature (ChatGPT's agent sends a Chrome User-Agent
		// and a Web Bot Auth signature): an agent, under "*".
		return policy.Class{Kind: policy.Unknown, Policy: -1}
	}
	return c
}

// agentHeaders reports whether h carries what only agents send: a v0.1.0
// session (X-Agent-Session), a Web Bot Auth Signature-Agent, an RFC 9421
// Signature-Input, or an MCP client's session or request headers
// (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method): an MCP session is
// bound to its agent, and a browser's User-Agent must not carry another's
// past the binding (docs/mcp.md).
func agentHeaders(h http.Header) bool {
	return len(h[session.HeaderSession]) > 0 || len(h["Signature-Input"]) > 0 || len(h["Signature-Agent"]) > 0 ||
		len(h[mcpsession.Header]) > 0 || len(h["Mcp-Protocol-Version"]) > 0 || len(h[mcprpc.HeaderMethod]) > 0
}

// agentPolicy is the declared agent policy that applies to class c: the
// policy its User-Agent names, else the "*" policy; -1 when neither exists.
func (e *Enforcer) agentPolicy(c policy.Class) int {
	p := e.p
	if c.Kind == policy.Declared && c.Policy >= 0 && c.Policy < len(p.Agents) {
		return c.Policy
	}
	return p.Default
}

// preview passes a link preview or feed reader as a browser is served
// (config.Access.LinkPreviews): any client may send a browser's
// User-Agent, so this opens nothing that was closed. A second User-Agent,
// a session or a signature makes a browser's User-Agent an agent's
// (classOf), and a preview's too.
func (e *Enforcer) preview(s *scope) bool {
	if s.limitOnly || !e.previews[s.class.Name] || s.class.Kind != policy.Known || len(s.r.Header["User-Agent"]) != 1 || agentHeaders(s.r.Header) {
		return true
	}
	s.Outcome, s.Rule = enforce.Pass, enforce.RuleLinkPreview
	return false
}

// plainGet reports whether r is a GET or HEAD without a query or a method
// override header: what a crawler fetching /robots.txt or a health check
// sends, and nothing an application routes elsewhere.
func plainGet(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.URL.RawQuery != "" || r.URL.ForceQuery {
		return false
	}
	for _, k := range override.Headers {
		if len(r.Header[k]) > 0 {
			return false
		}
	}
	return true
}
