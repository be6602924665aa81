package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// newSessionPipeline is Acme Ceramics (v0.1.0, audit on, in memory) with a
// no-op handler and limits the benchmark never reaches, and the token of a
// fresh session.
func newSessionPipeline(tb testing.TB, withAudit bool) (http.Handler, string) {
	tb.Helper()
	site := acme()
	site.Audit.Enabled = withAudit
	site.RateLimit = config.PerMinute(1_000_000) // a new Middleware every rotate requests
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil), agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		tb.Fatal(err)
	}
	h := m.Handler(nop)
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", sessPath, nil)
	r.Header.Set("User-Agent", uaClaudeUser)
	h.ServeHTTP(w, r)
	var res struct {
		Data struct {
			Token string `json:"session_token"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || res.Data.Token == "" {
		tb.Fatalf("create session: %d %s", w.Code, w.Body)
	}
	return h, res.Data.Token
}

// BenchmarkSessionRequest measures what a session adds to a request: the
// same capability call (search, with a query) without a session and with
// one, which costs the token lookup and the audit event (params, one
// canonical serialisation and SHA-256, the in-memory append); and with a
// session but audit off, which isolates the lookup.
//
//	go test -run '^$' -bench SessionRequest -benchmem -count 10 . | tee s.txt; benchstat -row /heap -col /case s.txt
//
// The audit log grows by one event per iteration, so the benchmark starts
// a new Middleware (and session) every rotate iterations, timer stopped,
// to bound memory.
//
// Part of what a session adds is garbage collection (the event is kept,
// the request is copied for its context), and a test binary's heap is a
// few MiB, so collections run far more often per request than in a server
// holding more live data, and their fixed cost weighs more. The heap=64MiB
// cases hold a 64 MiB pointer-free block while they run, as a server's
// live heap, to show that part; heap=test is the bare binary.
//
//	benchstat -row /heap -col /case s.txt
func BenchmarkSessionRequest(b *testing.B) {
	const rotate = 2000
	for _, c := range []struct {
		name                   string
		withSession, withAudit bool
		ballast                bool
	}{
		{"case=without-session/heap=test", false, true, false},
		{"case=with-session/heap=test", true, true, false},
		{"case=with-session-no-audit/heap=test", true, false, false}, // the lookup alone
		{"case=without-session/heap=64MiB", false, true, true},
		{"case=with-session/heap=64MiB", true, true, true},
	} {
		withSession := c.withSession
		b.Run(c.name, func(b *testing.B) {
			var ballast []byte
			if c.ballast {
				ballast = make([]byte, 64<<20)
				defer runtime.KeepAlive(ballast)
				b.ResetTimer() // the block is not the request's allocation
			}
			w := &reusableWriter{h: http.Header{}}
			var h http.Handler
			var r *http.Request
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if i%rotate == 0 {
					b.StopTimer()
					var token string
					h, token = newSessionPipeline(b, c.withAudit)
					r = httptest.NewRequest("GET", api+"search?q=mug&limit=5", nil)
					r.Header.Set("User-Agent", uaClaudeUser)
					if withSession {
						r.Header.Set("X-Agent-Session", token)
					}
					b.StartTimer()
				}
				w.reset()
				h.ServeHTTP(w, r)
				if w.code != 0 && w.code != http.StatusOK {
					b.Fatalf("status %d", w.code)
				}
			}
		})
	}
}
