package e2e_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/reportview"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/session"
)

// tally is what the test sent, by agent and by what became of it, read
// from the statuses the site answered.
type tally struct {
	allowed, denied, limited map[string]int64
}

func newTally() *tally {
	return &tally{allowed: map[string]int64{}, denied: map[string]int64{}, limited: map[string]int64{}}
}

// add counts r, sent as agent.
func (y *tally) add(t *testing.T, agent string, r reply) {
	t.Helper()
	switch r.status {
	case http.StatusOK, http.StatusCreated:
		y.allowed[agent]++
	case http.StatusForbidden:
		y.denied[agent]++
	case http.StatusTooManyRequests:
		y.limited[agent]++
	default:
		t.Fatalf("%s: status %d: %s", agent, r.status, r.raw)
	}
}

// check compares s with what was sent: every agent's counts, summed over
// its rows, and the totals.
func (y *tally) check(t *testing.T, s reportview.Snapshot) {
	t.Helper()
	got := newTally()
	for _, a := range s.Agents {
		got.allowed[a.Name] += a.Allowed
		got.denied[a.Name] += a.Denied
		got.limited[a.Name] += a.RateLimited
	}
	var total int64
	for _, m := range []struct {
		name      string
		want, got map[string]int64
	}{{"allowed", y.allowed, got.allowed}, {"denied", y.denied, got.denied}, {"rate-limited", y.limited, got.limited}} {
		for k, n := range m.want {
			total += n
			if m.got[k] != n {
				t.Errorf("%s %s: %d in the report, %d sent", k, m.name, m.got[k], n)
			}
		}
		for k, n := range m.got {
			if m.want[k] == 0 && n != 0 {
				t.Errorf("%s %s: %d in the report, none sent", k, m.name, n)
			}
		}
	}
	if s.Total.Requests != total {
		t.Errorf("the report's total is %d requests, %d sent", s.Total.Requests, total)
	}
}

