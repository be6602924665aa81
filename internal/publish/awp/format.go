package awp

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is the AWP agent.json.
var Format discovery.Format = format{}

type format struct{}

func (format) Kind() config.Document { return config.DocAWP }

func (format) Render(s *config.Site, env *discovery.Env) ([]discovery.Doc, error) {
	b, err := AgentJSON(s, env.A2AVersion)
	return discovery.One(discovery.Doc{Name: "agent.json", ContentType: discovery.TypeJSON, MaxAge: discovery.MaxAgeAgentJSON,
		Paths: []string{"/agent.json", "/.well-known/agent.json"}}, b, err)
}
