// Command chi is the demo site of examples/stdlib on the chi router: the
// Outdoor Supply Co. of draft-car Appendix A, published and enforced by
// agentready.
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
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/agentready/agentready/examples/internal/demo"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on (host:port)")
	redisAddr := flag.String("redis", "", "share rate limits with other replicas through the Redis at this host:port")
	flag.Parse()

	app := demo.NewApp()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	m, closeStore, err := demo.Middleware(context.Background(), app, *redisAddr, nil, *addr, logger)
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = closeStore() }()

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(m.Handler) // documents first, then enforcement, then the routes
	r.With(m.Capability("product-search")).Get("/api/search", app.Search)
	r.With(m.Capability("store-assistant")).Handle("/mcp", http.HandlerFunc(app.MCP))
	r.Post("/auth/token", app.Token)
	r.HandleFunc("/admin/*", app.Private)
	r.HandleFunc("/internal/*", app.Private)
	r.Get("/", app.Home)

	if err := demo.Serve(*addr, r, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
