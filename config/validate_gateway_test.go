package config_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
)

// gatewaySite is issue 37's declaration: a gateway whose tools call two
// REST capabilities.
func gatewaySite() config.Site {
	return config.Site{
		Name: "Shop", URL: "https://shop.example",
		Access: config.Access{Allow: []string{"/api/*", "/mcp"}, EnforceParams: true},
		Capabilities: []config.Capability{
			{ID: "product-search", Description: "Search the catalog", Endpoint: "https://shop.example/api/search", Method: "GET",
				Params: []config.Param{{Name: "q", Type: config.TypeString, Required: true}, {Name: "limit", Type: config.TypeInteger, Min: new(1.0), Max: new(50.0)}}},
			{ID: "cart-add", Description: "Add an item to the cart", Endpoint: "https://shop.example/api/cart", Method: "POST",
				Params: []config.Param{{Name: "sku", In: config.InBody, Required: true}, {Name: "qty", In: config.InBody, Type: config.TypeInteger, Min: new(1.0)}}},
			{ID: "store-assistant", Description: "The store over MCP", Endpoint: "https://shop.example/mcp", Protocol: config.ProtocolMCP, Gateway: true,
				Tools: []config.Tool{{Name: "search_products", Calls: "product-search"}, {Name: "add_to_cart", Calls: "cart-add", RateLimit: config.PerMinute(5)}}},
		},
	}
}

// TestGateway: issue 37's declaration validates, and each rule of a
// gateway says what is wrong where.
func TestGateway(t *testing.T) {
	s := gatewaySite()
	if err := config.Validate(&s, config.Formats{}); err != nil {
		t.Fatalf("the declaration of issue 37: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*config.Site)
		field string
		msg   string
	}{
		{"a gateway tool without calls", func(s *config.Site) { s.Capabilities[2].Tools[0].Calls = "" },
			"Capabilities[2].Tools[0].Calls", "names the capability it calls"},
		{"calls outside a gateway", func(s *config.Site) { s.Capabilities[2].Gateway = false },
			"Capabilities[2].Tools[0].Calls", "only a tool of a gateway"},
		{"calls of no capability", func(s *config.Site) { s.Capabilities[2].Tools[1].Calls = "cart" },
			"Capabilities[2].Tools[1].Calls", "not the ID of a declared capability"},
		{"calls of an MCP capability", func(s *config.Site) { s.Capabilities[2].Tools[1].Calls = "store-assistant" },
			"Capabilities[2].Tools[1].Calls", "calls a REST capability"},
		{"a gateway that is not MCP", func(s *config.Site) { s.Capabilities[2].Protocol = ""; s.Capabilities[2].Tools = nil },
			"Capabilities[2].Gateway", "needs"},
		{"a gateway without tools", func(s *config.Site) { s.Capabilities[2].Tools = nil },
			"Capabilities[2].Tools", "lists no tools"},
		{"params on a gateway tool", func(s *config.Site) { s.Capabilities[2].Tools[0].Params = []config.Param{{Name: "q"}} },
			"Capabilities[2].Tools[0].Params", "declare them there"},
		{"an endpoint on another origin", func(s *config.Site) { s.Capabilities[0].Endpoint = "https://api.other.example/search" },
			"Capabilities[2].Tools[0].Calls", "another origin"},
		{"an auth the gateway does not carry", func(s *config.Site) {
			s.Capabilities[1].Auth = config.Auth{Type: config.AuthAPIKey}
		}, "Capabilities[2].Tools[1].Calls", `needs auth of type "api-key"`},
	} {
		s := gatewaySite()
		tc.edit(&s)
		err := config.Validate(&s, config.Formats{})
		if err == nil || !strings.Contains(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %s: ...%s", tc.name, err, tc.field, tc.msg)
		}
	}
	// The same auth on both sides is carried.
	s = gatewaySite()
	s.Capabilities[1].Auth = config.Auth{Type: config.AuthAPIKey}
	s.Capabilities[2].Auth = config.Auth{Type: config.AuthAPIKey}
	if err := config.Validate(&s, config.Formats{}); err != nil {
		t.Errorf("api-key on the gateway and the called capability: %v", err)
	}
}
