package e2e_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	httpsig "github.com/remitly-oss/httpsig-go"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/verify"
)

// TestHMACCapability: a capability declaring Auth: hmac is served only to
// requests whose RFC 9421 signature verifies with a key the site holds,
// covers what it must, and names the key's own algorithm.
func TestHMACCapability(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	pub, priv, _ := ed25519.GenerateKey(nil)
	keys := func(_ context.Context, id string) (verify.RequestKey, error) {
		switch id {
		case "partner-hmac":
			return verify.RequestKey{Algorithm: "hmac-sha256", Secret: secret}, nil
		case "partner-ed25519":
			return verify.RequestKey{Algorithm: "ed25519", Public: pub}, nil
		}
		return verify.RequestKey{}, errors.New("unknown key")
	}
	site := fixtures.OutdoorSupply()
	site.Capabilities = append(site.Capabilities, config.Capability{
		ID: "orders", Description: "Place an order", Endpoint: "https://outdoorsupply.example/api/orders",
		Method: "POST", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthHMAC},
	})
	if _, err := agentready.New(site); err == nil || !strings.Contains(err.Error(), "WithRequestSignatures") {
		t.Fatalf("hmac without keys: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithRequestSignatures(keys), agentready.WithLogger(discardLogger()),
		agentready.WithVerification(verify.Options{Authorities: []string{ln.Addr().String()}}))
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int32
	var gotBody atomic.Value
	srv := httptest.NewUnstartedServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody.Store(string(b))
		served.Add(1)
	})))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	body := `{"item":"tent","qty":1}`
	newReq := func(path, body string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		r.Header.Set("User-Agent", "PartnerBot/1.0")
		r.Header.Set("Content-Type", "application/json")
		sum := sha256.Sum256([]byte(body))
		r.Header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		return r
	}
	sign := func(r *http.Request, algo httpsig.Algorithm, key httpsig.SigningKey, fields ...string) *http.Request {
		t.Helper()
		if fields == nil {
			fields = []string{"@method", "@authority", "@path", "content-digest"}
		}
		err := httpsig.Sign(r, httpsig.SigningProfile{Algorithm: algo, Fields: httpsig.Fields(fields...),
			Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID, httpsig.MetaAlgorithm}}, key)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	hmacKey := httpsig.SigningKey{Secret: secret, MetaKeyID: "partner-hmac"}
	edKey := httpsig.SigningKey{Key: priv, MetaKeyID: "partner-ed25519"}
	send := func(r *http.Request) int {
		t.Helper()
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	for _, c := range []struct {
		name string
		req  *http.Request
		want int
	}{
		{"hmac-sha256", sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, hmacKey), 200},
		{"ed25519", sign(newReq("/api/orders", body), httpsig.Algo_ED25519, edKey), 200},
		{"unsigned", newReq("/api/orders", body), 401},
		{"unknown key", sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, httpsig.SigningKey{Secret: secret, MetaKeyID: "nobody"}), 401},
		{"wrong secret", sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, httpsig.SigningKey{Secret: []byte("another secret of thirty-two b."), MetaKeyID: "partner-hmac"}), 401},
		{"path not covered", sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, hmacKey, "@method", "@authority", "content-digest"), 401},
		{"body not covered", sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, hmacKey, "@method", "@authority", "@path"), 401},
		{"signed for another key's algorithm", sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, httpsig.SigningKey{Secret: secret, MetaKeyID: "partner-ed25519"}), 401},
	} {
		before := served.Load()
		if got := send(c.req); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
		if ran := served.Load() != before; ran != (c.want == 200) {
			t.Errorf("%s: handler ran = %v", c.name, ran)
		}
	}
	if got, _ := gotBody.Load().(string); got != body {
		t.Errorf("the handler read %q after the digest was checked, want the body", got)
	}

	// A nonce is refused the second time.
	r0 := newReq("/api/orders", body)
	if err := httpsig.Sign(r0, httpsig.SigningProfile{Algorithm: httpsig.Algo_HMAC_SHA256,
		Fields:   httpsig.Fields("@method", "@authority", "@path", "content-digest"),
		Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID, httpsig.MetaNonce}}, hmacKey); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{200, 401} {
		again := newReq("/api/orders", body)
		again.Header = r0.Header.Clone()
		if got := send(again); got != want {
			t.Errorf("a signature with a nonce, send %d: %d, want %d", i+1, got, want)
		}
	}
	// A body changed after signing: the digest no longer matches.
	r := sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, hmacKey)
	r.Body = io.NopCloser(strings.NewReader(`{"item":"tent","qty":100}`))
	r.ContentLength = int64(len(`{"item":"tent","qty":100}`))
	if got := send(r); got != 401 {
		t.Errorf("tampered body: %d", got)
	}
	// A signature made for another path, replayed on this one.
	r = sign(newReq("/api/orders", body), httpsig.Algo_HMAC_SHA256, hmacKey)
	r2 := newReq("/api/orders?x=1", body)
	r2.Header.Set("Signature", r.Header.Get("Signature"))
	r2.Header.Set("Signature-Input", r.Header.Get("Signature-Input"))
	if got := send(r2); got != 401 {
		t.Errorf("a signature moved to a request with a query: %d", got)
	}
}

