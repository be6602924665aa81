package e2e_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// The attacker's review of issue 35, continued: hostile requests (bodies,
// transport, headers, paths), JWTs, concurrent limits. Each asserts what
// the SDK's server executed, counted in the tool handlers themselves.

// ran counts the tool calls the server executed.
type ran struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *ran) get(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[name]
}

func rv35Server(r *ran) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	for _, name := range []string{"search_products", "checkout", "report", "admin_reset"} {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: name},
			func(ctx context.Context, req *mcp.CallToolRequest, in mcpArgs) (*mcp.CallToolResult, mcpOut, error) {
				r.mu.Lock()
				r.n[name]++
				r.mu.Unlock()
				return nil, mcpOut{Result: name}, nil
			})
	}
	return s
}

// rv35Serve serves the stateless SDK server behind agentready, at /mcp or,
// with catchAll, at every path (as an upstream behind serve may).
func rv35Serve(t *testing.T, site config.Site, catchAll bool, opts ...agentready.Option) (*httptest.Server, *ran) {
	t.Helper()
	r := &ran{n: map[string]int{}}
	server := rv35Server(r)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	if catchAll {
		mux.Handle("/", lenientMCP(sdk))
	} else {
		mux.Handle("/mcp", sdk)
	}
	ts := httptest.NewServer(rvNew(t, site, opts...).Handler(mux))
	t.Cleanup(ts.Close)
	return ts, r
}

// lenientMCP is a lenient router's route /mcp (Express's defaults, IIS):
// the path as the handler gets it (r.URL.Path), in any case, with a
// trailing slash, ";" parameters or a format extension; 404 elsewhere.
func lenientMCP(sdk http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.ToLower(r.URL.Path)
		p, _, _ = strings.Cut(p, ";")
		p = strings.TrimSuffix(strings.TrimRight(p, "/"), ".json")
		if p != "/mcp" {
			http.NotFound(w, r)
			return
		}
		sdk.ServeHTTP(w, r)
	})
}

func rv35Call(name string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":` + name + `,"arguments":{}}}`
}

