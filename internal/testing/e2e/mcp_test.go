package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
)

// MCP enforced per tool (issue 35), against the official Go SDK's server
// (v1.8.0) wrapped in the middleware, and its client: stateful (MCP
// 2025-11-25, sessions, no Mcp-Method or Mcp-Name) and stateless (MCP
// 2026-07-28, the headers on every POST). Every case records what
// reached the server and asserts that no refused call did.

const (
	mcpGPT    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	mcpClaude = "ClaudeBot/1.0 (+claudebot@anthropic.com)"
	mcpOther  = "Bytespider/1.0"
)

// mcpSite declares the store's MCP endpoint with three tools: GPTBot may
// search only, ClaudeBot may call every tool, "*" nothing. The server has
// a fourth tool, admin_reset, which the declaration does not list.
func mcpSite() config.Site {
	return config.Site{
		Name: "MCP Shop", URL: "https://shop.example", Description: "a store over MCP",
		Contact: "ops@shop.example",
		Capabilities: []config.Capability{{
			ID: "store-assistant", Description: "Full store interaction via MCP", Endpoint: "https://shop.example/mcp",
			Protocol: config.ProtocolMCP, RateLimit: config.PerMinute(60),
			Tools: []config.Tool{
				{Name: "search_products", RateLimit: config.PerMinute(30)},
				{Name: "checkout", Sensitivity: config.SensitivityIrreversible, RateLimit: config.PerMinute(2)},
				{Name: "report", Description: "an expensive report", RateLimit: config.PerMinute(4), Cost: 2},
			},
		}},
		Access: config.Access{Allow: []string{"/mcp"}},
		Agents: []config.AgentPolicy{
			{Name: "*", Capabilities: []string{}},
			{Name: "GPTBot", Capabilities: []string{"store-assistant/search_products"}},
			{Name: "ClaudeBot", Capabilities: []string{"store-assistant"}},
		},
	}
}

type mcpArgs struct {
	Query string `json:"query,omitempty"`
}

type mcpOut struct {
	Result string `json:"result"`
}

func mcpShopServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	for _, name := range []string{"search_products", "checkout", "report", "admin_reset"} {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: name},
			func(ctx context.Context, req *mcp.CallToolRequest, in mcpArgs) (*mcp.CallToolResult, mcpOut, error) {
				return nil, mcpOut{Result: name + ":" + in.Query}, nil
			})
	}
	return s
}

// reached records the tools/call names that reached the MCP server, read
// as the server reads them (encoding/json).
type reached struct {
	mu    sync.Mutex
	calls []string
}

func (rc *reached) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msgs []struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msgs) != nil {
			msgs = msgs[:0]
			var one struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &one) == nil {
				msgs = append(msgs, one)
			}
		}
		rc.mu.Lock()
		for _, m := range msgs {
			if m.Method == "tools/call" {
				rc.calls = append(rc.calls, m.Params.Name)
			}
		}
		rc.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (rc *reached) count(name string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, c := range rc.calls {
		if c == name {
			n++
		}
	}
	return n
}

// mcpServe starts the SDK server behind the middleware on 127.0.0.1.
func mcpServe(t *testing.T, stateless bool) (*httptest.Server, *reached) {
	t.Helper()
	m := rvNew(t, mcpSite())
	rc := &reached{}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpShopServer() },
		&mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: stateless})
	mux := http.NewServeMux()
	mux.Handle("/mcp", rc.wrap(sdk))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(m.Handler(mux))
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, rc
}

// uaTransport sends every request with its User-Agent.
type uaTransport struct{ ua string }

func (u uaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.ua)
	return http.DefaultTransport.RoundTrip(r)
}