// TestHMACNonceKeptByExplainAndShadow: deciding a signed request without
// serving it (Explain, or a shadow declaration on a route bound behind
// Handler, which decides before the binding does) does not use up its
// nonce: the request is then served, and only its replay is refused. The
// replay cache is shared, as a Redis one is between declarations.
func TestHMACNonceKeptByExplainAndShadow(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	keys := func(_ context.Context, id string) (verify.RequestKey, error) {
		if id == "partner-hmac" {
			return verify.RequestKey{Algorithm: "hmac-sha256", Secret: secret}, nil
		}
		return verify.RequestKey{}, errors.New("unknown key")
	}
	withOrders := func(path string) config.Site {
		site := fixtures.OutdoorSupply()
		site.Capabilities = append(site.Capabilities, config.Capability{
			ID: "orders", Description: "Place an order", Endpoint: "https://outdoorsupply.example" + path,
			Method: "GET", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthHMAC},
		})
		return site
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The candidate declares the capability at the bound route itself.
	m, err := agentready.New(withOrders("/api/orders"), agentready.WithRequestSignatures(keys), agentready.WithLogger(discardLogger()),
		agentready.WithVerification(verify.Options{Authorities: []string{ln.Addr().String()}, Replays: webbotauth.NewMemoryReplays(100)}),
		agentready.WithShadow(withOrders("/shop/orders"), nil))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /shop/orders", m.Capability("orders")(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	mux.Handle("GET /api/orders", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv := httptest.NewUnstartedServer(m.Handler(mux))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	signed := func(path string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		r.Header.Set("User-Agent", "PartnerBot/1.0")
		if err := httpsig.Sign(r, httpsig.SigningProfile{Algorithm: httpsig.Algo_HMAC_SHA256, Fields: httpsig.Fields("@method", "@authority", "@path"),
			Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID, httpsig.MetaAlgorithm, httpsig.MetaNonce}},
			httpsig.SigningKey{Secret: secret, MetaKeyID: "partner-hmac"}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	explained := signed("/api/orders")
	if d := m.Explain(explained); d.Outcome != enforce.Allow {
		t.Fatalf("Explain: %v (%v)", d.Outcome, d.Err)
	}
	for name, r := range map[string]*http.Request{"explained": explained, "bound, with a shadow": signed("/shop/orders")} {
		for i, want := range []int{http.StatusOK, http.StatusUnauthorized} { // served, then its replay refused
			res, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != want {
				t.Errorf("%s, sending %d: status %d, want %d", name, i+1, res.StatusCode, want)
			}
		}
	}
}

