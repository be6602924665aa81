package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	httpsig "github.com/remitly-oss/httpsig-go"
)

const (
	tokensSite = "testdata/serve/tokens.yaml"
	hmacSite   = "testdata/serve/hmac.yaml"
)

// credentialFront is a proxy of c in front of an upstream counting what
// reaches it.
func credentialFront(t *testing.T, c proxyConfig) (*proxy, *atomic.Int32, error) {
	t.Helper()
	var reached atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	t.Cleanup(up.Close)
	c.upstream = up.URL
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p, err := newProxy(c)
	if err == nil {
		t.Cleanup(p.close)
	}
	return p, &reached, err
}

// status sends a GET of path as an agent with the header fields kv.
func agentStatus(p *proxy, method, path string, kv ...string) int {
	r := httptest.NewRequest(method, "http://shop.example"+path, nil)
	r.Header.Set("User-Agent", "PartnerBot/1.0")
	for i := 0; i+1 < len(kv); i += 2 {
		r.Header.Set(kv[i], kv[i+1])
	}
	w := httptest.NewRecorder()
	p.handler.ServeHTTP(w, r)
	return w.Code
}

// TestServeTokens: -tokens and -tokens-env give the tokens a bearer-token
// or api-key capability accepts; serve compares what a request presents
// with them (Bearer anything no longer passes), as the SHA-256 the file
// may give instead of the token; a reload takes new tokens (rotation).
func TestServeTokens(t *testing.T) {
	sum := sha256.Sum256([]byte("stock-key-2"))
	file := writeFile(t, "tokens", []byte("# orders' two tokens, stock's key\norders=tok-1\norders = tok-2\n\nstock=sha256:"+hex.EncodeToString(sum[:])+"\n"))
	var logs bytes.Buffer
	p, reached, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{tokensFile: file},
		log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kv   []string
		want int
	}{
		{"/api/orders", []string{"Authorization", "Bearer tok-1"}, 200},
		{"/api/orders", []string{"Authorization", "Bearer tok-2"}, 200},
		{"/api/orders", []string{"Authorization", "Bearer anything"}, 401},
		{"/api/orders", []string{"Authorization", "Bearer tok-1x"}, 401},
		{"/api/orders", nil, 401},
		{"/api/stock", []string{"X-Shop-Key", "stock-key-2"}, 200},
		{"/api/stock", []string{"X-Shop-Key", "tok-1"}, 401},
		{"/api/search", nil, 200},
	} {
		before := reached.Load()
		if got := agentStatus(p, "GET", c.path, c.kv...); got != c.want {
			t.Errorf("%s %v: %d, want %d", c.path, c.kv, got, c.want)
		}
		if ran := reached.Load() != before; ran != (c.want == 200) {
			t.Errorf("%s %v: reached the upstream: %v", c.path, c.kv, ran)
		}
	}
	if strings.Contains(logs.String(), "presence only") {
		t.Errorf("every capability with auth has tokens, and serve says some are checked for presence only:\n%s", logs.String())
	}

	// Rotation: a reload reads the tokens again.
	os.WriteFile(file, []byte("orders=tok-3\n"), 0o600)
	if err := p.reload(); err != nil {
		t.Fatal(err)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer tok-1"); got != 401 {
		t.Errorf("a token removed by the reload: %d", got)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer tok-3"); got != 200 {
		t.Errorf("a token added by the reload: %d", got)
	}
	if got := agentStatus(p, "GET", "/api/stock", "X-Shop-Key", "whatever"); got != 200 {
		t.Errorf("stock, without tokens now, is checked for presence: %d", got)
	}
	// A reload whose tokens do not fit is refused, the old ones kept.
	os.WriteFile(file, []byte("nosuch=tok\n"), 0o600)
	if err := p.reload(); err == nil || !strings.Contains(err.Error(), `capability "nosuch"`) {
		t.Errorf("a reload with a token for an unknown capability: %v", err)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer tok-3"); got != 200 {
		t.Errorf("after a refused reload: %d", got)
	}

	// From the environment, entries separated by commas.
	t.Setenv("SHOP_TOKENS", "orders=env-1, stock=env-2")
	logs.Reset()
	pe, _, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{tokensEnv: "SHOP_TOKENS"},
		log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := agentStatus(pe, "GET", "/api/orders", "Authorization", "Bearer env-1"), agentStatus(pe, "GET", "/api/stock", "X-Shop-Key", "env-2"); a != 200 || b != 200 {
		t.Errorf("tokens from the environment: %d %d", a, b)
	}
	if got := agentStatus(pe, "GET", "/api/orders", "Authorization", "Bearer env-2"); got != 401 {
		t.Errorf("another capability's token: %d", got)
	}
}

