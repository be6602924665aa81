package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/redistest"
)

// TestGatewayClients: the TypeScript SDK's client and the Inspector's CLI
// against the gateway, in process and through serve in front of Express.
func TestGatewayClients(t *testing.T) {
	if why := gatewayClientsMissing(); why != "" {
		startUpstream(t, upstreamApp{name: "mcp-gateway clients", missing: func() string { return why }})
	}
	for _, where := range []struct {
		name  string
		start func(t *testing.T) (string, *appRecorder)
	}{
		{"in-process", startGatewayInProcess},
		{"serve-express", func(t *testing.T) (string, *appRecorder) { return startGatewayServe(t, "", 1) }},
	} {
		t.Run(where.name, func(t *testing.T) {
			t.Parallel()
			base, app := where.start(t)
			t.Run("ts-sdk", func(t *testing.T) { gatewayTSCases(t, base, app) })
			t.Run("inspector", func(t *testing.T) { gatewayInspectorCases(t, base, app) })
		})
	}
}

var (
	searchArgs = map[string]any{"q": "tent", "limit": 5, "sort": "price"}
	searchURL  = "/api/gateway/search?" + url.Values{"q": {"tent"}, "limit": {"5"}, "sort": {"price"}}.Encode()
	cartArgs   = map[string]any{"sku": "T-100", "qty": 2}
	cartBody   = `{"qty":2,"sku":"T-100"}`
)

