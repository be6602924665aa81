package report_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/reportview"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/verify"
)

// clock is a fake Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)} }

// Decisions as the enforcer makes them.
var (
	gptProven = enforce.Decision{Outcome: enforce.Allow, Path: "/api/search", Agent: "GPTBot", Grade: enforce.GradeProven,
		Class:    enforce.Class{Kind: enforce.KindKnown, Name: "GPTBot", Purpose: enforce.PurposeTrainingCrawler},
		Identity: verify.Identity{Claimed: "GPTBot", Method: verify.IPRange, Agent: "GPTBot"}}
	claudeClaimed = enforce.Decision{Outcome: enforce.Allow, Path: "/api/search", Agent: "claude", Grade: enforce.GradeClaimed,
		Class: enforce.Class{Kind: enforce.KindDeclared, Name: "claude", Purpose: enforce.PurposeUserAgent}}
	browserPass = enforce.Decision{Outcome: enforce.Pass, Path: "/", Grade: enforce.GradeAnonymous, Class: enforce.Class{Kind: enforce.KindBrowser}}
	probe       = enforce.Decision{Outcome: enforce.Pass, Path: "/healthz", Rule: enforce.RuleProbePath, Grade: enforce.GradeAnonymous}
	preview     = enforce.Decision{Outcome: enforce.Pass, Path: "/post/1", Rule: enforce.RuleLinkPreview, Grade: enforce.GradeClaimed,
		Class: enforce.Class{Kind: enforce.KindKnown, Name: "Slackbot", Purpose: enforce.PurposeUserAgent}}
)

func with(d enforce.Decision, f func(*enforce.Decision)) enforce.Decision { f(&d); return d }

func deny(d enforce.Decision, o enforce.Outcome, status int, rule, path string) enforce.Decision {
	d.Outcome, d.Status, d.Rule, d.Path = o, status, rule, path
	return d
}

// knownTraffic is known traffic: what TestCounts, the page test and the
// example count.
func knownTraffic(r *report.Report) {
	for range 5 {
		r.Observe(gptProven)
	}
	for range 3 {
		r.Observe(claudeClaimed)
	}
	r.Observe(deny(claudeClaimed, enforce.DenyPath, 403, "Disallow: /admin/*", "/admin/users"))
	r.Observe(deny(claudeClaimed, enforce.DenyPath, 403, "Disallow: /admin/*", "/admin/keys"))
	r.Observe(deny(claudeClaimed, enforce.DenyRate, 429, "Rate-Limit: 60/minute", "/api/search"))
	r.Observe(deny(claudeClaimed, enforce.DenyRate, 429, "Rate-Limit: 60/minute", "/api/search"))
	// A claim of GPTBot that failed: required, refused (no rule: the
	// outcome's name stands for it).
	r.Observe(with(deny(gptProven, enforce.DenyIdentity, 403, "", "/api/search"), func(d *enforce.Decision) {
		d.Grade, d.Identity = enforce.GradeClaimed, verify.Identity{Claimed: "GPTBot", Reason: "unproven"}
	}))
	// Report-only: a denial not applied.
	r.Observe(with(deny(claudeClaimed, enforce.DenyPath, 403, "Disallow: /admin/*", "/admin/users"), func(d *enforce.Decision) { d.ReportOnly = true }))
	r.Observe(with(claudeClaimed, func(d *enforce.Decision) { d.Degraded = true }))
	r.Observe(deny(claudeClaimed, enforce.StoreError, 503, "", "/api/search"))
	// A target refused for its fault, a Host for none: no rule, the
	// outcome's name stands for it; the reason tells the fault.
	r.Observe(with(deny(claudeClaimed, enforce.DenyTarget, 400, "", "/api/%2e%2e/admin"), func(d *enforce.Decision) { d.Err = policy.ErrDotSegment }))
	r.Observe(with(deny(claudeClaimed, enforce.DenyHost, 421, "", "/api/search"), func(d *enforce.Decision) { d.Err = errors.New("misdirected") }))
	r.Observe(browserPass)
	r.Observe(browserPass)
	r.Observe(probe)
	r.Observe(preview)
	r.SessionOpened()
	r.ArtifactSealed()
	r.ArtifactSealed()
}

func TestCounts(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Now: c.now})
	knownTraffic(r)
	s := r.Snapshot()
	want := reportview.Row{Name: "total", Requests: 19, Allowed: 10, Denied: 7, RateLimited: 2, ReportOnly: 1}
	if s.Total != want {
		t.Errorf("Total = %+v, want %+v", s.Total, want)
	}
	if s.Passed != 3 || s.Degraded != 1 || s.Failures != 1 || s.SessionsOpened != 1 || s.ArtifactsSealed != 2 {
		t.Errorf("Passed %d Degraded %d Failures %d Sessions %d Artifacts %d, want 3 1 1 1 2", s.Passed, s.Degraded, s.Failures, s.SessionsOpened, s.ArtifactsSealed)
	}
	agents := []reportview.Row{
		{Name: "claude", Policy: "claude", Grade: "claimed", Purpose: "user-agent", Requests: 12, Allowed: 4, Denied: 6, RateLimited: 2, ReportOnly: 1},
		{Name: "GPTBot", Policy: "GPTBot", Grade: "proven", Purpose: "training-crawler", Requests: 5, Allowed: 5},
		{Name: "GPTBot", Policy: "GPTBot", Grade: "claimed", Purpose: "training-crawler", Requests: 1, Denied: 1},
		{Name: "Slackbot", Grade: "claimed", Purpose: "user-agent", Requests: 1, Allowed: 1},
	}
	rules := []reportview.Row{
		{Name: "Disallow: /admin/*", Policy: "claude", Grade: "claimed", Requests: 3, Denied: 3, ReportOnly: 1},
		{Name: "Rate-Limit: 60/minute", Policy: "claude", Grade: "claimed", Requests: 2, RateLimited: 2},
		{Name: "deny-host", Policy: "claude", Grade: "claimed", Requests: 1, Denied: 1},
		{Name: "deny-identity", Policy: "GPTBot", Grade: "claimed", Requests: 1, Denied: 1},
		{Name: "deny-target", Policy: "claude", Grade: "claimed", Requests: 1, Denied: 1},
		{Name: "store-error", Policy: "claude", Grade: "claimed", Requests: 1, Denied: 1},
	}
	paths := []reportview.Row{
		{Name: "/api/search", Requests: 5, Denied: 3, RateLimited: 2},
		{Name: "/admin/users", Requests: 2, Denied: 2, ReportOnly: 1},
		{Name: "/admin/keys", Requests: 1, Denied: 1},
		{Name: "/api/%2e%2e/admin", Requests: 1, Denied: 1},
	}
	refusals := []reportview.Row{
		{Name: "deny-path", Requests: 3, Denied: 3, ReportOnly: 1},
		{Name: "deny-rate", Requests: 2, RateLimited: 2},
		{Name: "deny-host", Requests: 1, Denied: 1},
		{Name: "deny-identity", Requests: 1, Denied: 1},
		{Name: "dot-segment", Requests: 1, Denied: 1},
		{Name: "store-error", Requests: 1, Denied: 1},
	}
	reasons := []reportview.Row{{Name: "unproven", Requests: 1, Denied: 1}}
	for _, tc := range []struct {
		name      string
		got, want []reportview.Row
	}{{"Agents", s.Agents, agents}, {"Refusals", s.Refusals, refusals}, {"Rules", s.Rules, rules}, {"Paths", s.Paths, paths}, {"Reasons", s.Reasons, reasons}} {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, tc.got, tc.want)
		}
	}
	checkSums(t, s)
}

// checkSums: every table's rows, "other" included, sum to its total, and
// every row's Requests to its columns.
func checkSums(t *testing.T, s report.Snapshot) {
	t.Helper()
	refused := s.Total.Denied + s.Total.RateLimited
	for _, tc := range []struct {
		name string
		rows []reportview.Row
		want int64
	}{{"Agents", s.Agents, s.Total.Requests}, {"Refusals", s.Refusals, refused}, {"Rules", s.Rules, refused}, {"Paths", s.Paths, refused}, {"Reasons", s.Reasons, s.Failures}} {
		var sum int64
		for i, w := range tc.rows {
			if w.Requests != w.Allowed+w.Denied+w.RateLimited || w.ReportOnly > w.Denied+w.RateLimited {
				t.Errorf("%s row %+v: columns do not add up", tc.name, w)
			}
			if w.Other && i != len(tc.rows)-1 {
				t.Errorf("%s: other row is not last", tc.name)
			}
			sum += w.Requests
		}
		if sum != tc.want {
			t.Errorf("%s rows sum to %d, total %d", tc.name, sum, tc.want)
		}
	}
	// The series holds every count of the window: none is before the
	// report's start.
	var requests, passed int64
	for _, p := range s.Series {
		if p.Requests != p.Allowed+p.Denied+p.RateLimited {
			t.Errorf("series point %+v: columns do not add up", p)
		}
		requests, passed = requests+p.Requests, passed+p.Passed
	}
	if requests != s.Total.Requests || passed != s.Passed {
		t.Errorf("the series sums to %d requests %d passed, totals %d %d", requests, passed, s.Total.Requests, s.Passed)
	}
}

func TestWindow(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Now: c.now}) // 1h in 60 slots of 1m
	r.Observe(gptProven)
	r.SessionOpened()
	c.add(30 * time.Minute)
	r.Observe(claudeClaimed)
	r.Observe(claudeClaimed)
	s := r.Snapshot()
	if s.Total.Requests != 3 || s.SessionsOpened != 1 {
		t.Fatalf("after 30m: %d requests %d sessions, want 3 1", s.Total.Requests, s.SessionsOpened)
	}
	// Half an hour after its start, the window starts at the start, not
	// 59 minutes back: the report claims no time before it existed.
	start := c.now().Add(-30 * time.Minute)
	if s.Window != time.Hour || s.Resolution != time.Minute || !s.To.Equal(c.now()) || !s.From.Equal(start) || !s.Started.Equal(start) || len(s.Series) != 31 {
		t.Errorf("window %v resolution %v from %v to %v started %v, %d points", s.Window, s.Resolution, s.From, s.To, s.Started, len(s.Series))
	}
	// 59 minutes on, the first slot is still the oldest of the window.
	c.add(29*time.Minute + 59*time.Second)
	if s := r.Snapshot(); s.Total.Requests != 3 {
		t.Errorf("at 59m59s: %d requests, want 3", s.Total.Requests)
	}
	// At 60 minutes its slot has left the window; the other two remain.
	c.add(time.Second)
	s = r.Snapshot()
	// A full window on, it starts 59 slots back.
	if !s.From.Equal(c.now().Add(-59*time.Minute)) || len(s.Series) != 60 || !s.Series[0].Start.Equal(s.From) {
		t.Errorf("at 60m: from %v, %d points, want %v 60", s.From, len(s.Series), c.now().Add(-59*time.Minute))
	}
	if s.Total.Requests != 2 || s.SessionsOpened != 0 || len(s.Agents) != 1 || s.Agents[0].Name != "claude" {
		t.Errorf("at 60m: %d requests %d sessions %+v, want 2 0 [claude]", s.Total.Requests, s.SessionsOpened, s.Agents)
	}
	// A slot reused 60 slots later starts empty.
	r.Observe(gptProven)
	if s := r.Snapshot(); s.Total.Requests != 3 || len(s.Agents) != 2 {
		t.Errorf("reused slot: %d requests, %d rows, want 3 2", s.Total.Requests, len(s.Agents))
	}
	// A long pause clears everything, including slots never overwritten.
	c.add(10 * time.Hour)
	s = r.Snapshot()
	if s.Total != (reportview.Row{Name: "total"}) || len(s.Agents)+len(s.Refusals)+len(s.Rules)+len(s.Paths)+len(s.Reasons)+len(s.Capabilities) != 0 || s.Agents == nil || s.Capabilities == nil {
		t.Errorf("after a pause: %+v", s)
	}
	// A clock that goes back does not show counts from its future.
	r.Observe(gptProven)
	c.add(-2 * time.Hour)
	if s := r.Snapshot(); s.Total.Requests != 0 {
		t.Errorf("clock back 2h: %d requests, want 0", s.Total.Requests)
	}
	// Back before the report's start: an empty series, and the window
	// from the start.
	c.add(-10 * time.Hour)
	if s := r.Snapshot(); s.Series == nil || len(s.Series) != 0 || !s.From.Equal(start) {
		t.Errorf("clock before the start: %d points, from %v", len(s.Series), s.From)
	}
}