func mcpConnect(t *testing.T, ctx context.Context, url, ua string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: uaTransport{ua}}}, nil)
	if err != nil {
		t.Fatalf("%s connects: %v", ua, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// shownTools are the tools cs is shown (tools/list, every page), sorted.
func shownTools(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// refusedCall calls tool and asserts agentready's JSON-RPC refusal.
func refusedCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool, why string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"query": "x"}})
	if strings.Contains(why, "spent") {
		// The SDK reads no body of a 429, a transient status to it
		// (streamable.go, checkResponse); TestMCPHostileRequests reads it.
		if err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
			t.Fatalf("%s: CallTool(%s) = %+v, %v; want 429", why, tool, res, err)
		}
		return
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32001 {
		t.Fatalf("%s: CallTool(%s) = %+v, %v; want the JSON-RPC error -32001", why, tool, res, err)
	}
	var data map[string]any
	if json.Unmarshal(je.Data, &data) != nil || data["capability"] != "store-assistant" {
		t.Errorf("%s: error.data = %s, want the problem naming the capability", why, je.Data)
	}
}

func TestMCPPerToolGoSDK(t *testing.T) {
	for _, mode := range []struct {
		name      string
		stateless bool
		version   string
	}{
		{"stateful 2025-11-25", false, "2025-11-25"},
		{"stateless 2026-07-28", true, "2026-07-28"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ts, rc := mcpServe(t, mode.stateless)

			gpt := mcpConnect(t, ctx, ts.URL, mcpGPT)
			if v := gpt.InitializeResult().ProtocolVersion; v != mode.version {
				t.Fatalf("negotiated %s, want %s", v, mode.version)
			}
			if names := shownTools(t, ctx, gpt); !slices.Equal(names, []string{"search_products"}) {
				t.Errorf("GPTBot is shown %q, want the one tool it may call", names)
			}
			res, err := gpt.CallTool(ctx, &mcp.CallToolParams{Name: "search_products", Arguments: map[string]any{"query": "tent"}})
			if err != nil || res.IsError {
				t.Fatalf("GPTBot calls search_products: %+v, %v", res, err)
			}
			refusedCall(t, ctx, gpt, "checkout", "GPTBot is granted search_products alone")
			if n := rc.count("checkout"); n != 0 {
				t.Errorf("%d refused checkout calls reached the server", n)
			}

			claude := mcpConnect(t, ctx, ts.URL, mcpClaude)
			if names := shownTools(t, ctx, claude); !slices.Equal(names, []string{"checkout", "report", "search_products"}) {
				t.Errorf("ClaudeBot is shown %q, want the declared tools (not admin_reset)", names)
			}
			for i := range 2 {
				if res, err := claude.CallTool(ctx, &mcp.CallToolParams{Name: "checkout"}); err != nil || res.IsError {
					t.Fatalf("ClaudeBot checkout %d: %+v, %v", i+1, res, err)
				}
			}
			refusedCall(t, ctx, claude, "checkout", "checkout's 2/minute are spent")
			for i := range 2 { // a cost of 2 of 4 a minute: two calls
				if res, err := claude.CallTool(ctx, &mcp.CallToolParams{Name: "report"}); err != nil || res.IsError {
					t.Fatalf("ClaudeBot report %d: %+v, %v", i+1, res, err)
				}
			}
			refusedCall(t, ctx, claude, "report", "report's tokens are spent")
			refusedCall(t, ctx, claude, "admin_reset", "the declaration lists no admin_reset")
			if got := [...]int{rc.count("checkout"), rc.count("report"), rc.count("admin_reset")}; got != [...]int{2, 2, 0} {
				t.Errorf("reached the server: checkout, report, admin_reset = %v, want [2 2 0]", got)
			}
		})
	}
}

// mcpPost sends one raw MCP POST, as a hostile client writes it, to the
// stateless server and returns the status and the JSON-RPC error code.
func mcpPost(t *testing.T, url, ua, body string, h map[string]string) (int, int) {
	t.Helper()
	return mcpPostAt(t, url+"/mcp", ua, body, h)
}