// gatewayTSCases: the TypeScript SDK's client lists the tools (each
// schema valid 2020-12), calls them as directly, and is refused what a
// direct call is refused; the prompts and resources are the declaration's.
func gatewayTSCases(t *testing.T, base string, app *appRecorder) {
	gpt := map[string]string{"User-Agent": gatewayGPT, "Authorization": gatewayToken}
	lines := tsClient(t, base, gpt,
		gwStep{Op: "tools"},
		gwStep{Op: "call", Tool: "search_products", Args: searchArgs},
		gwStep{Op: "call", Tool: "add_to_cart", Args: cartArgs},
		gwStep{Op: "call", Tool: "search_products", Args: map[string]any{"limit": 5}},
		gwStep{Op: "call", Tool: "search_products", Args: map[string]any{"q": "tent", "limit": 500}},
		gwStep{Op: "call", Tool: "order_status", Args: map[string]any{"id": "42"}},
		gwStep{Op: "prompts"},
		gwStep{Op: "prompt", Name: "buy"},
		gwStep{Op: "resources"},
		gwStep{Op: "read", URI: "https://shop.example/.well-known/agents.txt"},
	)
	if len(lines) != 12 || !lines[0].OK {
		t.Fatalf("client.mjs: %+v", lines)
	}
	connect, tools, search, cart, noQ, over, noSession, prompts, prompt, resources, read := lines[0], lines[1], lines[2], lines[3], lines[4], lines[5], lines[6], lines[7], lines[8], lines[9], lines[10]
	t.Logf("connected with MCP %s", connect.ProtocolVersion)
	if connect.Session {
		t.Errorf("the stateless gateway gave the client a session id")
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl["name"].(string))
	}
	if slices.Sort(names); strings.Join(names, ",") != "add_to_cart,order_status,search_products" {
		t.Errorf("GPTBot's tools: %v", names)
	}
	for name, s := range tools.Schemas {
		if len(s["input"]) > 0 || len(s["output"]) > 0 {
			t.Errorf("%s's schemas as JSON Schema 2020-12 (Ajv): %v", name, s)
		}
	}
	for _, tl := range tools.Tools {
		if tl["name"] != "search_products" {
			continue
		}
		in, _ := json.Marshal(tl["inputSchema"])
		ann, _ := json.Marshal(tl["annotations"])
		for _, want := range []string{`"required":["q"]`, `"enum":["price","name"]`, `"minimum":1`, `"maximum":50`, `"default":10`} {
			if !strings.Contains(string(in), want) {
				t.Errorf("search_products's input schema %s lacks %s", in, want)
			}
		}
		if !strings.Contains(string(ann), `"readOnlyHint":true`) {
			t.Errorf("search_products's annotations %s", ann)
		}
	}

	// The calls reach the handler as the same calls made directly; the
	// refused ones do not reach it.
	if got := app.take(); !slices.Equal(got, []string{"GET " + searchURL, "POST /api/gateway/cart"}) {
		t.Errorf("the calls reached the app as %v", got)
	}
	for _, c := range []struct {
		line         gwLine
		method, path string
		body         string
	}{{search, "GET", searchURL, ""}, {cart, "POST", "/api/gateway/cart", cartBody}} {
		if !c.line.OK || c.line.IsError || len(c.line.ArgsErrors) > 0 || len(c.line.OutputErrors) > 0 {
			t.Errorf("%s %s through the gateway: %+v", c.method, c.path, c.line)
			continue
		}
		code, echo := directly(t, c.method, base+c.path, gpt, c.body)
		app.take()
		if code != http.StatusOK {
			t.Errorf("%s %s directly: %d %v", c.method, c.path, code, echo)
		}
		sameCall(t, c.method+" "+c.path, c.line.StructuredContent, echo)
	}

	// Refusals: an error result naming the status and the problem, as
	// the direct call's, and the app is not reached.
	for _, c := range []struct {
		what   string
		line   gwLine
		path   string
		status int
		names  string
	}{
		{"a call without the required q", noQ, "/api/gateway/search?limit=5", 400, "q: "},
		{"a limit beyond max", over, "/api/gateway/search?q=tent&limit=500", 400, "limit: "},
		{"a call needing a session", noSession, "/api/gateway/orders/42", 401, "session"},
	} {
		if !c.line.OK || !c.line.IsError || !strings.Contains(c.line.text(), c.names) {
			t.Errorf("%s through the gateway: %+v", c.what, c.line)
		}
		code, problem := directly(t, "GET", base+c.path, gpt, "")
		if code != c.status || !strings.Contains(jsonString(problem["detail"]), strings.TrimSuffix(c.names, ": ")) ||
			!strings.Contains(c.line.text(), strconv.Itoa(c.status)+" "+http.StatusText(c.status)) {
			t.Errorf("%s directly: %d %v; through the gateway %q", c.what, code, problem, c.line.text())
		}
		if got := app.take(); len(got) != 0 {
			t.Errorf("%s, made directly, reached the app: %v", c.what, got)
		}
	}

	// With a session, order_status reaches the handler as directly.
	token := openSession(t, base, gatewayGPT)
	withSession := map[string]string{"User-Agent": gatewayGPT, "Authorization": gatewayToken, "X-Agent-Session": token}
	status := tsClient(t, base, withSession, gwStep{Op: "call", Tool: "order_status", Args: map[string]any{"id": "42"}})
	if len(status) != 3 || !status[1].OK || status[1].IsError {
		t.Fatalf("order_status with a session: %+v", status)
	}
	app.take()
	code, echo := directly(t, "GET", base+"/api/gateway/orders/42", withSession, "")
	app.take()
	if code != http.StatusOK {
		t.Errorf("order-status with a session, directly: %d %v", code, echo)
	}
	sameCall(t, "GET /api/gateway/orders/42", status[1].StructuredContent, echo)

	// The flow is a prompt naming the tools in order; agents.txt read as
	// a resource is the document served.
	if !prompts.OK || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "buy" {
		t.Errorf("prompts: %+v", prompts)
	}
	if !prompt.OK || len(prompt.Messages) != 1 || !inOrder(prompt.Messages[0].Content.Text, "search_products", "add_to_cart") {
		t.Errorf("the buy prompt: %+v", prompt)
	}
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "https://shop.example/.well-known/agents.txt") || !slices.Contains(uris, "https://shop.example/.well-known/agents.json") {
		t.Errorf("resources: %v", uris)
	}
	res, err := http.Get(base + "/.well-known/agents.txt")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !read.OK || len(read.Contents) != 1 || read.Contents[0].Text != string(served) {
		t.Errorf("agents.txt read as a resource: %+v", read)
	}

	// PerplexityBot may not search: the tool is not listed, and its call
	// is refused as the direct call is. Any other agent gets nothing.
	pplx := map[string]string{"User-Agent": gatewayPerplexity, "Authorization": gatewayToken}
	lines = tsClient(t, base, pplx, gwStep{Op: "tools"}, gwStep{Op: "call", Tool: "search_products", Args: searchArgs})
	if len(lines) != 4 || len(lines[1].Tools) != 1 || lines[1].Tools[0]["name"] != "add_to_cart" {
		t.Errorf("PerplexityBot's tools: %+v", lines)
	}
	if !lines[2].IsError || !strings.Contains(lines[2].text(), "403") {
		t.Errorf("PerplexityBot's search_products: %+v", lines[2])
	}
	if code, _ := directly(t, "GET", base+searchURL, pplx, ""); code != http.StatusForbidden {
		t.Errorf("PerplexityBot's search, directly: %d", code)
	}
	other := tsClient(t, base, map[string]string{"User-Agent": gatewayOther})
	if other[0].OK || other[0].Error == nil || other[0].Error.Code != http.StatusForbidden {
		t.Errorf("an agent granted nothing connected: %+v", other[0])
	}
	if got := app.take(); len(got) != 0 {
		t.Errorf("refused agents reached the app: %v", got)
	}

	// add_to_cart's limit is 2/hour: the first call above, one more, then
	// a refusal (an MCP error, as for any tool over its limit), and the
	// app is not reached by it.
	lines = tsClient(t, base, gpt, gwStep{Op: "call", Tool: "add_to_cart", Args: cartArgs}, gwStep{Op: "call", Tool: "add_to_cart", Args: cartArgs})
	if len(lines) != 4 || lines[1].IsError || lines[2].OK || lines[2].Error == nil || lines[2].Error.Code != http.StatusTooManyRequests {
		t.Errorf("add_to_cart beyond 2/hour: %+v", lines)
	}
	if got := app.take(); len(got) != 1 {
		t.Errorf("add_to_cart within and beyond its limit reached the app %v, want once", got)
	}
}

