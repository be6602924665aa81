package verifier

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sfv "github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/verify"
)

// wbaSigner is a Web Bot Auth agent: its key, and the Signature-Agent
// value it sends.
type wbaSigner struct {
	priv  ed25519.PrivateKey
	kid   string
	agent string
}

func newSigner(t *testing.T) wbaSigner {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := webbotauth.Thumbprint(priv.Public())
	return wbaSigner{priv: priv, kid: kid}
}

func (s wbaSigner) jwks() string {
	x := base64.RawURLEncoding.EncodeToString(s.priv.Public().(ed25519.PublicKey))
	return `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}]}`
}

// sign signs r for authority, covering @authority and its Signature-Agent
// member (draft-ietf-webbotauth-httpsig-protocol-01 5.2, 5.2.1), the base
// written out by hand; without an agent, @authority alone.
func (s wbaSigner) sign(r *http.Request, authority string, created, expires int64) {
	nonce := webbotauth.NewNonce()
	if s.agent == "" {
		params := fmt.Sprintf(`("@authority");created=%d;expires=%d;keyid="%s";nonce="%s";tag="web-bot-auth"`, created, expires, s.kid, nonce)
		base := `"@authority": ` + authority + "\n" + `"@signature-params": ` + params
		r.Header.Set("Signature-Input", "sig1="+params)
		r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(s.priv, []byte(base)))+":")
		return
	}
	r.Header.Set("Signature-Agent", `sig1="`+s.agent+`"`)
	params := fmt.Sprintf(`("@authority" "signature-agent";key="sig1");created=%d;expires=%d;keyid="%s";nonce="%s";tag="web-bot-auth"`,
		created, expires, s.kid, nonce)
	base := `"@authority": ` + authority + "\n" + `"signature-agent";key="sig1": "` + s.agent + `"` + "\n" + `"@signature-params": ` + params
	r.Header.Set("Signature-Input", "sig1="+params)
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(s.priv, []byte(base)))+":")
}

// staticHost serves files as a static host does: application/json, no
// signature, and counts what it serves.
func staticHost(t *testing.T, files map[string]string, contentType string) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "max-age=300")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestSignatureEndToEnd: the claims of two verified-only policies, one
// trusting a -01 agent by the URL of its JWK Set on a static host
// (unsigned), one trusting a legacy agent by its origin (a bare origin on
// the wire, its key directory at the well-known URI, unsigned too); each
// refusal with its reason, and the Accept-Signature to answer it with.
// It runs on a pinned clock (verify.Options.Now, a date long past: the
// nonce cache must follow that clock, not the wall clock) and on the real
// one.
func TestSignatureEndToEnd(t *testing.T) {
	pinned := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	t.Run("pinned clock", func(t *testing.T) { testSignatureEndToEnd(t, pinned, func() time.Time { return pinned }) })
	t.Run("real clock", func(t *testing.T) { testSignatureEndToEnd(t, time.Now(), nil) })
}

