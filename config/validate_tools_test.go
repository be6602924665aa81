package config_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
)

func toolSite() config.Site {
	return config.Site{
		Name: "MCP Shop", URL: "https://shop.example",
		Capabilities: []config.Capability{{
			ID: "store-assistant", Description: "the store over MCP", Endpoint: "https://shop.example/mcp",
			Protocol: config.ProtocolMCP,
			Auth: config.Auth{Type: config.AuthOAuth2, TokenEndpoint: "https://auth.shop.example/token",
				AuthorizationServer: "https://auth.shop.example", Scopes: []string{"store"}},
			RateLimit: config.PerMinute(60),
			Tools: []config.Tool{
				{Name: "search_products", RateLimit: config.PerMinute(30)},
				{Name: "checkout", Sensitivity: config.SensitivityIrreversible, RateLimit: config.PerMinute(2),
					Auth: config.ToolAuth{Scopes: []string{"store.checkout"}}},
			},
		}, {ID: "product-search", Description: "search", Endpoint: "https://shop.example/api/search"}},
		Agents: []config.AgentPolicy{
			{Name: "GPTBot", Capabilities: []string{"store-assistant/search_products"}},
			{Name: "ClaudeBot", Capabilities: []string{"store-assistant"}},
		},
	}
}

// TestTools: the declaration validates, and each rule of tools
// and of single-tool grants says what is wrong where.
func TestTools(t *testing.T) {
	s := toolSite()
	if err := config.Validate(&s, config.Formats{}); err != nil {
		t.Fatalf("the declaration of issue 35: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*config.Site)
		field string
		msg   string
	}{
		{"tools on a REST capability", func(s *config.Site) {
			s.Capabilities[1].Tools = []config.Tool{{Name: "x"}}
		}, "Capabilities[1].Tools", "only a capability of"},
		{"a name MCP does not allow", func(s *config.Site) {
			s.Capabilities[0].Tools[0].Name = "search products"
		}, "Capabilities[0].Tools[0].Name", "is not an MCP tool name"},
		{"a name of 129 characters", func(s *config.Site) {
			s.Capabilities[0].Tools[0].Name = strings.Repeat("a", 129)
		}, "Capabilities[0].Tools[0].Name", "is not an MCP tool name"},
		{"a name twice", func(s *config.Site) {
			s.Capabilities[0].Tools[1].Name = "search_products"
		}, "Capabilities[0].Tools[1].Name", "is already the name of"},
		{"no name", func(s *config.Site) {
			s.Capabilities[0].Tools[1].Name = ""
		}, "Capabilities[0].Tools[1].Name", ""},
		{"a cost without a limit", func(s *config.Site) {
			s.Capabilities[0].Tools[0].RateLimit, s.Capabilities[0].Tools[0].Cost = config.Rate{}, 2
		}, "Capabilities[0].Tools[0].Cost", "does not declare"},
		{"a cost above the limit", func(s *config.Site) {
			s.Capabilities[0].Tools[1].Cost = 3
		}, "Capabilities[0].Tools[1].Cost", "no call could ever pass"},
		{"scopes on a capability without scopes", func(s *config.Site) {
			s.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey}
		}, "Capabilities[0].Tools[1].Auth.Scopes", "scopes need"},
		{"a scope that is not one", func(s *config.Site) {
			s.Capabilities[0].Tools[1].Auth.Scopes = []string{"a b"}
		}, "Capabilities[0].Tools[1].Auth.Scopes[0]", "is not an OAuth scope"},
		{"a grant of an unlisted tool", func(s *config.Site) {
			s.Agents[0].Capabilities = []string{"store-assistant/Search_products"}
		}, "Agents[0].Capabilities[0]", "does not list"},
		{"a grant of a tool of a capability without tools", func(s *config.Site) {
			s.Agents[0].Capabilities = []string{"product-search/q"}
		}, "Agents[0].Capabilities[0]", "lists no tools"},
		{"a grant of a tool of no capability", func(s *config.Site) {
			s.Agents[0].Capabilities = []string{"nothing/q"}
		}, "Agents[0].Capabilities[0]", "not the ID of a declared capability"},
		{"a proven grant of an unlisted tool", func(s *config.Site) {
			s.Agents[0].Proven = &config.Grant{Capabilities: []string{"store-assistant/admin"}}
			s.Agents[0].Verify.Required = true
		}, "Agents[0].Proven.Capabilities[0]", "does not list"},
		{"a capability ID with a slash", func(s *config.Site) {
			s.Capabilities[1].ID = "product/search"
		}, "Capabilities[1].ID", `contains "/"`},
	} {
		s := toolSite()
		tc.edit(&s)
		err := config.Validate(&s, config.Formats{})
		if err == nil || !strings.Contains(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %s: ...%s", tc.name, err, tc.field, tc.msg)
		}
	}
}