// rv35Do sends one request and returns its status.
func rv35Do(t *testing.T, method, url, ua string, body io.Reader, h http.Header) int {
	t.Helper()
	r, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("User-Agent", ua)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		r.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestReview35HostileBodies(t *testing.T) {
	ts, ran := rv35Serve(t, mcpSite(), false)
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	_, _ = io.WriteString(z, rv35Call(`"checkout"`))
	_ = z.Close()
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	batch := make([]string, 1000)
	for i := range batch {
		batch[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
	}
	pad := func(n int) string {
		b := rv35Call(`"checkout"`)
		return b + strings.Repeat(" ", n-len(b))
	}
	for _, tc := range []struct {
		name, body string
		h          http.Header
	}{
		{"a UTF-8 BOM", "\xEF\xBB\xBF" + rv35Call(`"checkout"`), nil},
		{"a BOM before a batch", "\xEF\xBB\xBF[" + rv35Call(`"checkout"`) + "]", nil},
		{"a huge id", `{"jsonrpc":"2.0","id":1e999999,"method":"tools/call","params":{"name":"checkout"}}`, nil},
		{"deep arguments after the name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout","arguments":{"a":` + deep + `}}}`, nil},
		{"deep arguments before the name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":` + deep + `},"name":"checkout"}}`, nil},
		{"an escaped key", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"\u006eame":"checkout"}}`, nil},
		{"an escaped method", `{"jsonrpc":"2.0","id":1,"method":"tools\/c\u0061ll","params":{"name":"checkout"}}`, nil},
		{"a key with a NUL, before", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name\u0000":"search_products","name":"checkout"}}`, nil},
		{"a name with a NUL", rv35Call(`"checkout\u0000"`), nil},
		{"a name of invalid UTF-8", rv35Call("\"check\xffout\""), nil},
		{"name null", rv35Call(`null`), nil},
		{"params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["checkout"]}`, nil},
		{"the name in _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"name":"search_products"},"name":"checkout"}}`, nil},
		{"the method with a space", `{"jsonrpc":"2.0","id":1,"method":"tools/call ","params":{"name":"checkout"}}`, nil},
		{"the method in upper case", `{"jsonrpc":"2.0","id":1,"method":"TOOLS/CALL","params":{"name":"checkout"}}`, nil},
		{"the method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"checkout"}}`, nil},
		{"params twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products"},"params":{"name":"checkout"}}`, nil},
		{"Params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products"},"Params":{"name":"checkout"}}`, nil},
		{"paramſ (a long s)", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products"},"paramſ":{"name":"checkout"}}`, nil},
		{"two objects", rv35Call(`"search_products"`) + rv35Call(`"checkout"`), nil},
		{"a batch of 1000 pings and a checkout", "[" + strings.Join(batch, ",") + "," + rv35Call(`"checkout"`) + "]", nil},
		{"gzip", gz.String(), http.Header{"Content-Encoding": {"gzip"}}},
		{"text/plain", rv35Call(`"checkout"`), http.Header{"Content-Type": {"text/plain"}}},
		{"a charset", rv35Call(`"checkout"`), http.Header{"Content-Type": {"application/json; charset=utf-16"}}},
		{"at the body limit", pad(1 << 20), nil},
		{"over the body limit", pad(1<<20 + 1), nil},
	} {
		st := rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpGPT, strings.NewReader(tc.body), tc.h)
		if st == http.StatusOK || st >= 500 {
			t.Errorf("%s: %d", tc.name, st)
		}
	}
	// Harmless: a key with a NUL after the name (the SDK reads it as
	// agentready does: not the name), a duplicate key deep in the
	// arguments, a chunked body.
	if st := rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpGPT, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products","name\u0000":"checkout"}}`), nil); st != http.StatusOK {
		t.Errorf("a key with a NUL after the name: %d, want 200", st)
	}
	if st := rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpGPT, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products","arguments":{"query":"a","query":"b"}}}`), nil); st != http.StatusOK {
		t.Errorf("a duplicate argument: %d, want 200", st)
	}
	if st := rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpGPT, io.MultiReader(strings.NewReader(rv35Call(`"checkout"`))), nil); st != http.StatusForbidden {
		t.Errorf("a chunked checkout: %d, want 403", st)
	}
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, "post", "Post"} {
		if st := rv35Do(t, m, ts.URL+"/mcp", mcpGPT, strings.NewReader(rv35Call(`"checkout"`)), nil); st == http.StatusOK || st >= 500 {
			t.Errorf("%s with a checkout: %d", m, st)
		}
	}
	if got := [...]int{ran.get("checkout"), ran.get("admin_reset"), ran.get("search_products")}; got != [...]int{0, 0, 2} {
		t.Errorf("executed checkout, admin_reset, search_products = %v, want [0 0 2]", got)
	}
}

func TestReview35HostileHeaders(t *testing.T) {
	ts, ran := rv35Serve(t, mcpSite(), false)
	v := func(kv ...string) http.Header {
		h := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = append(h[kv[i]], kv[i+1])
		}
		return h
	}
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for _, tc := range []struct {
		name, body string
		h          http.Header
	}{
		{"Mcp-Name twice", rv35Call(`"checkout"`), v("Mcp-Name", "search_products", "Mcp-Name", "checkout")},
		{"Mcp-Name twice, the body granted", rv35Call(`"search_products"`), v("Mcp-Name", "search_products", "Mcp-Name", "checkout")},
		{"Mcp-Name in Base64 of another", rv35Call(`"search_products"`), v("Mcp-Name", b64("checkout"))},
		{"Mcp-Name in BASE64 of the body's", rv35Call(`"checkout"`), v("Mcp-Name", "=?BASE64?"+base64.StdEncoding.EncodeToString([]byte("checkout"))+"?=")},
		{"Mcp-Name in bad Base64", rv35Call(`"checkout"`), v("Mcp-Name", "=?base64?!!!?=")},
		{"Mcp-Method twice", rv35Call(`"checkout"`), http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list", "tools/call"}, "Mcp-Name": {"checkout"}}},
		{"version empty", rv35Call(`"checkout"`), http.Header{"Mcp-Protocol-Version": {""}}},
		{"version 9999", rv35Call(`"checkout"`), http.Header{"Mcp-Protocol-Version": {"9999"}}},
		{"version twice", rv35Call(`"checkout"`), http.Header{"Mcp-Protocol-Version": {"2026-07-28", "2025-11-25"}}},
		{"a session id repeated", rv35Call(`"checkout"`), http.Header{"Mcp-Session-Id": {"a", "b"}}},
		{"a huge session id", rv35Call(`"search_products"`), http.Header{"Mcp-Session-Id": {strings.Repeat("a", 1<<16)}}},
	} {
		st := rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpGPT, strings.NewReader(tc.body), tc.h)
		if st == http.StatusOK || st >= 500 {
			t.Errorf("%s: %d", tc.name, st)
		}
	}
	if ran.get("checkout") != 0 || ran.get("search_products") != 0 {
		t.Errorf("executed: %v", ran.n)
	}
}

