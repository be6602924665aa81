package e2e_test

// Regression tests for the ways around verified-only policies and Auth:
// hmac that an attacker review of the first version found; each asserts
// the behaviour that now holds.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	httpsig "github.com/remitly-oss/httpsig-go"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/verify"
)

func hmacSite() config.Site {
	site := fixtures.OutdoorSupply()
	site.Capabilities = append(site.Capabilities, config.Capability{
		ID: "orders", Description: "Place an order", Endpoint: "https://outdoorsupply.example/api/orders",
		Method: "POST", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthHMAC},
	})
	return site
}

var attackSecret = []byte("0123456789abcdef0123456789abcdef")

func attackKeys(_ context.Context, id string) (verify.RequestKey, error) {
	if id == "partner-hmac" {
		return verify.RequestKey{Algorithm: "hmac-sha256", Secret: attackSecret}, nil
	}
	return verify.RequestKey{}, errors.New("unknown key")
}

// Auth: hmac is presence-only in serveBound (Wrap in front, a
// route bound with m.Capability at a path that is not the declared endpoint).
func TestAttackHMACServeBoundPresenceOnly(t *testing.T) {
	m, err := agentready.New(hmacSite(), agentready.WithRequestSignatures(attackKeys), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /api/v2/orders", m.Capability("orders")(app))
	mux.Handle("POST /api/orders", m.Capability("orders")(app))
	srv := httptest.NewServer(m.Handler(mux))
	defer srv.Close()
	for _, path := range []string{"/api/orders", "/api/v2/orders"} {
		res, body := send(t, "POST", srv.URL+path, `{"item":"tent"}`,
			"User-Agent", "PartnerBot/1.0", "Signature", "sig1=:AAAA:", "Signature-Input", `sig1=("@method");keyid="x"`)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a forged Signature: %d %s, want 401", path, res.StatusCode, body)
		}
	}
	// Even a bare "Authorization: x" is accepted as the hmac credential.
	res, body := send(t, "POST", srv.URL+"/api/v2/orders", `{}`, "User-Agent", "PartnerBot/1.0", "Authorization", "x")
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/api/v2/orders with Authorization: x: %d %s, want 401", res.StatusCode, body)
	}
}

// AuthForEveryClient: hmac is presence-only for browsers.
func TestAttackHMACAuthForEveryClientPresenceOnly(t *testing.T) {
	m, err := agentready.New(hmacSite(), agentready.WithRequestSignatures(attackKeys), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /api/orders", m.Capability("orders", agentready.AuthForEveryClient())(app))
	srv := httptest.NewServer(m.Handler(mux))
	defer srv.Close()
	res, body := send(t, "POST", srv.URL+"/api/orders", `{"item":"tent"}`, "User-Agent", uaChrome, "Signature", "sig1=:AAAA:")
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("browser with a forged Signature: %d %s, want 401", res.StatusCode, body)
	}
}

// the session endpoint (LimitOnly) gives an unverified claim the
// verified-only policy's limit; with Clients.LimitByAgent, spoofers drain the
// bucket the verified agent is counted in.
func TestAttackSessionEndpointUnverifiedGrants(t *testing.T) {
	inside, _ := rangeListServer(t, "10.0.0.0/8") // the real ClaudeBot's range
	site := acme()
	site.Agents = []config.AgentPolicy{{Name: "*"},
		{Name: "ClaudeBot", RateLimit: config.PerMinute(3), Verify: config.Verification{Required: true, IPRanges: []string{inside}}}}
	for _, byAgent := range []bool{false, true} {
		opts := []agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
			agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()),
			agentready.WithVerification(verify.Options{AllowHTTPLoopback: true})}
		if byAgent {
			opts = append(opts, agentready.WithClients(agentready.Clients{LimitByAgent: true}))
		}
		m, err := agentready.New(site, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := testhooks.Verifier(m).Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		h := m.Handler(app)
		req := func(method, path, remote string) *httptest.ResponseRecorder {
			r := httptest.NewRequest(method, "https://acmeceramics.example.com"+path, strings.NewReader(`{"agent_name":"x"}`))
			r.Header.Set("User-Agent", uaClaudeBot)
			r.RemoteAddr = remote
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		// The spoofer, outside the ranges, is refused everywhere else...
		if w := req("GET", api+"search?q=mug", "203.0.113.9:1"); w.Code != http.StatusForbidden {
			t.Fatalf("spoofer on search: %d", w.Code)
		}
		// ...but the session endpoint serves it under ClaudeBot's policy.
		for i := 0; i < 3; i++ {
			w := req("POST", sessPath, fmt.Sprintf("203.0.113.%d:1", 10+i))
			if pol := w.Header().Get("RateLimit-Policy"); strings.Contains(pol, "agent/ClaudeBot") || w.Code == http.StatusCreated {
				t.Errorf("byAgent=%v: spoofer at the session endpoint: %d, RateLimit-Policy %q", byAgent, w.Code, pol)
			}
		}
		// The verified ClaudeBot from its own range.
		if w := req("GET", api+"search?q=mug", "10.1.2.3:1"); w.Code != http.StatusOK {
			t.Errorf("byAgent=%v: verified ClaudeBot after the spoofers: %d (RateLimit %q)", byAgent, w.Code, w.Header().Get("RateLimit"))
		}
	}
}

// wbaServer serves the demo site with ClaudeBot's policy verified-only
// under v, trusting a new Web Bot Auth agent's key directory.
func wbaServer(t *testing.T, v config.Verification) (*httptest.Server, string, *wbaAgent, *decisions) {
	t.Helper()
	a := newWBAAgent(t)
	site := fixtures.OutdoorSupply()
	v.Required = true
	v.SignatureAgents = []string{a.dir.URL}
	site.Agents[1].Verify = v
	srv, host, _, rec := serveVerified(t, site, verify.Options{})
	return srv, host, a, rec
}

// a Web Bot Auth signature without a nonce is never checked for
// replay: the same signed headers are accepted again and again, on any path.
func TestAttackWBAReplayWithoutNonce(t *testing.T) {
	srv, host, a, _ := wbaServer(t, config.Verification{})
	r0, _ := http.NewRequest("GET", srv.URL+"/api/search?q=tent", nil)
	a.signWith(r0, host, "") // no nonce
	for i, path := range []string{"/api/search?q=tent", "/api/search?q=tent", "/mcp", "/api/anything"} {
		r, _ := http.NewRequest("GET", srv.URL+path, nil)
		r.Header = r0.Header.Clone()
		r.Header.Set("User-Agent", "claude/1.0")
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if i > 0 && res.StatusCode != http.StatusForbidden {
			t.Errorf("replay %d of a nonce-less signature to %s: %d %q, want 403", i, path, res.StatusCode, res.Header.Get("RateLimit-Policy"))
		}
	}
}

// Lockout: an agent proven by its address is refused when it also
// carries a signature that is not web-bot-auth (an hmac one for Auth: hmac,
// a draft-cavage Signature).
func TestAttackNonWBASignatureLocksOutRangeProvenAgent(t *testing.T) {
	inside, _ := rangeListServer(t, "127.0.0.0/8", "::1/128")
	srv, _, _, rec := wbaServer(t, config.Verification{IPRanges: []string{inside}})
	for name, hdr := range map[string][]string{
		"cavage":     {"Signature", `keyId="k",algorithm="hmac-sha256",signature="AAAA"`},
		"rfc9421 hm": {"Signature-Input", `sig1=("@method" "@path");created=1;keyid="partner-hmac"`, "Signature", "sig1=:AAAA:"},
	} {
		res, body := do(t, "GET", srv.URL+"/api/search?q=tent", "claude/1.0", hdr...)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: claude inside its ranges: %d %s (%v)", name, res.StatusCode, body, rec.last(t).Err)
		}
	}
}

// Auth: hmac signatures can be replayed (no nonce) and
// @authority is the request's Host, not the site's.
func TestAttackHMACReplayAndHost(t *testing.T) {
	m, err := agentready.New(hmacSite(), agentready.WithRequestSignatures(attackKeys), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()
	body := `{"item":"tent","qty":1}`
	r, _ := http.NewRequest("POST", srv.URL+"/api/orders", strings.NewReader(body))
	r.Host = "staging.partner-shop.example" // signed for another host
	sum := sha256.Sum256([]byte(body))
	r.Header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
	r.Header.Set("User-Agent", "PartnerBot/1.0")
	nonce := make([]byte, 8)
	rand.Read(nonce)
	if err := httpsig.Sign(r, httpsig.SigningProfile{Algorithm: httpsig.Algo_HMAC_SHA256,
		Fields:   httpsig.Fields("@method", "@authority", "@path", "content-digest"),
		Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID}},
		httpsig.SigningKey{Secret: attackSecret, MetaKeyID: "partner-hmac"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		rr, _ := http.NewRequest("POST", srv.URL+"/api/orders", strings.NewReader(body))
		rr.Header = r.Header.Clone()
		rr.Host = r.Host
		res, err := http.DefaultClient.Do(rr)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Errorf("send %d of an hmac signature made for Host %s: 200", i, r.Host)
		}
	}
}

// Lockout: while a verified-only policy's source cannot answer,
// its claim is served under "*" - but the session endpoint binds the
// session to the claimed identity, and every use is then refused.
func TestAttackOutageLocksOutSessions(t *testing.T) {
	down, isDown := rangeListServer(t, "127.0.0.0/8")
	isDown.Store(true)
	site := acme()
	site.Agents = []config.AgentPolicy{{Name: "*"},
		{Name: "ClaudeBot", RateLimit: config.PerMinute(100), Verify: config.Verification{Required: true, IPRanges: []string{down}}}}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLogger(discardLogger()),
		agentready.WithVerification(verify.Options{AllowHTTPLoopback: true}))
	if err != nil {
		t.Fatal(err)
	}
	s2 := httptest.NewServer(m.Handler(app))
	defer s2.Close()
	token, _ := createSession(t, s2.URL, uaClaudeBot)
	r := call(t, "POST", s2.URL+api+"cart/add", `{"id":"mug-blue","quantity":1}`, "User-Agent", uaClaudeBot, "X-Agent-Session", token)
	if r.status != http.StatusOK {
		t.Errorf("honest ClaudeBot during a range-list outage, with its own fresh session: %d %s", r.status, r.raw)
	}
}