func TestOptionsDefaults(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Window: time.Second, Now: c.now}) // slots of a millisecond at least
	if s := r.Snapshot(); s.Resolution != time.Second/60 || s.Window != 60*(time.Second/60) {
		t.Errorf("Window 1s: resolution %v window %v", s.Resolution, s.Window)
	}
	r = report.New(report.Options{Window: time.Millisecond, Now: c.now})
	if s := r.Snapshot(); s.Resolution != time.Millisecond || s.Window != 60*time.Millisecond {
		t.Errorf("Window 1ms: resolution %v window %v", s.Resolution, s.Window)
	}
}

// TestTopN: Rows rows, then "other" with the rest, summing exactly; ties
// in name order.
func TestTopN(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Rows: 3, Now: c.now})
	for i := range 10 {
		for range 10 - i/2 { // a0 a1 10 each, a2 a3 9, ...
			r.Observe(with(claudeClaimed, func(d *enforce.Decision) { d.Class.Name = fmt.Sprintf("a%d", i) }))
		}
		c.add(7 * time.Minute) // spread over slots
	}
	s := r.Snapshot()
	if len(s.Agents) != 4 {
		t.Fatalf("%d rows, want 3 and other: %+v", len(s.Agents), s.Agents)
	}
	// 70 minutes on, the window (1h) has lost a0's and a1's slots; a2 a3
	// a4 lead.
	got := fmt.Sprintln(s.Agents[0].Name, s.Agents[0].Requests, s.Agents[1].Name, s.Agents[2].Name, s.Agents[3].Other, s.Agents[3].Name)
	if got != "a2 9 a3 a4 true other\n" {
		t.Errorf("rows: %s", got)
	}
	checkSums(t, s)
}

// TestToolsTable: tools/call decisions are counted by CAPABILITY/TOOL,
// allowed, denied and rate-limited, beside the agent rows they also
// count in; a request naming no declared tool is in no tool row.
func TestToolsTable(t *testing.T) {
	r := report.New(report.Options{Now: newClock().now})
	call := func(tool string) enforce.Decision {
		return with(claudeClaimed, func(d *enforce.Decision) { d.Path, d.Capability, d.Tool = "/mcp", "store", tool })
	}
	r.Observe(call("search"))
	r.Observe(call("search"))
	r.Observe(deny(call("checkout"), enforce.DenyRate, 429, "Rate-Limit: 2/minute", "/mcp"))
	r.Observe(deny(call("checkout"), enforce.DenyCapability, 403, "Agent: claude / Capabilities: store/search", "/mcp"))
	r.Observe(with(claudeClaimed, func(d *enforce.Decision) { d.Path, d.Capability = "/mcp", "store" })) // tools/list
	s := r.Snapshot()
	rows := map[string]struct{ Allowed, Denied, RateLimited int64 }{}
	for _, w := range s.Tools {
		rows[w.Name] = struct{ Allowed, Denied, RateLimited int64 }{w.Allowed, w.Denied, w.RateLimited}
	}
	if len(s.Tools) != 2 || rows["store/search"].Allowed != 2 || rows["store/checkout"].Denied != 1 ||
		rows["store/checkout"].RateLimited != 1 || s.Total.Requests != 5 {
		t.Errorf("tools %+v, total %+v", s.Tools, s.Total)
	}
	// The capabilities table counts every request to one, tools/list
	// too; a request to none is in no row.
	r.Observe(with(claudeClaimed, func(d *enforce.Decision) { d.Capability = "catalog" }))
	r.Observe(claudeClaimed)
	s = r.Snapshot()
	want := []reportview.Row{
		{Name: "store", Requests: 5, Allowed: 3, Denied: 1, RateLimited: 1},
		{Name: "catalog", Requests: 1, Allowed: 1},
	}
	if fmt.Sprint(s.Capabilities) != fmt.Sprint(want) || s.Total.Requests != 7 {
		t.Errorf("capabilities %+v, want %+v; total %+v", s.Capabilities, want, s.Total)
	}
}

