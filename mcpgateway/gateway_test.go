package mcpgateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/mcpgateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shopSite is issue 37's declaration, on the test server's origin:
// GPTBot may use the store and search; PerplexityBot only the gateway's
// search tool's capability is withheld from it.
func shopSite(origin string) config.Site {
	return config.Site{
		Name: "Shop", Description: "A shop", URL: origin,
		Access: config.Access{Allow: []string{"/api/", "/mcp"}},
		Capabilities: []config.Capability{
			{ID: "product-search", Description: "Search the catalog", Endpoint: origin + "/api/search", Method: "GET",
				Params: []config.Param{{Name: "q", Type: config.TypeString, Required: true, Description: "what to look for"},
					{Name: "limit", Type: config.TypeInteger, Min: new(1.0), Max: new(50.0)}},
				Outputs: map[string]string{"items": "array[string]"}},
			{ID: "cart-add", Description: "Add an item to the cart", Endpoint: origin + "/api/cart", Method: "POST",
				Params:          []config.Param{{Name: "sku", In: config.InBody, Required: true}, {Name: "qty", In: config.InBody, Type: config.TypeInteger, Min: new(1.0)}},
				RequiresSession: false},
			{ID: "store-assistant", Description: "The store over MCP", Endpoint: origin + "/mcp", Protocol: config.ProtocolMCP, Gateway: true,
				Tools: []config.Tool{{Name: "search_products", Calls: "product-search"},
					{Name: "add_to_cart", Calls: "cart-add", RateLimit: config.Rate{Requests: 1, Window: "minute"}}}},
		},
		Agents: []config.AgentPolicy{
			{Name: "GPTBot", Capabilities: []string{"store-assistant", "product-search", "cart-add"}},
			{Name: "PerplexityBot", Capabilities: []string{"store-assistant", "cart-add"}},
		},
	}
}

// received is what the site's handler got: one line per request.
type received struct {
	mu    sync.Mutex
	calls []string
}

func (rc *received) record(r *http.Request) string {
	body, _ := io.ReadAll(r.Body)
	q := r.URL.Query()
	line := r.Method + " " + r.URL.Path + "?" + q.Encode() + " body=" + string(body) +
		" ua=" + r.Header.Get("User-Agent") + " decision=" + decisionOf(r)
	rc.mu.Lock()
	rc.calls = append(rc.calls, line)
	rc.mu.Unlock()
	return line
}

func (rc *received) take() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	c := rc.calls
	rc.calls = nil
	return c
}

// decisionOf is the request's Agentready-Decision field.
func decisionOf(r *http.Request) string {
	v := r.Header.Get("Agentready-Decision")
	var keep []string
	for _, part := range strings.Split(v, ",") {
		if k, _, _ := strings.Cut(strings.TrimSpace(part), "="); k != "" {
			keep = append(keep, strings.TrimSpace(part))
		}
	}
	return strings.Join(keep, ";")
}

