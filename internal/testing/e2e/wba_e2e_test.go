package e2e_test

// End to end, Web Bot Auth as draft-ietf-webbotauth-httpsig-protocol-01
// ("the draft" below; internal/webbotauth/doc.go says where it was read)
// has it, against a real agentready.Middleware on a loopback listener
// whose claude policy is verified-only: a signer of the draft's form, a
// legacy signer, Cloudflare's web-bot-auth npm package
// (wba_cloudflare_test.go), and every published negative vector.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/wbavectors"
	"github.com/agentready/agentready/verify"
)

// wbaSite is the site of these tests: fixtures.OutdoorSupply, whose claude
// policy is verified-only and trusts the Signature-Agent URLs given,
// served on a loopback listener with its Verifier loaded.
type wbaSite struct {
	srv  *httptest.Server
	host string // the listener's authority, which signatures name
	m    *agentready.Middleware
	rec  *decisions
	// verified and refused count the requests checked, for the log.
	verified, refused int
}

// serveWBA starts a wbaSite. opts is used as given, with the listener's
// authority added to Authorities; AllowHTTPLoopback is the caller's to
// set, for the loopback signers' JWK Sets.
func serveWBA(t *testing.T, trusted []string, opts verify.Options) *wbaSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &wbaSite{host: ln.Addr().String(), rec: &decisions{}}
	opts.Authorities = append(opts.Authorities, s.host)
	site := fixtures.OutdoorSupply()
	site.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: trusted}
	s.m, err = agentready.New(site, agentready.WithVerification(opts),
		agentready.WithOnDecision(s.rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if err := testhooks.Verifier(s.m).Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewUnstartedServer(s.m.Handler(app))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// request is a claude request to the site's search endpoint.
func (s *wbaSite) request() *http.Request {
	r, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/api/search?q=tent", nil)
	r.Header.Set("User-Agent", "claude/1.0")
	return r
}

// do sends r and returns the response with its problem+json, if any.
func (s *wbaSite) do(t *testing.T, r *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var prob map[string]any
	if res.Header.Get("Content-Type") == "application/problem+json" {
		if err := json.Unmarshal(b, &prob); err != nil {
			t.Fatalf("problem+json: %v: %s", err, b)
		}
	}
	return res, prob
}

// wantVerified sends r and checks that it is served under the claude
// policy, proven by the key kid of the JWK Set named source.
func (s *wbaSite) wantVerified(t *testing.T, name string, r *http.Request, source, kid string) {
	t.Helper()
	res, prob := s.do(t, r)
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("RateLimit-Policy"), `"agent/claude"`) {
		t.Errorf("%s: %d, RateLimit-Policy %q, %v: want 200 under claude", name, res.StatusCode, res.Header.Get("RateLimit-Policy"), prob)
		return
	}
	d := s.rec.last(t)
	if d.Identity.Method != verify.Signature || d.Identity.Source != source || d.Identity.KeyID != kid || d.Identity.Reason != "" {
		t.Errorf("%s: identity %+v, want a signature by %s from %s", name, d.Identity, kid, source)
		return
	}
	s.verified++
}

// wantRefused sends r and checks that the claim is refused with status
// and reason, in the decision and in the problem+json, and that the
// refusal asks for a Web Bot Auth signature (draft 5.3).
func (s *wbaSite) wantRefused(t *testing.T, name string, r *http.Request, status int, reason string) {
	t.Helper()
	res, prob := s.do(t, r)
	d := s.rec.last(t)
	switch {
	case res.StatusCode != status:
		t.Errorf("%s: %d, want %d (%v)", name, res.StatusCode, status, prob)
	case d.Outcome != enforce.DenyIdentity || d.Identity.Verified() || d.Identity.Claimed != "claude":
		t.Errorf("%s: decision %v, identity %+v", name, d.Outcome, d.Identity)
	case d.Identity.Reason != reason || prob["reason"] != reason:
		t.Errorf("%s: reason %q in the decision, %v in the problem, want %q (%v)", name, d.Identity.Reason, prob["reason"], reason, d.Err)
	case !strings.Contains(res.Header.Get("Accept-Signature"), `tag="web-bot-auth"`):
		t.Errorf("%s: Accept-Signature %q", name, res.Header.Get("Accept-Signature"))
	default:
		s.refused++
	}
}

// jwksAgent signs as the draft has it: its Signature-Agent member is the
// full URL of its JWK Set (5.2.1, 5.5), served unsigned as plain JSON the
// way a static host serves a file, and its signature covers that member
// keyed to its label.
type jwksAgent struct {
	priv ed25519.PrivateKey
	kid  string
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int // path -> requests
}

const jwksPath = "/agents/crawler/jwks.json"

func newJWKSAgent(t *testing.T) *jwksAgent {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(nil)
	pub := priv.Public().(ed25519.PublicKey)
	a := &jwksAgent{priv: priv, kid: ed25519Thumbprint(pub), hits: map[string]int{}}
	body := `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}]}`
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits[r.URL.Path]++
		a.mu.Unlock()
		if r.URL.Path != jwksPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		io.WriteString(w, body)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *jwksAgent) url() string { return a.srv.URL + jwksPath }

func (a *jwksAgent) fetched(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[path]
}

// sign signs r for authority naming agentURL, covering @method,
// @authority, @path and its own member (draft 5.2, 5.2.1), with a nonce.
// The base is written out (RFC 9421 2.5), not built by the code under
// test.
func (a *jwksAgent) sign(r *http.Request, authority, agentURL string) {
	signMember(r, a.priv, a.kid, authority, agentURL)
}

func signMember(r *http.Request, priv ed25519.PrivateKey, kid, authority, agentURL string) {
	now := time.Now()
	agent := `"` + agentURL + `"`
	params := fmt.Sprintf(`("@method" "@authority" "@path" "signature-agent";key="sig1");created=%d;expires=%d;keyid="%s";alg="ed25519";nonce="%s";tag="web-bot-auth"`,
		now.Unix(), now.Add(time.Minute).Unix(), kid, newNonce())
	base := `"@method": ` + r.Method + "\n" +
		`"@authority": ` + authority + "\n" +
		`"@path": ` + r.URL.EscapedPath() + "\n" +
		`"signature-agent";key="sig1": ` + agent + "\n" +
		`"@signature-params": ` + params
	r.Header.Set("Signature-Agent", "sig1="+agent)
	r.Header.Set("Signature-Input", "sig1="+params)
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(base)))+":")
}

