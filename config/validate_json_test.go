package config_test

import (
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
)

// The JSON renderers (agents.json, AWP agent.json, agent:// registry and
// descriptors) write only validated sites: what they once refused, because
// it would repeat a key or break their schema, Validate refuses, naming
// the field.
func TestValidateRefusesWhatJSONDocumentsCannotCarry(t *testing.T) {
	skills := []config.Skill{{ID: "a", Name: "a", Description: "a"}}
	capability := func(params ...config.Param) []config.Capability {
		return []config.Capability{{ID: "a", Description: "a", Endpoint: "https://x.example/a", Params: params}}
	}
	registry := config.Formats{AgentsJSON: config.AgentsJSONRegistry, Disabled: config.AllDocuments &^ (config.DocAgentsJSON | config.DocDescriptors)}
	companion := func(d config.Dialect) config.Formats {
		return config.Formats{Dialect: d, Disabled: config.AllDocuments &^ config.DocAgentsJSON}
	}
	tests := []struct {
		name    string
		site    config.Site
		formats config.Formats
		field   string
	}{
		{"draft-car: duplicate agent", config.Site{Name: "x", URL: "https://x.example",
			Agents: []config.AgentPolicy{{Name: "bot"}, {Name: "bot"}}}, companion(config.DialectIETFDraft), "Agents[1].Name"},
		{"v0.1.0: no capabilities", config.Site{Name: "x", URL: "https://x.example"}, companion(config.DialectV010), "Capabilities"},
		{"v0.1.0: duplicate param", config.Site{Name: "x", URL: "https://x.example",
			Capabilities: capability(config.Param{Name: "q"}, config.Param{Name: "q"})}, companion(config.DialectV010), "Capabilities[0].Params[1].Name"},
		{"AWP: duplicate capability", config.Site{Name: "x", URL: "https://x.example", Description: "x", Capabilities: append(capability(), capability()...)},
			only(config.DocAWP), "Capabilities[1].ID"},
		{"AWP: duplicate param", config.Site{Name: "x", URL: "https://x.example", Description: "x",
			Capabilities: capability(config.Param{Name: "q"}, config.Param{Name: "q"})}, only(config.DocAWP), "Capabilities[0].Params[1].Name"},
		{"agent://: descriptor without a name", config.Site{Name: "x", URL: "https://x.example",
			HostedAgents: []config.HostedAgent{{Version: "1.0.0", Skills: skills}}}, registry, "HostedAgents[0].Name"},
		{"agent://: descriptor without a version", config.Site{Name: "x", URL: "https://x.example",
			HostedAgents: []config.HostedAgent{{Name: "a", Skills: skills}}}, registry, "HostedAgents[0].Version"},
		{"agent://: descriptor without skills", config.Site{Name: "x", URL: "https://x.example",
			HostedAgents: []config.HostedAgent{{Name: "a", Version: "1.0.0"}}}, registry, "HostedAgents[0].Skills"},
		{"agent://: duplicate name", config.Site{Name: "x", URL: "https://x.example",
			HostedAgents: []config.HostedAgent{{Name: "a", Version: "1.0.0", Skills: skills}, {Name: "a", Version: "1.0.0", Skills: skills}}}, registry, "HostedAgents[1].Name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reportsField(t, publish.Validate(&tt.site, tt.formats), tt.field)
		})
	}
}
