package main

import (
	"context"
	"crypto/ed25519"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/examples/internal/demo"
	"github.com/agentready/agentready/mcpgateway"
	"github.com/agentready/agentready/verify"
)

// TestDemoVerifiedClaude is docs/verified-agents.md's demo, end to end: the demo site
// trusting this agent's key directory gives the claude policy to requests
// this agent signs, and 403 to every claim it cannot prove.
func TestDemoVerifiedClaude(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	kid := thumbprint(priv.Public().(ed25519.PublicKey))
	dir := httptest.NewServer(directory(priv, kid))
	defer dir.Close()
	var untrustedHits atomic.Int32
	untrusted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		untrustedHits.Add(1)
		directory(priv, kid).ServeHTTP(w, r)
	}))
	defer untrusted.Close()

	target, host := demoSite(t, dir.URL)

	signedFor := func(key ed25519.PrivateKey, agent, authority string, at time.Time, lifetime time.Duration, tamper bool) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, target, nil)
		r.Header.Set("User-Agent", "claude/1.0 (+https://agent.example)")
		signRequest(r, key, thumbprint(key.Public().(ed25519.PublicKey)), agent, authority, at, lifetime, tamper)
		return r
	}
	signed := func(key ed25519.PrivateKey, agent, authority string, at time.Time, tamper bool) *http.Request {
		return signedFor(key, agent, authority, at, time.Minute, tamper)
	}
	do := func(r *http.Request) (int, string) {
		t.Helper()
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header.Get("RateLimit-Policy")
	}

	valid := signed(priv, dir.URL, host, time.Now(), false)
	if status, policy := do(valid); status != 200 || !strings.Contains(policy, `"agent/claude"`) {
		t.Fatalf("signed claude: %d, RateLimit-Policy %q: want 200 and the claude policy", status, policy)
	}
	if status, _ := do(valid); status != http.StatusForbidden && status != http.StatusTooManyRequests {
		t.Errorf("the same signature replayed: %d, want 403 or 429", status)
	}
	// The directory named by its well-known URL spelled out is the origin
	// the demo trusts (draft-ietf-webbotauth-httpsig-protocol-01 4.5).
	wellKnown := signed(priv, dir.URL+"/.well-known/http-message-signatures-directory", host, time.Now(), false)
	if status, policy := do(wellKnown); status != 200 || !strings.Contains(policy, `"agent/claude"`) {
		t.Errorf("signed claude naming the well-known URL: %d, RateLimit-Policy %q", status, policy)
	}
	_, other, _ := ed25519.GenerateKey(nil)
	for name, r := range map[string]*http.Request{
		"unsigned": func() *http.Request {
			r, _ := http.NewRequest("GET", target, nil)
			r.Header.Set("User-Agent", "claude/1.0")
			return r
		}(),
		"tampered":                 signed(priv, dir.URL, host, time.Now(), true),
		"expired":                  signed(priv, dir.URL, host, time.Now().Add(-time.Hour), false),
		"other authority":          signed(priv, dir.URL, "shop.example", time.Now(), false),
		"unknown key":              signed(other, dir.URL, host, time.Now(), false),
		"untrusted directory":      signed(priv, untrusted.URL, host, time.Now(), false),
		"lifetime over the policy": signedFor(priv, dir.URL, host, time.Now(), time.Hour, false),
		"another JWK Set URL":      signed(priv, dir.URL+"/jwks.json", host, time.Now(), false),
	} {
		if status, policy := do(r); status != http.StatusForbidden {
			t.Errorf("%s: %d (RateLimit-Policy %q), want 403", name, status, policy)
		}
	}
	// A signature an agent made for another site, replayed with that
	// site's Host: the demo does not believe the Host.
	r := signed(priv, dir.URL, "shop.example", time.Now(), false)
	r.Host = "shop.example"
	if status, _ := do(r); status != http.StatusForbidden {
		t.Errorf("replayed from another site: %d, want 403", status)
	}
	if n := untrustedHits.Load(); n != 0 {
		t.Errorf("the untrusted directory was fetched %d times", n)
	}
	// The key, as a static host publishes it: a JWK Set, plain JSON,
	// unsigned, the key the directory proves.
	res, err := http.Get(dir.URL + "/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.Header.Get("Content-Type") != "application/json" || res.Header.Get("Signature") != "" ||
		!strings.Contains(string(body), `"kid":"`+kid+`"`) {
		t.Errorf("/jwks.json: %s %q %s", res.Header.Get("Content-Type"), res.Header.Get("Signature"), body)
	}
	// Browsers and other agents are not asked for anything.
	r, _ = http.NewRequest("GET", target, nil)
	r.Header.Set("User-Agent", "curl/8.5.0")
	if status, _ := do(r); status != 200 {
		t.Errorf("curl under *: %d", status)
	}
}

