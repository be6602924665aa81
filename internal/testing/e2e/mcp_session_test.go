package e2e_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
)

// MCP sessions bound to who opened them (issue 35), against the official
// Go SDK's stateful server (MCP 2025-11-25 sessions) and its client: two
// replicas of agentready on one redis-server in front of one MCP server.
// Without a verified token the owner is the agent policy, its grade and
// the client's network: another agent replaying a session finds none.

// sessionSite is mcpSite with "*" granted the capability, so that a replay
// by any agent reaches the session stage.
func sessionSite() config.Site {
	s := mcpSite()
	s.Agents[0].Capabilities = []string{"store-assistant"}
	return s
}

// bearerTransport sends a User-Agent (and a bearer token, when set) and
// records the session ids the server answers with.
type bearerTransport struct {
	ua, token string
	mu        sync.Mutex
	ids       []string
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", b.ua)
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.Header.Get(mcpsession.Header) != "" {
		b.mu.Lock()
		b.ids = append(b.ids, resp.Header.Get(mcpsession.Header))
		b.mu.Unlock()
	}
	return resp, err
}

func (b *bearerTransport) session(t *testing.T) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.ids) == 0 {
		t.Fatal("the server answered with no Mcp-Session-Id")
	}
	return b.ids[0]
}

// rawSessionCall sends a tools/call (or a GET or DELETE) in session id as
// the agent ua, as a hostile client writes it, and returns the status.
func rawSessionCall(t *testing.T, url, method, ua, id string) int {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"search_products","arguments":{"query":"replayed"}}}`)
	}
	r, _ := http.NewRequest(method, url+"/mcp", body)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	r.Header.Set(mcpsession.Header, id)
	r.Header.Set("User-Agent", ua)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestMCPSessionBindingGoSDK(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	rc := &reached{}
	server := mcpShopServer()
	sdk := rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	// The MCP server's own address, which agentready does not front: a
	// session opened there is one agentready never saw created.
	direct := httptest.NewServer(sdk)
	t.Cleanup(direct.Close)
	var replicas [2]*httptest.Server
	var stores [2]mcpsession.Store
	for i := range replicas {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = c.Close() })
		ss, err := redisstore.NewSessionStore(c, redisstore.WithKeyPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = ss.(mcpsession.Provider).MCPSessions()
		m := rvNew(t, sessionSite(), agentready.WithSessions(ss))
		mux := http.NewServeMux()
		mux.Handle("/mcp", sdk)
		replicas[i] = httptest.NewServer(m.Handler(mux))
		t.Cleanup(replicas[i].Close)
	}

	// alice opens a session through replica 0 with the SDK's client.
	at := &bearerTransport{ua: mcpClaude}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: replicas[0].URL + "/mcp", HTTPClient: &http.Client{Transport: at}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s, want 2025-11-25 (sessions)", v)
	}
	id := at.session(t)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_products", Arguments: map[string]any{"query": "tent"}}); err != nil || res.IsError {
		t.Fatalf("alice calls search_products: %+v, %v", res, err)
	}
	// Her session is hers on the other replica too.
	if got := rawSessionCall(t, replicas[1].URL, http.MethodPost, mcpClaude, id); got != http.StatusOK {
		t.Fatalf("alice on replica 1: %d, want 200", got)
	}
	served := rc.count("search_products")
	if served != 2 {
		t.Fatalf("%d calls reached the server, want 2", served)
	}

	// Replayed by anyone else, on either replica, the session does not
	// exist, and nothing reaches the server; nor does a DELETE end it.
	for _, r := range replicas {
		for _, who := range []string{mcpGPT, mcpOther} {
			for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
				if got := rawSessionCall(t, r.URL, method, who, id); got != http.StatusNotFound {
					t.Errorf("%s by %q: %d, want 404", method, who, got)
				}
			}
		}
	}
	if n := rc.count("search_products"); n != served {
		t.Fatalf("%d replayed calls reached the server", n-served)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_products", Arguments: map[string]any{"query": "still"}}); err != nil || res.IsError {
		t.Fatalf("alice after the replays: %+v, %v", res, err)
	}

	// A session agentready never saw created is unknown even to its
	// creator, and a new session through agentready works.
	dt := &bearerTransport{ua: mcpClaude}
	early, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: direct.URL + "/mcp", HTTPClient: &http.Client{Transport: dt}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = early.Close() })
	before := rc.count("search_products")
	if got := rawSessionCall(t, replicas[1].URL, http.MethodPost, mcpClaude, dt.session(t)); got != http.StatusNotFound {
		t.Fatalf("a session opened behind agentready's back: %d, want 404", got)
	}
	if rc.count("search_products") != before {
		t.Fatal("a call in a session agentready never saw created reached the server")
	}

	// alice closes her session (the SDK's DELETE): every replica forgets it.
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	for i, st := range stores {
		if _, _, err := st.Owner(ctx, id); !errors.Is(err, mcpsession.ErrNotFound) {
			t.Fatalf("replica %d after alice's DELETE: %v, want ErrNotFound", i, err)
		}
	}
	if got := rawSessionCall(t, replicas[1].URL, http.MethodPost, mcpClaude, id); got != http.StatusNotFound {
		t.Fatalf("alice's ended session: %d, want 404", got)
	}
}

// A 2026-07-28 client of a stateless server sends no Mcp-Session-Id:
// nothing is checked and nothing bound.
func TestMCPSessionStatelessGoSDK(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ts, _ := mcpServe(t, true)
	bt := &bearerTransport{ua: mcpClaude}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bt}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", v)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_products", Arguments: map[string]any{"query": "tent"}}); err != nil || res.IsError {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	if len(bt.ids) != 0 {
		t.Fatalf("session ids %q: want none", bt.ids)
	}
}

// failingBindings is an MCP binding store that cannot be reached.
type failingBindings struct{}

var errBindings = errors.New("connection refused")

func (failingBindings) Bind(context.Context, string, string, time.Duration) error { return errBindings }
func (failingBindings) Owner(context.Context, string) (string, time.Time, error) {
	return "", time.Time{}, errBindings
}
func (failingBindings) Forget(context.Context, string) error { return errBindings }

// sessionsWithFailingBindings is a v0.1.0 session store whose MCP bindings
// fail (mcpsession.Provider).
type sessionsWithFailingBindings struct{ session.Store }

func (sessionsWithFailingBindings) MCPSessions() mcpsession.Store { return failingBindings{} }

// TestMCPSessionStoreDown: with the bindings unreachable (a store failing
// mid-request), a request that presents a session fails closed: 503, and
// nothing reaches the server.
func TestMCPSessionStoreDown(t *testing.T) {
	m := rvNew(t, sessionSite(), agentready.WithSessions(sessionsWithFailingBindings{session.NewMemoryStore()}))
	rc := &reached{}
	server := mcpShopServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	if got := rawSessionCall(t, ts.URL, http.MethodPost, mcpClaude, "a-session-id"); got != http.StatusServiceUnavailable {
		t.Errorf("a presented session with the bindings down: %d, want 503", got)
	}
	if n := rc.count("search_products"); n != 0 {
		t.Errorf("%d calls reached the server", n)
	}
}
