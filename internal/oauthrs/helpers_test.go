package oauthrs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/agentready/agentready/internal/testclock"
)

// t0 is the test clock's start: tokens are dated from it, never from the
// wall clock.
var t0 = time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)

const testAudience = "https://shop.example/mcp"

// testKey is a signing key and the kid it is published under.
type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func (k testKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

var (
	keysOnce          sync.Once
	rsaKey, rsaKey2   testKey
	ecKey, edKey, ec2 testKey
	otherRSA, otherEd testKey
)

// keys generates the test keys once: RSA generation is slow.
func keys(t testing.TB) {
	t.Helper()
	keysOnce.Do(func() {
		r1, err1 := rsa.GenerateKey(rand.Reader, 2048)
		r2, err2 := rsa.GenerateKey(rand.Reader, 2048)
		e1, err3 := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		e2, err4 := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		_, d1, err5 := ed25519.GenerateKey(rand.Reader)
		_, d2, err6 := ed25519.GenerateKey(rand.Reader)
		if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
			panic(err)
		}
		rsaKey = testKey{"rsa-1", jose.RS256, r1}
		rsaKey2 = testKey{"rsa-2", jose.RS256, r2}
		otherRSA = testKey{"rsa-1", jose.RS256, r2} // the kid of rsaKey, another key
		ecKey = testKey{"ec-1", jose.ES256, e1}
		ec2 = testKey{"ec-2", jose.ES256, e2}
		edKey = testKey{"ed-1", jose.EdDSA, d1}
		otherEd = testKey{"ed-1", jose.EdDSA, d2}
	})
}

// testIssuer is an authorization server on loopback serving RFC 8414
// metadata and a JWK Set, counting the fetches of each.
type testIssuer struct {
	srv    *httptest.Server
	issuer string // the issuer identifier

	mu         sync.Mutex
	published  []testKey
	metaIssuer string // the issuer the metadata names; default issuer
	jwksBody   []byte // served instead of the published keys when set
	status     int    // answers everything with this status when set
	metaPath   string // where the metadata is served; default RFC 8414's

	fetches                  atomic.Int32 // every request
	metaFetches, jwksFetches atomic.Int32
	jwksFetched              chan struct{} // receives on each JWKS fetch, when not full
}

// newIssuer starts an issuer whose identifier has path (e.g. "" or
// "/tenant") and which publishes keys.
func newIssuer(t testing.TB, path string, published ...testKey) *testIssuer {
	t.Helper()
	keys(t)
	is := &testIssuer{published: published, jwksFetched: make(chan struct{}, 1)}
	is.srv = httptest.NewServer(http.HandlerFunc(is.serve))
	t.Cleanup(is.srv.Close)
	is.issuer = is.srv.URL + path
	is.metaPath = ASWellKnownPath + path
	return is
}

func (is *testIssuer) serve(w http.ResponseWriter, r *http.Request) {
	is.fetches.Add(1)
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.status != 0 {
		http.Error(w, "down", is.status)
		return
	}
	switch r.URL.Path {
	case is.metaPath:
		is.metaFetches.Add(1)
		iss := is.metaIssuer
		if iss == "" {
			iss = is.issuer
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                 iss,
			"jwks_uri":               is.srv.URL + "/jwks",
			"token_endpoint":         is.srv.URL + "/token",
			"response_types_support": []string{"code"},
		})
	case "/jwks":
		is.jwksFetches.Add(1)
		select {
		case is.jwksFetched <- struct{}{}:
		default:
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		if is.jwksBody != nil {
			_, _ = w.Write(is.jwksBody)
			return
		}
		var set jose.JSONWebKeySet
		for _, k := range is.published {
			set.Keys = append(set.Keys, k.public())
		}
		_ = json.NewEncoder(w).Encode(set)
	default:
		http.NotFound(w, r)
	}
}

func (is *testIssuer) set(f func(is *testIssuer)) {
	is.mu.Lock()
	defer is.mu.Unlock()
	f(is)
}

// verifier returns a Verifier of is's tokens for testAudience on a test
// clock.
func (is *testIssuer) verifier(t testing.TB, opts Options) (*Verifier, *testclock.Clock) {
	t.Helper()
	clk := testclock.New(t0)
	opts.Now = clk.Now
	opts.AllowHTTPLoopback = true
	if opts.Logger == nil {
		opts.Logger = is.discard()
	}
	if opts.Client == nil {
		opts.Client = is.srv.Client()
	}
	v, err := NewVerifier(is.issuer, testAudience, opts)
	if err != nil {
		t.Fatal(err)
	}
	return v, clk
}

// claims are a valid token's claims for is, at t0.
func (is *testIssuer) claims() map[string]any {
	return map[string]any{
		"iss":       is.issuer,
		"sub":       "user-42",
		"aud":       testAudience,
		"exp":       t0.Add(time.Hour).Unix(),
		"iat":       t0.Add(-time.Minute).Unix(),
		"nbf":       t0.Add(-time.Minute).Unix(),
		"client_id": "client-7",
		"jti":       "jti-1",
		"scope":     "store store.read",
	}
}

// sign signs claims with k, with typ in the header unless typ is "".
func sign(t testing.TB, k testKey, claims map[string]any, typ string) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithHeader("kid", k.kid)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	if k.kid == "" {
		opts = &jose.SignerOptions{}
		if typ != "" {
			opts = opts.WithType(jose.ContentType(typ))
		}
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rawToken assembles a compact JWS from a header, claims and signature
// bytes as given: for the tokens no library signs (alg none).
func rawToken(t testing.TB, header, claims map[string]any, sig []byte) string {
	t.Helper()
	h, err1 := json.Marshal(header)
	c, err2 := json.Marshal(claims)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(h) + "." + enc.EncodeToString(c) + "." + enc.EncodeToString(sig)
}

// asError asserts err is an *Error of kind and check.
func asError(t testing.TB, err error, kind Kind, check string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *Error", err, err)
	}
	if e.Kind != kind || e.Check != check {
		t.Fatalf("err = %v: kind %d check %q, want kind %d check %q", err, e.Kind, e.Check, kind, check)
	}
	return e
}

func (*testIssuer) discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