// start serves the site behind the middleware with the gateway, and
// returns its URL and what its handler receives.
func start(t *testing.T) (string, *received) {
	t.Helper()
	rc := &received{}
	app := http.NewServeMux()
	app.HandleFunc("GET /api/search", func(w http.ResponseWriter, r *http.Request) {
		rc.record(r)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"items": []string{"tent " + r.URL.Query().Get("q")}})
	})
	app.HandleFunc("POST /api/cart", func(w http.ResponseWriter, r *http.Request) {
		rc.record(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"added":true}`)
	})
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	m, err := agentready.New(shopSite(srv.URL), agentready.WithGateway(mcpgateway.Serve), agentready.WithDecisionHeader(),
		agentready.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	h = m.Handler(app)
	return srv.URL, rc
}

// uaTransport sends every request with a User-Agent.
type uaTransport struct{ ua string }

func (u uaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.ua)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, base, ua string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: uaTransport{ua}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// direct makes the call a client would make without the gateway.
func direct(t *testing.T, method, u, ua, body string) *http.Response {
	t.Helper()
	r, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("User-Agent", ua)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// TestGatewayCall: a tool call through the gateway reaches the called
// capability's handler as the same call made directly does: the same
// method, path, query, body, User-Agent and decision; its JSON answer is
// the tool's structured result.
func TestGatewayCall(t *testing.T) {
	base, rc := start(t)
	const ua = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	cs := connect(t, base, ua)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "add_to_cart,search_products" && strings.Join(names, ",") != "search_products,add_to_cart" {
		t.Fatalf("tools/list: %v", names)
	}

	res := call(t, cs, "search_products", map[string]any{"q": "dome", "limit": 5})
	if res.IsError {
		t.Fatalf("search_products: error result %q", text(res))
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"items":["tent dome"]}` {
		t.Errorf("structured content %s", b)
	}
	viaGateway := rc.take()
	if len(viaGateway) != 1 || !strings.Contains(viaGateway[0], `policy="GPTBot"`) || !strings.Contains(viaGateway[0], `capability="product-search"`) {
		t.Errorf("the handler's decision field through the gateway: %v", viaGateway)
	}
	direct(t, "GET", base+"/api/search?"+url.Values{"q": {"dome"}, "limit": {"5"}}.Encode(), ua, "")
	directly := rc.take()
	if len(viaGateway) != 1 || len(directly) != 1 || viaGateway[0] != directly[0] {
		t.Errorf("the handler received through the gateway:\n%v\nand directly:\n%v", viaGateway, directly)
	}

	res = call(t, cs, "add_to_cart", map[string]any{"sku": "T-100", "qty": 2})
	if res.IsError {
		t.Fatalf("add_to_cart: error result %q", text(res))
	}
	viaGateway = rc.take()
	if len(viaGateway) != 1 || !strings.HasPrefix(viaGateway[0], "POST /api/cart? body=") || !strings.Contains(viaGateway[0], `"sku":"T-100"`) || !strings.Contains(viaGateway[0], `"qty":2`) {
		t.Errorf("add_to_cart reached the handler as %v", viaGateway)
	}
}

// TestGatewayRefusals: what a direct call is refused, a call through the
// gateway is refused, and the handler does not run: an agent without the
// called capability's grant (and tools/list does not show it the tool),
// a tool over its limit, a call without a required param.
func TestGatewayRefusals(t *testing.T) {
	base, rc := start(t)
	perplexity := connect(t, base, "Mozilla/5.0 (compatible; PerplexityBot/1.0)")
	// tools/list shows it only the tool whose capability it may use.
	if tools, err := perplexity.ListTools(context.Background(), nil); err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "add_to_cart" {
		t.Errorf("PerplexityBot's tools/list: %v %v", tools, err)
	}
	res := call(t, perplexity, "search_products", map[string]any{"q": "dome"})
	t.Logf("PerplexityBot: %q", text(res))
	if !res.IsError || !strings.Contains(text(res), "403") {
		t.Errorf("PerplexityBot, without product-search's grant: %v %q", res.IsError, text(res))
	}
	if d := direct(t, "GET", base+"/api/search?q=dome", "Mozilla/5.0 (compatible; PerplexityBot/1.0)", ""); d.StatusCode != http.StatusForbidden {
		t.Errorf("the same call made directly: %d", d.StatusCode)
	}

	gpt := connect(t, base, "Mozilla/5.0 (compatible; GPTBot/1.2)")
	res = call(t, gpt, "search_products", map[string]any{"limit": 5})
	if !res.IsError || !strings.Contains(text(res), "q") {
		t.Errorf("a call without the required q: %v %q", res.IsError, text(res))
	}
	if first := call(t, gpt, "add_to_cart", map[string]any{"sku": "A"}); first.IsError {
		t.Fatalf("the first add_to_cart: %q", text(first))
	}
	rc.take()
	second, err := gpt.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_to_cart", Arguments: map[string]any{"sku": "B"}})
	if err == nil && !second.IsError {
		t.Errorf("a second add_to_cart within the tool's 1/minute passed: %q", text(second))
	}
	if got := rc.take(); len(got) != 0 {
		t.Errorf("refused calls reached the handler: %v", got)
	}

	// A message over the capability's body limit (1 MiB) is a 413.
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_products","arguments":{"q":"` + strings.Repeat("x", 1<<20) + `"}}}`
	r, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(big))
	r.Header.Set("User-Agent", "Mozilla/5.0 (compatible; GPTBot/1.2)")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if res, err := http.DefaultClient.Do(r); err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a tools/call over the body limit: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	if got := rc.take(); len(got) != 0 {
		t.Errorf("the call over the body limit reached the handler: %v", got)
	}
}

