package e2e_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/internal/testing/schematest"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/redisstore"
)

// testAuditKey is a fixed Ed25519 key, so that runs are reproducible.
var testAuditKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

const (
	api       = "/.well-known/agents/api/"
	sessPath  = api + "session"
	auditPath = api + "audit/"
)

// acme is the Acme Ceramics fixture without its fixed public key: New
// fills in the test key's.
func acme() config.Site {
	s := fixtures.AcmeCeramics()
	s.Audit.PublicKey = ""
	return s
}

// shopServer serves the demo shop behind a v0.1.0 Middleware.
func shopServer(t *testing.T, opts ...agentready.Option) (*httptest.Server, *agentready.Middleware) {
	t.Helper()
	opts = append([]agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents)}, opts...)
	m, err := agentready.New(acme(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	t.Cleanup(srv.Close)
	return srv, m
}

// reply is a decoded response.
type reply struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (r reply) data() map[string]any { d, _ := r.body["data"].(map[string]any); return d }

// call sends one request; hdr are header name/value pairs.
func call(t *testing.T, method, url, body string, hdr ...string) reply {
	t.Helper()
	res, raw := send(t, method, url, body, hdr...)
	r := reply{status: res.StatusCode, header: res.Header, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

// createSession creates a session as ua and returns its token and id.
func createSession(t *testing.T, base, ua string, hdr ...string) (token, id string) {
	t.Helper()
	r := call(t, "POST", base+sessPath, `{"agent_name":"test-agent","agent_version":"1.2","purpose":"buy a mug"}`,
		append([]string{"User-Agent", ua}, hdr...)...)
	if r.status != http.StatusCreated {
		t.Fatalf("create session: %d %s", r.status, r.raw)
	}
	token, _ = r.data()["session_token"].(string)
	id, _ = r.data()["session_id"].(string)
	if len(token) < 32 || id == "" {
		t.Fatalf("create session: token %q id %q", token, id)
	}
	return token, id
}

// publishedKey reads agents.json audit.public_key.
func publishedKey(t *testing.T, base string) ed25519.PublicKey {
	t.Helper()
	r := call(t, "GET", base+"/.well-known/agents.json", "")
	a, _ := r.body["audit"].(map[string]any)
	k, _ := a["public_key"].(string)
	b, err := base64.StdEncoding.DecodeString(k)
	if err != nil || len(b) != ed25519.PublicKeySize {
		t.Fatalf("agents.json audit.public_key %q: %v", k, err)
	}
	return b
}

// artifact fetches and verifies a session's artifact with the published key.
func artifact(t *testing.T, base, id string) *audit.Artifact {
	t.Helper()
	r := call(t, "GET", base+auditPath+id, "")
	if r.status != http.StatusOK {
		t.Fatalf("artifact: %d %s", r.status, r.raw)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("artifact Content-Type %q", ct)
	}
	a, err := audit.VerifyJSON(r.raw, publishedKey(t, base))
	if err != nil {
		t.Fatalf("artifact does not verify: %v\n%s", err, r.raw)
	}
	return a
}

func TestSessionFlow(t *testing.T) {
	srv, _ := shopServer(t)
	base := srv.URL
	token, id := createSession(t, base, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}

	if r := call(t, "GET", base+api+"search?q=mug&limit=5", "", as...); r.status != 200 || len(r.data()["items"].([]any)) != 2 {
		t.Fatalf("search: %d %s", r.status, r.raw)
	}
	if r := call(t, "POST", base+api+"cart/add", `{"id":"mug-blue","quantity":2,"password":"hunter2"}`, as...); r.status != 200 {
		t.Fatalf("cart.add: %d %s", r.status, r.raw)
	}
	r := call(t, "GET", base+api+"cart", "", as...)
	if r.status != 200 || !strings.Contains(string(r.raw), `"quantity":2`) {
		t.Fatalf("cart.view: %d %s", r.status, r.raw)
	}
	// Another session's cart is its own.
	t2, _ := createSession(t, base, uaClaudeUser)
	if r := call(t, "GET", base+api+"cart", "", "User-Agent", uaClaudeUser, "X-Agent-Session", t2); !strings.Contains(string(r.raw), `"items":[]`) {
		t.Errorf("second session's cart: %s", r.raw)
	}
	// Still active: 425 with Retry-After (the TTL is 3600 s).
	r = call(t, "GET", base+auditPath+id, "")
	if r.status != http.StatusTooEarly || r.body["ok"] != false {
		t.Fatalf("artifact while active: %d %s", r.status, r.raw)
	}
	if ra, _ := strconv.Atoi(r.header.Get("Retry-After")); ra < 3500 || ra > 3600 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	// Checkout hands off to a human and ends the session.
	r = call(t, "POST", base+api+"checkout", "", as...)
	if r.status != 200 || r.body["ok"] != true || !strings.HasPrefix(r.data()["handoff_url"].(string), "https://acmeceramics.example.com/checkout/") ||
		r.data()["expires_at"] == nil || r.data()["message"] == nil {
		t.Fatalf("checkout: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", base+api+"cart", "", as...); r.status != http.StatusUnauthorized {
		t.Errorf("cart.view after the handoff: %d %s", r.status, r.raw)
	}
	a := artifact(t, base, id)
	want := []struct {
		capability, method, decision string
		status                       int
	}{
		{testhooks.CapabilitySessionCreate, "POST", audit.Allow, 201},
		{"search", "GET", audit.Allow, 200},
		{"cart.add", "POST", audit.Allow, 200},
		{"cart.view", "GET", audit.Allow, 200},
		{"checkout", "POST", audit.Allow, 200},
	}
	if len(a.Events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(a.Events), len(want), a.Events)
	}
	for i, w := range want {
		e := a.Events[i]
		if e.Capability != w.capability || e.Method != w.method || e.PolicyResult.Decision != w.decision || e.ResponseStatus != w.status {
			t.Errorf("event %d: %+v, want %+v", i, e, w)
		}
	}
	if p := a.Events[2].Params; p["password"] != audit.Redacted || p["id"] != "mug-blue" || p["quantity"] != 2.0 {
		t.Errorf("cart.add params %v", p)
	}
	if p := a.Events[1].Params; p["q"] != "mug" || p["limit"] != "5" {
		t.Errorf("search params %v", p)
	}
	if a.Agent.Name != "test-agent" || a.Agent.Version != "1.2" || a.Agent.Purpose != "buy a mug" || a.Site != "https://acmeceramics.example.com" {
		t.Errorf("artifact agent %+v, site %q", a.Agent, a.Site)
	}
	// Tampering breaks verification.
	a.Events[2].Params["quantity"] = 20.0
	if err := audit.Verify(a, publishedKey(t, base)); err == nil {
		t.Error("a tampered artifact verifies")
	}
}

func TestSessionTokens(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, _ := shopServer(t, agentready.WithClock(clock.Now), agentready.WithClients(agentready.Clients{TrustedProxies: []string{"127.0.0.1/32"}}))
	base := srv.URL
	token, _ := createSession(t, base, uaClaudeUser, "X-Forwarded-For", "198.51.100.7")
	expiring, _ := createSession(t, base, uaClaudeUser, "X-Forwarded-For", "198.51.100.7")
	if r := call(t, "GET", base+api+"cart", "", "User-Agent", uaClaudeUser, "X-Agent-Session", token, "X-Forwarded-For", "198.51.100.7"); r.status != 200 {
		t.Fatalf("valid token: %d %s", r.status, r.raw)
	}
	clock.Advance(3601 * time.Second)
	token, _ = createSession(t, base, uaClaudeUser, "X-Forwarded-For", "198.51.100.7")
	for _, tc := range []struct {
		name string
		hdr  []string
	}{
		{"missing", []string{"User-Agent", uaClaudeUser, "X-Forwarded-For", "198.51.100.7"}},
		{"unknown", []string{"User-Agent", uaClaudeUser, "X-Forwarded-For", "198.51.100.7", "X-Agent-Session", strings.Repeat("x", 43)}},
		{"expired", []string{"User-Agent", uaClaudeUser, "X-Forwarded-For", "198.51.100.7", "X-Agent-Session", expiring}},
		{"foreign agent", []string{"User-Agent", uaGPTBot, "X-Forwarded-For", "198.51.100.7", "X-Agent-Session", token}},
		{"foreign client", []string{"User-Agent", uaClaudeUser, "X-Forwarded-For", "203.0.113.9", "X-Agent-Session", token}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, "POST", base+api+"cart/add", `{"id":"mug-blue"}`, tc.hdr...)
			if r.status != http.StatusUnauthorized || r.body["ok"] != false || r.body["error"] == "" || r.body["rule"] != "requires_session" {
				t.Errorf("%d %s", r.status, r.raw)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	t.Run("session-free capability ignores a bad token", func(t *testing.T) {
		r := call(t, "GET", base+api+"search?q=mug", "", "User-Agent", uaClaudeUser, "X-Agent-Session", "bogus")
		if r.status != 200 {
			t.Errorf("%d %s", r.status, r.raw)
		}
	})
	t.Run("browsers cannot create sessions", func(t *testing.T) {
		r := call(t, "POST", base+sessPath, "", "User-Agent", uaChrome)
		if r.status != http.StatusForbidden {
			t.Errorf("%d %s", r.status, r.raw)
		}
	})
}

func TestMaxSessions(t *testing.T) {
	srv, _ := shopServer(t)
	for range 5 { // AcmeCeramics: max_sessions 5
		createSession(t, srv.URL, uaClaudeUser)
	}
	r := call(t, "POST", srv.URL+sessPath, "", "User-Agent", uaClaudeUser)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || r.body["ok"] != false {
		t.Fatalf("sixth session: %d %v %s", r.status, r.header, r.raw)
	}
	// Agents under the default policy (this site declares none) share
	// one allowance per client, whatever their User-Agent says: Claude-User
	// used it up, and neither a known agent nor 30 made-up names get more.
	for i := range 30 {
		ua := fmt.Sprintf("ShopAgent%d/1.0", i)
		if i == 0 {
			ua = uaGPTBot
		}
		if r := call(t, "POST", srv.URL+sessPath, "", "User-Agent", ua); r.status != http.StatusTooManyRequests {
			t.Fatalf("session %d of the client as %q: %d %s", 6+i, ua, r.status, r.raw)
		}
	}
}

// TestMaxSessionsDeclaredAgent: a declared agent policy keeps an allowance
// of its own beside the default policy's.
func TestMaxSessionsDeclaredAgent(t *testing.T) {
	site := acme()
	site.Agents = []config.AgentPolicy{{Name: "GPTBot"}}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	t.Cleanup(srv.Close)
	for range 5 {
		createSession(t, srv.URL, uaClaudeUser)
	}
	if r := call(t, "POST", srv.URL+sessPath, "", "User-Agent", "Unknown/1.0"); r.status != http.StatusTooManyRequests {
		t.Fatalf("an unknown agent after Claude-User's five: %d %s", r.status, r.raw)
	}
	createSession(t, srv.URL, uaGPTBot)
}

func TestAuditArtifactStates(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, _ := shopServer(t, agentready.WithClock(clock.Now))
	base := srv.URL
	if r := call(t, "GET", base+auditPath+"no-such-session", ""); r.status != http.StatusNotFound || r.body["ok"] != false {
		t.Errorf("unknown: %d %s", r.status, r.raw)
	}
	token, id := createSession(t, base, uaClaudeUser)
	if r := call(t, "GET", base+auditPath+id, ""); r.status != http.StatusTooEarly {
		t.Errorf("active: %d %s", r.status, r.raw)
	}
	r := call(t, "DELETE", base+sessPath, "", "User-Agent", uaClaudeUser, "X-Agent-Session", token)
	if r.status != 200 || r.data()["audit_artifact_url"] != "https://acmeceramics.example.com/.well-known/agents/api/audit/"+id {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	// The DELETE is the session's last event (it carried the session).
	if a := artifact(t, base, id); len(a.Events) != 2 || a.Events[1].Capability != testhooks.CapabilitySessionDelete ||
		a.Events[1].Method != "DELETE" || a.Events[1].ResponseStatus != 200 || a.Events[1].PolicyResult.Decision != audit.Allow {
		t.Errorf("after DELETE: events %+v", a.Events)
	}
	if r := call(t, "GET", base+auditPath+id, ""); r.header.Get("Cache-Control") != "public, max-age=86400" {
		t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
	}

	token, id = createSession(t, base, uaClaudeUser)
	call(t, "GET", base+api+"search?q=vase", "", "User-Agent", uaClaudeUser, "X-Agent-Session", token)
	clock.Advance(time.Hour)
	a := artifact(t, base, id) // expired, not yet reaped: the GET reaps and seals
	if len(a.Events) != 2 || a.EndedAt != "2026-01-01T01:00:00.000Z" {
		t.Errorf("after expiry: %d events, ended %s", len(a.Events), a.EndedAt)
	}
}

// failingAudit is an audit store whose appends of capability calls fail:
// it tests the middleware's failure path, not a store.
type failingAudit struct{ audit.Store }

func (f failingAudit) Append(ctx context.Context, id string, e audit.Event) error {
	if e.Capability == testhooks.CapabilitySessionCreate {
		return f.Store.Append(ctx, id, e)
	}
	return errors.New("disk full")
}

func (f failingAudit) Begin(context.Context, string, audit.Event) (int, error) {
	return 0, errors.New("disk full")
}

func TestAuditFailsClosed(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := shopServer(t, agentready.WithAudit(testAuditKey, failingAudit{ms}))
	token, _ := createSession(t, srv.URL, uaClaudeUser)
	r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue"}`, "User-Agent", uaClaudeUser, "X-Agent-Session", token)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.raw), "the audit trail could not record this action") ||
		strings.Contains(string(r.raw), "mug-blue") || r.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	// Requests without a session are not audited and unaffected.
	if r := call(t, "GET", srv.URL+api+"search?q=mug", "", "User-Agent", uaClaudeUser); r.status != 200 {
		t.Errorf("search without session: %d", r.status)
	}
}

// TestDeleteFailsClosed: a DELETE the audit trail cannot record ends
// nothing: 503, the session stays live and its log unsealed, and a retry
// once the store recovers ends it with the DELETE as its last event.
func TestDeleteFailsClosed(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	srv, _ := shopServer(t, agentready.WithAudit(testAuditKey, switchableAudit{ms, &broken}))
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	broken.Store(true)
	r := call(t, "DELETE", srv.URL+sessPath, "", as...)
	if r.status != http.StatusServiceUnavailable || r.body["ok"] != false || !strings.Contains(r.body["error"].(string), "still live") {
		t.Fatalf("DELETE with the audit store down: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", srv.URL+auditPath+id, ""); r.status != http.StatusTooEarly {
		t.Errorf("artifact after the failed DELETE: %d %s", r.status, r.raw)
	}
	broken.Store(false)
	if r := call(t, "GET", srv.URL+api+"cart", "", as...); r.status != 200 {
		t.Fatalf("the session is not live after the failed DELETE: %d %s", r.status, r.raw)
	}
	if r := call(t, "DELETE", srv.URL+sessPath, "", as...); r.status != 200 {
		t.Fatalf("DELETE retried: %d %s", r.status, r.raw)
	}
	evs := artifact(t, srv.URL, id).Events
	if len(evs) != 3 || evs[1].Capability != "cart.view" || evs[2].Capability != testhooks.CapabilitySessionDelete {
		t.Errorf("events %+v", evs)
	}
}

// TestCreateFailsClosed: a session whose creation the audit trail cannot
// record is not created (503, no token), and does not count against
// max_sessions.
func TestCreateFailsClosed(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	srv, _ := shopServer(t, agentready.WithAudit(testAuditKey, switchableAudit{ms, &broken}))
	broken.Store(true)
	for range 6 { // above Acme's max_sessions of 5: nothing is kept
		r := call(t, "POST", srv.URL+sessPath, "", "User-Agent", uaClaudeUser)
		if r.status != http.StatusServiceUnavailable || r.body["ok"] != false || strings.Contains(string(r.raw), "session_token") {
			t.Fatalf("create with the audit store down: %d %s", r.status, r.raw)
		}
	}
	broken.Store(false)
	_, id := createSession(t, srv.URL, uaClaudeUser)
	if evs, err := ms.Events(context.Background(), id); err != nil || len(evs) != 1 || evs[0].Capability != testhooks.CapabilitySessionCreate {
		t.Fatalf("log of the created session: %+v %v", evs, err)
	}
}

// switchableAudit fails every append while broken is set.
type switchableAudit struct {
	audit.Store
	broken *atomic.Bool
}

func (s switchableAudit) Append(ctx context.Context, id string, e audit.Event) error {
	if s.broken.Load() {
		return errors.New("disk full")
	}
	return s.Store.Append(ctx, id, e)
}

func TestAuditRedactor(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{Redactor: func(k string, v any) any {
		if k == "id" {
			return "[item]"
		}
		return v
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := shopServer(t, agentready.WithAudit(testAuditKey, ms))
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue","password":"x"}`, as...)
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	p := artifact(t, srv.URL, id).Events[1].Params
	if p["id"] != "[item]" || p["password"] != "x" {
		t.Errorf("params %v", p)
	}
}

func TestSessionAgentsJSON(t *testing.T) {
	srv, _ := shopServer(t)
	r := call(t, "GET", srv.URL+"/.well-known/agents.json", "")
	schematest.Validate(t, "agents-protocol_agents.schema.json", r.raw)
	for _, want := range []string{`"session":{`, `"max_sessions":5`, `"requires_session":true`, `"human_handoff":true`} {
		if !strings.Contains(strings.ReplaceAll(string(r.raw), " ", ""), want) {
			t.Errorf("agents.json lacks %s:\n%s", want, r.raw)
		}
	}
	if !publishedKey(t, srv.URL).Equal(testAuditKey.Public()) {
		t.Error("audit.public_key is not the signing key's")
	}
}

func TestAuditOptionErrors(t *testing.T) {
	if _, err := agentready.New(acme(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010})); err == nil ||
		!strings.Contains(err.Error(), "Audit.Enabled: needs the key that signs the artifacts: agentready.WithAudit") {
		t.Errorf("no key: %v", err)
	}
	if _, err := agentready.New(fixtures.AcmeCeramics(), agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil)); err == nil ||
		!strings.Contains(err.Error(), "is not the public half") {
		t.Errorf("mismatched key: %v", err)
	}
	if _, err := agentready.New(acme(), agentready.WithAudit(ed25519.PrivateKey{1}, nil)); err == nil {
		t.Error("short key accepted")
	}
}

// redisSessionsAndAudit keeps a Middleware's sessions and audit logs in
// Redis through client, under prefix.
func redisSessionsAndAudit(t *testing.T, client redis.UniversalClient, prefix string) []agentready.Option {
	t.Helper()
	ss, err := redisstore.NewSessionStore(client, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	as, err := redisstore.NewAuditStore(client, redisstore.WithKeyPrefix(prefix+"audit:"))
	if err != nil {
		t.Fatal(err)
	}
	return []agentready.Option{agentready.WithSessions(ss), agentready.WithAudit(testAuditKey, as)}
}

// TestSessionRedisRestart runs a session across a restart of the
// middleware: A creates it and records audited calls; B, a new Middleware
// on the same Redis and key (a restart, or another replica), sees the
// session, ends it, seals the log and serves the verified artifact.
func TestSessionRedisRestart(t *testing.T) {
	rs := redistest.Start(t)
	prefix := redistest.Prefix(t)
	newReplica := func() *httptest.Server {
		client := redis.NewClient(&redis.Options{Addr: rs.Addr, ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = client.Close() })
		srv, _ := shopServer(t, redisSessionsAndAudit(t, client, prefix)...)
		return srv
	}
	a := newReplica()
	token, id := createSession(t, a.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	if r := call(t, "POST", a.URL+api+"cart/add", `{"id":"vase-bud","card_number":"4111111111111111"}`, as...); r.status != 200 {
		t.Fatalf("cart.add on A: %d %s", r.status, r.raw)
	}
	a.Close()

	b := newReplica()
	if r := call(t, "GET", b.URL+auditPath+id, ""); r.status != http.StatusTooEarly {
		t.Fatalf("artifact on B while active: %d %s", r.status, r.raw)
	}
	// The cart lived in A's memory (the shop's state is not agentready's);
	// the session and its log are in Redis.
	if r := call(t, "GET", b.URL+api+"cart", "", as...); r.status != 200 {
		t.Fatalf("cart.view on B: %d %s", r.status, r.raw)
	}
	if r := call(t, "DELETE", b.URL+sessPath, "", as...); r.status != 200 {
		t.Fatalf("DELETE on B: %d %s", r.status, r.raw)
	}
	art := artifact(t, b.URL, id)
	if len(art.Events) != 4 || art.Events[1].Capability != "cart.add" || art.Events[1].Params["card_number"] != audit.Redacted ||
		art.Events[2].Capability != "cart.view" || art.Events[3].Capability != testhooks.CapabilitySessionDelete {
		t.Errorf("events %+v", art.Events)
	}
}

// TestAuditRecordsDenials: a request carrying a valid session is recorded
// whatever the decision, with the rule that decided.
func TestAuditRecordsDenials(t *testing.T) {
	srv, _ := shopServer(t)
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	if r := call(t, "GET", srv.URL+"/admin?password=x", "", as...); r.status != http.StatusForbidden {
		t.Fatalf("/admin: %d %s", r.status, r.raw)
	}
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	evs := artifact(t, srv.URL, id).Events
	if len(evs) != 3 {
		t.Fatalf("%d events", len(evs))
	}
	e := evs[1]
	if e.Capability != "/admin" || e.PolicyResult.Decision != audit.Deny || !strings.Contains(e.PolicyResult.Rule, "draft-car 2.6") ||
		e.ResponseStatus != 403 || e.Params["password"] != audit.Redacted {
		t.Errorf("event %+v", e)
	}
}
