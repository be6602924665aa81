package sessionmgr_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

var benchClient = netip.MustParsePrefix("192.0.2.7/32")

func benchIdentify(*http.Request) (string, netip.Prefix, bool) { return "shopbot", benchClient, true }

// newBenchManager returns a Manager on a MemoryStore holding n sessions
// besides the one whose token it returns.
func newBenchManager(b *testing.B, n int) (*sessionmgr.Manager, string) {
	b.Helper()
	clock := testclock.New(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	st := session.NewMemoryStore(session.WithClock(clock.Now))
	ctx := context.Background()
	for range n {
		_, h, _ := sessionmgr.NewToken()
		s := &session.Session{Agent: "other", CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(time.Hour)}
		if err := st.Create(ctx, h, s, 0); err != nil {
			b.Fatal(err)
		}
	}
	m := sessionmgr.MustNew(sessionmgr.Config{Store: st, Now: clock.Now})
	rec := httptest.NewRecorder()
	m.Handler(benchIdentify).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	var body struct {
		Data struct {
			Token string `json:"session_token"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 201 {
		b.Fatal(rec.Code, err)
	}
	return m, body.Data.Token
}

// BenchmarkLookup is the session part of a session-bound request: read the
// header, hash the token, find the session, check its binding.
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{0, 100_000} {
		b.Run(sizeName(n), func(b *testing.B) {
			m, token := newBenchManager(b, n)
			req := httptest.NewRequest(http.MethodGet, "/cart", nil)
			req.Header.Set(session.HeaderSession, token)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Lookup(req, "shopbot", benchClient); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLookupParallel(b *testing.B) {
	m, token := newBenchManager(b, 10_000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest(http.MethodGet, "/cart", nil)
		req.Header.Set(session.HeaderSession, token)
		for pb.Next() {
			if _, err := m.Lookup(req, "shopbot", benchClient); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkHashToken(b *testing.B) {
	tok, _, _ := sessionmgr.NewToken()
	b.ReportAllocs()
	for b.Loop() {
		_ = sessionmgr.HashToken(tok)
	}
}

// BenchmarkCreate is the whole POST: token, ID, store, response.
func BenchmarkCreate(b *testing.B) {
	m, _ := newBenchManager(b, 0)
	h := m.Handler(benchIdentify)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
		if rec.Code != 201 {
			b.Fatal(rec.Code)
		}
	}
}

func sizeName(n int) string {
	if n == 0 {
		return "1session"
	}
	return "100k_sessions"
}