// TestGatewayCountsOnce: a call through the gateway takes its tokens of
// the site's and the agent's limits once, on the gateway request: with
// an agent limit of L, the gateway answers L requests (initialize,
// listings and calls alike) before the agent is refused, every call
// reaching the handler on the way.
func TestGatewayCountsOnce(t *testing.T) {
	const limit = 6
	rc := &received{}
	app := http.NewServeMux()
	app.HandleFunc("GET /api/search", func(w http.ResponseWriter, r *http.Request) {
		rc.record(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"items":[]}`)
	})
	var h http.Handler
	var mu sync.Mutex
	passed := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if r.URL.Path == "/mcp" && rec.Code < 300 && !strings.Contains(rec.Body.String(), `"error"`) {
			mu.Lock()
			passed++
			mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	defer srv.Close()
	site := shopSite(srv.URL)
	site.Agents[0].RateLimit = config.Rate{Requests: limit, Window: "hour"}
	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve), agentready.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	h = m.Handler(app)
	cs := connect(t, srv.URL, "Mozilla/5.0 (compatible; GPTBot/1.2)")
	calls := 0
	for i := 0; i < 2*limit; i++ {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_products", Arguments: map[string]any{"q": "x"}})
		if err != nil || res.IsError {
			break
		}
		calls++
	}
	mu.Lock()
	defer mu.Unlock()
	if passed != limit || len(rc.take()) != calls || calls == 0 {
		t.Errorf("the gateway answered %d requests (%d calls reached the handler) before refusing the agent, whose limit is %d", passed, calls, limit)
	}
}

// TestGatewayPromptsAndResources: a flow is a prompt whose message names
// each step's tool; the published documents are resources, read as
// agentready serves them.
func TestGatewayPromptsAndResources(t *testing.T) {
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	site := shopSite(srv.URL)
	site.Flows = []config.Flow{{Name: "buy", Description: "Find a product and add it to the cart", Steps: []string{"product-search", "cart-add"}}}
	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve), agentready.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	h = m.Handler(http.NotFoundHandler())
	cs := connect(t, srv.URL, "Mozilla/5.0 (compatible; GPTBot/1.2)")
	ctx := context.Background()

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "buy" {
		t.Fatalf("prompts/list: %v %+v", err, prompts)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "buy"})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("prompts/get: %v %+v", err, p)
	}
	msg := p.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(msg, "search_products") || !strings.Contains(msg, "add_to_cart") ||
		strings.Index(msg, "search_products") > strings.Index(msg, "add_to_cart") {
		t.Errorf("the prompt's steps, in order, with their tools: %q", msg)
	}

	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var agentsTxt string
	for _, r := range res.Resources {
		if strings.HasSuffix(r.URI, "/.well-known/agents.txt") {
			agentsTxt = r.URI
		}
	}
	if agentsTxt == "" {
		t.Fatalf("resources/list has no agents.txt: %+v", res.Resources)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: agentsTxt})
	if err != nil || len(read.Contents) != 1 {
		t.Fatalf("resources/read: %v %+v", err, read)
	}
	direct, err := http.Get(agentsTxt)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(direct.Body)
	direct.Body.Close()
	if read.Contents[0].Text != string(body) {
		t.Errorf("agents.txt as a resource:\n%s\nas served:\n%s", read.Contents[0].Text, body)
	}
}

// TestGatewayVersions: the Go SDK's client at each protocol version the
// SDK speaks gets that version, and lists and calls the tools: at
// 2026-07-28 it discovers the server (server/discover, no initialize) and
// sends Mcp-Method and Mcp-Name, which agentready checks against the body;
// at the earlier ones it initializes, and gets no session id.
func TestGatewayVersions(t *testing.T) {
	base, rc := start(t)
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
				HTTPClient: &http.Client{Transport: uaTransport{"Mozilla/5.0 (compatible; GPTBot/1.2)"}}, DisableStandaloneSSE: true},
				&mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v || cs.ID() != "" {
				t.Errorf("asked for %s: got %s, session id %q", v, got, cs.ID())
			}
			if tools, err := cs.ListTools(context.Background(), nil); err != nil || len(tools.Tools) != 2 {
				t.Errorf("tools/list: %v %v", tools, err)
			}
			res := call(t, cs, "search_products", map[string]any{"q": v})
			if res.IsError || len(rc.take()) != 1 {
				t.Errorf("search_products: %q", text(res))
			}
		})
	}
}

// TestGatewayPathParams: a path param's argument is one segment of the
// called capability's path, whatever it holds: a dot segment, a slash, an
// escape, a query or a fragment never takes the call elsewhere. What a
// direct call with that segment is refused (a dot segment), the call
// through the gateway is refused; what reaches the handler is the
// capability's path with the argument as one segment.
func TestGatewayPathParams(t *testing.T) {
	var mu sync.Mutex
	var reached []string
	app := http.NewServeMux()
	app.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.URL.EscapedPath()+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":`+jsonQuote(r.PathValue("id"))+`}`)
	})
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	site := shopSite(srv.URL)
	site.Capabilities = append(site.Capabilities, config.Capability{ID: "order-get", Description: "An order",
		Endpoint: srv.URL + "/api/orders/{id}", Method: "GET", Params: []config.Param{{Name: "id", In: config.InPath, Required: true}}})
	for i := range site.Capabilities {
		if site.Capabilities[i].ID == "store-assistant" {
			site.Capabilities[i].Tools = append(site.Capabilities[i].Tools, config.Tool{Name: "order_get", Calls: "order-get"})
		}
	}
	site.Agents[0].Capabilities = append(site.Agents[0].Capabilities, "order-get")
	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve), agentready.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	h = m.Handler(app)
	cs := connect(t, srv.URL, "Mozilla/5.0 (compatible; GPTBot/1.2)")
	for _, id := range []string{"42", "..", ".", "../../admin", "a/b", "%2e%2e", "%2F", "a?b=c", "a#b", "a;b", " ", "\u00e9", "a\\b", "..;"} {
		res := call(t, cs, "order_get", map[string]any{"id": id})
		mu.Lock()
		got := reached
		reached = nil
		mu.Unlock()
		switch {
		case len(got) > 1:
			t.Errorf("id %q reached the app %d times: %v", id, len(got), got)
		case len(got) == 1 && (!strings.HasPrefix(got[0], "/api/orders/") || strings.Count(got[0], "/") != 3 || strings.Contains(got[0], "?") && !strings.HasSuffix(got[0], "?")):
			t.Errorf("id %q reached the app at %s", id, got[0])
		case len(got) == 1 && res.IsError:
			t.Errorf("id %q reached the app, and the result is an error: %q", id, text(res))
		case len(got) == 0 && !res.IsError:
			t.Errorf("id %q reached nothing, and the result is not an error: %q", id, text(res))
		}
		if len(got) == 0 {
			t.Logf("id %q: %s", id, text(res))
		}
	}
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
