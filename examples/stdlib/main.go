// Command stdlib is a demo site on net/http: the Outdoor Supply Co. of
// draft-car Appendix A, published and enforced by agentready.
//
//	go run ./examples/stdlib -addr 127.0.0.1:8080
//
// Two replicas sharing their rate limits through Redis:
//
//	go run ./examples/stdlib -addr 127.0.0.1:8080 -redis 127.0.0.1:6379
//	go run ./examples/stdlib -addr 127.0.0.1:8081 -redis 127.0.0.1:6379
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/agentready/agentready/examples/internal/demo"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on (host:port)")
	redisAddr := flag.String("redis", "", "share rate limits with other replicas through the Redis at this host:port")
	var trust stringList
	flag.Var(&trust, "trust-signature-agent", "make the claude policy verified-only, trusting this Web Bot Auth Signature-Agent: the URL of a JWK Set, or an origin whose key directory is at /.well-known/http-message-signatures-directory (repeatable; http only for loopback)")
	flag.Parse()

	app := demo.NewApp()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	m, closeStore, err := demo.Middleware(context.Background(), app, *redisAddr, trust, *addr, logger)
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = closeStore() }()

	mux := http.NewServeMux()
	mux.Handle("GET /api/search", m.Capability("product-search")(http.HandlerFunc(app.Search)))
	mux.Handle("/mcp", m.Capability("store-assistant")(http.HandlerFunc(app.MCP)))
	mux.HandleFunc("POST /auth/token", app.Token)
	mux.HandleFunc("/admin/", app.Private)
	mux.HandleFunc("/internal/", app.Private)
	mux.HandleFunc("/", app.Home)

	if err := demo.Serve(*addr, m.Handler(mux), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }
