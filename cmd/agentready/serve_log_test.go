package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
)

// syncBuffer is a bytes.Buffer safe for the goroutines that log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logRecords are the JSON lines of b whose msg is msg.
func logRecords(t *testing.T, b *syncBuffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

const uaChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

func serveGet(h http.Handler, path, ua string, kv ...string) int {
	r := httptest.NewRequest("GET", "http://shop.example"+path, nil)
	r.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(kv); i += 2 {
		r.Header.Set(kv[i], kv[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// TestServeDecisionLog: a denial is one structured line (JSON here) with
// the outcome, the status, the rule and who was refused; allowed requests
// are logged only with -log-decisions all, nothing with none; past
// -log-rate the lines are dropped and their count reported.
func TestServeDecisionLog(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	front := func(which string, rate int) (*proxy, *syncBuffer) {
		var b syncBuffer
		l, _ := newLogger(&b, "json")
		p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, log: l, logDecisions: which, logRate: rate, logInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.close)
		return p, &b
	}
	p, logs := front("", 0) // the defaults: denials, 10 a second
	serveGet(p.handler, "/admin/users", gptBot)
	serveGet(p.handler, "/products", gptBot)
	serveGet(p.handler, "/admin/users", uaChrome)
	lines := logRecords(t, logs, "agentready: decision")
	if len(lines) != 1 {
		t.Fatalf("%d decision lines, want the denial's:\n%s", len(lines), logs.String())
	}
	want := map[string]any{"level": "INFO", "outcome": "deny-path", "status": 403.0, "method": "GET", "path": "/admin/users",
		"client": "192.0.2.1", "class": "declared", "grade": "claimed", "agent": "GPTBot", "purpose": "training-crawler", "policy": "GPTBot", "rule": "Disallow: /admin/*"}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("%s = %v, want %v: %v", k, lines[0][k], v, lines[0])
		}
	}

	p, logs = front("all", 0)
	serveGet(p.handler, "/products", gptBot)
	serveGet(p.handler, "/products", uaChrome)
	if got := logRecords(t, logs, "agentready: decision"); len(got) != 2 || got[0]["outcome"] != "allow" || got[1]["outcome"] != "pass" || got[1]["class"] != "browser" {
		t.Errorf("-log-decisions all: %v", got)
	}

	p, logs = front("none", 0)
	serveGet(p.handler, "/admin/users", gptBot)
	if got := logRecords(t, logs, "agentready: decision"); len(got) != 0 {
		t.Errorf("-log-decisions none: %v", got)
	}

	// Each line says the grade, one of three whatever the Decision holds,
	// and the purpose unless it is unknown.
	var gb syncBuffer
	gl, _ := newLogger(&gb, "json")
	gdl, err := newDecisionLog(gl, "all", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []enforce.Decision{
		{Outcome: enforce.Allow, Grade: enforce.GradeProven, Class: enforce.Class{Kind: enforce.KindKnown, Name: "Discordbot", Purpose: enforce.PurposeUserAgent}},
		{Outcome: enforce.DenyPath, Grade: enforce.GradeClaimed, Class: enforce.Class{Kind: enforce.KindDeclared, Name: "GPTBot", Purpose: enforce.PurposeTrainingCrawler}},
		{Outcome: enforce.DenyRate, Grade: enforce.GradeAnonymous, Class: enforce.Class{Kind: enforce.KindUnknown, Purpose: enforce.PurposeUnknown}},
		{Outcome: enforce.Pass, Class: enforce.Class{Kind: enforce.KindBrowser}},
		{Outcome: enforce.DenyPath, Grade: "made-up", Class: enforce.Class{Kind: enforce.KindUnknown}},
	} {
		gdl.observe(d)
	}
	got := logRecords(t, &gb, "agentready: decision")
	wantGrades := []string{"proven", "claimed", "anonymous", "anonymous", "anonymous"}
	wantPurposes := []any{"user-agent", "training-crawler", nil, nil, nil}
	if len(got) != len(wantGrades) {
		t.Fatalf("%d lines, want %d", len(got), len(wantGrades))
	}
	for i, line := range got {
		if line["grade"] != wantGrades[i] || line["purpose"] != wantPurposes[i] {
			t.Errorf("line %d: grade %v purpose %v, want %s %v: %v", i, line["grade"], line["purpose"], wantGrades[i], wantPurposes[i], line)
		}
	}

	// A flood: 3 lines a second at most, the rest counted.
	var b syncBuffer
	l, _ := newLogger(&b, "json")
	dl, err := newDecisionLog(l, "deny", 3)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		dl.observe(enforce.Decision{Outcome: enforce.DenyRate, Status: 429, Limit: "agent/GPTBot"})
	}
	dl.report(10 * time.Second)
	if got := logRecords(t, &b, "agentready: decision"); len(got) != 3 {
		t.Errorf("%d lines of 50 denials at -log-rate 3, want 3", len(got))
	}
	if got := logRecords(t, &b, "agentready serve: decision lines dropped over -log-rate"); len(got) != 1 || got[0]["dropped"] != 47.0 || got[0]["rate"] != "3/s" {
		t.Errorf("the dropped lines' report: %v", got)
	}
	for _, bad := range []struct {
		which string
		rate  int
	}{{"some", 10}, {"deny", 0}} {
		if _, err := newDecisionLog(l, bad.which, bad.rate); err == nil {
			t.Errorf("%q, %d accepted", bad.which, bad.rate)
		}
	}
}

// TestServeUpstreamFailureLog: an upstream that fails every request is
// logged at once, then once per interval with the count of the failures
// since, not once a request.
func TestServeUpstreamFailureLog(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	up.Close() // nothing listens there now: connection refused
	var b syncBuffer
	l, _ := newLogger(&b, "json")
	p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, log: l, logInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for range 20 {
		if code := serveGet(p.handler, "/products", uaChrome); code != http.StatusBadGateway {
			t.Fatalf("%d, want 502", code)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	var lines []map[string]any
	for time.Now().Before(deadline) {
		if lines = logRecords(t, &b, "agentready serve: the upstream failed"); len(lines) >= 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(lines) != 2 || lines[0]["count"] != 1.0 || lines[1]["count"] != 19.0 {
		t.Fatalf("the upstream's failures were logged as %v, want a line at once and one with the 19 others", lines)
	}
	if err, _ := lines[1]["err"].(string); !strings.Contains(err, "connection refused") || lines[1]["path"] != "/products" {
		t.Errorf("the count's line: %v", lines[1])
	}
}

// TestServeForwardedWarning: requests carrying X-Forwarded-For or
// Forwarded from a peer that is not a trusted proxy are warned about once;
// from a trusted one, never.
func TestServeForwardedWarning(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	for _, c := range []struct {
		name    string
		trusted []string
		want    int
	}{{"untrusted", nil, 1}, {"trusted", []string{"192.0.2.0/24"}, 0}} {
		var b syncBuffer
		l, _ := newLogger(&b, "json")
		p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, log: l, trusted: c.trusted})
		if err != nil {
			t.Fatal(err)
		}
		defer p.close()
		serveGet(p.handler, "/products", uaChrome) // httptest's peer is 192.0.2.1
		serveGet(p.handler, "/products", uaChrome, "X-Forwarded-For", "203.0.113.7")
		serveGet(p.handler, "/products", uaChrome, "Forwarded", "for=203.0.113.8")
		lines := logRecords(t, &b, "agentready serve: a request carries X-Forwarded-For from a peer that is not a trusted proxy; "+
			"its clients are counted as the peer (one rate limit for all of them) until it is named in -trusted-proxies (warned once)")
		if len(lines) != c.want || c.want == 1 && (lines[0]["peer"] != "192.0.2.1" || lines[0]["level"] != "WARN") {
			t.Errorf("%s: %v", c.name, lines)
		}
		if strings.Count(b.String(), "not a trusted proxy") != c.want {
			t.Errorf("%s: warned %d times:\n%s", c.name, strings.Count(b.String(), "not a trusted proxy"), b.String())
		}
	}
}

// TestServeMetricsRuntime: the metrics endpoint has the process's and the
// Go runtime's series beside agentready's.
func TestServeMetricsRuntime(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, metricsAddr: "x", log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	serveGet(p.handler, "/admin/users", gptBot)
	w := httptest.NewRecorder()
	p.metrics.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	for _, series := range []string{"process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
		"go_goroutines ", "go_memstats_heap_alloc_bytes ", "go_gc_duration_seconds", "agentready_decisions_total{"} {
		if !strings.Contains(w.Body.String(), "\n"+series) {
			t.Errorf("no %s series", strings.TrimSpace(series))
		}
	}
}

// TestServeLogFormat: -log-format text writes key=value lines, json JSON
// lines, anything else is a usage error.
func TestServeLogFormat(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	var b syncBuffer
	l, err := newLogger(&b, "text")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, log: l})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	serveGet(p.handler, "/admin/users", gptBot)
	if !regexp.MustCompile(`level=INFO msg="agentready: decision" outcome=deny-path status=403 method=GET path=/admin/users client=192\.0\.2\.1 class=declared grade=claimed agent=GPTBot purpose=training-crawler policy=GPTBot rule="Disallow: /admin/\*"`).MatchString(b.String()) {
		t.Errorf("the text line:\n%s", b.String())
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"serve", "-config", upstreamSite, "-upstream", up.URL, "-log-format", "yaml"}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), `-log-format "yaml": want text or json`) {
		t.Errorf("-log-format yaml: exit %d, %s", code, errOut.String())
	}
}
