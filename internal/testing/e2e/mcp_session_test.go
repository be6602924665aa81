package e2e_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/redisstore"
)

// MCP sessions bound to who opened them (issue 35), against the official
// Go SDK's stateful server (MCP 2025-11-25 sessions) and its client: two
// replicas of agentready on one redis-server in front of one MCP server.
//
// sessionGuard stands in for the enforcer's session stage until it is
// wired: the calls it makes (Check before the server, Answered when the
// answer's header is final) are the ones the stage makes. The owner is the
// bearer token's subject, as a verified JWT's would be.
func sessionGuard(t *testing.T, s *mcpsession.Sessions, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		owner := requestOwner(r)
		p, err := s.Check(r.Context(), r.Header, owner)
		switch {
		case err != nil:
			http.Error(w, "session store unavailable", http.StatusServiceUnavailable)
			return
		case p.Verdict.Unknown():
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		next.ServeHTTP(&answerHook{ResponseWriter: w, answered: func(status int) int {
			err := s.Answered(context.WithoutCancel(r.Context()), r.Method, p, owner, status, w.Header())
			if errors.Is(err, mcpsession.ErrBound) {
				return http.StatusBadGateway
			}
			if err != nil {
				t.Errorf("Answered: %v", err)
			}
			return status
		}}, r)
	})
}

func requestOwner(r *http.Request) string {
	id := mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		id.Client, _ = netip.ParseAddr(host)
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		id.Subject, id.Issuer = tok, "https://as.example"
	}
	return mcpsession.Owner(id)
}

// answerHook calls answered once, when the status and header are final.
type answerHook struct {
	http.ResponseWriter
	answered func(status int) int
	done     bool
}

func (h *answerHook) WriteHeader(status int) {
	if !h.done {
		h.done = true
		if s := h.answered(status); s != status {
			h.Header().Del(mcpsession.Header)
			http.Error(h.ResponseWriter, http.StatusText(s), s)
			return
		}
	}
	h.ResponseWriter.WriteHeader(status)
}

func (h *answerHook) Write(b []byte) (int, error) {
	if !h.done {
		h.WriteHeader(http.StatusOK)
	}
	return h.ResponseWriter.Write(b)
}

// Unwrap lets http.NewResponseController (the SDK's Flush of its event
// stream) reach the real writer.
func (h *answerHook) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// bearerTransport sends a bearer token and records the session ids the
// server answers with.
type bearerTransport struct {
	token string
	mu    sync.Mutex
	ids   []string
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
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

// rawSessionCall sends a tools/call (or a DELETE) in session id as token's
// holder, as a hostile client writes it, and returns the status.
func rawSessionCall(t *testing.T, url, method, token, id string) int {
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
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
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
	sdk := rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpShopServer() }, nil))
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
		s, err := mcpsession.New(stores[i], 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", sessionGuard(t, s, sdk))
		replicas[i] = httptest.NewServer(mux)
		t.Cleanup(replicas[i].Close)
	}

	// alice opens a session through replica 0 with the SDK's client.
	at := &bearerTransport{token: "alice"}
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
	if got := rawSessionCall(t, replicas[1].URL, http.MethodPost, "alice", id); got != http.StatusOK {
		t.Fatalf("alice on replica 1: %d, want 200", got)
	}
	served := rc.count("search_products")
	if served != 2 {
		t.Fatalf("%d calls reached the server, want 2", served)
	}

	// Replayed by anyone else, on either replica, the session does not
	// exist, and nothing reaches the server; nor does a DELETE end it.
	for _, r := range replicas {
		for _, who := range []string{"bob", ""} {
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
	dt := &bearerTransport{token: "alice"}
	early, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: direct.URL + "/mcp", HTTPClient: &http.Client{Transport: dt}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = early.Close() })
	before := rc.count("search_products")
	if got := rawSessionCall(t, replicas[1].URL, http.MethodPost, "alice", dt.session(t)); got != http.StatusNotFound {
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
	if got := rawSessionCall(t, replicas[1].URL, http.MethodPost, "alice", id); got != http.StatusNotFound {
		t.Fatalf("alice's ended session: %d, want 404", got)
	}
}

// A 2026-07-28 client of a stateless server sends no Mcp-Session-Id:
// nothing is checked and nothing bound.
func TestMCPSessionStatelessGoSDK(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := mcpsession.NewMemory(mcpsession.MemoryConfig{})
	s, err := mcpsession.New(m, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpShopServer() },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", sessionGuard(t, s, sdk))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	bt := &bearerTransport{token: "alice"}
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
	if m.Len() != 0 || len(bt.ids) != 0 {
		t.Fatalf("%d bindings, session ids %q: want none", m.Len(), bt.ids)
	}
}
