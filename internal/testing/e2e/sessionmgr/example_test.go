package sessionmgr_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

// A site creates a session for an agent, checks its token on a
// session-required capability, and ends it; the end is reported for the
// audit trail.
func Example() {
	clock := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	site := config.Site{Session: config.Session{Endpoint: "/.well-known/agents/api/session", MaxSessions: 2}}
	m, err := sessionmgr.New(sessionmgr.Config{
		TTL:          site.Session.TTL, // zero: 30 minutes
		MaxSessions:  site.Session.MaxSessions,
		Capabilities: []string{"cart.add", "checkout"},
		AuditURL:     func(id string) string { return "https://shop.example/.well-known/agents/api/audit/" + id },
		Now:          clock.Now,
		OnEnd: func(s *session.Session, reason sessionmgr.EndReason) {
			fmt.Printf("ended (%s) at %s, purpose %q\n", reason, s.EndedAt.Format(time.RFC3339), s.Purpose)
		},
	})
	if err != nil {
		panic(err)
	}
	// The middleware's classification; here every caller is ShopBot.
	client := netip.MustParsePrefix("192.0.2.7/32")
	identify := func(r *http.Request) (string, netip.Prefix, bool) { return "shopbot", client, true }
	mux := http.NewServeMux()
	mux.Handle(site.Session.Endpoint, m.Handler(identify))
	mux.HandleFunc("POST /cart", func(w http.ResponseWriter, r *http.Request) {
		s, err := m.Lookup(r, "shopbot", client)
		if err != nil {
			status, msg := sessionmgr.ErrorStatus(err)
			http.Error(w, msg, status)
			return
		}
		ctx := session.NewContext(r.Context(), s) // the cart is scoped to the session
		cur, _ := session.FromContext(ctx)
		fmt.Fprintf(w, "added to the cart of a session ending %s", cur.ExpiresAt.Format(time.RFC3339))
	})

	call := func(method, path, token, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if token != "" {
			req.Header.Set(session.HeaderSession, token)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}

	rec := call("POST", site.Session.Endpoint, "", `{"agent_name":"ShopBot","purpose":"buy a mug"}`)
	var created struct {
		Data struct {
			Token        string   `json:"session_token"`
			ExpiresAt    string   `json:"expires_at"`
			Capabilities []string `json:"capabilities"`
		} `json:"data"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &created)
	fmt.Println(rec.Code, len(created.Data.Token), created.Data.ExpiresAt, created.Data.Capabilities)

	fmt.Println(call("POST", "/cart", created.Data.Token, "").Body.String())
	fmt.Print(call("POST", "/cart", "", "").Body.String())

	call("POST", site.Session.Endpoint, "", "")
	rec = call("POST", site.Session.Endpoint, "", "")
	fmt.Println(rec.Code, "Retry-After:", rec.Header().Get("Retry-After"))

	clock.Advance(10 * time.Minute)
	rec = call("DELETE", site.Session.Endpoint, created.Data.Token, "")
	fmt.Println(rec.Code)

	clock.Advance(time.Hour)
	n, _ := m.Reap(context.Background())
	fmt.Println("reaped", n)
	// Output:
	// 201 43 2026-03-01T12:30:00Z [cart.add checkout]
	// added to the cart of a session ending 2026-03-01T12:30:00Z
	// missing X-Agent-Session header
	// 429 Retry-After: 1800
	// ended (deleted) at 2026-03-01T12:10:00Z, purpose "buy a mug"
	// 200
	// ended (expired) at 2026-03-01T12:30:00Z, purpose ""
	// reaped 1
}