// rv35Raw writes raw to the server's socket and returns the status lines
// of the n answers it reads back (fewer if the server closes first).
func rv35Raw(t *testing.T, addr, raw string, n int) []string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	var out []string
	br := bufio.NewReader(c)
	for len(out) < n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return out
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out = append(out, resp.Status)
		if resp.Close {
			return out
		}
	}
	return out
}

func rv35Req(addr, method, target, body, extra string) string {
	return method + " " + target + " HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: " + mcpGPT +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" + extra +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
}

func TestReview35Transport(t *testing.T) {
	ts, ran := rv35Serve(t, mcpSite(), false)
	addr := ts.Listener.Addr().String()
	ok, bad := rv35Call(`"search_products"`), rv35Call(`"checkout"`)
	for _, tc := range []struct {
		name, raw string
		n         int
	}{
		{"pipelined", rv35Req(addr, "POST", "/mcp", ok, "") + rv35Req(addr, "POST", "/mcp", bad, ""), 2},
		{"Content-Length shorter than the body, a call after", rv35Req(addr, "POST", "/mcp", ok, "") + bad + "\r\n\r\n", 2},
		{"Expect: 100-continue", rv35Req(addr, "POST", "/mcp", bad, "Expect: 100-continue\r\n"), 2},
		{"Content-Length and chunked", "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: " + mcpGPT +
			"\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(bad), bad), 1},
		{"a session id with a control byte", rv35Req(addr, "POST", "/mcp", bad, "Mcp-Session-Id: a\x01b\r\n"), 1},
		{"absolute-form target", rv35Req(addr, "POST", "http://"+addr+"/mcp", bad, ""), 1},
		{"the Mcp-Name header folded", rv35Req(addr, "POST", "/mcp", bad, "Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: search_products\r\n checkout\r\n"), 1},
	} {
		got := rv35Raw(t, addr, tc.raw, tc.n)
		if len(got) == 0 {
			t.Errorf("%s: no answer", tc.name)
		}
		for _, st := range got {
			if strings.HasPrefix(st, "5") {
				t.Errorf("%s: %s", tc.name, st)
			}
		}
	}
	if ran.get("checkout") != 0 || ran.get("search_products") != 2 {
		t.Errorf("executed %v, want the two searches alone", ran.n)
	}
}

// TestReview35Paths: behind lenient routing (serve's default), an
// upstream that answers MCP at every spelling of /mcp is decided per tool
// at each. ("/mcp#x" reaches the handler with r.URL.Path "/mcp#x" and
// RequestURI as sent; serve forwards it as /mcp%23x.)
func TestReview35Paths(t *testing.T) {
	ts, ran := rv35Serve(t, mcpSite(), true, agentready.WithLenientRouting())
	addr := ts.Listener.Addr().String()
	for _, p := range []string{"/mcp/", "/MCP", "/Mcp", "/mcp;x", "/mcp?x", "/%6dcp", "/%6Dcp", "//mcp", "/mcp/.", "/./mcp",
		"/mcp%2f", "/mcp.json", "/mcp//", "/x/../mcp", "/mcp%3bx", "/mcp#x"} {
		for _, st := range rv35Raw(t, addr, rv35Req(addr, "POST", p, rv35Call(`"checkout"`), ""), 1) {
			if strings.HasPrefix(st, "5") {
				t.Errorf("%s: %s", p, st)
			}
		}
		if n := ran.get("checkout"); n != 0 {
			t.Errorf("HOLE: POST %s tools/call checkout as GPTBot: executed (%d so far)", p, n)
		}
	}
	// The control: the router does route /MCP/ to the server.
	if st := rv35Do(t, http.MethodPost, ts.URL+"/MCP/", mcpClaude, strings.NewReader(rv35Call(`"checkout"`)), nil); st != http.StatusOK || ran.get("checkout") != 1 {
		t.Errorf("ClaudeBot's checkout at /MCP/: %d, %d executed", st, ran.get("checkout"))
	}
}

// TestReview35ConcurrentLimits: 50 calls at once of a tool of 2/minute,
// and of one of cost 2 of 4/minute: exactly 2 execute.
func TestReview35ConcurrentLimits(t *testing.T) {
	ts, ran := rv35Serve(t, mcpSite(), false)
	var wg sync.WaitGroup
	for _, tool := range []string{"checkout", "report"} {
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(rv35Call(`"`+tool+`"`)))
				r.Header.Set("User-Agent", mcpClaude)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				if resp, err := http.DefaultClient.Do(r); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
	}
	wg.Wait()
	if got := [...]int{ran.get("checkout"), ran.get("report")}; got != [...]int{2, 2} {
		t.Errorf("executed checkout, report = %v, want [2 2]", got)
	}
}

