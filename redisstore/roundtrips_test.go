package redisstore_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

// The Redis round trips of one v0.1.0 session request, counted on the
// wire: a go-redis hook sees every command the client sends (ProcessHook)
// and every pipeline (ProcessPipelineHook), and each is one round trip,
// made one after the other since a request's stores call Redis in turn.
// docs/sessions.md ("Round trips on Redis") states the figures.

// tripCounter is a redis.Hook that writes down each round trip while on.
type tripCounter struct {
	mu     sync.Mutex
	prefix string // trimmed from the keys logged
	on     bool
	trips  []string // one per round trip: its commands, "+" between pipelined ones
}

func (c *tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}

func (c *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.add(cmds...)
		return next(ctx, cmds)
	}
}

func (c *tripCounter) add(cmds ...redis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return
	}
	names := make([]string, len(cmds))
	for i, cmd := range cmds {
		names[i] = cmd.Name() + " " + strings.TrimPrefix(firstKey(cmd), c.prefix)
	}
	c.trips = append(c.trips, strings.Join(names, "+"))
}

// firstKey is the first key cmd names, for the log: what it is about.
func firstKey(cmd redis.Cmder) string {
	a := cmd.Args()
	i := 1
	if n := cmd.Name(); n == "evalsha" || n == "eval" {
		i = 3
	}
	if i >= len(a) {
		return ""
	}
	return fmt.Sprint(a[i])
}

// count runs f and returns the round trips made meanwhile.
func (c *tripCounter) count(f func()) []string {
	c.mu.Lock()
	c.on, c.trips = true, nil
	c.mu.Unlock()
	f()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.trips
}

// tripsUA is a declared-agent-free agent (under "*" of Acme Ceramics).
const tripsUA = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"

// tripsConfig varies the declaration and the options of tripsSite.
type tripsConfig struct {
	audited   bool        // else the declaration keeps its sessions only
	bySubject bool        // Clients.RateLimitKey keys the limits by a subject
	rate      config.Rate // the site's limit; zero: the fixture's
}

// tripsSite serves the demo shop under the Acme Ceramics declaration with
// every store in Redis on one client, as docs/operations.md sets them up
// (the limits behind a Failover), and returns the server and the client's
// counter.
func tripsSite(t *testing.T, cfg tripsConfig) (*httptest.Server, *tripCounter) {
	t.Helper()
	client := redisClient(t, redistest.Start(t))
	prefix := redistest.Prefix(t)
	tc := &tripCounter{prefix: prefix}
	client.AddHook(tc)
	ls, err := redisstore.NewLimitStore(client, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	fo, err := ratelimit.NewFailover(ls, ratelimit.FailoverConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := redisstore.NewSessionStore(client, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	site := fixtures.AcmeCeramics()
	site.Audit.PublicKey = ""
	if !cfg.rate.IsZero() {
		site.RateLimit = cfg.rate
	}
	// The client is the one X-Forwarded-For names, from the test's
	// loopback proxy.
	clients := agentready.Clients{TrustedProxies: []string{"127.0.0.1/32"}}
	if cfg.bySubject {
		clients.RateLimitKey = func(*http.Request) (string, bool) { return "subject-1", true }
	}
	opts := []agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithStore(fo), agentready.WithSessions(ss),
		agentready.WithClients(clients)}
	if cfg.audited {
		as, err := redisstore.NewAuditStore(client, redisstore.WithKeyPrefix(prefix+"audit:"))
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, agentready.WithAudit(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)), as))
	} else {
		site.Audit = config.Audit{}
	}
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New(site.URL)))
	t.Cleanup(srv.Close)
	return srv, tc
}

// tripsCall sends one request as tripsUA and returns its status, and the
// token of the session it created if it did.
func tripsCall(t *testing.T, method, url, body, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", tripsUA)
	req.Header.Set("X-Forwarded-For", "192.0.2.7")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("X-Agent-Session", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b struct {
		Data struct {
			Token string `json:"session_token"`
		} `json:"data"`
	}
	_ = json.NewDecoder(res.Body).Decode(&b)
	return res.StatusCode, b.Data.Token
}

// TestSessionRoundTrips counts the round trips of a session request that
// the declaration audits (cart.add: the limits with the session, the audit
// event before the action, its status after) and of one it does not;
// keyed by subject, the session is read after the limits.
func TestSessionRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		cfg  tripsConfig
		want int
	}{
		{"audited", tripsConfig{audited: true}, 3},
		{"unaudited", tripsConfig{}, 1},
		{"audited, keyed by subject", tripsConfig{audited: true, bySubject: true}, 4},
		{"unaudited, keyed by subject", tripsConfig{bySubject: true}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, tc := tripsSite(t, tt.cfg)
			api := srv.URL + "/.well-known/agents/api/"
			s, token := tripsCall(t, "POST", api+"session", `{"agent_name":"trips"}`, "")
			if s != http.StatusCreated {
				t.Fatalf("create: %d", s)
			}
			add := func() int { s, _ := tripsCall(t, "POST", api+"cart/add", `{"id":"vase-bud"}`, token); return s }
			// The first request loads the scripts (EVALSHA's NOSCRIPT, then
			// EVAL): counted from the second on.
			if s := add(); s != http.StatusOK {
				t.Fatalf("cart.add: %d", s)
			}
			var status int
			trips := tc.count(func() { status = add() })
			if status != http.StatusOK {
				t.Fatalf("cart.add: %d", status)
			}
			t.Logf("%d round trips: %s", len(trips), strings.Join(trips, ", "))
			if len(trips) != tt.want {
				t.Errorf("%d round trips (%s), want %d", len(trips), strings.Join(trips, ", "), tt.want)
			}
		})
	}
}

// TestSessionRefusedConsumesLimit: a request refused for its session (401)
// has consumed its limit token, the limits and the session being read in
// one round trip as when they were read in turn.
func TestSessionRefusedConsumesLimit(t *testing.T) {
	for _, audited := range []bool{true, false} {
		t.Run(fmt.Sprint("audited=", audited), func(t *testing.T) {
			srv, _ := tripsSite(t, tripsConfig{audited: audited, rate: config.PerHour(3)})
			api := srv.URL + "/.well-known/agents/api/"
			// 1: the session's creation counts against the site's limit.
			s, token := tripsCall(t, "POST", api+"session", `{"agent_name":"trips"}`, "")
			if s != http.StatusCreated {
				t.Fatalf("create: %d", s)
			}
			// 2: a token no session has.
			if s, _ := tripsCall(t, "POST", api+"cart/add", `{"id":"vase-bud"}`, strings.Repeat("A", len(token))); s != http.StatusUnauthorized {
				t.Fatalf("cart.add with an unknown session: %d, want 401", s)
			}
			// 3: the last token; the refused request took one.
			for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
				if s, _ := tripsCall(t, "POST", api+"cart/add", `{"id":"vase-bud"}`, token); s != want {
					t.Fatalf("cart.add %d: %d, want %d", i+3, s, want)
				}
			}
		})
	}
}