// jsonString is v as a string, "" for anything else.
func jsonString(v any) string {
	s, _ := v.(string)
	return s
}

// inOrder reports whether s holds each of words, in order.
func inOrder(s string, words ...string) bool {
	for _, w := range words {
		i := strings.Index(s, w)
		if i < 0 {
			return false
		}
		s = s[i+len(w):]
	}
	return true
}

// gatewayInspectorCases: the Inspector's CLI, one method a run, lists and
// calls as the SDK's client does.
func gatewayInspectorCases(t *testing.T, base string, app *appRecorder) {
	gpt := map[string]string{"User-Agent": gatewayGPT, "Authorization": gatewayToken}
	v, failed, ok := inspector(t, base, gpt, "--method", "tools/list")
	tools, _ := v["tools"].([]any)
	if !ok || len(tools) != 3 {
		t.Errorf("tools/list: %v %s", v, failed)
	}

	v, failed, ok = inspector(t, base, gpt, "--method", "tools/call", "--tool-name", "search_products",
		"--tool-arg", "q=tent", "limit=5", "sort=price")
	structured, _ := v["structuredContent"].(map[string]any)
	if !ok || v["isError"] == true || structured == nil {
		t.Fatalf("tools/call search_products: %v %s", v, failed)
	}
	if got := app.take(); len(got) != 1 {
		t.Errorf("search_products reached the app as %v", got)
	}
	_, echo := directly(t, "GET", base+searchURL, gpt, "")
	app.take()
	sameCall(t, "search_products (Inspector)", structured, echo)

	// A string where an integer is declared: refused before the call.
	v, failed, ok = inspector(t, base, gpt, "--method", "tools/call", "--tool-name", "search_products",
		"--tool-arg", "q=tent", `limit="five"`)
	if b, _ := json.Marshal(v); !ok || v["isError"] != true || !strings.Contains(string(b), "limit") {
		t.Errorf("a string limit: %s %s", b, failed)
	}
	if got := app.take(); len(got) != 0 {
		t.Errorf("a string limit reached the app: %v", got)
	}

	pplx := map[string]string{"User-Agent": gatewayPerplexity, "Authorization": gatewayToken}
	v, failed, ok = inspector(t, base, pplx, "--method", "tools/call", "--tool-name", "search_products", "--tool-arg", "q=tent")
	if b, _ := json.Marshal(v); !ok || v["isError"] != true || !strings.Contains(string(b), "403") {
		t.Errorf("PerplexityBot's search_products: %s %s", b, failed)
	}
	if got := app.take(); len(got) != 0 {
		t.Errorf("PerplexityBot's refused call reached the app: %v", got)
	}

	v, failed, ok = inspector(t, base, gpt, "--method", "prompts/get", "--prompt-name", "buy")
	if b, _ := json.Marshal(v); !ok || !inOrder(string(b), "search_products", "add_to_cart") {
		t.Errorf("prompts/get buy: %s %s", b, failed)
	}
	v, failed, ok = inspector(t, base, gpt, "--method", "resources/read", "--uri", "https://shop.example/.well-known/agents.json")
	contents, _ := v["contents"].([]any)
	if !ok || len(contents) != 1 || !strings.Contains(jsonString(contents[0].(map[string]any)["text"]), `"Gateway Test Shop"`) {
		t.Errorf("resources/read agents.json: %v %s", v, failed)
	}
}

