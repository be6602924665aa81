package agentsjson

import (
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/publish/agenturi"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is /.well-known/agents.json: the agents.txt dialect's companion,
// or the agent:// registry (Formats.AgentsJSON, docs/design.md collision 2).
var Format discovery.Format = format{}

type format struct{}

// Check has nothing of its own to check: agents.json's rules are its dialect's (agentstxt) or agent://'s (agenturi).
func (format) Check(*discovery.Check) {}

func (format) TagRules() map[string]fieldcheck.TagRule { return nil }

func (format) Schema() discovery.Schema { return discovery.Schema{} }

func (format) Kind() config.Document { return config.DocAgentsJSON }

func (format) Render(s *config.Site, env *discovery.Env) ([]discovery.Doc, error) {
	var b []byte
	var err error
	switch {
	case env.Formats.AgentsJSON == config.AgentsJSONRegistry:
		b, err = agenturi.Registry(s, env.DescriptorURL)
	case env.Formats.Dialect == config.DialectV010:
		b, err = V010(s)
	default:
		b, err = DraftCar(s)
	}
	if err != nil {
		return nil, fmt.Errorf("agents.json: %w", err)
	}
	return []discovery.Doc{{Name: "agents.json", ContentType: discovery.TypeJSON, MaxAge: discovery.MaxAgeAgentsTxt, Body: b,
		Paths: []string{"/.well-known/agents.json"}}}, nil
}
