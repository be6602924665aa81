package sessionmgr_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

const endpoint = resolve.SessionEndpointPath

// Test headers that tell identify who is calling: the middleware's
// classification in production.
const (
	hdrAgent  = "X-Test-Agent"
	hdrClient = "X-Test-Client"
)

// identify: the agent from X-Test-Agent (none: unidentified), the client
// key from X-Test-Client (an address, keyed as the middleware does: /32 or
// /64).
// lookup is Manager.Lookup for the caller identify names.
func lookup(m *sessionmgr.Manager, r *http.Request) (*session.Session, error) {
	agent, client, ok := identify(r)
	if !ok {
		return nil, sessionmgr.ErrUnidentified
	}
	return m.Lookup(r, agent, client)
}

func identify(r *http.Request) (string, netip.Prefix, bool) {
	agent := r.Header.Get(hdrAgent)
	if agent == "" {
		return "", netip.Prefix{}, false
	}
	a, err := netip.ParseAddr(r.Header.Get(hdrClient))
	if err != nil {
		return agent, netip.Prefix{}, true
	}
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return agent, p, true
}

type endEvent struct {
	s      *session.Session
	reason sessionmgr.EndReason
}

func (e endEvent) String() string { return fmt.Sprintf("%s:%s", e.reason, e.s.ID) }

// env is a site serving the session endpoint, a session-required /cart,
// and a /checkout that ends the session as a human handoff.
type env struct {
	t     testing.TB
	clock *testclock.Clock
	m     *sessionmgr.Manager
	srv   *httptest.Server

	mu   sync.Mutex
	ends []endEvent
	errs []error
}

var testCaps = []string{"cart.add", "cart.view", "checkout"}

func newEnv(t testing.TB, st session.Store, clock *testclock.Clock, mod func(*sessionmgr.Config)) *env {
	t.Helper()
	if clock == nil {
		clock = testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	}
	if st == nil {
		st = session.NewMemoryStore(session.WithClock(clock.Now))
	}
	e := &env{t: t, clock: clock}
	cfg := sessionmgr.Config{
		Store:        st,
		TTL:          time.Hour,
		MaxSessions:  0,
		Capabilities: testCaps,
		AuditURL: func(id string) string {
			return "https://shop.example/.well-known/agents/api/audit/" + id
		},
		Now: clock.Now,
		OnEnd: func(s *session.Session, r sessionmgr.EndReason) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.ends = append(e.ends, endEvent{s, r})
		},
		OnError: func(err error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.errs = append(e.errs, err)
		},
	}
	if mod != nil {
		mod(&cfg)
	}
	m, err := sessionmgr.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.m = m
	mux := http.NewServeMux()
	mux.Handle(endpoint, m.Handler(identify))
	mux.HandleFunc("/cart", func(w http.ResponseWriter, r *http.Request) {
		s, err := lookup(m, r)
		if err != nil {
			status, msg := sessionmgr.ErrorStatus(err)
			http.Error(w, msg, status)
			return
		}
		r = r.WithContext(session.NewContext(r.Context(), s))
		cur, _ := session.FromContext(r.Context())
		fmt.Fprint(w, cur.ID)
	})
	mux.HandleFunc("/checkout", func(w http.ResponseWriter, r *http.Request) {
		s, err := lookup(m, r)
		if err == nil {
			s, err = m.End(r.Context(), r, s, sessionmgr.Handoff)
		}
		if err != nil {
			status, msg := sessionmgr.ErrorStatus(err)
			http.Error(w, msg, status)
			return
		}
		fmt.Fprint(w, s.EndedAt.Format(time.RFC3339Nano))
	})
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) events() []endEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]endEvent(nil), e.ends...)
}

type result struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
	data   map[string]any
}

// do sends one request; agent and client fill the identity headers, token
// the X-Agent-Session header (each omitted when empty).
func (e *env) do(method, path, agent, client, token, body string) result {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if agent != "" {
		req.Header.Set(hdrAgent, agent)
	}
	if client != "" {
		req.Header.Set(hdrClient, client)
	}
	if token != "" {
		req.Header.Set(session.HeaderSession, token)
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) result {
	e.t.Helper()
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	res := result{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &res.body); err != nil {
			e.t.Fatalf("%s %s: undecodable JSON %q: %v", req.Method, req.URL.Path, raw, err)
		}
		res.data, _ = res.body["data"].(map[string]any)
	}
	return res
}

// create POSTs to the endpoint and fails the test unless it answered 201
// or 429.
func (e *env) create(agent, client, body string) result {
	e.t.Helper()
	res := e.do(http.MethodPost, endpoint, agent, client, "", body)
	if res.status != http.StatusCreated && res.status != http.StatusTooManyRequests && res.status != http.StatusServiceUnavailable {
		e.t.Fatalf("create answered %d %s", res.status, res.raw)
	}
	return res
}

// errStore fails every call, as an unreachable store does.
type errStore struct{ err error }

func (s errStore) Create(_ context.Context, _ session.Hash, _ *session.Session, _ int) error {
	return s.err
}
func (s errStore) Get(context.Context, session.Hash) (*session.Session, error)    { return nil, s.err }
func (s errStore) Delete(context.Context, session.Hash) (*session.Session, error) { return nil, s.err }
func (s errStore) Reap(context.Context, time.Time, int) ([]*session.Session, error) {
	return nil, s.err
}

var errDown = errors.New("store down")