// TestServeTokensPresence: without tokens, a capability's credential is
// checked for presence only, and serve says so at start in one line
// naming the capabilities and the flags, not a Go option.
func TestServeTokensPresence(t *testing.T) {
	var logs bytes.Buffer
	file := writeFile(t, "tokens", []byte("orders=tok-1\n"))
	p, _, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{tokensFile: file},
		log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if got := agentStatus(p, "GET", "/api/stock", "X-Shop-Key", "anything"); got != 200 {
		t.Errorf("stock without tokens: %d", got)
	}
	if got := agentStatus(p, "GET", "/api/stock"); got != 401 {
		t.Errorf("stock without a key: %d", got)
	}
	line := logs.String()
	if strings.Count(line, "presence only") != 1 || !strings.Contains(line, "capabilities=[stock]") || !strings.Contains(line, "-tokens") ||
		strings.Contains(line, "WithAuthenticator") {
		t.Errorf("the start line:\n%s", line)
	}
}

// TestServeTokensRefused: tokens that nothing would check, and lists that
// do not read, stop serve with the source and the line.
func TestServeTokensRefused(t *testing.T) {
	for _, c := range []struct{ name, list, want string }{
		{"unknown capability", "nosuch=x\n", `tokens for capability "nosuch", which the declaration does not have`},
		{"capability without auth", "search=x\n", `capability "search", whose auth is "none"`},
		{"no value", "orders=\n", "line 1: want NAME=VALUE"},
		{"no separator", "# a comment\norders tok\n", "line 2: want NAME=VALUE"},
		{"bad hash", "orders=sha256:abcd\n", "line 1: orders: sha256: wants the 64 hex digits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := writeFile(t, "tokens", []byte(c.list))
			_, _, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{tokensFile: file}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
	if _, _, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{tokensEnv: "AGENTREADY_TEST_UNSET"}}); err == nil ||
		!strings.Contains(err.Error(), "no variable AGENTREADY_TEST_UNSET") {
		t.Errorf("an unset variable: %v", err)
	}
	if _, _, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{tokensFile: filepath.Join(t.TempDir(), "none")}}); err == nil ||
		!strings.Contains(err.Error(), "-tokens") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestServeHMACKeys: -hmac-keys gives the keys of an hmac capability's
