package e2e_test

// Cloudflare's web-bot-auth npm package signs, the middleware verifies
// (wba_e2e_test.go has the site and the other signers).

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/testtools"
	"github.com/agentready/agentready/verify"
)

// wbaJSDir holds sign.mjs and the package-lock.json pinning web-bot-auth.
const wbaJSDir = "testdata/web-bot-auth-js"

func needWebBotAuthJS(t *testing.T) {
	t.Helper()
	testtools.Need(t, testtools.NodePackage(wbaJSDir, "web-bot-auth/package.json"))
}

// cfJob is what sign.mjs reads; cfSigned what it writes.
type cfJob struct {
	Keys      map[string]map[string]string `json:"keys"`
	Directory *cfDirectoryJob              `json:"directory"`
	Requests  []cfRequest                  `json:"requests"`
}

type cfDirectoryJob struct {
	URL     string   `json:"url"`
	Keys    []string `json:"keys"`
	Created int64    `json:"created"`
	Expires int64    `json:"expires"`
}

type cfRequest struct {
	Name           string `json:"name"`
	Key            string `json:"key"`
	Method         string `json:"method"`
	URL            string `json:"url"`
	SignatureAgent string `json:"signatureAgent,omitempty"`
	Components     []any  `json:"components,omitempty"`
	Created        int64  `json:"created"`
	Expires        int64  `json:"expires"`
}

type cfSigned struct {
	KeyIDs    map[string]string `json:"keyids"`
	Directory map[string]string `json:"directory"`
	Requests  []struct {
		Name    string            `json:"name"`
		Headers map[string]string `json:"headers"`
	} `json:"requests"`
}

// runWebBotAuthJS has the package sign job.
func runWebBotAuthJS(t *testing.T, job cfJob) cfSigned {
	t.Helper()
	in, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sign.mjs")
	cmd.Dir = wbaJSDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node sign.mjs: %v\n%s", err, stderr.String())
	}
	var signed cfSigned
	if err := json.Unmarshal(out, &signed); err != nil {
		t.Fatalf("sign.mjs wrote %s: %v", out, err)
	}
	return signed
}