// signLegacyString signs r as the earlier revisions' agents do, still
// deployed: Signature-Agent a bare sf-string naming an origin, the whole
// field covered (the draft's E.1.2 "Legacy Signature-Agent, sf-string";
// 5.2.1 reads it as a Dictionary of one member).
func signLegacyString(r *http.Request, a *wbaAgent, authority string) {
	now := time.Now()
	agent := `"` + a.dir.URL + `"`
	params := fmt.Sprintf(`("@authority" "signature-agent");created=%d;expires=%d;keyid="%s";alg="ed25519";nonce="%s";tag="web-bot-auth"`,
		now.Unix(), now.Add(time.Minute).Unix(), a.kid, newNonce())
	base := `"@authority": ` + authority + "\n" + `"signature-agent": ` + agent + "\n" + `"@signature-params": ` + params
	r.Header.Set("Signature-Agent", agent)
	r.Header.Set("Signature-Input", "sig1="+params)
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(a.priv, []byte(base)))+":")
}

func newNonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// ed25519Thumbprint is the RFC 7638 thumbprint of an Ed25519 JWK, the
// keyid the draft requires (5.2).
func ed25519Thumbprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestWebBotAuthSigners: a signer of the draft's form, naming the full URL
// of an unsigned JWK Set the site trusts by that URL, and a legacy signer
// naming a bare origin whose key directory at the well-known URI is signed,
// are both served under the verified-only policy; each is refused, with
// its reason, where it names what the site does not trust or claims a key
// another trusted URL holds.
func TestWebBotAuthSigners(t *testing.T) {
	current, legacy := newJWKSAgent(t), newWBAAgent(t)
	trusted := []string{current.url(), legacy.dir.URL}
	s := serveWBA(t, trusted, verify.Options{AllowHTTPLoopback: true})

	r := s.request()
	current.sign(r, s.host, current.url())
	replay := r.Header.Clone()
	s.wantVerified(t, "-01 signer, full JWK Set URL", r, current.url(), current.kid)
	// 5.3 and 5.2.3: the nonce is one-time; its replay is 429.
	r = s.request()
	for k, v := range replay {
		r.Header[k] = v
	}
	s.wantRefused(t, "-01 signer, replayed", r, http.StatusTooManyRequests, "replayed-nonce")
	// The URL is the identity (5.5): the site trusts the JWK Set, not its
	// host, whose well-known directory it never fetches.
	r = s.request()
	current.sign(r, s.host, current.srv.URL)
	s.wantRefused(t, "-01 signer naming its origin", r, http.StatusForbidden, "untrusted-agent")
	// A key is looked up under the URL the signature names (5.4): the
	// legacy agent's key is not in the -01 agent's JWK Set.
	r = s.request()
	signMember(r, legacy.priv, legacy.kid, s.host, current.url())
	s.wantRefused(t, "legacy key claimed under the -01 JWK Set", r, http.StatusForbidden, "unknown-key")

	r = s.request()
	legacy.sign(r, s.host)
	s.wantVerified(t, "legacy signer, bare origin member", r, legacy.dir.URL, legacy.kid)
	r = s.request()
	signLegacyString(r, legacy, s.host)
	s.wantVerified(t, "legacy signer, sf-string origin", r, legacy.dir.URL, legacy.kid)
	// The well-known URI spelled out names the same directory (4.5).
	r = s.request()
	signMember(r, legacy.priv, legacy.kid, s.host, legacy.dir.URL+"/.well-known/http-message-signatures-directory")
	s.wantVerified(t, "legacy signer, well-known URL spelled out", r, legacy.dir.URL, legacy.kid)

	if n := current.fetched(jwksPath); n != 1 {
		t.Errorf("the -01 JWK Set was fetched %d times, want once (at Load)", n)
	}
	if n := current.fetched("/.well-known/http-message-signatures-directory"); n != 0 {
		t.Errorf("the -01 agent's untrusted well-known directory was fetched %d times", n)
	}
	dirs := map[string]int{}
	for _, d := range testhooks.Verifier(s.m).Directories() {
		if d.LastError != nil {
			t.Errorf("%s: %v", d.URL, d.LastError)
		}
		dirs[d.Agent] = d.Proven
	}
	if p, ok := dirs[current.url()]; !ok || p != 0 {
		t.Errorf("the -01 JWK Set: trusted %v, %d keys proven, want trusted and used unsigned", ok, p)
	}
	if dirs[legacy.dir.URL] != 1 {
		t.Errorf("the legacy directory: %d keys proven, want 1 (its response is signed)", dirs[legacy.dir.URL])
	}

	// A site requiring possession proofs (the previous revision's rule,
	// RequireDirectoryProof) still takes the -01 agent's unsigned JWK Set:
	// appendix B's proof is of the well-known directory only.
	strict := serveWBA(t, trusted, verify.Options{AllowHTTPLoopback: true, RequireDirectoryProof: true})
	r = strict.request()
	current.sign(r, strict.host, current.url())
	strict.wantVerified(t, "RequireDirectoryProof, -01 signer", r, current.url(), current.kid)
	r = strict.request()
	legacy.sign(r, strict.host)
	strict.wantVerified(t, "RequireDirectoryProof, legacy signer", r, legacy.dir.URL, legacy.kid)

	t.Logf("%d requests verified, %d refused with their reason", s.verified+strict.verified, s.refused+strict.refused)
}

