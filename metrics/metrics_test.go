package metrics_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/metrics"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/verify"
)

// TestMetrics: decisions are counted by outcome, class, policy and
// capability; documents by status, 304s included; and however many
// User-Agents and paths a client makes up, the number of series stays
// bounded by the declaration.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	mx, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	store, _ := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
	f, _ := ratelimit.NewFailover(store, ratelimit.FailoverConfig{})
	if err := mx.WatchStore(f); err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithOnDecision(mx.Observe), agentready.WithStore(f),
		agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	h := mx.Documents(m.Handler(ok), m)
	get := func(path, ua string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("User-Agent", ua)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	get("/api/search?q=tent", "claude/1.0")
	get("/admin/x", "claude/1.0")
	// Whatever grade the claim gets (TestGradeLabel tests the label).
	if n := decisions(mx, "allow", "declared", "claude", "product-search", "none"); n != 1 {
		t.Errorf("allowed claude search: %v", n)
	}
	if n := decisions(mx, "deny-path", "declared", "claude", "", "none"); n != 1 {
		t.Errorf("denied claude admin: %v", n)
	}
	w := get("/.well-known/agents.txt", "claude/1.0")
	get("/.well-known/agents.txt", "claude/1.0", "If-None-Match", w.Header().Get("ETag"))
	if n := testutil.ToFloat64(mx.DocumentsCounter().WithLabelValues("/.well-known/agents.txt", "304")); n != 1 {
		t.Errorf("304s: %v", n)
	}
	before, err := testutil.GatherAndCount(reg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		get(fmt.Sprintf("/x%d?y=%d", i, i), fmt.Sprintf("Bot%d/%d.0", i, i))
		get(fmt.Sprintf("/api/search?q=%d", i), fmt.Sprintf("Mozilla/5.0 (compatible; Made-Up-%d/1.0)", i))
	}
	after, _ := testutil.GatherAndCount(reg)
	if after-before > 6 {
		t.Errorf("series grew from %d to %d with made-up clients: labels come from requests", before, after)
	}
	if n := testutil.ToFloat64(prometheus.Collector(mustGauge(t, reg))); n != 0 {
		t.Errorf("store_degraded = %v with a healthy store", n)
	}
}

// decisions sums agentready_decisions_total over the grades.
func decisions(mx *metrics.Metrics, labels ...string) float64 {
	var n float64
	for _, g := range []string{enforce.GradeProven, enforce.GradeClaimed, enforce.GradeAnonymous} {
		n += testutil.ToFloat64(mx.Decisions().WithLabelValues(append(labels, g)...))
	}
	return n
}

// TestGradeLabel: decisions are counted by grade, and a grade outside the
// three (none, or one a hook made up) counts as anonymous: the label has
// at most three values.
func TestGradeLabel(t *testing.T) {
	reg := prometheus.NewRegistry()
	mx, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	d := enforce.Decision{Outcome: enforce.Allow, Class: enforce.Class{Kind: enforce.KindDeclared}, Agent: "GPTBot"}
	for _, g := range []string{enforce.GradeProven, enforce.GradeProven, enforce.GradeClaimed, enforce.GradeAnonymous, ""} {
		d.Grade = g
		mx.Observe(d)
	}
	for i := range 300 {
		d.Grade = fmt.Sprintf("grade-%d", i)
		mx.Observe(d)
	}
	for g, want := range map[string]float64{enforce.GradeProven: 2, enforce.GradeClaimed: 1, enforce.GradeAnonymous: 302} {
		if n := testutil.ToFloat64(mx.Decisions().WithLabelValues("allow", "declared", "GPTBot", "", "none", g)); n != want {
			t.Errorf("grade %s: %v, want %v", g, n, want)
		}
	}
	if n := testutil.CollectAndCount(mx.Decisions(), "agentready_decisions_total"); n != 3 {
		t.Errorf("%d series, want one a grade", n)
	}
}

func mustGauge(t *testing.T, reg *prometheus.Registry) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "agentready_store_degraded" {
			return gaugeOf(mf.GetMetric()[0].GetGauge().GetValue())
		}
	}
	t.Fatal("no agentready_store_degraded")
	return nil
}

func gaugeOf(v float64) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x"})
	g.Set(v)
	return g
}

