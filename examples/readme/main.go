// Command readme compiles the README's Go excerpts: every Go block of the
// README that is not a whole program stands, line for line, in one of the
// functions below, and TestREADMEGoBlocks (readme_test.go, beside it) checks that it
// does and builds the blocks that are whole programs. Running it serves
// nothing: it prints that the excerpts compiled.
package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/fixtures"
	"github.com/agentready/agentready/metrics"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/verify"
)

func main() {
	// The excerpts are here to be compiled; main only shows they link.
	_, _, _, _ = chiRouter, bindRoutes, decisions, redisLimits
	_, _ = sessions, checkout
	_, _, _, _, _ = verifiedAgents, signedRequests, usagePreferences, declarationFile, withMetrics
	fmt.Println("the README's Go excerpts compile")
}

// The README's "chi" block.
func chiRouter(m *agentready.Middleware) {
	r := chi.NewRouter()
	r.Use(m.Handler) // documents first, then enforcement, then your routes
	r.With(m.Capability("product-search")).Get("/api/search", search)
	r.With(m.Capability("store-assistant")).Post("/mcp", mcp)
	http.ListenAndServe(":8080", r)
}

// The README's "Binding routes" block.
func bindRoutes(m *agentready.Middleware, mux *http.ServeMux, r chi.Router) {
	mux.Handle("GET /api/search", m.Capability("product-search")(search)) // net/http
	r.With(m.Capability("store-assistant")).Post("/mcp", mcp)             // chi
}

// The README's "Decisions" block.
func decisions(site config.Site, req *http.Request) error {
	m, err := agentready.New(site,
		agentready.WithOnDecision(func(d enforce.Decision) {
			if d.Outcome != enforce.Pass { // Pass: a browser
				slog.Info("agent", "outcome", d.Outcome, "status", d.Status, "agent", d.Agent,
					"capability", d.Capability, "rule", d.Rule, "limit", d.Limit)
			}
		}),
		agentready.WithAuthenticator(func(r *http.Request, c *config.Capability, token string) error {
			return tokens.Check(r.Context(), token) // your check
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	d := m.Explain(req) // what would happen, without serving or consuming tokens
	fmt.Println(d.Outcome)
	return nil
}

// The README's "Usage preferences and robots.txt" block.
func usagePreferences(site config.Site) (*agentready.Middleware, error) {
	site.Usage = config.Usage{
		Train:   config.Denied,  // aipref train-ai=n, Content-Signal ai-train=no
		Search:  config.Allowed, // search=y, search=yes
		Paths:   []config.PathUsage{{Path: "/blog/", Train: config.Allowed}},
		Enforce: true, // refuse the crawlers a preference denies
	}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{RobotsTxt: true}))
	return m, err
}

// The README's "Metrics" block.
func withMetrics(site config.Site, app http.Handler) {
	mx, err := metrics.New(prometheus.DefaultRegisterer)
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithOnDecision(mx.Observe))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/", mx.Documents(m.Handler(app), m))
	http.Handle("/metrics", promhttp.Handler())
}

// The README's "Declaration files" block.
func declarationFile() *agentready.Middleware {
	site, lines, err := config.LoadSite("site.yaml") // unknown keys and wrong types: errors with lines
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site)
	if err != nil {
		log.Fatalf("site.yaml: %v", lines.Locate(err)) // each problem at the line of its field
	}
	return m
}

// The README's "Verified agents" block.
func verifiedAgents(ctx context.Context, site config.Site, client redis.UniversalClient) {
	site.Agents = append(site.Agents,
		// Sources from the known-agent data: OpenAI's published ranges.
		config.AgentPolicy{Name: "GPTBot", RateLimit: config.PerMinute(600),
			Verify: config.Verification{Required: true}},
		// Only a Web Bot Auth signature by a key of this JWK Set.
		config.AgentPolicy{Name: "claude", RateLimit: config.PerMinute(200),
			Verify: config.Verification{Required: true,
				Methods:         []string{config.VerifySignature},
				SignatureAgents: []string{"https://agent.example/keys/jwks.json"}}},
	)
	replays, err := redisstore.NewReplayCache(client) // replicas refuse each other's replays
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithVerification(verify.Options{Replays: replays}))
	if err != nil {
		log.Fatal(err)
	}
	go m.Run(ctx) // loads and refreshes the range lists and key directories; claims it cannot check yet are served under "*"
}

// The README's "Auth: hmac" block.
func signedRequests(site config.Site, partnerSecret []byte) (*agentready.Middleware, error) {
	return agentready.New(site, agentready.WithRequestSignatures(
		func(ctx context.Context, keyID string) (verify.RequestKey, error) {
			if keyID != "partner-1" {
				return verify.RequestKey{}, errors.New("unknown key")
			}
			return verify.RequestKey{Algorithm: "hmac-sha256", Secret: partnerSecret}, nil
		}))
}

// The README's Redis block.
func redisLimits(site config.Site) {
	client := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: []string{"redis:6379"}, // several addresses: Cluster; with MasterName: Sentinel
		// Required: lets the request's deadline bound the wait for Redis.
		ContextTimeoutEnabled: true,
	})
	defer client.Close()

	redisStore, err := redisstore.NewLimitStore(client) // keys start "agentready:" (redisstore.WithKeyPrefix)
	if err != nil {
		log.Fatal(err)
	}
	store, err := ratelimit.NewFailover(redisStore, ratelimit.FailoverConfig{
		Policy:  ratelimit.FallbackMemory, // the default
		Timeout: 200 * time.Millisecond,   // the default
	})
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithStore(store))
	_, _ = m, err
}

// The README's sessions block.
func sessions(ctx context.Context, priv ed25519.PrivateKey, addr string, app http.Handler) error {
	site := acmeCeramics()    // your config.Site, with Session and Audit
	site.Audit.PublicKey = "" // New publishes the key's public half
	m, err := agentready.New(site,
		agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		// priv (ed25519.PrivateKey) is required with Audit.Enabled; a nil store
		// keeps the audit logs in memory. Durable: a redisstore.NewAuditStore
		// here, and agentready.WithSessions(redisstore.NewSessionStore(...)).
		agentready.WithAudit(priv, nil),
	)
	if err != nil {
		log.Fatal(err)
	}
	go m.Run(ctx) // seal sessions that expire unattended
	http.ListenAndServe(addr, m.Handler(app))
	return nil
}

// The README's human-handoff block.
func checkout(w http.ResponseWriter, r *http.Request) {
	s, ok := session.FromContext(r.Context())
	if !ok { // unreachable behind the middleware: it answered 401
		http.Error(w, `{"ok":false,"error":"no session"}`, http.StatusUnauthorized)
		return
	}
	url := startPayment(s.ID) // your payment page for this session's cart
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "data": map[string]any{
		"handoff_url": url,
		"expires_at":  time.Now().Add(15 * time.Minute).UTC().Format(time.RFC3339),
		"message":     "Open this link to review the cart and pay.",
	}})
}

// What the excerpts leave to the site.

var search = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"items":[]}`)) })

var mcp = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })

type tokenChecker struct{}

func (tokenChecker) Check(ctx context.Context, token string) error {
	if token == "" {
		return errors.New("no token")
	}
	return nil
}

var tokens tokenChecker

func acmeCeramics() config.Site { return fixtures.AcmeCeramics() }

func startPayment(sessionID string) string { return "https://example.com/pay/" + sessionID }
