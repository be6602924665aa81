package agentsmd

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is agents.md.
var Format discovery.Format = format{}

type format struct{}

func (format) Kind() config.Document { return config.DocAgentsMD }

func (format) Render(s *config.Site, _ *discovery.Env) ([]discovery.Doc, error) {
	b, err := Render(s)
	return discovery.One(discovery.Doc{Name: "agents.md", ContentType: discovery.TypeMarkdown, MaxAge: discovery.MaxAgeAgentsMD,
		Paths: []string{"/.well-known/agents.md", "/agents.md"}}, b, err)
}