// negativeReasons maps the set's reasons to the middleware's
// (Identity.Reason, docs "Verified agents"), as internal/webbotauth's
// TestNegativeVectors maps them to sentinels. NV-17 was written for
// draft-meunier-webbotauth-httpsig-protocol-02, where a path made the
// member ignored; under -01 "https://signature-agent.test/keys" is a JWK
// Set URL (5.5), which the site does not trust, though it trusts the
// origin.
var negativeReasons = map[string]string{
	"target-not-covered":               "wrong-authority",
	"missing-fields":                   "malformed",
	"expired":                          "expired",
	"clock-ahead":                      "expired",
	"bad-signature":                    "bad-signature",
	"canonicalization-mismatch":        "bad-signature",
	"content-digest-mismatch":          "content-digest-mismatch",
	"missing-component":                "malformed",
	"signature-input-unreadable":       "malformed",
	"signature-value-unreadable":       "malformed",
	"duplicate-component":              "malformed",
	"signature-agent-absent":           "no-signature-agent",
	"signature-agent-ambiguous-member": "malformed",
	"signature-agent-member-missing":   "malformed",
	"signature-agent-not-https":        "malformed",
	"signature-agent-not-origin":       "untrusted-agent",
	"signature-agent-unparsable":       "malformed",
}