func b64u(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// rsaJWK is the private JWK of k for the package's RSAPSSSHA512Signer
// (alg PS512, which signerFromJWK requires), its public JWK, and its RFC
// 7638 thumbprint.
func rsaJWK(k *rsa.PrivateKey) (priv, pub map[string]string, kid string) {
	k.Precompute()
	e := b64u(big.NewInt(int64(k.E)).Bytes())
	n := b64u(k.N.Bytes())
	pub = map[string]string{"kty": "RSA", "alg": "PS512", "n": n, "e": e}
	priv = map[string]string{"kty": "RSA", "alg": "PS512", "n": n, "e": e, "d": b64u(k.D.Bytes()),
		"p": b64u(k.Primes[0].Bytes()), "q": b64u(k.Primes[1].Bytes()),
		"dp": b64u(k.Precomputed.Dp.Bytes()), "dq": b64u(k.Precomputed.Dq.Bytes()), "qi": b64u(k.Precomputed.Qinv.Bytes())}
	sum := sha256.Sum256([]byte(`{"e":"` + e + `","kty":"RSA","n":"` + n + `"}`))
	return priv, pub, b64u(sum[:])
}

// TestWebBotAuthCloudflarePackage: requests signed by Cloudflare's
// web-bot-auth package (testdata/web-bot-auth-js/package-lock.json pins
// it), with an Ed25519 and an RSA-PSS key the test makes, verify through
// the middleware wherever they carry a Signature-Agent: the package's
// default with that header covers @authority and the whole field, which
// the draft reads as the member of a one-member Dictionary or of the
// legacy sf-string (5.2.1), whether it names the agent's origin (its key
// directory, whose response the package signs) or its JWK Set's full URL.
//
// What the package signs without a Signature-Agent (@authority alone) is
// refused as "no-signature-agent": -01 5.2.1 makes the header required of
// a signed request. And a member covered with ;key= (the draft's own form)
// is refused as a bad signature: web-bot-auth 0.1.3 (http-message-sig
// 0.2.0) signs the whole field's value under that component, not the
// member's (RFC 9421 2.1.2), so no verifier following RFC 9421 accepts it.
func TestWebBotAuthCloudflarePackage(t *testing.T) {
	needWebBotAuthJS(t)
	_, edPriv, _ := ed25519.GenerateKey(nil)
	edPub := edPriv.Public().(ed25519.PublicKey)
	edKid := ed25519Thumbprint(edPub)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaPrivJWK, rsaPubJWK, rsaKid := rsaJWK(rsaKey)
	keys := map[string]map[string]string{
		"ed25519":        {"kty": "OKP", "crv": "Ed25519", "x": b64u(edPub), "d": b64u(edPriv.Seed())},
		"rsa-pss-sha512": rsaPrivJWK,
	}
	kids := map[string]string{"ed25519": edKid, "rsa-pss-sha512": rsaKid}
	set, _ := json.Marshal(map[string]any{"keys": []map[string]string{
		{"kty": "OKP", "crv": "Ed25519", "x": b64u(edPub)}, rsaPubJWK}})

	// The agent's host: its key directory at the well-known URI, the
	// response signed by the package (appendix B.1), and the same keys
	// at /jwks.json, unsigned.
	var mu sync.Mutex
	var proof map[string]string
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/http-message-signatures-directory":
			mu.Lock()
			for k, v := range proof {
				w.Header().Set(k, v)
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "application/http-message-signatures-directory+json")
		case "/jwks.json":
			w.Header().Set("Content-Type", "application/json")
		default:
			http.NotFound(w, r)
			return
		}
		w.Write(set)
	}))
	t.Cleanup(agent.Close)
	origin, jwks := agent.URL, agent.URL+"/jwks.json"

	now := time.Now().Unix()
	signed := runWebBotAuthJS(t, cfJob{Keys: keys, Directory: &cfDirectoryJob{
		URL: origin + "/.well-known/http-message-signatures-directory", Keys: []string{"ed25519", "rsa-pss-sha512"},
		Created: now, Expires: now + 300}})
	for name, kid := range kids {
		if signed.KeyIDs[name] != kid {
			t.Errorf("%s: the package's keyid %q, RFC 7638's %q", name, signed.KeyIDs[name], kid)
		}
	}
	if !strings.Contains(signed.Directory["Signature-Input"], `tag="http-message-signatures-directory"`) {
		t.Fatalf("the package's directory signature: %v", signed.Directory)
	}
	mu.Lock()
	proof = signed.Directory
	mu.Unlock()

	s := serveWBA(t, []string{origin, jwks}, verify.Options{AllowHTTPLoopback: true})
	strict := serveWBA(t, []string{origin}, verify.Options{AllowHTTPLoopback: true, RequireDirectoryProof: true})

	type expect struct {
		site   *wbaSite
		source string // "" when refused
		kid    string
		reason string
	}
	job := cfJob{Keys: keys}
	want := map[string]expect{}
	add := func(site *wbaSite, name, key, sigAgent string, components []any, e expect) {
		name += " (" + key + ")"
		job.Requests = append(job.Requests, cfRequest{Name: name, Key: key, Method: http.MethodGet,
			URL: site.srv.URL + "/api/search?q=tent", SignatureAgent: sigAgent, Components: components,
			Created: now, Expires: now + 60})
		e.site, e.kid = site, kids[key]
		want[name] = e
	}
	for _, key := range []string{"ed25519", "rsa-pss-sha512"} {
		add(s, "default, no Signature-Agent", key, "", nil, expect{reason: "no-signature-agent"})
		add(s, "sf-string origin", key, `"`+origin+`"`, nil, expect{source: origin})
		add(s, "dictionary, JWK Set URL", key, `sig1="`+jwks+`"`, nil, expect{source: jwks})
		add(strict, "RequireDirectoryProof, sf-string origin", key, `"`+origin+`"`, nil, expect{source: origin})
	}
	add(s, "dictionary, @method @path @query too", "ed25519", `sig1="`+jwks+`"`,
		[]any{"@method", "@authority", "@path", "@query", "signature-agent"}, expect{source: jwks})
	add(s, "dictionary, member covered with ;key", "ed25519", `sig1="`+jwks+`"`,
		[]any{"@authority", map[string]any{"name": "signature-agent", "parameters": map[string]string{"key": "sig1"}}},
		expect{reason: "bad-signature"})
	signed = runWebBotAuthJS(t, job)
	if len(signed.Requests) != len(job.Requests) {
		t.Fatalf("%d requests signed, want %d", len(signed.Requests), len(job.Requests))
	}

	for _, sr := range signed.Requests {
		e := want[sr.Name]
		r := e.site.request()
		for k, v := range sr.Headers {
			r.Header.Set(k, v)
		}
		// What the package signs, as sent: a nonce (5.2.3) and the tag
		// always; @authority first, and signature-agent when the header is
		// sent.
		in := sr.Headers["Signature-Input"]
		if !strings.Contains(in, `;nonce="`) || !strings.HasSuffix(in, `;tag="web-bot-auth"`) ||
			(strings.HasPrefix(sr.Name, "default") && !strings.HasPrefix(in, `sig1=("@authority");`)) {
			t.Errorf("%s: Signature-Input %s", sr.Name, in)
		}
		if e.source != "" {
			e.site.wantVerified(t, sr.Name, r, e.source, e.kid)
		} else {
			e.site.wantRefused(t, sr.Name, r, http.StatusForbidden, e.reason)
		}
	}

	// The strict site used the directory's keys because the package's
	// possession proofs verified, one per key.
	for _, d := range testhooks.Verifier(strict.m).Directories() {
		if d.Agent == origin && (d.Keys != 2 || d.Proven != 2 || d.LastError != nil) {
			t.Errorf("the package-signed directory: %d keys, %d proven, %v; want 2 proven", d.Keys, d.Proven, d.LastError)
		}
	}
	t.Logf("web-bot-auth signed %d requests: %d verified, %d refused with their reason",
		len(signed.Requests), s.verified+strict.verified, s.refused+strict.refused)
	if s.verified+strict.verified+s.refused+strict.refused != len(signed.Requests) {
		t.Errorf("%d requests checked as expected of %d", s.verified+strict.verified+s.refused+strict.refused, len(signed.Requests))
	}
}
