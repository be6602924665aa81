package mcpgateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/mcpgateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkGatewayToolCall: a tools/call of search_products in process,
// answered by the site's handler of GET /api/search, two ways: a bare Go
// SDK stateless server whose tool calls that handler directly (the
// query built by hand, the JSON answer as structured content), and
// agentready's gateway (the tool's grant and limits on the gateway
// request, the arguments validated against the input schema, the request
// built and decided as the direct call, its own limit counted). Issue
// 37's budget: impl=gateway at most 1.3x impl=bare; compare them with
// benchstat over alternated rounds (docs/benchmarks.md).
func BenchmarkGatewayToolCall(b *testing.B) {
	search := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"items":["tent `+r.URL.Query().Get("q")+`"]}`)
	})
	app := http.NewServeMux()
	app.Handle("GET /api/search", search)

	site := shopSite("https://shop.example")
	for i := range site.Capabilities {
		site.Capabilities[i].RateLimit = config.PerSecond(1 << 30) // asked on every call, never short
	}
	m, err := agentready.New(site, agentready.WithGateway(mcpgateway.Serve), agentready.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	gateway := m.Handler(app)

	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	bare.AddTool(&mcp.Tool{Name: "search_products", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Q     string `json:"q"`
				Limit int    `json:"limit"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/search?limit=5&q="+args.Q, nil)
			w := httptest.NewRecorder()
			search.ServeHTTP(w, r)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: w.Body.String()}},
				StructuredContent: json.RawMessage(w.Body.Bytes())}, nil
		})
	bareHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return bare },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})

	const body = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"search_products","arguments":{"q":"dome","limit":5}}}`
	for _, impl := range []struct {
		name string
		h    http.Handler
	}{{"bare", bareHandler}, {"gateway", gateway}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "https://shop.example/mcp", strings.NewReader(body))
				r.Header.Set("User-Agent", "Mozilla/5.0 (compatible; GPTBot/1.2)")
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				r.Header.Set("Mcp-Method", "tools/call")
				r.Header.Set("Mcp-Name", "search_products")
				w := httptest.NewRecorder()
				impl.h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "tent dome") {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