// TestDocumentsAfterReload: documents a Reload adds are counted, and those
// it removes no longer are.
func TestDocumentsAfterReload(t *testing.T) {
	mx, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	h := mx.Documents(m.Handler(http.NotFoundHandler()), m) // wrapped before the reload
	// The MCP server card of the capability the reload adds.
	const added = "/tools/mcp/server-card"
	if m.ServesDocument(added) {
		t.Fatalf("%s is served before the reload", added)
	}
	next := fixtures.OutdoorSupply()
	next.Capabilities = append(next.Capabilities, config.Capability{ID: "tools", Description: "Tools over MCP",
		Endpoint: "https://outdoorsupply.example/tools/mcp", Protocol: config.ProtocolMCP})
	if err := m.Reload(next); err != nil {
		t.Fatal(err)
	}
	if !m.ServesDocument(added) {
		t.Fatalf("the reload added no document at %s", added)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", added, nil))
	if n := testutil.ToFloat64(mx.DocumentsCounter().WithLabelValues(added, "200")); n != 1 {
		t.Errorf("%s, added by the reload: counted %v times", added, n)
	}
}

// TestVerificationFailures: a refused claim is counted by policy and reason,
// so a replay or an over-long signature is told apart from a forgery.
func TestVerificationFailures(t *testing.T) {
	reg := prometheus.NewRegistry()
	mx, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{"replayed-nonce", "lifetime-exceeds-policy", "bad-signature", "bad-signature"} {
		mx.Observe(enforce.Decision{Outcome: enforce.DenyIdentity, Agent: "claude",
			Identity: verify.Identity{Claimed: "claude", Reason: reason}})
	}
	mx.Observe(enforce.Decision{Outcome: enforce.Allow, Agent: "claude", Identity: verify.Identity{Claimed: "claude", Method: verify.Signature}})
	want := `
# HELP agentready_verification_failures_total Claims to a verified-only policy that were not proven, by policy and reason (replayed-nonce, lifetime-exceeds-policy, bad-signature, unavailable, ...).
# TYPE agentready_verification_failures_total counter
agentready_verification_failures_total{policy="claude",reason="bad-signature"} 2
agentready_verification_failures_total{policy="claude",reason="lifetime-exceeds-policy"} 1
agentready_verification_failures_total{policy="claude",reason="replayed-nonce"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "agentready_verification_failures_total"); err != nil {
		t.Error(err)
	}
}

// TestRefusals: every refusal is counted by outcome and reason: a refused
// target by its fault, through the Middleware and from a hook's own
// Decisions (a code the enforcer gains later counts under its own name,
// an error that names none as other), every other refusal by its
// outcome; allowed and passed requests are not refusals. However many
// hostile targets clients make up, the reasons stay the enforcer's.
func TestRefusals(t *testing.T) {
	reg := prometheus.NewRegistry()
	mx, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithOnDecision(mx.Observe),
		agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	get := func(target string) {
		r := httptest.NewRequest("GET", target, nil)
		r.Header.Set("User-Agent", "claude/1.0")
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	for _, target := range []string{"/api/search?q=tent", "/admin/x", "/api/%2e%2e/admin/x", "/api/a%2Fb", "/api//search", "/api/x%5Cy"} {
		get(target)
	}
	for i := range 200 {
		get(fmt.Sprintf("/api/%d/%%2e%%2e/x", i))
		get(fmt.Sprintf("/api/x%d//y", i))
	}
	mx.Observe(enforce.Decision{Outcome: enforce.DenyHost, Err: errors.New("the Host names no host of the site")})
	mx.Observe(enforce.Decision{Outcome: enforce.DenyBody, Err: &policy.TargetError{Code: "form-too-large"}})
	mx.Observe(enforce.Decision{Outcome: enforce.DenyTarget, Err: &policy.TargetError{Code: "bad-escape"}, ReportOnly: true})
	mx.Observe(enforce.Decision{Outcome: enforce.DenyBody, Err: errors.New("the request body is larger than the capability's body limit")})
	mx.Observe(enforce.Decision{Outcome: enforce.DenyTarget, Err: &policy.TargetError{Code: "/made/up path"}})
	mx.Observe(enforce.Decision{Outcome: enforce.Pass})
	want := `
# HELP agentready_refusals_total Agent requests refused (report-only ones included), by outcome and reason: a refused target's or body's fault (dot-segment, encoded-slash, bad-override, ...; other when it names none), else the outcome.
# TYPE agentready_refusals_total counter
agentready_refusals_total{outcome="deny-body",reason="form-too-large"} 1
agentready_refusals_total{outcome="deny-body",reason="other"} 1
agentready_refusals_total{outcome="deny-host",reason="deny-host"} 1
agentready_refusals_total{outcome="deny-path",reason="deny-path"} 1
agentready_refusals_total{outcome="deny-target",reason="backslash"} 1
agentready_refusals_total{outcome="deny-target",reason="bad-escape"} 1
agentready_refusals_total{outcome="deny-target",reason="dot-segment"} 201
agentready_refusals_total{outcome="deny-target",reason="empty-segment"} 201
agentready_refusals_total{outcome="deny-target",reason="encoded-slash"} 1
agentready_refusals_total{outcome="deny-target",reason="other"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "agentready_refusals_total"); err != nil {
		t.Error(err)
	}
}

// TestToolCalls: a tools/call to a declared tool is counted by policy,
// capability and tool; calls of made-up tool names add no series.
func TestToolCalls(t *testing.T) {
	reg := prometheus.NewRegistry()
	mx, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(fixtures.MCPStore(), agentready.WithOnDecision(mx.Observe),
		agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	call := func(ua, tool string) int {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `"}}`
		r := httptest.NewRequest(http.MethodPost, "https://shop.example/mcp", strings.NewReader(body))
		r.Header.Set("User-Agent", ua)
		r.Header.Set("Authorization", "Bearer t")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if c := call("ClaudeBot/1.0", "search_products"); c != http.StatusOK {
		t.Fatalf("ClaudeBot's search: %d", c)
	}
	if c := call("GPTBot/1.0", "checkout"); c != http.StatusForbidden {
		t.Fatalf("GPTBot's checkout: %d", c)
	}
	want := "agentready_tool_calls_total"
	got, err := testutil.GatherAndCount(reg, want)
	if err != nil || got != 2 {
		t.Fatalf("%s has %d series (%v), want 2: ClaudeBot's search, GPTBot's refused checkout", want, got, err)
	}
	for i := range 100 {
		call("ClaudeBot/1.0", fmt.Sprintf("made_up_%d", i))
	}
	if got, _ := testutil.GatherAndCount(reg, want); got != 2 {
		t.Errorf("made-up tool names grew %s to %d series: its labels come from requests", want, got)
	}
}
