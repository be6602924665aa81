package agentsjson

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agenturi"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is /.well-known/agents.json: the agents.txt dialect's companion,
// or the agent:// registry (Formats.AgentsJSON, docs/design.md collision 2).
var Format discovery.Format = format{}

// agents.json's rules are its dialect's (agentstxt) or agent://'s (agenturi).
type format struct{ discovery.NoRules }

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
	return discovery.One(discovery.Doc{Name: "agents.json", ContentType: discovery.TypeJSON, MaxAge: discovery.MaxAgeAgentsTxt,
		Paths: []string{"/.well-known/agents.json"}}, b, err)
}