// TestReport: a site with v0.1.0 sessions and audit, fed known traffic
// (agents allowed, denied and rate-limited, a browser, a session created
// and deleted, another expired), reports exactly that: each agent's
// counts, the browser as passed, two sessions opened and two artifacts
// sealed; WithOnDecision's hook hears every decision too; a Reload keeps
// the report.
func TestReport(t *testing.T) {
	// The site's clock starts at the run's time and jumps past the session
	// TTL; the report keeps the real one, which stays within its window.
	clock := testclock.New(time.Now().UTC().Truncate(time.Second))
	rep := report.New(report.Options{})
	sessions := session.NewMemoryStore(session.WithClock(clock.Now))
	var hooked atomic.Int64
	site := acme()
	site.RateLimit = config.PerMinute(12)
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		agentready.WithAudit(testAuditKey, nil), agentready.WithImplicitAccess(agentready.ImplicitAllAgents),
		agentready.WithClock(clock.Now), agentready.WithSessions(sessions), agentready.WithReport(rep),
		agentready.WithOnDecision(func(enforce.Decision) { hooked.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	defer srv.Close()
	base := srv.URL
	sent := newTally()
	as := func(ua, name, method, path, body string, hdr ...string) reply {
		t.Helper()
		r := call(t, method, base+path, body, append([]string{"User-Agent", ua}, hdr...)...)
		sent.add(t, name, r)
		return r
	}

	// Claude-User: a session, a search in it, a page refused (only the
	// capabilities are open to agents here), the session deleted, which
	// seals its artifact.
	r := as(uaClaudeUser, "Claude-User", "POST", sessPath, `{"agent_name":"test-agent","agent_version":"1.2","purpose":"buy a mug"}`)
	token, _ := r.data()["session_token"].(string)
	id, _ := r.data()["session_id"].(string)
	if r.status != http.StatusCreated || token == "" {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	hs := []string{"X-Agent-Session", token}
	as(uaClaudeUser, "Claude-User", "GET", api+"search?q=mug", "", hs...)
	if r := as(uaClaudeUser, "Claude-User", "GET", "/about", ""); r.status != http.StatusForbidden {
		t.Fatalf("/about: %d", r.status)
	}
	if r := as(uaClaudeUser, "Claude-User", "DELETE", sessPath, "", hs...); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	artifact(t, base, id) // sealed; reading it seals nothing more

	// A browser passes, counted apart from the agents.
	if r := call(t, "GET", base+"/about", "", "User-Agent", uaChrome); r.status == http.StatusForbidden || r.status == http.StatusTooManyRequests {
		t.Fatalf("a browser: %d", r.status)
	}

	// GPTBot searches until the site's limit (12 a minute, per client
	// address: Claude-User's requests count too) refuses it.
	limited := 0
	for i := 0; i < 12; i++ {
		if r := as(uaGPTBot, "GPTBot", "GET", api+"search?q=bowl", ""); r.status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("no request was rate-limited")
	}
	s := reportJSON(t, rep)
	sent.check(t, s)
	if s.SessionsOpened != 1 || s.ArtifactsSealed != 1 || s.Passed != 1 {
		t.Errorf("sessions opened %d, artifacts sealed %d, passed %d; want 1, 1, 1", s.SessionsOpened, s.ArtifactsSealed, s.Passed)
	}
	if h := hooked.Load(); h != s.Total.Requests+s.Passed {
		t.Errorf("WithOnDecision's hook heard %d decisions, the report %d", h, s.Total.Requests+s.Passed)
	}

	// After a Reload, the same report: a session that expires is sealed
	// when its artifact is asked for, and counted once.
	if err := m.Reload(site); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute) // the limit's bucket refills
	r = as(uaClaudeUser, "Claude-User", "POST", sessPath, `{"agent_name":"test-agent"}`)
	id, _ = r.data()["session_id"].(string)
	if r.status != http.StatusCreated {
		t.Fatalf("create after the reload: %d %s", r.status, r.raw)
	}
	clock.Advance(2 * time.Hour) // past the TTL (3600 s)
	artifact(t, base, id)
	artifact(t, base, id)
	s = reportJSON(t, rep)
	sent.check(t, s)
	if s.SessionsOpened != 2 || s.ArtifactsSealed != 2 {
		t.Errorf("after the reload: sessions opened %d, artifacts sealed %d; want 2, 2", s.SessionsOpened, s.ArtifactsSealed)
	}

	// A session whose log was left unsealed (a replica reaped it and
	// stopped before sealing: gone from the store, its log active) is
	// sealed by the audit endpoint past its deadline, and counted.
	r = as(uaClaudeUser, "Claude-User", "POST", sessPath, `{"agent_name":"test-agent"}`)
	token, _ = r.data()["session_token"].(string)
	id, _ = r.data()["session_id"].(string)
	if _, err := sessions.Delete(context.Background(), sessionmgr.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour)
	artifact(t, base, id)
	s = reportJSON(t, rep)
	sent.check(t, s)
	if s.SessionsOpened != 3 || s.ArtifactsSealed != 3 {
		t.Errorf("an orphaned log: sessions opened %d, artifacts sealed %d; want 3, 3", s.SessionsOpened, s.ArtifactsSealed)
	}
}

// TestReportShadow: a shadow declaration decides every request again and
// feeds no report: the counts are the enforced declaration's, once each.
func TestReportShadow(t *testing.T) {
	rep := report.New(report.Options{})
	site := acme()
	candidate := acme()
	candidate.RateLimit = config.PerMinute(1) // would refuse most of what is sent
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		agentready.WithAudit(testAuditKey, nil), agentready.WithImplicitAccess(agentready.ImplicitAllAgents),
		agentready.WithReport(rep), agentready.WithShadow(candidate, nil), agentready.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	defer srv.Close()
	sent := newTally()
	for i := 0; i < 5; i++ {
		sent.add(t, "GPTBot", call(t, "GET", srv.URL+api+"search?q=mug", "", "User-Agent", uaGPTBot))
	}
	sent.add(t, "GPTBot", call(t, "GET", srv.URL+"/about", "", "User-Agent", uaGPTBot))
	tok, _ := createSession(t, srv.URL, uaClaudeUser)
	sent.allowed["Claude-User"]++
	sent.add(t, "Claude-User", call(t, "DELETE", srv.URL+sessPath, "", "User-Agent", uaClaudeUser, "X-Agent-Session", tok))
	s := reportJSON(t, rep)
	sent.check(t, s)
	if s.SessionsOpened != 1 || s.ArtifactsSealed != 1 {
		t.Errorf("sessions opened %d, artifacts sealed %d; want 1, 1", s.SessionsOpened, s.ArtifactsSealed)
	}
	if _, err := agentready.New(site, agentready.WithReport(nil)); err == nil {
		t.Error("WithReport(nil) accepted")
	}
}

// reportJSON reads what rep serves as JSON, as a site's tooling does.
func reportJSON(t *testing.T, rep *report.Report) reportview.Snapshot {
	t.Helper()
	w := httptest.NewRecorder()
	rep.ServeHTTP(w, httptest.NewRequest("GET", "/report.json", nil))
	var s reportview.Snapshot
	if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
		t.Fatalf("the report's JSON: %v", err)
	}
	return s
}