// TestHMACVerifyKeepsTheBody: verifying an hmac signature reads the body
// (its digest may be covered); whatever the signature, the handler then
// reads the body as sent: when a shadow declaration verifies it (with a
// lower BodyLimit), and when report-only serves a request whose signature
// failed. Found by review: the shadow cut the enforced handler's body off.
func TestHMACVerifyKeepsTheBody(t *testing.T) {
	keys := func(context.Context, string) (verify.RequestKey, error) {
		return verify.RequestKey{Algorithm: "hmac-sha256", Secret: []byte("0123456789abcdef0123456789abcdef")}, nil
	}
	upload := config.Capability{
		ID: "upload", Description: "Upload a file", Endpoint: "https://outdoorsupply.example/api/upload",
		Method: "POST", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthHMAC}, BodyLimit: 16,
	}
	withUpload := fixtures.OutdoorSupply()
	withUpload.Capabilities = append(withUpload.Capabilities, upload)
	opts := []agentready.Option{agentready.WithRequestSignatures(keys), agentready.WithLogger(discardLogger()),
		agentready.WithVerification(verify.Options{Authorities: []string{"outdoorsupply.example"}})}
	for _, c := range []struct {
		name string
		site config.Site
		opts []agentready.Option
		body string
	}{
		{"shadow over the limit", fixtures.OutdoorSupply(), []agentready.Option{agentready.WithShadow(withUpload, nil)}, strings.Repeat("x", 100)},
		{"shadow within the limit", fixtures.OutdoorSupply(), []agentready.Option{agentready.WithShadow(withUpload, nil)}, "0123456789"},
		{"report-only", withUpload, []agentready.Option{agentready.WithReportOnly()}, "0123456789"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := agentready.New(c.site, append(slices.Clone(opts), c.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					t.Errorf("reading the body: %v", err)
				}
				got = string(b)
			}))
			r := httptest.NewRequest("POST", "https://outdoorsupply.example/api/upload", strings.NewReader(c.body))
			r.Header.Set("User-Agent", "PartnerBot/1.0")
			r.Header.Set("Authorization", "Signature x")
			r.Header.Set("Signature", "sig1=:AAAA:")
			r.Header.Set("Signature-Input", `sig1=("@method" "@authority" "@path" "content-digest");created=1;keyid="k"`)
			r.Header.Set("Content-Digest", "sha-256=:47DEQpj8HBSa+/TimW+5JCeuQeRkm5NMpJWZG3hSuFU=:")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK || got != c.body {
				t.Errorf("status %d, the handler read %d bytes, want 200 and %d", w.Code, len(got), len(c.body))
			}
		})
	}
}

// TestHMACNonceSurvivesReload: with the default, in-memory replay cache, a
// nonce used before a Reload is refused after it (found by review: each
// Reload started an empty cache, so a captured request could be replayed
// once more).
func TestHMACNonceSurvivesReload(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	keys := func(context.Context, string) (verify.RequestKey, error) {
		return verify.RequestKey{Algorithm: "hmac-sha256", Secret: secret}, nil
	}
	site := fixtures.OutdoorSupply()
	site.Capabilities = append(site.Capabilities, config.Capability{
		ID: "orders", Description: "Place an order", Endpoint: "https://outdoorsupply.example/api/orders",
		Method: "GET", Protocol: config.ProtocolREST, Auth: config.Auth{Type: config.AuthHMAC},
	})
	m, err := agentready.New(site, agentready.WithRequestSignatures(keys), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest(http.MethodGet, "https://outdoorsupply.example/api/orders", nil)
	r.Header.Set("User-Agent", "PartnerBot/1.0")
	if err := httpsig.Sign(r, httpsig.SigningProfile{Algorithm: httpsig.Algo_HMAC_SHA256, Fields: httpsig.Fields("@method", "@authority", "@path"),
		Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID, httpsig.MetaNonce}},
		httpsig.SigningKey{Secret: secret, MetaKeyID: "partner-hmac"}); err != nil {
		t.Fatal(err)
	}
	send := func() int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.Clone(context.Background()))
		return w.Code
	}
	if got := send(); got != http.StatusOK {
		t.Fatalf("first: %d", got)
	}
	if got := send(); got != http.StatusUnauthorized {
		t.Fatalf("replayed: %d, want 401", got)
	}
	site.Description += " (reloaded)"
	if err := m.Reload(site); err != nil {
		t.Fatal(err)
	}
	if got := send(); got != http.StatusUnauthorized {
		t.Errorf("replayed after Reload: %d, want 401", got)
	}
}
