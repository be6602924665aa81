package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
)

// The agents.md renderer writes only validated sites: these cases, once
// refused by agentsmd.Render, are refused by Validate, naming the field.
// (The Markdown block rules of the lines it writes stay with the renderer,
// which derives most of those lines.)
func TestValidateRefusesAgentsMD(t *testing.T) {
	tests := []struct {
		name string
		edit func(*config.Site)
		want []string // fields, then substrings of the error
	}{
		{"bad rate", func(s *config.Site) { s.RateLimit = config.Rate{Requests: 5, Window: "fortnight"} }, []string{"RateLimit:", "fortnight"}},
		{"bad capability rate", func(s *config.Site) {
			s.Capabilities = []config.Capability{{ID: "a", RateLimit: config.PerMinute(-1)}}
		}, []string{"Capabilities[0].RateLimit:"}},
		{"bad agent rate and name", func(s *config.Site) {
			s.Agents = []config.AgentPolicy{{RateLimit: config.PerMinute(0)}}
		}, []string{"Agents[0].RateLimit:", "Agents[0].Name:"}},
		{"sub-second session TTL", func(s *config.Site) {
			s.Capabilities = []config.Capability{{ID: "a", RequiresSession: true}}
			s.Session.TTL = 1500 * time.Millisecond
		}, []string{"Session.TTL:"}},
		{"MCP without endpoint", func(s *config.Site) { s.AgentsMD.MCP = &config.MCPGateway{} }, []string{"AgentsMD.MCP.Endpoint: is required"}},
		{"MCP endpoint with LF", func(s *config.Site) {
			s.AgentsMD.MCP = &config.MCPGateway{Endpoint: "https://a.example/\n---"}
		}, []string{"AgentsMD.MCP.Endpoint:", "line break"}},
		{"MCP endpoint invalid UTF-8", func(s *config.Site) {
			s.AgentsMD.MCP = &config.MCPGateway{Endpoint: "https://a.example/\xfe"}
		}, []string{"AgentsMD.MCP.Endpoint:", "UTF-8"}},
		{"MCP transport", func(s *config.Site) {
			s.AgentsMD.MCP = &config.MCPGateway{Endpoint: "https://a.example/mcp", Transport: "websocket"}
		}, []string{"AgentsMD.MCP.Transport:", "websocket"}},
		{"MCP bearer auth", func(s *config.Site) {
			s.AgentsMD.MCP = &config.MCPGateway{Endpoint: "https://a.example/mcp", Auth: config.AuthBearerToken}
		}, []string{"AgentsMD.MCP.Auth:", "bearer-token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := config.Site{Name: "Shop", URL: "https://shop.example"}
			tt.edit(&s)
			err := publish.Validate(&s, only(config.DocAgentsMD))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
