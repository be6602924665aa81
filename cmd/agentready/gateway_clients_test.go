package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/testtools"
	"github.com/agentready/agentready/mcpgateway"
)

// The gateway (issue 37, docs/gateway.md) as independent clients reach
// it: the TypeScript SDK's client (testdata/mcp-gateway/client.mjs) and
// the MCP Inspector's CLI list and call the tools, prompts and resources
// of testdata/mcp-gateway/site.yaml, in two places: the middleware in
// process in front of a Go app, and serve in front of the Express app
// (testdata/express/app.js). The REST handlers of both answer with what
// they received, so that each case asserts that a tool's call reached
// the handler as the same call made directly does, and every request
// that reaches the app is recorded, so that a refused call is shown not
// to. Ajv (in client.mjs) checks the tools' schemas as JSON Schema
// 2020-12, as the client received them. The packages are pinned in
// testdata/mcp-gateway's package-lock.json, which .ci/run installs with
// npm ci; without node or them the test skips, unless
// AGENTREADY_REQUIRE_UPSTREAMS=1 (set by .ci/run) makes it fail.

const gatewayDir = "testdata/mcp-gateway"

// The agents of site.yaml: GPTBot may use every capability, PerplexityBot
// the gateway and cart-add, an unnamed one nothing.
const (
	gatewayGPT        = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	gatewayPerplexity = "Mozilla/5.0 (compatible; PerplexityBot/1.0)"
	gatewayOther      = "Bytespider/1.0"
	gatewayToken      = "Bearer t0ken-of-the-client"
)

func gatewayClientsMissing() string {
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "@modelcontextprotocol/inspector-cli", "ajv"} {
		if why := testtools.NodePackage(gatewayDir, pkg); why != "" {
			return why
		}
	}
	return ""
}

// appRecorder is in front of the REST app: it notes the method and target
// of every request that reaches it.
type appRecorder struct {
	next    http.Handler
	mu      sync.Mutex
	reached []string
}

func (a *appRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.reached = append(a.reached, r.Method+" "+r.RequestURI)
	a.mu.Unlock()
	a.next.ServeHTTP(w, r)
}

// take returns what reached the app since the last take.
func (a *appRecorder) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := a.reached
	a.reached = nil
	return got
}

// goGatewayApp is the Go app of the in-process case: the REST endpoints
// of site.yaml, each answering as the Express app's do, with what it
// received.
func goGatewayApp() http.Handler {
	mux := http.NewServeMux()
	echo := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var body any
			if b, _ := io.ReadAll(r.Body); len(b) > 0 {
				_ = json.Unmarshal(b, &body)
			}
			h := map[string]string{}
			for k := range r.Header {
				h[strings.ToLower(k)] = strings.Join(r.Header.Values(k), ", ")
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"handler": name, "method": r.Method, "target": r.RequestURI,
				"query": r.URL.Query(), "body": body, "headers": h})
		}
	}
	mux.Handle("GET /api/gateway/search", echo("product-search"))
	mux.Handle("POST /api/gateway/cart", echo("cart-add"))
	mux.Handle("GET /api/gateway/orders/{id}", echo("order-status"))
	return mux
}

