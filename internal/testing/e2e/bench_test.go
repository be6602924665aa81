package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// reusableWriter is a ResponseWriter reused across iterations, so that only
// agentready's own cost shows: net/http's writer pre-exists too.
type reusableWriter struct {
	h    http.Header
	code int
}

func (w *reusableWriter) Header() http.Header         { return w.h }
func (w *reusableWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *reusableWriter) WriteHeader(code int)        { w.code = code }
func (w *reusableWriter) reset()                      { clear(w.h); w.code = 0 }

var nop = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

type pipelineCase struct {
	name, method, target, ua, inm string
	want                          int
	// chrome adds the other request headers Chrome sends with a
	// navigation, so that header lookups cost what they do in production.
	chrome bool
	// busy serves the request by a declaration whose claude limit is a
	// daily one: every request draws it down, so that the RateLimit value
	// is new each time, where the other cases' buckets refill between
	// requests and their value is shared.
	busy bool
}

func pipelineCases() []pipelineCase {
	return []pipelineCase{
		// claude: agent/claude 200/minute + capability/product-search 60/minute.
		{name: "agent-matched-limits", method: "GET", target: "/api/search?q=tent", ua: uaClaudeDeclared},
		{name: "agent-matched-busy", method: "GET", target: "/api/search?q=tent", ua: uaClaudeDeclared, busy: true},
		// ClaudeBot under "*": no limit applies to /api/other.
		{name: "agent-no-limit", method: "GET", target: "/api/other", ua: uaClaudeBot},
		{name: "browser", method: "GET", target: "/api/search?q=tent", ua: uaChrome},
		{name: "browser-chrome-headers", method: "GET", target: "/api/search?q=tent", ua: uaChrome, chrome: true},
		// Targets that need canonicalising: an escaped unreserved byte (one
		// reading), and an escaped sub-delim (two readings: RFC 9309's and
		// the unescaped one ServeMux routes).
		{name: "agent-escaped", method: "GET", target: "/api/s%65arch?q=tent", ua: uaClaudeDeclared},
		{name: "agent-two-readings", method: "GET", target: "/api/a%3Bb", ua: uaClaudeBot},
		{name: "document-200", method: "GET", target: "/.well-known/agents.txt", ua: uaClaudeBot},
		{name: "document-304", method: "GET", target: "/.well-known/agents.txt", ua: uaClaudeBot, inm: "etag", want: 304},
	}
}

// pipeline holds the handlers the cases run through.
type pipeline struct {
	h, busy http.Handler
	etag    string // of agents.txt
}

func newPipeline(tb testing.TB) pipeline {
	tb.Helper()
	handler := func(claude config.Rate) http.Handler {
		site := fixtures.OutdoorSupply()
		// Limits high enough that the benchmark never reaches 429.
		site.Capabilities[0].RateLimit = config.PerSecond(1 << 30)
		site.Agents[1].RateLimit = claude
		m, err := agentready.New(site)
		if err != nil {
			tb.Fatal(err)
		}
		return m.Handler(nop)
	}
	p := pipeline{h: handler(config.PerSecond(1 << 30)), busy: handler(config.PerDay(1 << 30))}
	w := httptest.NewRecorder()
	p.h.ServeHTTP(w, httptest.NewRequest("GET", "/.well-known/agents.txt", nil))
	p.etag = w.Header().Get("ETag")
	return p
}

// handler is the handler c runs through.
func (p pipeline) handler(c pipelineCase) http.Handler {
	if c.busy {
		return p.busy
	}
	return p.h
}

func (c pipelineCase) request(etag string) *http.Request {
	r := httptest.NewRequest(c.method, c.target, nil)
	r.Header.Set("User-Agent", c.ua)
	if c.inm != "" {
		r.Header.Set("If-None-Match", etag)
	}
	if c.chrome {
		for k, v := range map[string]string{
			"Accept":                    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
			"Accept-Encoding":           "gzip, deflate, br, zstd",
			"Accept-Language":           "en-US,en;q=0.9",
			"Cookie":                    "session=abc",
			"Sec-Ch-Ua":                 `"Chromium";v="131", "Not_A Brand";v="24"`,
			"Sec-Ch-Ua-Mobile":          "?0",
			"Sec-Ch-Ua-Platform":        `"Windows"`,
			"Sec-Fetch-Dest":            "document",
			"Sec-Fetch-Mode":            "navigate",
			"Sec-Fetch-Site":            "none",
			"Sec-Fetch-User":            "?1",
			"Upgrade-Insecure-Requests": "1",
		} {
			r.Header.Set(k, v)
		}
	}
	return r
}

// BenchmarkPipeline measures Handler end to end: classify, access,
// capability, in-memory rate limits and their headers; browsers; documents.
//
//	go test -run '^$' -bench Pipeline -benchmem -count 10 . | tee new.txt; benchstat new.txt
//
// Each case runs twice: "fresh" clears the writer's header map before every
// request, as net/http hands each response a new map (so every header is an
// insert); "reused" keeps it, so the handler overwrites the same keys. The
// difference is the cost of map inserts, paid per response in production.
func BenchmarkPipeline(b *testing.B) {
	p := newPipeline(b)
	for _, c := range pipelineCases() {
		h := p.handler(c)
		for _, fresh := range []bool{true, false} {
			name := c.name + "/reused"
			if fresh {
				name = c.name + "/fresh"
			}
			b.Run(name, func(b *testing.B) {
				r := c.request(p.etag)
				w := &reusableWriter{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					if fresh {
						w.reset()
					}
					h.ServeHTTP(w, r)
				}
			})
		}
	}
}

// BenchmarkPipelineParallel runs the cases of BenchmarkPipeline from
// GOMAXPROCS goroutines at once, each with its own request and writer: one
// client's requests arriving on several cores, so that what they share (the
// rate-limit store's shard and buckets, caches) shows as lost scaling.
//
//	go test -run '^$' -bench PipelineParallel -benchmem -count 10 .
func BenchmarkPipelineParallel(b *testing.B) {
	p := newPipeline(b)
	for _, c := range pipelineCases() {
		h := p.handler(c)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := c.request(p.etag)
				w := &reusableWriter{h: http.Header{}}
				for pb.Next() {
					w.reset()
					h.ServeHTTP(w, r)
				}
			})
		})
	}
}

// TestPipelineCases: every case the benchmarks measure gets the status it
// is meant to.
func TestPipelineCases(t *testing.T) {
	p := newPipeline(t)
	for _, c := range pipelineCases() {
		h := p.handler(c)
		r := c.request(p.etag)
		w := &reusableWriter{h: http.Header{}}
		h.ServeHTTP(w, r)
		if c.want != 0 && w.code != c.want {
			t.Errorf("%s: status %d, want %d", c.name, w.code, c.want)
		}
	}
}

// TestImplicitRulesName: with no Allow/Disallow declared (draft-car 2.6),
// an allowed agent request names its capability endpoint rule.
func TestImplicitRulesName(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{}
	site.Capabilities[0].RateLimit = config.Rate{}
	site.Agents[1].RateLimit = config.Rate{}
	m, err := agentready.New(site, agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/api/search?q=tent", nil)
	r.Header.Set("User-Agent", uaClaudeDeclared)
	if d := m.Explain(r); d.Rule != "capability endpoint /api/search" {
		t.Fatalf("rule %q", d.Rule)
	}
}