// mcpPostAt is mcpPost to the URL target.
func mcpPostAt(t *testing.T, target, ua, body string, h map[string]string) (int, int) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	r.Header.Set("User-Agent", ua)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Error *struct{ Code int } `json:"error"`
	}
	b, _ := io.ReadAll(resp.Body)
	code := 0
	if json.Unmarshal(b, &out) == nil && out.Error != nil {
		code = out.Error.Code
	}
	return resp.StatusCode, code
}

func TestMCPHostileRequests(t *testing.T) {
	ts, rc := mcpServe(t, true)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `,"name":` + name + `,"arguments":{}}}`
	}
	v := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
	with := func(name string) map[string]string {
		h := map[string]string{"Mcp-Name": name}
		for k, x := range v {
			h[k] = x
		}
		return h
	}
	// The control: a granted call, as a client sends it, reaches the server.
	if st, _ := mcpPost(t, ts.URL, mcpGPT, call(`"search_products"`), with("search_products")); st != http.StatusOK || rc.count("search_products") != 1 {
		t.Fatalf("the granted raw call: %d, %d reached", st, rc.count("search_products"))
	}
	for _, tc := range []struct {
		name, ua, body string
		h              map[string]string
		status, code   int
	}{
		{"Mcp-Name says a granted tool, the body another", mcpGPT, call(`"checkout"`), with("search_products"), 400, -32020},
		{"Mcp-Method says another method", mcpGPT, call(`"checkout"`), map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "checkout"}, 400, -32020},
		{"no headers at 2026-07-28", mcpGPT, call(`"checkout"`), map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, 400, -32020},
		{"a batch hides a refused call", mcpGPT, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},` + call(`"checkout"`) + `]`, nil, 403, -32001},
		{"a batch calls two tools", mcpClaude, `[` + call(`"search_products"`) + `,` + call(`"checkout"`) + `]`, nil, 400, -32600},
		{"another case", mcpClaude, call(`"Checkout"`), with("Checkout"), 403, -32001},
		// net/http trims a header value (RFC 9110 5.5): MCP sends such a
		// name in Base64, and the plain header disagrees with the body.
		{"trailing spaces, plain header", mcpClaude, call(`"checkout  "`), with("checkout  "), 400, -32020},
		{"trailing spaces, Base64 header", mcpClaude, call(`"checkout  "`), with("=?base64?Y2hlY2tvdXQgIA==?="), 403, -32001},
		{"an escaped name of an undeclared tool", mcpClaude, call(`"admin\u005freset"`), with("admin_reset"), 403, -32001},
		{"the name twice", mcpGPT, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_products","name":"checkout"}}`, nil, 400, -32600},
		{"the name in another case", mcpGPT, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_products","Name":"checkout"}}`, nil, 400, -32600},
		{"an agent granted nothing", mcpOther, call(`"search_products"`), with("search_products"), 403, -32001},
	} {
		st, code := mcpPost(t, ts.URL, tc.ua, tc.body, tc.h)
		if st != tc.status || code != tc.code {
			t.Errorf("%s: %d with JSON-RPC error %d, want %d with %d", tc.name, st, code, tc.status, tc.code)
		}
	}
	// A spent tool limit: 429 with Retry-After and the RateLimit fields,
	// and the JSON-RPC error for the request's id.
	for i := range 2 {
		if st, _ := mcpPost(t, ts.URL, mcpClaude, call(`"checkout"`), with("checkout")); st != http.StatusOK {
			t.Fatalf("ClaudeBot's checkout %d: %d", i+1, st)
		}
	}
	r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(call(`"checkout"`)))
	r.Header.Set("User-Agent", mcpClaude)
	r.Header.Set("Content-Type", "application/json")
	for k, x := range with("checkout") {
		r.Header.Set(k, x)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var rpc struct {
		ID    int `json:"id"`
		Error struct {
			Code int `json:"code"`
			Data struct {
				Limit string `json:"limit"`
				Tool  string `json:"tool"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &rpc); err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("RateLimit-Policy") == "" || rpc.ID != 7 || rpc.Error.Code != -32001 ||
		rpc.Error.Data.Limit != "tool/store-assistant/checkout" || rpc.Error.Data.Tool != "checkout" {
		t.Errorf("the third checkout: %d %v, %s", resp.StatusCode, resp.Header, b)
	}
	if n := rc.count("checkout"); n != 2 {
		t.Errorf("checkout reached the server %d times, want 2", n)
	}
	for _, name := range []string{"Checkout", "checkout  ", "admin_reset"} {
		if n := rc.count(name); n != 0 {
			t.Errorf("%d refused calls of %q reached the server", n, name)
		}
	}
	if n := rc.count("search_products"); n != 1 {
		t.Errorf("search_products reached the server %d times, want the control's 1", n)
	}
}

// TestMCPAuditNamesTool: in a v0.1.0 session's audit trail, a tools/call
// is recorded as CAPABILITY/TOOL with its arguments, a sensitive one
// redacted as in any body, and a refused call is recorded refused.
func TestMCPAuditNamesTool(t *testing.T) {
	site := acme()
	site.Capabilities = append(site.Capabilities, config.Capability{
		ID: "store", Description: "the store over MCP", Endpoint: "https://acmeceramics.example.com/mcp",
		Protocol: config.ProtocolMCP, RequiresSession: true,
		Tools: []config.Tool{{Name: "search_products"}, {Name: "checkout"}},
	})
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		agentready.WithAudit(testAuditKey, nil), agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		t.Fatal(err)
	}
	rc := &reached{}
	server := mcpShopServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})))
	srv := httptest.NewServer(m.Handler(mux))
	t.Cleanup(srv.Close)
	token, id := createSession(t, srv.URL, uaClaudeUser)
	post := func(body string) int {
		r, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		for k, v := range map[string]string{"User-Agent": uaClaudeUser, "X-Agent-Session": token,
			"Content-Type": "application/json", "Accept": "application/json, text/event-stream"} {
			r.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout","arguments":{"query":"mug","card_number":"4111111111111111"}}}`); st != http.StatusOK {
		t.Fatalf("checkout: %d", st)
	}
	if st := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin_reset","arguments":{}}}`); st != http.StatusForbidden {
		t.Fatalf("admin_reset: %d", st)
	}
	call(t, "DELETE", srv.URL+sessPath, "", "User-Agent", uaClaudeUser, "X-Agent-Session", token)
	var got []string
	for _, ev := range artifact(t, srv.URL, id).Events {
		got = append(got, ev.Capability+" "+ev.PolicyResult.Decision)
		if ev.Capability != "store/checkout" {
			continue
		}
		p, _ := ev.Params["params"].(map[string]any)
		args, _ := p["arguments"].(map[string]any)
		if p["name"] != "checkout" || args["query"] != "mug" || args["card_number"] != audit.Redacted {
			t.Errorf("the checkout's params: %v", ev.Params)
		}
	}
	if !slices.Contains(got, "store/checkout allow") || !slices.Contains(got, "store deny") {
		t.Errorf("events %q, want store/checkout allowed and the unlisted tool refused as store", got)
	}
	if rc.count("checkout") != 1 || rc.count("admin_reset") != 0 {
		t.Errorf("reached: %v", rc.calls)
	}
}

// TestMCPBoundRoute: an MCP handler the router serves at more paths than
// the capability's endpoint (a ServeMux subtree, "/mcp/") and bound to the
// capability (Middleware.Capability) is decided per tool at every one of
// them; a path the capability does not name gets no pass around it.
func TestMCPBoundRoute(t *testing.T) {
	site := mcpSite()
	site.Access.Allow = []string{"/mcp"} // a prefix: /mcp/anything too
	m := rvNew(t, site)
	rc := &reached{}
	server := mcpShopServer()
	sdk := rc.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	mux := http.NewServeMux()
	mux.Handle("/mcp/", m.Capability("store-assistant")(sdk))
	mux.Handle("/mcp", m.Capability("store-assistant")(sdk))
	ts := httptest.NewServer(m.Handler(mux))
	t.Cleanup(ts.Close)
	for _, path := range []string{"/mcp", "/mcp/", "/mcp/x", "/mcp;x", "/%6dcp/"} {
		if st, _ := mcpPostAt(t, ts.URL+path, mcpGPT, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout"}}`, nil); st == http.StatusOK {
			t.Errorf("GPTBot's checkout at %s: %d", path, st)
		}
	}
	if n := rc.count("checkout"); n != 0 {
		t.Errorf("%d refused checkouts reached the server", n)
	}
	// The control: ClaudeBot's call reaches the server at a bound subpath.
	if st, _ := mcpPostAt(t, ts.URL+"/mcp/x", mcpClaude, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout"}}`, nil); st != http.StatusOK || rc.count("checkout") != 1 {
		t.Errorf("ClaudeBot's checkout at /mcp/x: %d, %d reached", st, rc.count("checkout"))
	}
}

// TestMCPBatches: at MCP 2025-03-26, the one version with JSON-RPC
// batches, a batch of calls of one tool is held to it, each call taking
// its tokens; a batch hiding a refused call, or calling two tools, is
// refused whole and reaches nothing.
func TestMCPBatches(t *testing.T) {
	ts, rc := mcpServe(t, false)
	open := func(ua string) map[string]string {
		r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		r.Header.Set("User-Agent", ua)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-03-26"}
		if resp.StatusCode != http.StatusOK || h["Mcp-Session-Id"] == "" {
			t.Fatalf("initialize as %s: %d", ua, resp.StatusCode)
		}
		if st, _ := mcpPost(t, ts.URL, ua, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); st != http.StatusAccepted {
			t.Fatalf("initialized: %d", st)
		}
		return h
	}
	c := func(id int, tool string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool)
	}
	gpt, claude := open(mcpGPT), open(mcpClaude)
	for _, tc := range []struct {
		name, ua, body string
		h              map[string]string
		status         int
	}{
		{"GPTBot: two searches", mcpGPT, "[" + c(1, "search_products") + "," + c(2, "search_products") + "]", gpt, 200},
		{"GPTBot: a search hiding a checkout", mcpGPT, "[" + c(3, "search_products") + "," + c(4, "checkout") + "]", gpt, 400},
		{"GPTBot: checkout behind a list", mcpGPT, `[{"jsonrpc":"2.0","id":5,"method":"tools/list"},` + c(6, "checkout") + "]", gpt, 403},
		{"ClaudeBot: three checkouts of 2/minute", mcpClaude, "[" + c(7, "checkout") + "," + c(8, "checkout") + "," + c(9, "checkout") + "]", claude, 400},
		{"ClaudeBot: two checkouts", mcpClaude, "[" + c(10, "checkout") + "," + c(11, "checkout") + "]", claude, 200},
		{"ClaudeBot: one more", mcpClaude, "[" + c(12, "checkout") + "]", claude, 429},
	} {
		if st, _ := mcpPost(t, ts.URL, tc.ua, tc.body, tc.h); st != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, st, tc.status)
		}
	}
	if got := [...]int{rc.count("search_products"), rc.count("checkout")}; got != [...]int{2, 2} {
		t.Errorf("reached: search_products, checkout = %v, want [2 2]", got)
	}
}

// TestMCPMethodOverride: a body sent with another method and a method
// override (an app with Express's method-override, gorilla's
// HTTPMethodOverrideHandler) is read as the POST it may be routed as.
func TestMCPMethodOverride(t *testing.T) {
	ts, rc := mcpServe(t, true)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPatch} {
		r, _ := http.NewRequest(m, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout"}}`))
		r.Header.Set("User-Agent", mcpGPT)
		r.Header.Set("X-HTTP-Method-Override", "POST")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with an override to POST: %d, want 403", m, resp.StatusCode)
		}
	}
	if n := rc.count("checkout"); n != 0 {
		t.Errorf("%d refused checkouts reached the server", n)
	}
}
