// Command mcp is a Go site whose MCP server (the official Go SDK's) is
// decided per tool by agentready (docs/mcp.md): GPTBot may search only,
// ClaudeBot may call every tool, checkout at most twice a minute, and
// every other agent nothing.
//
//	go run ./examples/mcp -addr 127.0.0.1:8080
package main

import (
	"context"
	"flag"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// site declares the store's MCP endpoint and its tools.
func site() config.Site {
	return config.Site{
		Name: "MCP Store", URL: "https://shop.example", Description: "A store agents use over MCP",
		Capabilities: []config.Capability{{
			ID: "store-assistant", Description: "Full store interaction via MCP",
			Endpoint: "https://shop.example/mcp", Protocol: config.ProtocolMCP, RateLimit: config.PerMinute(60),
			Tools: []config.Tool{
				{Name: "search_products", Description: "Search the catalog", RateLimit: config.PerMinute(30)},
				{Name: "checkout", Description: "Buy the cart", Sensitivity: config.SensitivityIrreversible,
					RateLimit: config.PerMinute(2)},
			},
		}},
		Access: config.Access{Allow: []string{"/mcp$"}},
		Agents: []config.AgentPolicy{
			{Name: "*", Capabilities: []string{}},
			{Name: "GPTBot", Capabilities: []string{"store-assistant/search_products"}},
			{Name: "ClaudeBot", Capabilities: []string{"store-assistant"}},
		},
	}
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"what to look for"`
}

type checkoutArgs struct {
	Cart string `json:"cart" jsonschema:"the cart to buy"`
}

type result struct {
	Text string `json:"text"`
}

func searchProducts(ctx context.Context, req *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, result, error) {
	return nil, result{Text: "3 tents match " + in.Query}, nil
}

func checkout(ctx context.Context, req *mcp.CallToolRequest, in checkoutArgs) (*mcp.CallToolResult, result, error) {
	return nil, result{Text: "order placed for cart " + in.Cart}, nil
}

// newHandler is the site: the MCP server at /mcp, behind agentready.
func newHandler() (http.Handler, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "search_products", Description: "Search the catalog"}, searchProducts)
	mcp.AddTool(server, &mcp.Tool{Name: "checkout", Description: "Buy the cart"}, checkout)

	m, err := agentready.New(site())
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	return m.Handler(mux), nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	h, err := newHandler()
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("MCP store on http://%s/mcp (agents.txt at /.well-known/agents.txt)", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
