package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// scrape is the text of -metrics' endpoint of p.
func scrape(t *testing.T, p *proxy) string {
	t.Helper()
	w := httptest.NewRecorder()
	p.metrics.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	return w.Body.String()
}

// TestServeUpstreamMetrics: -metrics counts the upstream's requests by
// result, its errors by kind (a refused dial, a response later than
// -upstream-timeout, a connection closed under the request), and its
// latency; every series is there from the start at 0.
func TestServeUpstreamMetrics(t *testing.T) {
	hold := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fail":
			w.WriteHeader(500)
		case "/slow":
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		case "/reset":
			c, _, _ := w.(http.Hijacker).Hijack()
			c.(*net.TCPConn).SetLinger(0) // an RST, not a FIN
			c.Close()
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer up.Close()
	defer close(hold)
	front := func(upstream string) (*proxy, *httptest.Server) {
		var logs syncBuffer
		l, _ := newLogger(&logs, "json")
		p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: upstream, metricsAddr: "127.0.0.1:0", log: l,
			upstreamTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.close)
		srv := httptest.NewServer(p.handler)
		t.Cleanup(srv.Close)
		return p, srv
	}
	p, srv := front(up.URL)
	text := scrape(t, p)
	for _, series := range []string{`agentready_upstream_requests_total{result="error"} 0`, `agentready_upstream_errors_total{kind="dial"} 0`,
		`agentready_upstream_duration_seconds_count 0`, `agentready_reloads_total{result="failed"} 0`, "agentready_last_reload_success_timestamp_seconds "} {
		if !strings.Contains(text, series) {
			t.Errorf("at start, no %s", series)
		}
	}
	get := func(srv *httptest.Server, path string) int {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("User-Agent", uaChrome)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for path, want := range map[string]int{"/": 200, "/products": 200, "/fail": 500, "/slow": 502, "/reset": 502} {
		if got := get(srv, path); got != want {
			t.Errorf("%s: %d, want %d", path, got, want)
		}
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	p2, srv2 := front("http://" + closed)
	if got := get(srv2, "/"); got != 502 {
		t.Errorf("a refused dial: %d", got)
	}
	text = scrape(t, p)
	for _, series := range []string{`agentready_upstream_requests_total{result="2xx"} 2`, `agentready_upstream_requests_total{result="5xx"} 1`,
		`agentready_upstream_requests_total{result="error"} 2`, `agentready_upstream_errors_total{kind="timeout"} 1`,
		`agentready_upstream_errors_total{kind="reset"} 1`, `agentready_upstream_errors_total{kind="dial"} 0`,
		`agentready_upstream_duration_seconds_count 3`} {
		if !strings.Contains(text, series+"\n") {
			t.Errorf("no %s in\n%s", series, grepLines(text, "agentready_upstream_"))
		}
	}
	if text := scrape(t, p2); !strings.Contains(text, `agentready_upstream_errors_total{kind="dial"} 1`+"\n") {
		t.Errorf("the refused dial:\n%s", grepLines(text, "agentready_upstream_errors"))
	}
}

// TestServeReloadMetrics: each reload is counted by its result, and the
// time of the last good one moves only on a good one.
func TestServeReloadMetrics(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	good, err := os.ReadFile(upstreamSite)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "site.yaml")
	os.WriteFile(file, good, 0o600)
	var logs syncBuffer
	c := proxyConfig{configFile: file, upstream: up.URL, metricsAddr: "127.0.0.1:0"}
	c.log, _ = newLogger(&logs, "json")
	p, err := newProxy(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	started := testutil.ToFloat64(p.sm.lastReload)
	if started <= 0 {
		t.Fatalf("the last good load at start: %v", started)
	}
	reload := reloadAll(c, p, nil) // what SIGHUP runs
	os.WriteFile(file, []byte("site: [unclosed\n"), 0o600)
	reload()
	if got := testutil.ToFloat64(p.sm.lastReload); got != started {
		t.Errorf("a failed reload moved the last good one: %v to %v", started, got)
	}
	os.WriteFile(file, good, 0o600)
	reload()
	reload()
	text := scrape(t, p)
	for _, series := range []string{`agentready_reloads_total{result="ok"} 2`, `agentready_reloads_total{result="failed"} 1`} {
		if !strings.Contains(text, series+"\n") {
			t.Errorf("no %s in\n%s", series, grepLines(text, "agentready_reload"))
		}
	}
	if got := testutil.ToFloat64(p.sm.lastReload); got < started {
		t.Errorf("the last good reload %v is before the start %v", got, started)
	}
}

// grepLines are the lines of text that start with prefix.
func grepLines(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
