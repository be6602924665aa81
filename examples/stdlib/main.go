// Command stdlib is a demo site on net/http: the Outdoor Supply Co. of
// draft-car Appendix A, published and enforced by agentready. The
// declaration is Go (site.yaml beside it is the same, as a file), the
// application's handlers are examples/internal/demo's.
//
//	go run ./examples/stdlib          # on 127.0.0.1:8080
//
// Two replicas sharing their rate limits through Redis:
//
//	go run ./examples/stdlib -addr 127.0.0.1:8080 -redis 127.0.0.1:6379
//	go run ./examples/stdlib -addr 127.0.0.1:8081 -redis 127.0.0.1:6379
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/examples/internal/demo"
	"github.com/agentready/agentready/mcpgateway"
	"github.com/agentready/agentready/verify"
)

// site is the demo's declaration: a REST capability and the MCP gateway
// whose tool calls it, the paths agents may and may not reach, and a
// policy for claude.
func site() config.Site {
	return config.Site{
		Name: "Outdoor Supply Co.", URL: "https://outdoorsupply.example",
		Description: "Gear for outdoor adventures", Contact: "agents@outdoorsupply.example",
		GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		Capabilities: []config.Capability{{
			ID: "product-search", Description: "Search the product catalog",
			Endpoint: "https://outdoorsupply.example/api/search", Method: "GET",
			Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthNone}, RateLimit: config.PerMinute(60),
			Params: []config.Param{
				{Name: "q", In: config.InQuery, Type: config.TypeString, Required: true, Description: "Search query"},
				{Name: "limit", In: config.InQuery, Type: config.TypeInteger, Description: "Max results, default 20", Default: 20},
				{Name: "category", In: config.InQuery, Type: config.TypeString, Description: "Filter by category"},
			},
		}, {
			ID: "store-assistant", Description: "Full store interaction via MCP",
			Endpoint: "https://outdoorsupply.example/mcp", Protocol: config.ProtocolMCP,
			Auth: config.Auth{Type: config.AuthBearerToken, TokenEndpoint: "https://outdoorsupply.example/auth/token"},
			// agentready answers /mcp itself (mcpgateway): each tool calls
			// a capability, decided as the agent's direct call of it.
			Gateway: true,
			Tools:   []config.Tool{{Name: "search_products", Calls: "product-search"}},
		}},
		Access: config.Access{Allow: []string{"/api/", "/mcp"}, Disallow: []string{"/admin/", "/internal/"}},
		Agents: []config.AgentPolicy{
			{Name: "*"},
			{Name: "claude", RateLimit: config.PerMinute(200), Capabilities: []string{"product-search", "store-assistant"}},
		},
		// Published in robots.txt (Content-Usage, Content-Signal) and as a
		// Content-Usage header on every response.
		Usage: config.Usage{Train: config.Denied, Search: config.Allowed},
	}
}

func main() {
	addr := flag.String("addr", demo.DefaultAddr, "address to listen on (host:port; :8080 for every interface)")
	redisAddr := flag.String("redis", "", "share rate limits with other replicas through the Redis at this host:port")
	var trust demo.List
	flag.Var(&trust, "trust-signature-agent", "make the claude policy verified-only, trusting this Web Bot Auth Signature-Agent: the URL of a JWK Set, or an origin whose key directory is at /.well-known/http-message-signatures-directory (repeatable; http only for loopback)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	app := demo.NewApp()

	s := site()
	opts := []agentready.Option{
		agentready.WithLogger(logger),
		agentready.WithDocuments(agentready.Documents{RobotsTxt: true}),
		// Refusals are logged by the hook; what the application answers,
		// by demo.Served, with the status it wrote (the decision field
		// hands it the decision).
		agentready.WithOnDecision(demo.LogDecision(logger)),
		agentready.WithDecisionHeader(),
		agentready.WithGateway(mcpgateway.Serve), // the MCP server at /mcp, made from the declaration
		agentready.WithAuthenticator(func(r *http.Request, c *config.Capability, token string) error {
			if !app.ValidToken(token) {
				return errors.New("unknown or expired token; get one from /auth/token")
			}
			return nil
		}),
	}
	if *redisAddr != "" {
		store, closeRedis, err := demo.Redis(*redisAddr, logger)
		if err != nil {
			log.Fatal(err)
		}
		defer func() { _ = closeRedis() }()
		opts = append(opts, agentready.WithStore(store))
	}
	if len(trust) > 0 {
		// claude's grants go only to requests signed by a key of these
		// directories, made for the address the demo is reached at.
		for i := range s.Agents {
			if s.Agents[i].Name == "claude" {
				s.Agents[i].Verify = config.Verification{Required: true, Methods: []string{config.VerifySignature}, SignatureAgents: trust}
			}
		}
		opts = append(opts, agentready.WithVerification(verify.Options{AllowHTTPLoopback: true, Authorities: authorities(*addr)}))
	}
	m, err := agentready.New(s, opts...)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = m.Run(context.Background()) }() // the background work: key directories, sessions

	served := func(h http.HandlerFunc) http.Handler { return demo.Served(logger, h) }
	mux := http.NewServeMux()
	mux.Handle("GET /api/search", m.Capability("product-search")(served(app.Search)))
	mux.Handle("POST /auth/token", served(app.Token))
	mux.Handle("/admin/", served(app.Private))
	mux.Handle("/internal/", served(app.Private))
	mux.Handle("/", served(app.Home))
	if err := demo.Serve(*addr, m.Handler(mux), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// authorities are the host:port a client reaches the demo at: addr as
// given, or, for a port alone (":8080"), that port on the loopback names.
func authorities(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return []string{addr}
	}
	return []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
}
