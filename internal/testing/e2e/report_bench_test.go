package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/report"
)

// reportBenchWriter is a ResponseWriter reused across iterations, its
// headers cleared as net/http hands each response a new map.
type reportBenchWriter struct{ h http.Header }

func (w *reportBenchWriter) Header() http.Header         { return w.h }
func (w *reportBenchWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *reportBenchWriter) WriteHeader(int)             {}

// BenchmarkReportPipeline: the matched-agent pipeline of
// bench/compare's BenchmarkPipeline (draft-car Appendix A, an agent held to
// two limits no request reaches) through agentready.New(...).Handler,
// without a decision hook, with one that does nothing (what any hook
// costs the enforcer: the Decision handed over) and with report.Observe,
// in one run: issue 27 holds the report's bookkeeping to 10% of the
// pipeline.
// Sub-benchmark alternating reports the overhead as observe-%, measured in
// alternating batches so that a shared machine's drifting load falls on
// both:
//
//	go test -run '^$' -bench ReportPipeline/alternating -count 10 . | benchstat -
func BenchmarkReportPipeline(b *testing.B) {
	const huge = 1 << 30
	site := config.Site{
		Name: "Outdoor Supply Co.", URL: "https://outdoorsupply.example", Description: "Gear for outdoor adventures",
		Contact: "agents@outdoorsupply.example",
		Capabilities: []config.Capability{{
			ID: "product-search", Description: "Search the product catalog", Endpoint: "https://outdoorsupply.example/api/search",
			Method: "GET", Protocol: config.ProtocolREST, RateLimit: config.PerSecond(huge),
		}},
		Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/admin/*"}},
		Agents: []config.AgentPolicy{{Name: "*"}, {Name: "claude", RateLimit: config.PerSecond(huge)}},
	}
	nop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := httptest.NewRequest("GET", "/api/search?q=tent", nil)
	r.Header.Set("User-Agent", "claude/1.0 (+https://anthropic.com)")
	handlers := map[string]http.Handler{}
	for _, c := range []struct {
		name string
		opts []agentready.Option
	}{
		{"none", nil},
		{"hook", []agentready.Option{agentready.WithOnDecision(func(enforce.Decision) {})}},
		{"observe", []agentready.Option{agentready.WithOnDecision(report.New(report.Options{}).Observe)}},
	} {
		m, err := agentready.New(site, c.opts...)
		if err != nil {
			b.Fatal(err)
		}
		h := m.Handler(nop)
		handlers[c.name] = h
		b.Run("report="+c.name, func(b *testing.B) {
			w := &reportBenchWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, r)
			}
		})
	}
	// A browser passes untouched; with a hook its Pass is reported, and
	// its Decision stays on the stack (no allocation).
	browser := httptest.NewRequest("GET", "/api/search?q=tent", nil)
	browser.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36")
	for _, name := range []string{"none", "hook", "observe"} {
		h := handlers[name]
		b.Run("browser/report="+name, func(b *testing.B) {
			w := &reportBenchWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, browser)
			}
		})
	}
	// alternating serves batches of requests through the three in turn,
	// so that all see the same machine (a shared one's load drifts
	// between sub-benchmarks), and reports the pipeline's time without a
	// hook and the others' overhead in percent of it: hook-% what any
	// decision hook costs (the Decision handed over), observe-% the
	// report's whole cost, hook included.
	b.Run("alternating", func(b *testing.B) {
		const batch = 256
		w := &reportBenchWriter{h: http.Header{}}
		var spent [3]time.Duration
		hs := [3]http.Handler{handlers["none"], handlers["hook"], handlers["observe"]}
		n := 0
		for b.Loop() {
			for i, h := range hs {
				start := time.Now()
				for range batch {
					clear(w.h)
					h.ServeHTTP(w, r)
				}
				spent[i] += time.Since(start)
			}
			n += batch
		}
		per := func(i int) float64 { return float64(spent[i]) / float64(n) }
		b.ReportMetric(per(0), "none-ns/req")
		b.ReportMetric(100*(per(1)-per(0))/per(0), "hook-%")
		b.ReportMetric(100*(per(2)-per(0))/per(0), "observe-%")
	})
}