// startGatewayInProcess serves site.yaml with the middleware and the
// gateway in front of the Go app, on 127.0.0.1.
func startGatewayInProcess(t *testing.T) (string, *appRecorder) {
	t.Helper()
	site, _, err := config.LoadSite(gatewayDir + "/site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve), agentready.WithDecisionHeader(), agentready.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	rec := &appRecorder{next: goGatewayApp()}
	srv := httptest.NewServer(m.Handler(rec))
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

// recordedUpstream starts app and a recorder in front of it, on
// 127.0.0.1, and returns the recorder's URL, serve's upstream.
func recordedUpstream(t *testing.T, app upstreamApp) (string, *appRecorder) {
	t.Helper()
	up := startUpstream(t, app)
	rec := &appRecorder{next: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: up})}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

// openSession opens a v0.1.0 session at base for the agent ua and returns
// its token.
func openSession(t *testing.T, base, ua string) string {
	t.Helper()
	code, sess := directly(t, "POST", base+"/.well-known/agents/api/session", map[string]string{"User-Agent": ua}, `{"agent_name":"gateway-test"}`)
	data, _ := sess["data"].(map[string]any)
	token, _ := data["session_token"].(string)
	if code != http.StatusCreated || token == "" {
		t.Fatalf("POST session: %d %v", code, sess)
	}
	return token
}

// startGatewayServe starts the Express app, the recorder in front of it
// and serve in front of the recorder, all on 127.0.0.1.
func startGatewayServe(t *testing.T, redisAddr string, replicas int) (string, *appRecorder) {
	t.Helper()
	upstream, rec := recordedUpstream(t, upstreamApps[0]) // express
	var fronts []*httptest.Server
	for range replicas {
		fronts = append(fronts, serveFront(t, proxyConfig{configFile: gatewayDir + "/site.yaml", upstream: upstream,
			upstreamTimeout: 10 * time.Second, redisAddr: redisAddr}))
	}
	if replicas == 1 {
		return fronts[0].URL, rec
	}
	// A load balancer without affinity: each POST to the next replica (a
	// GET, the SDK's stream, which runs beside the steps, to the first),
	// so that a client's consecutive messages reach different replicas.
	var mu sync.Mutex
	next := 0
	targets := make([]*httputil.ReverseProxy, len(fronts))
	for i, f := range fronts {
		u, _ := url.Parse(f.URL)
		targets[i] = httputil.NewSingleHostReverseProxy(u)
	}
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := targets[0]
		if r.Method == http.MethodPost {
			mu.Lock()
			p = targets[next%len(targets)]
			next++
			mu.Unlock()
		}
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	return lb.URL, rec
}

// gwStep is one step of client.mjs.
type gwStep struct {
	Op   string         `json:"op"`
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	Name string         `json:"name,omitempty"`
	URI  string         `json:"uri,omitempty"`
}

// gwLine is one line client.mjs prints.
type gwLine struct {
	Op                string                         `json:"op"`
	OK                bool                           `json:"ok"`
	ProtocolVersion   string                         `json:"protocolVersion"`
	Session           bool                           `json:"session"`
	Tools             []map[string]any               `json:"tools"`
	Schemas           map[string]map[string][]string `json:"schemas"`
	IsError           bool                           `json:"isError"`
	Content           []struct{ Text string }        `json:"content"`
	StructuredContent map[string]any                 `json:"structuredContent"`
	ArgsErrors        []string                       `json:"argsErrors"`
	OutputErrors      []string                       `json:"outputErrors"`
	Prompts           []struct{ Name string }        `json:"prompts"`
	Messages          []struct {
		Content struct{ Text string }
	} `json:"messages"`
	Resources []struct{ URI string }  `json:"resources"`
	Contents  []struct{ Text string } `json:"contents"`
	Error     *struct {
		Code    int
		Message string
	} `json:"error"`
}

func (l gwLine) text() string {
	var b strings.Builder
	for _, c := range l.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// tsClient runs client.mjs against the gateway at base with header and
// returns its lines, the connect line first.
func tsClient(t *testing.T, base string, header map[string]string, steps ...gwStep) []gwLine {
	t.Helper()
	h, _ := json.Marshal(header)
	s, _ := json.Marshal(steps)
	cmd := exec.Command("node", "client.mjs", base+"/mcp", string(h), string(s))
	cmd.Dir = gatewayDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	var lines []gwLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l gwLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("client.mjs printed %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		t.Fatalf("client.mjs printed nothing; stderr:\n%s", stderr.String())
	}
	return lines
}

// inspector runs the MCP Inspector's CLI once (one method) against the
// gateway at base with header, and returns what it printed: its JSON
// answer, or its error message, and whether it exited with 0. It runs
// in its build directory, where it finds its package.json.
func inspector(t *testing.T, base string, header map[string]string, args ...string) (map[string]any, string, bool) {
	t.Helper()
	argv := append([]string{"index.js", base + "/mcp", "--transport", "http"}, args...)
	var hs []string
	for k, v := range header {
		hs = append(hs, k+": "+v)
	}
	slices.Sort(hs)
	argv = append(argv, append([]string{"--header"}, hs...)...)
	cmd := exec.Command("node", argv...)
	cmd.Dir = gatewayDir + "/node_modules/@modelcontextprotocol/inspector-cli/build"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var v map[string]any
	if json.Unmarshal(stdout.Bytes(), &v) != nil {
		return nil, stdout.String() + stderr.String(), err == nil
	}
	return v, "", err == nil
}

// directly makes the call a client makes without the gateway, with
// header, and returns its status and the JSON it answered (the handler's
// echo, or a problem).
func directly(t *testing.T, method, u string, header map[string]string, body string) (int, map[string]any) {
	t.Helper()
	r, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s %s answered %d %q", method, u, res.StatusCode, b)
	}
	return res.StatusCode, v
}

// transportFields are the header fields of an echo that are the HTTP
// client's, not the call's: the Go client a direct call is made with,
// and the SDK's HTTP client or serve's transport, pick them.
var transportFields = []string{"accept-encoding", "content-length", "connection"}

// sameCall compares what the handler received through the gateway with
// what it received directly.
func sameCall(t *testing.T, what string, viaGateway, direct map[string]any) {
	t.Helper()
	strip := func(echo map[string]any) string {
		c := map[string]any{}
		for k, v := range echo {
			c[k] = v
		}
		if h, ok := c["headers"].(map[string]any); ok {
			h2 := map[string]any{}
			for k, v := range h {
				if !slices.Contains(transportFields, k) {
					h2[k] = v
				}
			}
			c["headers"] = h2
		}
		b, _ := json.Marshal(c)
		return string(b)
	}
	t.Logf("%s: %s", what, strip(viaGateway))
	if g, d := strip(viaGateway), strip(direct); g != d {
		t.Errorf("%s: the handler received through the gateway\n%s\nand directly\n%s", what, g, d)
	}
}