// demoSite serves the demo site on a loopback listener, its claude policy
// trusting the Signature-Agent URLs given, and returns the search URL and
// the site's authority.
func demoSite(t *testing.T, trusted ...string) (target, host string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	app := demo.NewApp()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// examples/stdlib's declaration and -trust-signature-agent wiring.
	decl, _, err := config.LoadSite("../stdlib/site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := []agentready.Option{agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), agentready.WithGateway(mcpgateway.Serve)}
	if len(trusted) > 0 {
		for i := range decl.Agents {
			if decl.Agents[i].Name == "claude" {
				decl.Agents[i].Verify = config.Verification{Required: true, Methods: []string{config.VerifySignature}, SignatureAgents: trusted}
			}
		}
		opts = append(opts, agentready.WithVerification(verify.Options{AllowHTTPLoopback: true, Authorities: []string{ln.Addr().String()}}))
	}
	m, err := agentready.New(decl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = m.Run(ctx) }()
	mux := http.NewServeMux()
	mux.Handle("GET /api/search", m.Capability("product-search")(http.HandlerFunc(app.Search)))
	site := httptest.NewUnstartedServer(m.Handler(mux))
	site.Listener.Close()
	site.Listener = ln
	site.Start()
	t.Cleanup(site.Close)
	return site.URL + "/api/search?q=tent", strings.TrimPrefix(site.URL, "http://")
}

// TestDemoTrustsJWKSetURL: a site that trusts the agent's JWK Set by its
// full URL, the unsigned /jwks.json a static host serves
// (draft-ietf-webbotauth-httpsig-protocol-01 5.2.1, 5.5: a Signature-Agent
// value is the URL of a JWK Set), gives the claude policy to requests
// signed naming that URL, and to none naming the agent's origin, which it
// does not trust: the URL is the identity, not the host serving it.
func TestDemoTrustsJWKSetURL(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	kid := thumbprint(priv.Public().(ed25519.PublicKey))
	var hits atomic.Int32
	dir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks.json" {
			hits.Add(1)
		}
		directory(priv, kid).ServeHTTP(w, r)
	}))
	defer dir.Close()
	jwks := dir.URL + "/jwks.json"
	target, host := demoSite(t, jwks)
	do := func(agent string) (int, string) {
		t.Helper()
		r, _ := http.NewRequest(http.MethodGet, target, nil)
		r.Header.Set("User-Agent", "claude/1.0 (+https://agent.example)")
		signRequest(r, priv, kid, agent, host, time.Now(), time.Minute, false)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header.Get("RateLimit-Policy")
	}
	if status, policy := do(jwks); status != 200 || !strings.Contains(policy, `"agent/claude"`) {
		t.Fatalf("signed naming the trusted JWK Set URL: %d, RateLimit-Policy %q: want 200 and the claude policy", status, policy)
	}
	for _, agent := range []string{dir.URL, dir.URL + "/.well-known/http-message-signatures-directory"} {
		if status, policy := do(agent); status != http.StatusForbidden {
			t.Errorf("signed naming %s, which the site does not trust: %d (RateLimit-Policy %q), want 403", agent, status, policy)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the untrusted well-known directory was fetched %d times", n)
	}
}

// TestGradedBySigner: issue 26's grades with this signer's own signatures
// and key directory. A site that trusts the directory for agents it does
// not declare ("*" with a proven grant) gives a signed request the proven
// form whatever its User-Agent names, refuses it nothing the anonymous
// client is refused less, and holds it to an unknown purpose, which the
// site counts as training on /articles/; the same requests unsigned are
// claimed or anonymous.
func TestGradedBySigner(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	kid := thumbprint(priv.Public().(ed25519.PublicKey))
	dir := httptest.NewServer(directory(priv, kid))
	defer dir.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	site := config.Site{
		Name: "Graded", URL: "https://graded.example", Description: "A site that grades its agents", Contact: "agents@graded.example",
		Capabilities: []config.Capability{{ID: "search", Description: "Search", Endpoint: "https://graded.example/api/search",
			Method: "GET", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthNone}}},
		Access: config.Access{Allow: []string{"/"}},
		Agents: []config.AgentPolicy{
			{Name: "*", RateLimit: config.PerMinute(30), Capabilities: []string{},
				Proven: &config.Grant{RateLimit: config.PerMinute(300)},
				Verify: config.Verification{SignatureAgents: []string{dir.URL + "/jwks.json"}}},
			{Name: "GPTBot", RateLimit: config.PerMinute(10)},
		},
		Usage: config.Usage{Enforce: true, Paths: []config.PathUsage{
			{Path: "/articles/", Train: config.Denied, UnknownPurpose: enforce.PurposeTrainingCrawler}}},
	}
	var last atomic.Pointer[enforce.Decision]
	m, err := agentready.New(site,
		agentready.WithVerification(verify.Options{AllowHTTPLoopback: true, Authorities: []string{host}}),
		agentready.WithOnDecision(func(d enforce.Decision) { last.Store(&d) }),
		agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	// The directory is fetched at the first signature that names it (the
	// known-agent data's sources, which usage enforcement trusts, are not
	// loaded: no m.Run, and no request leaves the machine).
	srv := httptest.NewUnstartedServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	for _, tc := range []struct {
		name, ua, path string
		sign           bool
		status         int
		grade, limit   string
	}{
		{"signed, a browser's User-Agent: * proven", "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0", "/api/search?q=tent", true, 200, enforce.GradeProven, "agent/*/proven"},
		{"signed, naming GPTBot: still the directory's agent", "GPTBot/1.2", "/api/search?q=tent", true, 200, enforce.GradeProven, "agent/*/proven"},
		{"unsigned GPTBot: claimed, its own grants", "GPTBot/1.2", "/api/search?q=tent", false, 200, enforce.GradeClaimed, "agent/GPTBot"},
		{"unsigned script: anonymous, * refuses the capability", "curl/8.5.0", "/api/search?q=tent", false, 403, enforce.GradeAnonymous, ""},
		{"signed, unknown purpose held to training", "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0", "/articles/1", true, 403, enforce.GradeProven, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
			r.Header.Set("User-Agent", tc.ua)
			if tc.sign {
				signRequest(r, priv, kid, dir.URL+"/jwks.json", host, time.Now(), time.Minute, false)
			}
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			d := last.Load()
			if res.StatusCode != tc.status || d.Grade != tc.grade || (tc.limit != "" && d.Limits[0] != tc.limit) {
				t.Errorf("%d, grade %s, limits %q, identity %+v; want %d %s %s", res.StatusCode, d.Grade, d.Limits, d.Identity, tc.status, tc.grade, tc.limit)
			}
		})
	}
}
