// Package agentsmd renders a site declaration as agents.md (agents.md
// Protocol 1.0.0-draft), served at /.well-known/agents.md with the fallback
// /agents.md.
//
// Render is pure: the same config.Site always yields the same bytes. A site
// that declares an MCP gateway (AgentsMD.MCP) gets Format B, a YAML front
// matter (agents.md 2, Appendix B) written by a YAML encoder followed by the
// Markdown body; any other site gets Format A, the Markdown body alone.
//
// The body is the site name as H1, the description paragraph and the
// sections of agents.md 3 in this order: Can, Cannot, Behavior, Contact. A
// section with no items is omitted. Can, Cannot and Behavior are the
// AgentsMD overrides when those are non-nil (a non-nil empty slice omits the
// section) and are otherwise derived from the declaration:
//
//   - Can: one item per capability, its description (or ID) with the
//     qualifiers the drafts use: "(authenticated)", "(requires session)",
//     "(human completes)".
//   - Cannot: "Access <pattern>" per Disallow pattern and, when no access
//     rules are declared at all, the draft-car 2.6 rule that only the
//     declared capability endpoints may be used.
//   - Behavior: the site, capability and per-agent rate limits in prose
//     ("60 requests/minute", "1 request/second"), agent capability
//     restrictions, the session lifetime, the audit trail, and the request
//     to identify in the User-Agent header, which the enforcer's agent
//     policies match on.
//
// Contact is AgentsMD.Contact, or Site.Contact when that is nil, written as
// plain lines as in the examples of agents.md 3 and 7.
//
// Render writes sites that publish.Validate has accepted: rates, the session
// TTL and the MCP gateway are not checked again. The Markdown block rules
// live here, because most lines are derived here: every line is checked
// before it is written, and text with a line break or a control character
// (package linetext), or text that would change the document's structure
// (a list item starting with "#", a line "---", a code fence, an HTML block,
// a link reference definition, ...) is an error naming the field, never
// output.
package agentsmd
