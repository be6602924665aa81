package agentsmd_test

import (
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentsmd"
)

// A site with an MCP gateway is rendered as Format B. Can is written by
// hand; Cannot and Behavior are derived from the declaration.
func ExampleRender() {
	site := config.Site{
		Name:        "Example Bookstore",
		URL:         "https://example.com",
		Description: "Online bookstore with 50,000 titles.",
		Contact:     "agents@example.com",
		RateLimit:   config.PerSecond(1),
		Capabilities: []config.Capability{{
			ID:       "store",
			Endpoint: "https://example.com/.well-known/mcp",
			Protocol: config.ProtocolMCP,
		}},
		Access: config.Access{Disallow: []string{"/admin/*"}},
		AgentsMD: config.AgentsMD{
			MCP: &config.MCPGateway{Endpoint: "https://example.com/.well-known/mcp"},
			Can: []string{"Search and browse catalog", "Place orders (authenticated)"},
		},
	}
	doc, err := agentsmd.Render(&site)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(doc))
	// Output:
	// ---
	// version: "1.0"
	// mcp:
	//   endpoint: https://example.com/.well-known/mcp
	//   transport: streamable-http
	//   auth: none
	// ---
	// # Example Bookstore
	//
	// Online bookstore with 50,000 titles.
	//
	// ## Can
	// - Search and browse catalog
	// - Place orders (authenticated)
	//
	// ## Cannot
	// - Access /admin/*
	//
	// ## Behavior
	// - Respect 1 request/second
	// - Identify in User-Agent header
	//
	// ## Contact
	// agents@example.com
}