// request signatures (RFC 9421), which serve verifies; without it serve
// refuses the file, naming the flag.
func TestServeHMACKeys(t *testing.T) {
	if _, _, err := credentialFront(t, proxyConfig{configFile: hmacSite}); err == nil || !strings.Contains(err.Error(), "-hmac-keys") {
		t.Errorf("hmac without keys: %v", err)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	pub, priv, _ := ed25519.GenerateKey(nil)
	keys := writeFile(t, "keys", []byte("partner-hmac=hmac-sha256:"+base64.StdEncoding.EncodeToString(secret)+
		"\npartner-ed=ed25519:"+base64.StdEncoding.EncodeToString(pub)+"\n"))
	p, reached, err := credentialFront(t, proxyConfig{configFile: hmacSite, credentials: credentialSources{keysFile: keys}})
	if err != nil {
		t.Fatal(err)
	}
	signed := func(key httpsig.SigningKey, alg httpsig.Algorithm) *http.Request {
		r := httptest.NewRequest("POST", "http://shop.example/api/orders", nil)
		r.Header.Set("User-Agent", "PartnerBot/1.0")
		if key.MetaKeyID != "" {
			if err := httpsig.Sign(r, httpsig.SigningProfile{Algorithm: alg, Fields: httpsig.Fields("@method", "@authority", "@path"),
				Metadata: []httpsig.Metadata{httpsig.MetaCreated, httpsig.MetaKeyID}}, key); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	for _, c := range []struct {
		name string
		r    *http.Request
		want int
	}{
		{"hmac-sha256", signed(httpsig.SigningKey{Secret: secret, MetaKeyID: "partner-hmac"}, httpsig.Algo_HMAC_SHA256), 200},
		{"ed25519", signed(httpsig.SigningKey{Key: priv, MetaKeyID: "partner-ed"}, httpsig.Algo_ED25519), 200},
		{"another secret", signed(httpsig.SigningKey{Secret: bytes.Repeat([]byte("x"), 32), MetaKeyID: "partner-hmac"}, httpsig.Algo_HMAC_SHA256), 401},
		{"unknown keyid", signed(httpsig.SigningKey{Secret: secret, MetaKeyID: "nobody"}, httpsig.Algo_HMAC_SHA256), 401},
		{"unsigned", signed(httpsig.SigningKey{}, httpsig.Algo_HMAC_SHA256), 401},
	} {
		before := reached.Load()
		w := httptest.NewRecorder()
		p.handler.ServeHTTP(w, c.r)
		if w.Code != c.want || (reached.Load() != before) != (c.want == 200) {
			t.Errorf("%s: %d (upstream reached: %v), want %d: %s", c.name, w.Code, reached.Load() != before, c.want, w.Body.String())
		}
	}
	for _, c := range []struct{ name, list, want string }{
		{"short secret", "k=hmac-sha256:" + base64.StdEncoding.EncodeToString([]byte("short")), "want at least 32"},
		{"unknown algorithm", "k=rsa-pss-sha512:AAAA", `algorithm "rsa-pss-sha512"`},
		{"not base64", "k=ed25519:***", "not standard base64"},
	} {
		f := writeFile(t, "keys", []byte(c.list))
		if _, _, err := credentialFront(t, proxyConfig{configFile: hmacSite, credentials: credentialSources{keysFile: f}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Keys for a site that signs nothing are a mistake to say.
	if _, _, err := credentialFront(t, proxyConfig{configFile: tokensSite, credentials: credentialSources{keysFile: keys}}); err == nil ||
		!strings.Contains(err.Error(), "no capability declares auth hmac") {
		t.Errorf("keys without an hmac capability: %v", err)
	}
}

// TestServeCredentialsFromFile: the tokens the declaration file names in
// serve: {tokens_file} are checked as the flag's are, and -tokens replaces
// them.
func TestServeCredentialsFromFile(t *testing.T) {
	const site = "testdata/verdict/good-credentials.yaml"
	p, _, err := credentialFront(t, proxyConfig{configFile: site})
	if err != nil {
		t.Fatal(err)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer orders-test-token"); got != 200 {
		t.Errorf("the file's token: %d, want 200", got)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer anything"); got != 401 {
		t.Errorf("another token: %d, want 401", got)
	}
	flag := writeFile(t, "tokens", []byte("orders=flag-token\n"))
	p, _, err = credentialFront(t, proxyConfig{configFile: site, credentials: credentialSources{tokensFile: flag}})
	if err != nil {
		t.Fatal(err)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer flag-token"); got != 200 {
		t.Errorf("-tokens' token: %d, want 200", got)
	}
	if got := agentStatus(p, "GET", "/api/orders", "Authorization", "Bearer orders-test-token"); got != 401 {
		t.Errorf("the file's token under -tokens: %d, want 401", got)
	}
}
