package e2e_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/verify"
)

// wbaAgent is a Web Bot Auth agent for the tests: a key and the signed
// key directory that publishes it. The signature bases are written out
// (RFC 9421 2.5) rather than built by the code under test.
type wbaAgent struct {
	priv ed25519.PrivateKey
	kid  string
	dir  *httptest.Server
	hits atomic.Int32
	// now is the clock the directory's possession proof and the
	// signatures are made on; cacheControl, when set, is the directory's
	// Cache-Control.
	now          func() time.Time
	cacheControl string
}

func newWBAAgent(tb testing.TB) *wbaAgent { return newWBAAgentAt(tb, time.Now, "") }

// newWBAAgentAt is newWBAAgent on the clock now, its directory served
// with cacheControl ("" for none).
func newWBAAgentAt(tb testing.TB, now func() time.Time, cacheControl string) *wbaAgent {
	tb.Helper()
	_, priv, _ := ed25519.GenerateKey(nil)
	x := base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
	sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + x + `"}`))
	a := &wbaAgent{priv: priv, kid: base64.RawURLEncoding.EncodeToString(sum[:]), now: now, cacheControl: cacheControl}
	a.dir = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		now := a.now()
		params := fmt.Sprintf(`("@authority";req);created=%d;expires=%d;keyid="%s";alg="ed25519";tag="http-message-signatures-directory"`,
			now.Unix(), now.Add(5*time.Minute).Unix(), a.kid)
		sig := ed25519.Sign(priv, []byte(`"@authority";req: `+r.Host+"\n"+`"@signature-params": `+params))
		w.Header().Set("Content-Type", "application/http-message-signatures-directory+json")
		if a.cacheControl != "" {
			w.Header().Set("Cache-Control", a.cacheControl)
		}
		w.Header().Set("Signature-Input", "sig1="+params)
		w.Header().Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
		w.Write([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}]}`))
	}))
	tb.Cleanup(a.dir.Close)
	return a
}

// sign signs r for authority as this agent, naming its directory in
// Signature-Agent (the dictionary form).
func (a *wbaAgent) sign(r *http.Request, authority string) {
	nonce := make([]byte, 16)
	rand.Read(nonce)
	a.signWith(r, authority, `;nonce="`+base64.StdEncoding.EncodeToString(nonce)+`"`)
}

// signWith signs r with extra parameters (nonce) after alg.
func (a *wbaAgent) signWith(r *http.Request, authority, extra string) {
	a.signFor(r, authority, extra, time.Minute)
}

// signFor signs r with extra parameters, valid for lifetime.
func (a *wbaAgent) signFor(r *http.Request, authority, extra string, lifetime time.Duration) {
	a.signAt(r, authority, extra, a.now(), lifetime)
}

// signAt signs r with extra parameters, created at created and valid for
// lifetime.
func (a *wbaAgent) signAt(r *http.Request, authority, extra string, created time.Time, lifetime time.Duration) {
	agent := `"` + a.dir.URL + `"`
	params := fmt.Sprintf(`("@authority" "signature-agent";key="sig1");created=%d;expires=%d;keyid="%s";alg="ed25519"%s;tag="web-bot-auth"`,
		created.Unix(), created.Add(lifetime).Unix(), a.kid, extra)
	sig := ed25519.Sign(a.priv, []byte(`"@authority": `+authority+"\n"+`"signature-agent";key="sig1": `+agent+"\n"+`"@signature-params": `+params))
	r.Header.Set("Signature-Agent", "sig1="+agent)
	r.Header.Set("Signature-Input", "sig1="+params)
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
}

// serveVerified serves app behind site's middleware on a loopback
// listener, with opts letting plain-HTTP loopback key directories serve
// and naming the listener as the site's authority; the Verifier is loaded
// before it returns. It returns the server, its authority, the middleware
// and the decisions it records.
func serveVerified(t *testing.T, site config.Site, opts verify.Options) (*httptest.Server, string, *agentready.Middleware, *decisions) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	opts.AllowHTTPLoopback, opts.Authorities = true, []string{host}
	rec := &decisions{}
	m, err := agentready.New(site, agentready.WithVerification(opts),
		agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if err := testhooks.Verifier(m).Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(m.Handler(app))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, host, m, rec
}

// TestVerifiedBySignature: each verified-only policy trusts its own key
// directory; a key of another policy's directory proves nothing for it,
// and a bad signature fails a claim the client address would have proven.
func TestVerifiedBySignature(t *testing.T) {
	claudeAgent, otherAgent := newWBAAgent(t), newWBAAgent(t)
	inside, _ := rangeListServer(t, "127.0.0.0/8", "::1/128")
	site := fixtures.OutdoorSupply()
	site.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: []string{claudeAgent.dir.URL}, IPRanges: []string{inside}}
	site.Agents = append(site.Agents, config.AgentPolicy{Name: "OtherAgent", RateLimit: config.PerMinute(30),
		Verify: config.Verification{Required: true, SignatureAgents: []string{otherAgent.dir.URL}}})
	srv, host, m, rec := serveVerified(t, site, verify.Options{})
	req := func(ua string) *http.Request {
		r, _ := http.NewRequest("GET", srv.URL+"/api/search?q=tent", nil)
		r.Header.Set("User-Agent", ua)
		return r
	}
	do := func(r *http.Request) *http.Response {
		t.Helper()
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}

	r := req("claude/1.0")
	claudeAgent.sign(r, host)
	if res := do(r); res.StatusCode != 200 || !strings.Contains(res.Header.Get("RateLimit-Policy"), `"agent/claude"`) {
		t.Fatalf("signed claude: %d %q", res.StatusCode, res.Header.Get("RateLimit-Policy"))
	}
	if d := rec.last(t); d.Identity.Method != verify.Signature || d.Identity.Source != claudeAgent.dir.URL || d.Identity.KeyID != claudeAgent.kid {
		t.Errorf("identity %+v", d.Identity)
	}
	// Explain reports the same without using the nonce up.
	r = req("claude/1.0")
	claudeAgent.sign(r, host)
	r.RemoteAddr = "127.0.0.1:1234"
	if d := m.Explain(r); d.Identity.Method != verify.Signature || d.Outcome != enforce.Allow {
		t.Errorf("Explain: %+v", d)
	}
	if res := do(r); res.StatusCode != 200 {
		t.Errorf("served after Explain: %d", res.StatusCode)
	}

	// A signature made for another site, replayed here with that site's
	// Host: the Host is not believed.
	r = req("claude/1.0")
	claudeAgent.sign(r, "shop.example")
	r.Host = "shop.example"
	if res := do(r); res.StatusCode != http.StatusForbidden {
		t.Errorf("a signature for shop.example replayed with Host: shop.example: %d, want 403", res.StatusCode)
	}
	// Another policy's directory: trusted, but not for claude. The claim
	// to claude is not proven; the signature proves OtherAgent, whose
	// grants it gets whatever its User-Agent claims (docs/design.md,
	// "Grades of identity").
	r = req("claude/1.0")
	otherAgent.sign(r, host)
	if res := do(r); res.StatusCode != 200 || !strings.Contains(res.Header.Get("RateLimit-Policy"), `"agent/OtherAgent"`) {
		t.Errorf("claude signed by OtherAgent's key: %d %q, want 200 under OtherAgent", res.StatusCode, res.Header.Get("RateLimit-Policy"))
	}
	if d := rec.last(t); d.Grade != enforce.GradeProven || d.Identity.Agent != "OtherAgent" || d.Identity.Claimed != "claude" {
		t.Errorf("claude signed by OtherAgent's key: %+v", d)
	}
	// A bad signature is decisive, though 127.0.0.1 is in claude's ranges.
	r = req("claude/1.0")
	claudeAgent.sign(r, host)
	r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), ":", ":A", 1))
	if res := do(r); res.StatusCode != http.StatusForbidden {
		t.Errorf("a bad signature from inside the ranges: %d, want 403", res.StatusCode)
	}
	// Without a signature, the address proves claude.
	if res := do(req("claude/1.0")); res.StatusCode != 200 || rec.last(t).Identity.Method != verify.IPRange {
		t.Errorf("unsigned claude inside the ranges: %d %+v", res.StatusCode, rec.last(t).Identity)
	}
	// OtherAgent accepts only its own signatures.
	r = req("OtherAgent/2.0")
	otherAgent.sign(r, host)
	if res := do(r); res.StatusCode != 200 || !strings.Contains(res.Header.Get("RateLimit-Policy"), "OtherAgent") {
		t.Errorf("signed OtherAgent: %d %q", res.StatusCode, res.Header.Get("RateLimit-Policy"))
	}
	if res := do(req("OtherAgent/2.0")); res.StatusCode != http.StatusForbidden {
		t.Errorf("unsigned OtherAgent: %d", res.StatusCode)
	}
}

// failingReplays is a replay cache whose store is down.
type failingReplays struct{}

func (failingReplays) Seen(context.Context, string, time.Time, time.Time) (bool, error) {
	return false, errors.New("connection refused")
}

// TestReplayStoreDown: when the replay cache fails in the middle of a
// request, a signed claim is not proven (its nonce could be a replay): it
// is served under "*", never with the claimed policy's grants, and never
// refused as if disproven.
func TestReplayStoreDown(t *testing.T) {
	agent := newWBAAgent(t)
	site := fixtures.OutdoorSupply()
	site.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: []string{agent.dir.URL}}
	srv, host, _, rec := serveVerified(t, site, verify.Options{Replays: failingReplays{}})
	r, _ := http.NewRequest("GET", srv.URL+"/api/search?q=tent", nil)
	r.Header.Set("User-Agent", "claude/1.0")
	agent.sign(r, host)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || strings.Contains(res.Header.Get("RateLimit-Policy"), "claude") {
		t.Errorf("replay store down: %d %q, want 200 under *", res.StatusCode, res.Header.Get("RateLimit-Policy"))
	}
	if d := rec.last(t); !d.Unverified || d.Identity.Verified() || !errorsIs(d.Err, verify.ErrUnavailable) {
		t.Errorf("decision %+v", d)
	}
}

// TestRefusedSignatureAnswers: a refused claim says why, in the decision
// and the problem+json, and asks for the signature it would accept
// (draft-ietf-webbotauth-httpsig-protocol-01 5.3): a replayed nonce is
// 429, a signature living longer than the site allows has its own reason,
// distinct from a forgery.
func TestRefusedSignatureAnswers(t *testing.T) {
	agent := newWBAAgent(t)
	site := fixtures.OutdoorSupply()
	site.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: []string{agent.dir.URL}}
	srv, host, _, rec := serveVerified(t, site, verify.Options{SignatureMaxLifetime: 5 * time.Minute})
	do := func(sign func(r *http.Request)) (*http.Response, map[string]any) {
		t.Helper()
		r, _ := http.NewRequest("GET", srv.URL+"/api/search?q=tent", nil)
		r.Header.Set("User-Agent", "claude/1.0")
		sign(r)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		json.NewDecoder(res.Body).Decode(&body)
		return res, body
	}
	nonce := `;nonce="` + base64.StdEncoding.EncodeToString([]byte("once-only-nonce!")) + `"`
	var replayed http.Header
	cases := []struct {
		name   string
		sign   func(r *http.Request)
		status int
		reason string
	}{
		{"first use of a nonce", func(r *http.Request) { agent.signWith(r, host, nonce); replayed = r.Header.Clone() }, 200, ""},
		{"the same signature again", func(r *http.Request) {
			for k, v := range replayed {
				if strings.HasPrefix(k, "Signature") {
					r.Header[k] = v
				}
			}
		}, http.StatusTooManyRequests, "replayed-nonce"},
		{"a day-long signature", func(r *http.Request) { agent.signFor(r, host, nonce[:len(nonce)-2]+`2"`, 24*time.Hour) }, http.StatusForbidden, "lifetime-exceeds-policy"},
		{"a forged signature", func(r *http.Request) {
			agent.sign(r, host)
			v := r.Header.Get("Signature")
			sig, _ := base64.StdEncoding.DecodeString(strings.Trim(strings.TrimPrefix(v, "sig1="), ":"))
			sig[0] ^= 1
			r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
		}, http.StatusForbidden, "bad-signature"},
		{"no signature", func(*http.Request) {}, http.StatusForbidden, "no-signature"},
	}
	for _, c := range cases {
		res, body := do(c.sign)
		if res.StatusCode != c.status {
			t.Errorf("%s: %d, want %d (%v)", c.name, res.StatusCode, c.status, body)
			continue
		}
		d := rec.last(t)
		if d.Identity.Reason != c.reason {
			t.Errorf("%s: decision reason %q, want %q", c.name, d.Identity.Reason, c.reason)
		}
		if c.status == 200 {
			continue
		}
		if body["reason"] != c.reason || d.Outcome != enforce.DenyIdentity {
			t.Errorf("%s: problem reason %v, outcome %v, want %q", c.name, body["reason"], d.Outcome, c.reason)
		}
		// 5.3: the refusal names the signature that would be accepted,
		// with a fresh nonce, so the answer is not stored.
		as := res.Header.Get("Accept-Signature")
		if !strings.Contains(as, `tag="web-bot-auth"`) || !strings.Contains(as, "nonce=") || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Accept-Signature %q, Cache-Control %q", c.name, as, res.Header.Get("Cache-Control"))
		}
	}
}
