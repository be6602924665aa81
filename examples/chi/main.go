// Command chi is the demo site of examples/stdlib on the chi router: the
// Outdoor Supply Co. of draft-car Appendix A, published and enforced by
// agentready. The declaration is a file, examples/stdlib/site.yaml (the
// same as stdlib's Go); the application's handlers are
// examples/internal/demo's.
//
//	go run ./examples/chi -addr 127.0.0.1:8080
//
// Two replicas sharing their rate limits through Redis:
//
//	go run ./examples/chi -addr 127.0.0.1:8080 -redis 127.0.0.1:6379
//	go run ./examples/chi -addr 127.0.0.1:8081 -redis 127.0.0.1:6379
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/examples/internal/demo"
	"github.com/agentready/agentready/mcpgateway"
)

func main() {
	addr := flag.String("addr", demo.DefaultAddr, "address to listen on (host:port; :8080 for every interface)")
	siteFile := flag.String("site", "examples/stdlib/site.yaml", "the declaration file (from the repository's root)")
	redisAddr := flag.String("redis", "", "share rate limits with other replicas through the Redis at this host:port")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	app := demo.NewApp()

	// The declaration: every problem of the file at once, by line.
	site, _, err := config.LoadSite(*siteFile)
	if err != nil {
		log.Fatal(err)
	}
	opts := []agentready.Option{
		agentready.WithLogger(logger),
		agentready.WithDocuments(agentready.Documents{RobotsTxt: true}),
		// Refusals are logged by the hook; what the application answers,
		// by demo.Served, with the status it wrote.
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
	m, err := agentready.New(site, opts...)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = m.Run(context.Background()) }() // the background work: sources, sessions

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(m.Handler) // documents first, then enforcement, then the routes
	served := func(h http.HandlerFunc) http.HandlerFunc { return demo.Served(logger, h).ServeHTTP }
	r.With(m.Capability("product-search")).Get("/api/search", served(app.Search))
	r.Post("/auth/token", served(app.Token))
	r.HandleFunc("/admin/*", served(app.Private))
	r.HandleFunc("/internal/*", served(app.Private))
	r.Get("/", served(app.Home))
	if err := demo.Serve(*addr, r, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
