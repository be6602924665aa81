package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready/config"
)

// BenchmarkToolsCall: a tools/call of the Go SDK's stateless server, in
// process, bare and behind agentready (the tool's grant, its limit and
// the capability's, the body read once and bounded). Issue 35's budget:
// the middleware adds at most 10%. Compare impl=bare and impl=agentready
// with benchstat (docs/benchmarks.md).
func BenchmarkToolsCall(b *testing.B) {
	site := mcpSite()
	// Limits that apply and never run out in a run: the store is asked
	// for both tokens on every call, as in production.
	site.Capabilities[0].RateLimit = config.PerSecond(1 << 30)
	for i := range site.Capabilities[0].Tools {
		site.Capabilities[0].Tools[i].RateLimit = config.PerSecond(1 << 30)
	}
	m := rvNew(b, site)
	server := mcpShopServer() // one server, as a site runs it
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"search_products","arguments":{"query":"tent"}}}`
	for _, impl := range []struct {
		name string
		h    http.Handler
	}{{"bare", sdk}, {"agentready", m.Handler(sdk)}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
				r.Header.Set("User-Agent", mcpClaude)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				r.Header.Set("Mcp-Method", "tools/call")
				r.Header.Set("Mcp-Name", "search_products")
				w := httptest.NewRecorder()
				impl.h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkToolsListThrough: a tools/list of 50 tools to the Go SDK's
// stateless server, in process, bare and behind agentready, whose
// declaration lists the 50 tools and grants the agent half of them, so
// that the answer is filtered to 25. Issue 35's budget: agentready's at
// most 1.5x the bare answer.
func BenchmarkToolsListThrough(b *testing.B) {
	site := mcpSite()
	c := &site.Capabilities[0]
	c.RateLimit, c.Tools = config.PerSecond(1<<30), nil
	var grants []string
	for i := range 50 {
		name := fmt.Sprintf("tool%02d", i)
		c.Tools = append(c.Tools, config.Tool{Name: name})
		if i%2 == 0 {
			grants = append(grants, c.ID+"/"+name)
		}
	}
	site.Agents = []config.AgentPolicy{{Name: "*", Capabilities: []string{}}, {Name: "ClaudeBot", Capabilities: grants}}
	m := rvNew(b, site)
	server := listServer(50, 0)
	const body = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	for _, answer := range []struct {
		name string
		json bool
	}{{"json", true}, {"sse", false}} {
		sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: answer.json})
		for _, impl := range []struct {
			name string
			h    http.Handler
			want int
		}{{"bare", sdk, 50}, {"agentready", m.Handler(sdk), 25}} {
			b.Run("answer="+answer.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
					r.Header.Set("User-Agent", mcpClaude)
					r.Header.Set("Content-Type", "application/json")
					r.Header.Set("Accept", "application/json, text/event-stream")
					r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
					r.Header.Set("Mcp-Method", "tools/list")
					w := httptest.NewRecorder()
					impl.h.ServeHTTP(w, r)
					if w.Code != http.StatusOK || strings.Count(w.Body.String(), `"name":"tool`) != impl.want {
						b.Fatalf("%d: %.300s", w.Code, w.Body)
					}
				}
			})
		}
	}
}
