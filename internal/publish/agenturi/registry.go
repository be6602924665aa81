package agenturi

import (
	"fmt"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsonenc"
)

// registry is the /.well-known/agents.json registry (section 5) in its
// simple form, name -> descriptor URL. schemaVersion is left out: absent, it
// means "1", and the draft's own example carries only agents.
type registry struct {
	Updated string            `json:"updated,omitempty"`
	Agents  map[string]string `json:"agents"`
}

// Registry renders the agent registry of the site (section 5.1): every
// agent of s.PublishedAgents, keyed by name, mapped to descriptorURL(name),
// which must return the absolute HTTPS URL the descriptor is served at.
// updated is rendered only when s.GeneratedAt is set, so the output stays
// deterministic.
func Registry(s *config.Site, descriptorURL func(name string) string) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("agenturi: nil site")
	}
	if descriptorURL == nil {
		return nil, fmt.Errorf("agenturi: nil descriptor URL function")
	}
	agents := s.PublishedAgents()
	r := registry{Agents: make(map[string]string, len(agents))}
	if !s.GeneratedAt.IsZero() {
		r.Updated = s.GeneratedAt.UTC().Format(time.RFC3339Nano)
	}
	for i := range agents {
		// publish.Validate has held the names to the registry's pattern
		// and kept them unique: they are the registry's keys.
		name := agents[i].Name
		u := descriptorURL(name)
		if u == "" {
			return nil, fmt.Errorf("agenturi: no descriptor URL for agent %q", name)
		}
		r.Agents[name] = u
	}
	return jsonenc.Encode(r)
}