// TestReview35BatchCost: at MCP 2025-03-26 a batch of two reports (cost 2
// of 4) takes all four tokens; one more is refused.
func TestReview35BatchCost(t *testing.T) {
	ts, rc := mcpServe(t, false)
	r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	r.Header.Set("User-Agent", mcpClaude)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	h := http.Header{"Mcp-Session-Id": {resp.Header.Get("Mcp-Session-Id")}, "Mcp-Protocol-Version": {"2025-03-26"}}
	_ = rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpClaude, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), h)
	c := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"report","arguments":{}}}`, id)
	}
	for _, tc := range []struct {
		body string
		want int
	}{{"[" + c(1) + "," + c(2) + "," + c(3) + "]", 400}, {"[" + c(4) + "," + c(5) + "]", 200}, {"[" + c(6) + "]", 429}, {c(7), 429}} {
		if st := rv35Do(t, http.MethodPost, ts.URL+"/mcp", mcpClaude, strings.NewReader(tc.body), h); st != tc.want {
			t.Errorf("%.40s...: %d, want %d", tc.body, st, tc.want)
		}
	}
	if n := rc.count("report"); n != 2 {
		t.Errorf("%d reports reached the server, want 2", n)
	}
}

func rv35B64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestReview35JWT(t *testing.T) {
	is := newTestIssuer(t)
	ts, rc := jwtServe(t, is.srv.URL)
	claims := map[string]any{"iss": is.srv.URL, "aud": "https://shop.example/mcp", "iat": mcpNow.Unix(),
		"exp": mcpNow.Add(time.Hour).Unix(), "sub": "mallory", "scope": "store store.checkout"}
	pub, _ := json.Marshal(jose.JSONWebKey{Key: is.key.Public(), KeyID: "k1"})
	hs := func(secret []byte) string {
		s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
		b, _ := json.Marshal(claims)
		jws, _ := s.Sign(b)
		out, _ := jws.CompactSerialize()
		return out
	}
	attacker := ecKey(t)
	embedded, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: attacker}, &jose.SignerOptions{EmbedJWK: true})
	eb, _ := json.Marshal(claims)
	ejws, _ := embedded.Sign(eb)
	embeddedTok, _ := ejws.CompactSerialize()
	x := is.key.PublicKey.X.Bytes()
	before := rc.count("checkout")
	for _, tc := range []struct{ name, token string }{
		{"alg none", rv35B64(map[string]any{"alg": "none", "kid": "k1", "typ": "at+jwt"}) + "." + rv35B64(claims) + "."},
		{"alg none, no dot", rv35B64(map[string]any{"alg": "none"}) + "." + rv35B64(claims)},
		{"HS256 with the public JWK", hs(pub)},
		{"HS256 with the public key's X", hs(x)},
		{"a key of its own in the header", embeddedTok},
		{"nbf in the future", is.token(t, is.key, map[string]any{"nbf": mcpNow.Add(time.Hour).Unix()})},
		{"exp huge", is.token(t, is.key, map[string]any{"exp": 1e300})},
		{"exp a string", is.token(t, is.key, map[string]any{"exp": "9999999999"})},
		{"iss with a slash", is.token(t, is.key, map[string]any{"iss": is.srv.URL + "/"})},
		{"aud of another in an array", is.token(t, is.key, map[string]any{"aud": []string{"https://other.example/mcp"}})},
		{"scope as an array of one string", is.token(t, is.key, map[string]any{"scope": []string{"store store.checkout"}, "scp": nil})},
		{"the token twice", is.token(t, is.key, nil) + " " + is.token(t, is.key, nil)},
	} {
		r, body := jwtCall(t, ts.URL, tc.token, "checkout", nil)
		if r.StatusCode == http.StatusOK || r.StatusCode >= 500 {
			t.Errorf("%s: %d %s", tc.name, r.StatusCode, body)
		}
	}
	if n := rc.count("checkout") - before; n != 0 {
		t.Errorf("%d checkouts with bad tokens reached the server", n)
	}
	// aud as an array holding the endpoint: RFC 7519 4.1.3 accepts it.
	if r, body := jwtCall(t, ts.URL, is.token(t, is.key, map[string]any{"aud": []string{"https://other.example", "https://shop.example/mcp"}}), "search_products", nil); r.StatusCode != http.StatusOK {
		t.Errorf("aud an array with the endpoint: %d %s", r.StatusCode, body)
	}
	// An unknown kid refetches the keys at most once a minute: the issuer
	// is not hammered by a flood of them.
	hits := is.hits
	for i := range 20 {
		s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: attacker}, (&jose.SignerOptions{}).WithHeader("kid", fmt.Sprintf("k%d", 100+i)))
		b, _ := json.Marshal(claims)
		jws, _ := s.Sign(b)
		tok, _ := jws.CompactSerialize()
		if r, _ := jwtCall(t, ts.URL, tok, "checkout", nil); r.StatusCode == http.StatusOK || r.StatusCode >= 500 && r.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("unknown kid %d: %d", i, r.StatusCode)
		}
	}
	if n := is.hits - hits; n > 2 {
		t.Errorf("20 unknown kids fetched the issuer %d times", n)
	}
}

// TestReview35TokenWithoutSubject: RFC 9068 2.2 makes sub REQUIRED in a
// JWT access token; a token without one is verified, and the session it
// opens falls back to the network owner, which another token holder at
// the same address (the same agent policy) then shares.
func TestReview35TokenWithoutSubject(t *testing.T) {
	is := newTestIssuer(t)
	ts, rc := jwtServe(t, is.srv.URL)
	alice := is.token(t, is.key, map[string]any{"sub": nil, "client_id": "alice-app"})
	bob := is.token(t, is.key, map[string]any{"sub": nil, "client_id": "bob-app", "scope": "store"})
	r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	r.Header.Set("User-Agent", mcpClaude)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Authorization", "Bearer "+alice)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Logf("a token without sub opening a session: %d (refused: holds)", resp.StatusCode)
		return
	}
	before := rc.count("search_products")
	if r, _ := jwtCall(t, ts.URL, bob, "search_products", map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}); r.StatusCode != http.StatusNotFound {
		t.Errorf("HOLE: POST /mcp with bob's token (no sub, client_id bob-app) and the session alice's token (no sub) opened: %d, %d calls reached the server in it",
			r.StatusCode, rc.count("search_products")-before)
	}
}
