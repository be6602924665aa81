package demo

import (
	"log/slog"
	"strings"

	"github.com/agentready/agentready/enforce"
)

// LogDecision returns a decision hook (agentready.WithOnDecision) that logs
// every decision about an agent request with log/slog: its outcome, the
// agent and policy, the rule and limit, and what the claim was proven by.
func LogDecision(log *slog.Logger) func(enforce.Decision) {
	return func(d enforce.Decision) {
		if d.Outcome == enforce.Pass {
			return // a browser: not an agent request
		}
		attrs := []any{"outcome", d.Outcome.String(), "status", d.Status, "agent", d.Agent,
			"class", d.Class.Kind, "ua", d.Class.Name, "capability", d.Capability, "tool", d.Tool, "rule", d.Rule, "limit", d.Limit}
		if d.Err != nil {
			attrs = append(attrs, "err", d.Err.Error())
		}
		if d.Class.Purpose != enforce.PurposeUnknown {
			attrs = append(attrs, "purpose", d.Class.Purpose)
		}
		if d.Identity.Claimed != "" {
			attrs = append(attrs, "claimed", d.Identity.Claimed, "verified", d.Identity.Method.String())
		}
		if d.Identity.Reason != "" {
			attrs = append(attrs, "reason", d.Identity.Reason) // why the claim was not proven
		}
		if d.Unverified {
			attrs = append(attrs, "unverified", true)
		}
		if d.Degraded {
			// Redis is down: counted by the failure policy (-redis).
			attrs = append(attrs, "degraded", true)
		}
		log.Info("agent request", attrs...)
	}
}

// List is a repeatable string flag.
type List []string

func (l *List) String() string     { return strings.Join(*l, ",") }
func (l *List) Set(s string) error { *l = append(*l, s); return nil }
