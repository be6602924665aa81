package demo

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
)

// Options are the agentready options both demos use: every decision about
// an agent request is logged with log/slog, and bearer tokens are checked
// against the ones /auth/token issued.
func (a *App) Options(log *slog.Logger) []agentready.Option {
	return []agentready.Option{
		agentready.WithLogger(log),
		agentready.WithOnDecision(func(d enforce.Decision) {
			if d.Outcome == enforce.Pass {
				return // a browser: not an agent request
			}
			attrs := []any{"outcome", d.Outcome.String(), "status", d.Status, "agent", d.Agent,
				"class", d.Class.Kind, "ua", d.Class.Name, "capability", d.Capability, "rule", d.Rule, "limit", d.Limit}
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
		}),
		agentready.WithAuthenticator(func(r *http.Request, c *config.Capability, token string) error {
			if !a.ValidToken(token) {
				return errors.New("unknown or expired token; get one from /auth/token")
			}
			return nil
		}),
	}
}
