package gatewaydecl_test

import (
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// site is a declaration with a gateway, the formats it is published in and
// the gateway's ID.
type site struct {
	name    string
	site    config.Site
	formats config.Formats
	gateway string
}

// issue37 is issue 37's declaration (config's gatewaySite), with an order
// lookup by a templated path and a header, a confirmed cancellation, and a
// flow through them.
func issue37() config.Site {
	return config.Site{
		Name: "Shop", URL: "https://shop.example", Description: "A shop",
		Access: config.Access{Allow: []string{"/api/*", "/mcp"}, EnforceParams: true},
		Capabilities: []config.Capability{
			{ID: "product-search", Description: "Search the catalog", Endpoint: "https://shop.example/api/search", Method: "GET",
				OpenAPI: "https://shop.example/openapi.yaml",
				Params:  []config.Param{{Name: "q", Type: config.TypeString, Required: true}, {Name: "limit", Type: config.TypeInteger, Min: new(1.0), Max: new(50.0)}}},
			{ID: "cart-add", Name: "Add to cart", Description: "Add an item to the cart", Endpoint: "https://shop.example/api/cart", Method: "POST",
				Params: []config.Param{{Name: "sku", In: config.InBody, Required: true}, {Name: "qty", In: config.InBody, Type: config.TypeInteger, Min: new(1.0)}}},
			{ID: "order-status", Description: "The status of an order", Endpoint: "https://shop.example/api/orders/{order_id}?view=status", Method: "GET", RequiresSession: true,
				Params: []config.Param{{Name: "order_id", In: config.InPath, Description: "The order"},
					{Name: "X-Request-Id", In: config.InHeader, Format: "uuid"},
					{Name: "since", Format: "ISO8601", Description: "Changes since"}},
				Outputs: map[string]string{"status": "enum[open, shipped, delivered]", "updated": "ISO8601", "tracking": "url"}},
			{ID: "order-cancel", Description: "Cancel an order", Endpoint: "https://shop.example/api/orders/{order_id}", Method: "DELETE",
				Sensitivity: config.SensitivityIrreversible, RequiresHumanConfirmation: true, HumanHandoff: true,
				Params: []config.Param{{Name: "order_id", In: config.InPath, Required: true}, {Name: "reason", In: config.InBody, Enum: []any{"changed-mind", "too-late"}}}},
			{ID: "store-assistant", Description: "The store over MCP", Endpoint: "https://shop.example/mcp", Protocol: config.ProtocolMCP, Gateway: true,
				Tools: []config.Tool{{Name: "search_products", Calls: "product-search"}, {Name: "add_to_cart", Calls: "cart-add", RateLimit: config.PerMinute(5)},
					{Name: "order_status", Description: "Where an order is", Calls: "order-status"}, {Name: "cancel_order", Calls: "order-cancel"}}},
		},
		Flows: []config.Flow{{Name: "buy", Steps: []string{"product-search", "cart-add"}, Description: "Find a product and put it in the cart"},
			{Name: "regret", Steps: []string{"order-status", "order-cancel"}}},
	}
}

// stdlib is examples/stdlib/site.yaml with its MCP capability a gateway
// whose one tool calls product-search.
func stdlib(t testing.TB) config.Site {
	t.Helper()
	s, _, err := config.LoadSite("../../examples/stdlib/site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Capabilities {
		if c := &s.Capabilities[i]; c.ID == "store-assistant" {
			c.Gateway = true
			c.Tools = []config.Tool{{Name: "search_products", Calls: "product-search"}}
		}
	}
	return s
}

// flights is the AWP example (fixtures.Flights) with a gateway over its
// four actions: entity outputs, idempotency, a human's confirmation.
func flights() config.Site {
	s := fixtures.Flights()
	s.Flows = []config.Flow{{Name: "trip", Steps: []string{"search_flights", "book_flight", "select_seat", "check_in"}, Description: "Book a flight and check in"}}
	s.Capabilities = append(s.Capabilities, config.Capability{
		ID: "flights_mcp", Description: "Flights over MCP", Endpoint: "https://flights.example.com/mcp", Protocol: config.ProtocolMCP, Gateway: true,
		Auth: config.Auth{Type: config.AuthOAuth2, TokenEndpoint: "https://flights.example.com/api/auth/token"},
		Tools: []config.Tool{{Name: "search_flights", Calls: "search_flights"}, {Name: "book_flight", Calls: "book_flight"},
			{Name: "select_seat", Calls: "select_seat"}, {Name: "check_in", Calls: "check_in"}},
	})
	return s
}

func sites(t testing.TB) []site {
	return []site{
		{"issue-37", issue37(), config.Formats{}, "store-assistant"},
		{"stdlib", stdlib(t), config.Formats{}, "store-assistant"},
		{"flights", flights(), config.Formats{Dialect: config.DialectV010}, "flights_mcp"},
		{"flights-no-awp", flights(), config.Formats{Dialect: config.DialectV010, Disabled: config.DocAWP | config.DocDescriptors}, "flights_mcp"},
	}
}

// load validates s, renders its documents and reads its gateway.
func load(t testing.TB, s site) (*gatewaydecl.Gateway, []publish.Document) {
	t.Helper()
	if err := publish.Validate(&s.site, s.formats); err != nil {
		t.Fatalf("%s does not validate: %v", s.name, err)
	}
	docs, err := publish.Render(&s.site, publish.Options{Formats: s.formats, LastModified: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gatewaydecl.New(&s.site, s.gateway)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return g, docs
}
