package agentsmd

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// Derived sections: what a site that writes no agents.md prose of its own
// publishes, read off the declaration the enforcer applies, so that the
// document never promises more or less than what is enforced.

// deriveCan lists each capability by its description (or ID), qualified the
// way the drafts qualify actions: "(authenticated)" as in agents.md 7,
// "(requires session)" as in agents.txt v0.1.0, "(human completes)" for a
// human-handoff capability.
func deriveCan(s *config.Site) []item {
	items := make([]item, 0, len(s.Capabilities))
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		text, field := c.Description, fmt.Sprintf("Capabilities[%d].Description", i)
		if text == "" {
			text, field = c.ID, fmt.Sprintf("Capabilities[%d].ID", i)
		}
		// agents.md list items are phrases, not sentences (agents.md 2, 7).
		if strings.HasSuffix(text, ".") && !strings.HasSuffix(text, "..") {
			text = text[:len(text)-1]
		}
		var quals []string
		if resolve.AuthRequired(c.Auth) {
			quals = append(quals, "authenticated")
		}
		if c.RequiresSession {
			quals = append(quals, "requires session")
		}
		if c.HumanHandoff {
			quals = append(quals, "human completes")
		}
		if len(quals) > 0 {
			text += " (" + strings.Join(quals, ", ") + ")"
		}
		items = append(items, item{text: text, field: field})
	}
	return items
}

// deriveCannot lists the Disallow patterns and, when no access rules are
// declared, the implicit rule of draft-car 2.6: "When no access control is
// declared, only paths referenced by capabilities are implicitly permitted".
func deriveCannot(s *config.Site) []item {
	var items []item
	for i, pat := range s.Access.Disallow {
		items = append(items, item{text: "Access " + pat, field: fmt.Sprintf("Access.Disallow[%d]", i)})
	}
	if len(s.Access.Allow) == 0 && len(s.Access.Disallow) == 0 {
		items = append(items, item{text: "Access paths other than the declared capability endpoints", field: "Access"})
	}
	return items
}

// identifyLine closes a derived Behavior section: agent policies and the
// agent classification behind every limit match on the User-Agent.
const identifyLine = "Identify in User-Agent header"

// deriveBehavior lists the rules the enforcer applies: the site, capability
// and agent rate limits, agent capability restrictions, the session
// lifetime and the audit trail, then identifyLine. A site that declares no
// capability, no agent policy and none of these rules has no Behavior
// section, like the agents.md 7 "Minimal" example.
func deriveBehavior(s *config.Site) []item {
	var items []item
	if !s.RateLimit.IsZero() {
		items = append(items, item{text: "Respect " + rateProse(s.RateLimit), field: "RateLimit"})
	}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if c.RateLimit.IsZero() {
			continue
		}
		items = append(items, item{text: c.ID + ": at most " + rateProse(c.RateLimit), field: fmt.Sprintf("Capabilities[%d].ID", i)})
	}
	for i := range s.Capabilities {
		for k, t := range s.Capabilities[i].Tools {
			if t.RateLimit.IsZero() {
				continue
			}
			text := s.Capabilities[i].ID + "/" + t.Name + ": at most " + rateProse(t.RateLimit)
			if t.Cost > 1 {
				text += fmt.Sprintf(", a call counting %d", t.Cost)
			}
			items = append(items, item{text: text, field: fmt.Sprintf("Capabilities[%d].Tools[%d].Name", i, k)})
		}
	}
	for i := range s.Agents {
		items = append(items, agentLines(&s.Agents[i], fmt.Sprintf("Agents[%d]", i))...)
	}
	if resolve.NeedsSession(s) || s.Session.TTL != 0 {
		items = append(items, item{
			text:  "Sessions (POST " + resolve.SessionEndpoint(s) + ") expire after " + durationProse(resolve.SessionTTL(s)),
			field: "Session.Endpoint",
		})
	}
	if s.Audit.Enabled {
		// agents.txt v0.1.0, For AI Agents 5: "your actions are being
		// cryptographically logged".
		items = append(items, item{
			text:  "Actions are cryptographically logged; audit artifacts at " + resolve.AuditEndpoint(s),
			field: "Audit.Endpoint",
		})
	}
	if len(items) > 0 || len(s.Capabilities) > 0 || len(s.Agents) > 0 {
		items = append(items, item{text: identifyLine, field: "Behavior"})
	}
	return items
}

// agentLines are one agent policy's limits and capability restrictions,
// as "Agent claude: 200 requests/minute; capabilities a, b". A graded
// policy (docs/verified-agents.md, grades) has a line for its proven form, and a verified-only
// one says what an unproven claim gets; a policy that restricts nothing
// and grades nothing has no line.
func agentLines(a *config.AgentPolicy, field string) []item {
	who := "Agent " + a.Name
	if a.Name == "*" {
		// The default policy (draft-car 2.7); a bare "*" would also read as
		// Markdown emphasis.
		who = "Agents without their own policy"
	}
	line := func(who string, parts []string) item {
		return item{text: who + ": " + strings.Join(parts, "; "), field: field}
	}
	var items []item
	own := grantProse(a.RateLimit, a.Capabilities)
	switch {
	case a.Verify.Required && a.Name != "*":
		// Verified-only: the policy's grants (its proven form's, when it
		// has one) go to a client that proves it is the agent.
		g := own
		if p := a.Proven; p != nil {
			g = grantProse(p.RateLimit, p.Capabilities)
		}
		unproven := "refused"
		if a.Verify.FallBack {
			unproven = "served as agents without their own policy"
		}
		return append(items, line(who+", proven", orNoLimit(g)), line(who+", unproven", []string{unproven}))
	case len(own) > 0:
		items = append(items, line(who, own))
	}
	if p := a.Proven; p != nil {
		proven := who + ", proven"
		if a.Name == "*" {
			proven = "Agents without their own policy whose operator is proven"
		}
		items = append(items, line(proven, orNoLimit(grantProse(p.RateLimit, p.Capabilities))))
	}
	return items
}

// grantProse is a limit and a capability restriction as prose parts.
func grantProse(r config.Rate, ids []string) []string {
	var parts []string
	if !r.IsZero() {
		parts = append(parts, rateProse(r))
	}
	whole, tools := resolve.WholeGrants(ids), resolve.ToolGrants(ids)
	switch {
	case ids == nil:
		// nil: every declared capability; nothing to say.
	case len(whole) == 0 && tools == nil:
		parts = append(parts, "no capabilities")
	case len(whole) > 0:
		parts = append(parts, "capabilities "+strings.Join(whole, ", "))
	}
	// Single tools (CAPABILITY/TOOL), which agents.txt cannot say, per
	// capability in the order declared.
	for _, id := range ids {
		c, _, ok := strings.Cut(id, "/")
		if ok && tools[c] != nil {
			parts = append(parts, "tools of "+c+": "+strings.Join(tools[c], ", "))
			delete(tools, c)
		}
	}
	return parts
}

// orNoLimit says a grant that restricts nothing.
func orNoLimit(parts []string) []string {
	if len(parts) == 0 {
		return []string{"no limit", "every capability"}
	}
	return parts
}

// deriveContact is Site.Contact as the one Contact line.
func deriveContact(s *config.Site) []item {
	if s.Contact == "" {
		return nil
	}
	return []item{{text: s.Contact, field: "Contact"}}
}