func testSignatureEndToEnd(t *testing.T, now time.Time, clock func() time.Time) {
	modern, legacy, stranger := newSigner(t), newSigner(t), newSigner(t)
	static, staticHits := staticHost(t, map[string]string{"/agents/modern/jwks.json": modern.jwks()}, "application/json")
	origin, _ := staticHost(t, map[string]string{webbotauth.DirectoryPath: legacy.jwks()}, webbotauth.DirectoryMediaType)
	modern.agent = static.URL + "/agents/modern/jwks.json"
	legacy.agent = origin.URL
	stranger.agent = static.URL + "/agents/stranger/jwks.json"
	agents := []config.AgentPolicy{
		{Name: "Modern", Verify: config.Verification{Required: true, SignatureAgents: []string{modern.agent}}},
		{Name: "ChatGPT-Agent", Verify: config.Verification{Required: true, SignatureAgents: []string{origin.URL}}},
		{Name: "Plain"},
	}
	v, err := newForAgents(agents, verify.Options{AllowHTTPLoopback: true, Authorities: []string{"site.example"},
		Now: clock, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	client := netip.MustParseAddr("203.0.113.9")
	check := func(name string, s wbaSigner, policy string, mod func(r *http.Request), wantSource, wantReason string) {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, "https://site.example/api/search?q=tent", nil)
		s.sign(r, "site.example", now.Unix()-5, now.Unix()+60)
		if mod != nil {
			mod(r)
		}
		id, err := v.Verify(context.Background(), r, client, "site.example", policy, true)
		if got := Reason(err); got != wantReason {
			t.Fatalf("%s: reason %q (%v), want %q", name, got, err, wantReason)
		}
		if err == nil && (id.Method != verify.Signature || id.Source != wantSource || id.KeyID != s.kid) {
			t.Fatalf("%s: identity %+v", name, id)
		}
		if err != nil && !errors.Is(err, verify.ErrFailed) && !errors.Is(err, verify.ErrUnavailable) {
			t.Fatalf("%s: %v wraps neither ErrFailed nor ErrUnavailable", name, err)
		}
	}
	check("-01 signer, JWK Set URL", modern, "Modern", nil, modern.agent, "")
	check("legacy signer, bare origin", legacy, "ChatGPT-Agent", nil, origin.URL, "")
	check("legacy directory named by its well-known URL", wbaSigner{legacy.priv, legacy.kid, origin.URL + webbotauth.DirectoryPath},
		"ChatGPT-Agent", nil, origin.URL, "")
	check("another policy's agent", legacy, "Modern", nil, "", webbotauth.ReasonUntrusted)
	check("a JWK Set no policy trusts", stranger, "Modern", nil, "", webbotauth.ReasonUntrusted)
	check("no Signature-Agent", wbaSigner{modern.priv, modern.kid, ""}, "Modern", nil, "", webbotauth.ReasonNoAgent)
	check("Signature-Agent covered, not sent", modern, "Modern", func(r *http.Request) { r.Header.Del("Signature-Agent") }, "", webbotauth.ReasonMalformed)
	check("unsigned", modern, "Modern", func(r *http.Request) {
		r.Header.Del("Signature")
		r.Header.Del("Signature-Input")
	}, "", webbotauth.ReasonNoSignature)
	check("tampered", modern, "Modern", func(r *http.Request) {
		r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=:", "sig1=:AAAA", 1))
	}, "", webbotauth.ReasonBadSignature)
	if staticHits.Load() != 1 {
		t.Fatalf("the static host served %d times, want 1 (then the cache; never the untrusted URL)", staticHits.Load())
	}

	// A replayed nonce, and a lifetime beyond the site's policy: reasons
	// of their own, neither a forgery.
	r := httptest.NewRequest(http.MethodGet, "https://site.example/api/search?q=tent", nil)
	modern.sign(r, "site.example", now.Unix()-5, now.Unix()+60)
	replay := r.Clone(context.Background())
	if _, err := v.Verify(context.Background(), r, client, "site.example", "Modern", true); err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), replay, client, "site.example", "Modern", true)
	if Reason(err) != webbotauth.ReasonReplay || !errors.Is(err, webbotauth.ErrReplay) {
		t.Fatalf("replay: %q %v", Reason(err), err)
	}
	r = httptest.NewRequest(http.MethodGet, "https://site.example/", nil)
	modern.sign(r, "site.example", now.Unix()-5, now.Unix()+3600)
	_, err = v.Verify(context.Background(), r, client, "site.example", "Modern", true)
	if Reason(err) != webbotauth.ReasonLifetime || errors.Is(err, webbotauth.ErrBadSignature) {
		t.Fatalf("lifetime: %q %v", Reason(err), err)
	}

	// The Accept-Signature a refusal carries (RFC 9421 5.1, draft 5.3),
	// with a fresh nonce, for the policies that accept signatures.
	field := v.AcceptSignature("modern")
	d, err := sfv.UnmarshalDictionary([]string{field})
	if err != nil || !strings.Contains(field, `tag="web-bot-auth"`) || !strings.Contains(field, `;nonce="`) || field == v.AcceptSignature("Modern") {
		t.Fatalf("%q %v", field, err)
	}
	if _, ok := d.Get(webbotauth.AcceptLabel); !ok {
		t.Fatalf("%q", field)
	}
	if v.AcceptSignature("Plain") != "" || v.AcceptSignature("unknown") != "" || (*Verifier)(nil).AcceptSignature("Modern") != "" {
		t.Fatal("Accept-Signature for a policy that takes no signature")
	}
	v2, err := newForAgents(agents[:1], verify.Options{AllowHTTPLoopback: true, AllowNoNonce: true, Authorities: []string{"site.example"}, Logger: discardLogger()})
	if err != nil || strings.Contains(v2.AcceptSignature("Modern"), "nonce") {
		t.Fatalf("without required nonces: %q %v", v2.AcceptSignature("Modern"), err)
	}
	if st := v.Directories(); len(st) != 2 || st[0].Agent != modern.agent || st[0].URL != modern.agent || st[0].Keys != 1 ||
		st[1].Agent != origin.URL || st[1].URL != origin.URL+webbotauth.DirectoryPath {
		t.Fatalf("directories %+v", st)
	}
}

