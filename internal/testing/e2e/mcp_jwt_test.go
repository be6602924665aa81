package e2e_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/verify"
)

// MCP authorization as MCP 2025-11-25 "Authorization" asks it (issue 35):
// the protected resource metadata served and named by every 401, bearer
// tokens verified as JWTs of a test issuer on loopback (RFC 8414 metadata
// and a JWK Set), a tool's missing scope a 403 insufficient_scope, and a
// session bound to the token's subject.

// mcpNow is rvNew's pinned clock: tokens are issued around it.
var mcpNow = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)

type testIssuer struct {
	srv  *httptest.Server
	key  *ecdsa.PrivateKey
	hits int
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	is := &testIssuer{key: ecKey(t)}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		is.hits++
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks",
			"token_endpoint": is.srv.URL + "/token"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.hits++
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: is.key.Public(), KeyID: "k1", Algorithm: string(jose.ES256), Use: "sig"}}})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// token signs claims (iss, aud, exp filled unless set) with key as kid k1.
func (is *testIssuer) token(t *testing.T, key *ecdsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"iss": is.srv.URL, "aud": "https://shop.example/mcp", "iat": mcpNow.Unix(),
		"exp": mcpNow.Add(time.Hour).Unix(), "sub": "alice", "scope": "store store.checkout"}
	for k, v := range claims {
		c[k] = v
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	jws, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jwtSite(issuer string) config.Site {
	s := sessionSite()
	c := &s.Capabilities[0]
	c.Auth = config.Auth{Type: config.AuthOAuth2, TokenEndpoint: issuer + "/token", AuthorizationServer: issuer,
		Scopes: []string{"store"}, JWT: true}
	c.Tools[1].Auth.Scopes = []string{"store.checkout"} // checkout
	return s
}

func jwtServe(t *testing.T, issuer string) (*httptest.Server, *reached) {
	t.Helper()
	m := rvNew(t, jwtSite(issuer), agentready.WithVerification(verify.Options{AllowHTTPLoopback: true}))
	rc := &reached{}
	server := mcpShopServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	return ts, rc
}

// post sends one tools/call of tool with token and returns the response.
func jwtCall(t *testing.T, url, token, tool string, h map[string]string) (*http.Response, string) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`"}}`))
	r.Header.Set("User-Agent", mcpClaude)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range h {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestMCPAuthorization(t *testing.T) {
	is := newTestIssuer(t)
	ts, rc := jwtServe(t, is.srv.URL)
	meta := "https://shop.example/.well-known/oauth-protected-resource/mcp"

	// The metadata, where the 401 says.
	resp, body := fetchURL(t, ts.URL+"/.well-known/oauth-protected-resource/mcp")
	var doc struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		Scopes               []string `json:"scopes_supported"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.StatusCode != http.StatusOK || doc.Resource != "https://shop.example/mcp" ||
		len(doc.AuthorizationServers) != 1 || doc.AuthorizationServers[0] != is.srv.URL || strings.Join(doc.Scopes, " ") != "store store.checkout" {
		t.Fatalf("metadata: %d %s", resp.StatusCode, body)
	}
	if r, _ := jwtCall(t, ts.URL, "", "search_products", nil); r.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(r.Header.Get("WWW-Authenticate"), `resource_metadata="`+meta+`"`) ||
		!strings.Contains(r.Header.Get("WWW-Authenticate"), `scope="store"`) {
		t.Errorf("no token: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}

	good := is.token(t, is.key, nil)
	narrow := is.token(t, is.key, map[string]any{"scope": "store"})
	for _, tc := range []struct {
		name, token, tool string
		status            int
		challenge         string
	}{
		{"a valid token", good, "search_products", 200, ""},
		{"a valid token, checkout", good, "checkout", 200, ""},
		{"a token without the tool's scope", narrow, "checkout", 403, `error="insufficient_scope", scope="store store.checkout"`},
		{"the same token, a tool it may call", narrow, "search_products", 200, ""},
		{"another audience", is.token(t, is.key, map[string]any{"aud": "https://other.example/mcp"}), "search_products", 401, `error="invalid_token"`},
		{"expired", is.token(t, is.key, map[string]any{"exp": mcpNow.Add(-time.Hour).Unix()}), "search_products", 401, `error="invalid_token"`},
		{"signed by another key", is.token(t, ecKey(t), nil), "search_products", 401, `error="invalid_token"`},
		{"another issuer", is.token(t, is.key, map[string]any{"iss": "https://evil.example"}), "search_products", 401, `error="invalid_token"`},
		{"not a JWT", "abc123", "search_products", 401, `error="invalid_token"`},
	} {
		r, body := jwtCall(t, ts.URL, tc.token, tc.tool, nil)
		wa := r.Header.Get("WWW-Authenticate")
		if r.StatusCode != tc.status || !strings.Contains(wa, tc.challenge) || tc.status != 200 && !strings.Contains(wa, `resource_metadata="`+meta+`"`) {
			t.Errorf("%s: %d %q %s", tc.name, r.StatusCode, wa, body)
		}
	}
	if got := [...]int{rc.count("search_products"), rc.count("checkout")}; got != [...]int{2, 1} {
		t.Errorf("reached: search_products, checkout = %v, want [2 1]", got)
	}
}

// TestMCPSessionBoundToSubject: a session opened with alice's token is
// hers: bob's token, same agent, same network, finds none.
func TestMCPSessionBoundToSubject(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	is := newTestIssuer(t)
	ts, rc := jwtServe(t, is.srv.URL)
	alice := &bearerTransport{ua: mcpClaude, token: is.token(t, is.key, nil)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: alice}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_products"}); err != nil || res.IsError {
		t.Fatalf("alice: %+v, %v", res, err)
	}
	id := alice.session(t)
	bob := is.token(t, is.key, map[string]any{"sub": "bob"})
	if r, body := jwtCall(t, ts.URL, bob, "search_products", map[string]string{mcpsession.Header: id, "Mcp-Protocol-Version": "2025-11-25"}); r.StatusCode != http.StatusNotFound {
		t.Errorf("bob replaying alice's session: %d %s", r.StatusCode, body)
	}
	if r, _ := jwtCall(t, ts.URL, alice.token, "search_products", map[string]string{mcpsession.Header: id, "Mcp-Protocol-Version": "2025-11-25"}); r.StatusCode != http.StatusOK {
		t.Errorf("alice in her session: %d", r.StatusCode)
	}
	if n := rc.count("search_products"); n != 2 {
		t.Errorf("search_products reached the server %d times, want alice's 2", n)
	}
	// A token without store.checkout is not shown checkout.
	narrow := &bearerTransport{ua: mcpClaude, token: is.token(t, is.key, map[string]any{"scope": "store", "sub": "carol"})}
	cn, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: narrow}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cn.Close() })
	if names := shownTools(t, ctx, cn); !slices.Equal(names, []string{"report", "search_products"}) {
		t.Errorf("a token without store.checkout is shown %q", names)
	}
	if names := shownTools(t, ctx, cs); !slices.Equal(names, []string{"checkout", "report", "search_products"}) {
		t.Errorf("alice is shown %q", names)
	}
}

func fetchURL(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}
