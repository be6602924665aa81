package cards_test

import (
	"encoding/json"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// travelSite declares an A2A capability with a bearer token and an MCP one
// with an API key, beside Appendix A's.
func travelSite() config.Site {
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities,
		config.Capability{ID: "trip-planner", Description: "Plans trips with an agent", Endpoint: "https://outdoorsupply.example/a2a",
			Protocol: config.ProtocolA2A, Auth: config.Auth{Type: config.AuthBearerToken, TokenEndpoint: "https://outdoorsupply.example/auth/token"}},
		config.Capability{ID: "inventory", Endpoint: "https://outdoorsupply.example/mcp/inventory", Protocol: config.ProtocolMCP,
			Auth: config.Auth{Type: config.AuthAPIKey}},
	)
	return s
}

// TestCardsValidate: every MCP card is valid against its schema (the MCP
// server card's ServerCard), and says what the declaration says; the A2A
// card's tests are in a2a_test.go.
func TestCardsValidate(t *testing.T) {
	// The schemas are the cards' definitions, not the files' permissive roots.
	for _, schema := range []string{"mcp_server-card.schema.json#/$defs/ServerCard", "a2a_v0.3.0_a2a.json#/definitions/AgentCard"} {
		if schematest.Check(t, schema, []byte(`{"name":"x"}`)) == nil {
			t.Fatalf("%s accepts an empty card", schema)
		}
	}
	site := travelSite()
	mcp, err := cards.MCPCards(&site)
	if err != nil || len(mcp) != 2 {
		t.Fatalf("MCPCards: %d cards, %v", len(mcp), err)
	}
	for _, c := range mcp {
		schematest.Validate(t, "mcp_server-card.schema.json#/$defs/ServerCard", c.Body)
		var card struct {
			Name    string `json:"name"`
			Remotes []struct {
				URL     string `json:"url"`
				Headers []struct {
					Name string `json:"name"`
				} `json:"headers"`
			} `json:"remotes"`
		}
		if err := json.Unmarshal(c.Body, &card); err != nil {
			t.Fatal(err)
		}
		want := map[string][2]string{"store-assistant": {"https://outdoorsupply.example/mcp", "Authorization"},
			"inventory": {"https://outdoorsupply.example/mcp/inventory", "X-API-Key"}}[c.Capability]
		if card.Name != "example.outdoorsupply/"+c.Capability || len(card.Remotes) != 1 || card.Remotes[0].URL != want[0] ||
			len(card.Remotes[0].Headers) != 1 || card.Remotes[0].Headers[0].Name != want[1] {
			t.Errorf("%s: %s", c.Capability, c.Body)
		}
	}
	plain := fixtures.OutdoorSupply()
	if b, err := cards.A2ACard(&plain); b != nil || err != nil {
		t.Errorf("a site without A2A capabilities has an A2A card: %s %v", b, err)
	}
}
