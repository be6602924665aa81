package verifier

import (
	"io"
	"log/slog"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newForAgents is New for a site of these agent policies.
func newForAgents(agents []config.AgentPolicy, o verify.Options) (*Verifier, error) {
	return New(&config.Site{Agents: agents}, o)
}