// TestGatewayReplicas: two serve replicas on one Redis, behind a load
// balancer that sends each POST to the other. The gateway keeps no
// session state (every version the SDK speaks runs stateless), so the
// TypeScript SDK's client initializes on one replica and calls on the
// other; what is shared lives in Redis: add_to_cart's 2/hour counts the
// calls of both replicas, and a v0.1.0 session made on one is honoured by
// both.
func TestGatewayReplicas(t *testing.T) {
	if why := gatewayClientsMissing(); why != "" {
		startUpstream(t, upstreamApp{name: "mcp-gateway clients", missing: func() string { return why }})
	}
	srv := redistest.Start(t)
	base, app := startGatewayServe(t, srv.Addr, 2)
	token := openSession(t, base, gatewayGPT)
	h := map[string]string{"User-Agent": gatewayGPT, "Authorization": gatewayToken, "X-Agent-Session": token}
	status := gwStep{Op: "call", Tool: "order_status", Args: map[string]any{"id": "7"}}
	cart := gwStep{Op: "call", Tool: "add_to_cart", Args: cartArgs}
	lines := tsClient(t, base, h, status, status, cart, cart, cart)
	if len(lines) != 7 || !lines[0].OK {
		t.Fatalf("client.mjs: %+v", lines)
	}
	for i, l := range lines[1:5] {
		if !l.OK || l.IsError {
			t.Errorf("call %d, within the limits, with the session: %+v", i+1, l)
		}
	}
	if l := lines[5]; l.OK || l.Error == nil || l.Error.Code != http.StatusTooManyRequests {
		t.Errorf("the third add_to_cart, over 2/hour across the replicas: %+v", l)
	}
	if got := app.take(); len(got) != 4 {
		t.Errorf("the app was reached by %v, want the four calls within the limits", got)
	}
}

// demoSite is the demo's declaration (examples/stdlib), whose gateway's
// one tool, search_products, calls product-search at /api/search.
const demoSite = "../../examples/stdlib/site.yaml"

// TestGatewayClientsDemo: the demo's declaration under serve, in front of
// the Express app's /api/search. The TypeScript SDK's client and the
// Inspector's CLI list the demo's tool (its schemas valid 2020-12) and
// its documents, and call the tool as the agent calls the search
// directly; a call without q is refused before the app. The demo's
// gateway takes a bearer token, whose presence serve checks.
func TestGatewayClientsDemo(t *testing.T) {
	if why := gatewayClientsMissing(); why != "" {
		startUpstream(t, upstreamApp{name: "mcp-gateway clients", missing: func() string { return why }})
	}
	upstream, app := recordedUpstream(t, upstreamApps[0]) // express
	base := serveFront(t, proxyConfig{configFile: demoSite, upstream: upstream, upstreamTimeout: 10 * time.Second}).URL

	claude := map[string]string{"User-Agent": "claude/1.0", "Authorization": gatewayToken}
	lines := tsClient(t, base, claude,
		gwStep{Op: "tools"},
		gwStep{Op: "call", Tool: "search_products", Args: map[string]any{"q": "tent", "limit": 2}},
		gwStep{Op: "call", Tool: "search_products", Args: map[string]any{"limit": 2}},
		gwStep{Op: "resources"},
	)
	if len(lines) != 6 || !lines[0].OK {
		t.Fatalf("client.mjs: %+v", lines)
	}
	tools, call, noQ, resources := lines[1], lines[2], lines[3], lines[4]
	if len(tools.Tools) != 1 || tools.Tools[0]["name"] != "search_products" || len(tools.Schemas["search_products"]["input"]) > 0 {
		t.Errorf("the demo's tools: %+v", tools)
	}
	if !call.OK || call.IsError || call.StructuredContent["handler"] != "product-search" {
		t.Fatalf("search_products: %+v", call)
	}
	if got := app.take(); !slices.Equal(got, []string{"GET /api/search?limit=2&q=tent"}) {
		t.Errorf("the calls reached the app as %v", got)
	}
	code, echo := directly(t, "GET", base+"/api/search?limit=2&q=tent", claude, "")
	app.take()
	if code != http.StatusOK {
		t.Errorf("the search, directly: %d %v", code, echo)
	}
	sameCall(t, "the demo's search", call.StructuredContent, echo)
	if !noQ.IsError || !strings.Contains(noQ.text(), "400 Bad Request") || !strings.Contains(noQ.text(), "q: ") {
		t.Errorf("search_products without q: %+v", noQ)
	}
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "https://outdoorsupply.example/.well-known/agents.md") {
		t.Errorf("the demo's resources: %v", uris)
	}

	v, failed, ok := inspector(t, base, claude, "--method", "tools/call", "--tool-name", "search_products", "--tool-arg", "q=tent", "limit=2")
	structured, _ := v["structuredContent"].(map[string]any)
	if !ok || v["isError"] == true || structured == nil {
		t.Fatalf("the Inspector's search_products: %v %s", v, failed)
	}
	sameCall(t, "the demo's search (Inspector)", structured, echo)
	if got := app.take(); len(got) != 1 {
		t.Errorf("the Inspector's call reached the app as %v", got)
	}
	// Without a token, the demo's gateway refuses the client at initialize.
	if v, failed, _ := inspector(t, base, map[string]string{"User-Agent": "claude/1.0"}, "--method", "tools/list"); v != nil || !strings.Contains(failed, "401") {
		t.Errorf("the Inspector without a token: %v %s", v, failed)
	}
}
