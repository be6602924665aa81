package agentstxt

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is agents.txt in the dialect the Formats name.
var Format discovery.Format = format{}

type format struct{}

func (format) Kind() config.Document { return config.DocAgentsTxt }

func (format) Render(s *config.Site, env *discovery.Env) ([]discovery.Doc, error) {
	b, err := Render(s, env.Formats.Dialect)
	return discovery.One(discovery.Doc{Name: "agents.txt", ContentType: discovery.TypeText, MaxAge: discovery.MaxAgeAgentsTxt,
		Paths: []string{"/.well-known/agents.txt", "/agents.txt"}}, b, err)
}