// vectorDirectories serves the vectors' key directory from memory, as
// the client of verify.Options (a RoundTripper of its own, so no address
// check applies), and records every URL asked for.
type vectorDirectories struct {
	mu     sync.Mutex
	dirs   map[string]*http.Response
	bodies map[string]string
	asked  []string
}

func (v *vectorDirectories) RoundTrip(r *http.Request) (*http.Response, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	u := r.URL.String()
	v.asked = append(v.asked, u)
	body, ok := v.bodies[u]
	if !ok {
		return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}
	res := *v.dirs[u]
	res.Header = res.Header.Clone()
	res.Body = io.NopCloser(strings.NewReader(body))
	res.Request = r
	return &res, nil
}

// TestWebBotAuthNegativeVectors: every published negative vector is
// refused through the middleware, each with its reason, in the decision
// and in the problem+json, at the instant the set gives, for the authority
// the vectors sign (example.com), the vectors' directory trusted. Two of
// them, at an instant their signature is valid, are served under claude:
// the refusals come from the faults, not from the harness.
func TestWebBotAuthNegativeVectors(t *testing.T) {
	set, err := wbavectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tests) != 17 {
		t.Fatalf("%d vectors, want 17", len(set.Tests))
	}
	rt := &vectorDirectories{dirs: map[string]*http.Response{}, bodies: map[string]string{}}
	for _, v := range set.Tests {
		if d := v.Directory; d != nil {
			h := http.Header{}
			for k, val := range d.Headers {
				h.Set(k, val)
			}
			rt.dirs[d.URL] = &http.Response{StatusCode: http.StatusOK, Header: h}
			rt.bodies[d.URL] = d.Body
		}
	}
	var mu sync.Mutex
	now := time.Unix(set.Tests[0].Now, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setClock := func(unix int64) { mu.Lock(); now = time.Unix(unix, 0); mu.Unlock() }
	s := serveWBA(t, []string{"https://signature-agent.test"}, verify.Options{
		Client:      &http.Client{Transport: rt},
		Authorities: []string{"example.com"},
		// The vectors carry no nonce, and sign for a century.
		AllowNoNonce:         true,
		SignatureMaxLifetime: 200 * 365 * 24 * time.Hour,
		Now:                  clock,
	})
	send := func(v wbavectors.Vector) *http.Request {
		u, err := url.Parse(v.Request.URL)
		if err != nil {
			t.Fatal(err)
		}
		var body io.Reader
		if v.Request.Body != nil {
			body = strings.NewReader(*v.Request.Body)
		}
		r, _ := http.NewRequest(v.Request.Method, s.srv.URL+u.RequestURI(), body)
		r.Host = u.Host
		for k, val := range v.Request.Headers {
			r.Header.Set(k, val)
		}
		r.Header.Set("User-Agent", "claude/1.0")
		return r
	}
	for _, v := range set.Tests {
		reason, ok := negativeReasons[v.Expected.Reason]
		if !ok {
			t.Errorf("%s: no mapping for reason %q", v.ID, v.Expected.Reason)
			continue
		}
		setClock(v.Now)
		s.wantRefused(t, v.ID+" ("+v.Expected.Reason+")", send(v), http.StatusForbidden, reason)
	}
	for _, c := range []struct {
		id string
		at int64
	}{{"NV-05", 1735689600}, {"NV-04", 1735689660}} {
		for _, v := range set.Tests {
			if v.ID == c.id {
				setClock(c.at)
				s.wantVerified(t, c.id+" while valid", send(v), "https://signature-agent.test", set.Key.KeyID)
			}
		}
	}
	rt.mu.Lock()
	for _, u := range rt.asked {
		if u != "https://signature-agent.test/.well-known/http-message-signatures-directory" {
			t.Errorf("fetched %s, which no trusted Signature-Agent names", u)
		}
	}
	rt.mu.Unlock()
	if s.refused != len(set.Tests) || s.verified != 2 {
		t.Errorf("%d of %d vectors refused with their reason, %d of 2 controls verified", s.refused, len(set.Tests), s.verified)
	}
	t.Logf("%d negative vectors refused with their reason, %d controls verified", s.refused, s.verified)
}
