package enforce

import (
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/ratelimit"
)

// declaredLimits fills ls with the limits a request of agent policy ai and
// capability ci (-1 for none) draws from, in order site, agent,
// capability, with an empty Key, and returns how many. New runs it once
// per pair; Enforcer.limits copies the result per request.
func declaredLimits(p *policy.Policy, ls *[3]ratelimit.Limit, ai, ci int) int {
	n := 0
	add := func(l policy.Limit) {
		ls[n] = ratelimit.Limit{Name: l.Name, Rate: l.Rate, Period: l.Period}
		n++
	}
	if !p.SiteLimit.IsZero() {
		add(p.SiteLimit)
	}
	if ai >= 0 && !p.Agents[ai].Limit.IsZero() {
		add(p.Agents[ai].Limit)
	}
	if ci >= 0 && !p.Capabilities[ci].Limit.IsZero() {
		add(p.Capabilities[ci].Limit)
	}
	return n
}