// TestRulesNeverMerged: one rule's text refusing two policies, or one
// policy at two grades, or through two limits, is a row each; the rows
// still sum to the refusals.
func TestRulesNeverMerged(t *testing.T) {
	r := report.New(report.Options{Now: newClock().now})
	limited := func(d enforce.Decision, limit string) enforce.Decision {
		d = deny(d, enforce.DenyRate, 429, "Rate-Limit: 5/minute", "/api/search")
		d.Limit = limit
		return d
	}
	gpt := with(gptProven, func(d *enforce.Decision) { d.Agent = "GPTBot" })
	claude := with(claudeClaimed, func(d *enforce.Decision) { d.Agent, d.Class.Name = "ClaudeBot", "ClaudeBot" })
	for range 3 {
		r.Observe(limited(gpt, "agent/GPTBot/proven"))
	}
	for range 2 {
		r.Observe(limited(claude, "agent/ClaudeBot"))
	}
	r.Observe(limited(claude, "site"))
	r.Observe(limited(with(gpt, func(d *enforce.Decision) { d.Grade = enforce.GradeClaimed }), "agent/GPTBot"))
	s := r.Snapshot()
	want := []reportview.Row{
		{Name: "Rate-Limit: 5/minute", Policy: "GPTBot", Grade: "proven", Limit: "agent/GPTBot/proven", Requests: 3, RateLimited: 3},
		{Name: "Rate-Limit: 5/minute", Policy: "ClaudeBot", Grade: "claimed", Limit: "agent/ClaudeBot", Requests: 2, RateLimited: 2},
		{Name: "Rate-Limit: 5/minute", Policy: "ClaudeBot", Grade: "claimed", Limit: "site", Requests: 1, RateLimited: 1},
		{Name: "Rate-Limit: 5/minute", Policy: "GPTBot", Grade: "claimed", Limit: "agent/GPTBot", Requests: 1, RateLimited: 1},
	}
	if fmt.Sprint(s.Rules) != fmt.Sprint(want) {
		t.Errorf("rules:\n got %+v\nwant %+v", s.Rules, want)
	}
	checkSums(t, s)
	// With room for one row, the rest is "other", still summing.
	r = report.New(report.Options{Rows: 1, Now: newClock().now})
	r.Observe(limited(gpt, "agent/GPTBot"))
	r.Observe(limited(claude, "agent/ClaudeBot"))
	r.Observe(limited(claude, "agent/ClaudeBot"))
	s = r.Snapshot()
	if len(s.Rules) != 2 || s.Rules[0].Policy != "ClaudeBot" || !s.Rules[1].Other || s.Rules[1].Requests != 1 {
		t.Errorf("rules of one row: %+v", s.Rules)
	}
	checkSums(t, s)
}

// TestSeries: the window slot by slot, from the report's start.
func TestSeries(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Now: c.now})
	r.Observe(gptProven)
	r.Observe(browserPass)
	c.add(2 * time.Minute)
	r.Observe(deny(claudeClaimed, enforce.DenyPath, 403, "Disallow: /admin/*", "/admin"))
	r.Observe(deny(claudeClaimed, enforce.DenyRate, 429, "Rate-Limit: 60/minute", "/api"))
	c.add(30 * time.Second)
	s := r.Snapshot()
	want := []reportview.Point{
		{Start: s.Started, Requests: 1, Allowed: 1, Passed: 1},
		{Start: s.Started.Add(time.Minute)},
		{Start: s.Started.Add(2 * time.Minute), Requests: 2, Denied: 1, RateLimited: 1},
	}
	if fmt.Sprint(s.Series) != fmt.Sprint(want) {
		t.Errorf("series:\n got %+v\nwant %+v", s.Series, want)
	}
	checkSums(t, s)
}