// TestSignatureDirectoryProof: with RequireDirectoryProof, a key directory
// at the well-known URI that does not sign its response proves nothing
// (the claim cannot be checked); a JWK Set at another URL is still used.
func TestSignatureDirectoryProof(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	modern, legacy := newSigner(t), newSigner(t)
	static, _ := staticHost(t, map[string]string{"/jwks.json": modern.jwks()}, "application/json")
	origin, _ := staticHost(t, map[string]string{webbotauth.DirectoryPath: legacy.jwks()}, webbotauth.DirectoryMediaType)
	modern.agent, legacy.agent = static.URL+"/jwks.json", origin.URL
	v, err := newForAgents([]config.AgentPolicy{
		{Name: "Modern", Verify: config.Verification{Required: true, SignatureAgents: []string{modern.agent}}},
		{Name: "Legacy", Verify: config.Verification{Required: true, SignatureAgents: []string{legacy.agent}}},
	}, verify.Options{AllowHTTPLoopback: true, RequireDirectoryProof: true, Authorities: []string{"site.example"},
		Now: func() time.Time { return now }, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s      wbaSigner
		policy string
		reason string
	}{{modern, "Modern", ""}, {legacy, "Legacy", ReasonUnavailable}} {
		r := httptest.NewRequest(http.MethodGet, "https://site.example/", nil)
		c.s.sign(r, "site.example", now.Unix(), now.Unix()+60)
		_, err := v.Verify(context.Background(), r, netip.MustParseAddr("203.0.113.9"), "site.example", c.policy, true)
		if Reason(err) != c.reason {
			t.Errorf("%s: %q %v", c.policy, Reason(err), err)
		}
	}
}

// TestCanonicalAgent: the forms a site may name a trusted Signature-Agent
// in.
func TestCanonicalAgent(t *testing.T) {
	for in, want := range map[string]string{
		"https://chatgpt.com":  "https://chatgpt.com",
		"https://chatgpt.com/": "https://chatgpt.com",
		"https://chatgpt.com/.well-known/http-message-signatures-directory": "https://chatgpt.com",
		"https://Agent.example/keys/jwks.json?v=1":                          "https://agent.example/keys/jwks.json",
		"http://127.0.0.1:9090/jwks.json":                                   "",
		"http://agent.example":                                              "",
		"https://agent.example/jwks.json#k":                                 "",
	} {
		got, err := canonicalAgent(in, false)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if got, err := canonicalAgent("http://127.0.0.1:9090/jwks.json", true); err != nil || got != "http://127.0.0.1:9090/jwks.json" {
		t.Errorf("loopback: %q %v", got, err)
	}
}
