package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServeProxy: agentready in front of a real upstream serves the
// documents itself, enforces the declaration file (a Disallow never
// reaches the upstream), proxies the rest, and tells the upstream only the
// client address it derived.
func TestServeProxy(t *testing.T) {
	var mu sync.Mutex
	var seen []*http.Request
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Clone(r.Context()))
		mu.Unlock()
		w.Write([]byte("upstream " + r.URL.Path))
	}))
	defer upstream.Close()
	p, err := newProxy(proxyConfig{configFile: "../../examples/stdlib/site.yaml", upstream: upstream.URL, metricsAddr: "x",
		robots: true, log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	front := httptest.NewServer(p.handler)
	defer front.Close()
	get := func(path, ua string, hdr ...string) (int, string) {
		t.Helper()
		r, _ := http.NewRequest("GET", front.URL+path, nil)
		r.Header.Set("User-Agent", ua)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	if code, body := get("/.well-known/agents.txt", "claude/1.0"); code != 200 || !strings.Contains(body, "Site-Name: Outdoor Supply Co.") {
		t.Errorf("agents.txt: %d %s", code, body)
	}
	if code, body := get("/robots.txt", "claude/1.0"); code != 200 || !strings.Contains(body, "Content-Usage: train-ai=n, search=y") {
		t.Errorf("robots.txt: %d %s", code, body)
	}
	if code, _ := get("/admin/users", "claude/1.0"); code != http.StatusForbidden {
		t.Errorf("a Disallowed path: %d", code)
	}
	if code, body := get("/admin/users", chrome, "X-Forwarded-For", "6.6.6.6"); code != 200 || body != "upstream /admin/users" {
		t.Errorf("a browser: %d %s", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("the upstream saw %d requests, want 1 (the browser's)", len(seen))
	}
	if xff := seen[0].Header.Get("X-Forwarded-For"); xff != "127.0.0.1" {
		t.Errorf("the upstream saw X-Forwarded-For %q, want the derived client address only", xff)
	}
	rec := httptest.NewRecorder()
	p.metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `agentready_decisions_total{capability="",class="declared",outcome="deny-path",policy="claude",verified="none"} 1`) {
		t.Errorf("metrics:\n%s", rec.Body.String())
	}
}

// TestServeRefusesABadFile: a declaration file with problems is refused
// with them.
func TestServeRefusesABadFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "site.yaml")
	os.WriteFile(f, []byte("name: x\nurl: https://x.example\nrateLimit: 1/minute\n"), 0o644)
	if _, err := newProxy(proxyConfig{configFile: f, upstream: "http://127.0.0.1:1", log: slog.New(slog.NewTextHandler(io.Discard, nil))}); err == nil ||
		!strings.Contains(err.Error(), `:3: unknown key "rateLimit"`) {
		t.Errorf("%v", err)
	}
	if _, err := newProxy(proxyConfig{configFile: f, upstream: "ftp://x"}); err == nil {
		t.Error("an ftp upstream accepted")
	}
}

// TestServeReload: the proxy reloads its declaration file on a signal and
// when the file changes; a broken file leaves the running one serving.
func TestServeReload(t *testing.T) {
	src, err := os.ReadFile("../../examples/stdlib/site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "site.yaml")
	os.WriteFile(file, src, 0o644)
	upstream := httptest.NewServer(http.NotFoundHandler())
	defer upstream.Close()
	p, err := newProxy(proxyConfig{configFile: file, upstream: upstream.URL, log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	agentsTxt := func() string {
		w := httptest.NewRecorder()
		p.handler.ServeHTTP(w, httptest.NewRequest("GET", "/.well-known/agents.txt", nil))
		return w.Body.String()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hup := make(chan os.Signal, 1)
	reloaded := make(chan struct{}, 4)
	run := watch(file, 10*time.Millisecond, hup, func() {
		if err := p.reload(); err == nil {
			reloaded <- struct{}{}
		}
	})
	go run(ctx)
	os.WriteFile(file, bytes.Replace(src, []byte("description: Gear for outdoor adventures"), []byte("description: Gear, reloaded from the file"), 1), 0o644)
	select {
	case <-reloaded:
	case <-time.After(10 * time.Second):
		t.Fatal("a changed file was not reloaded")
	}
	if !strings.Contains(agentsTxt(), "Gear, reloaded from the file") {
		t.Errorf("after the reload: %s", agentsTxt())
	}
	os.WriteFile(file, []byte("name: x\nrateLimit: 1/minute\n"), 0o644)
	if err := p.reload(); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("a broken file: %v", err)
	}
	if !strings.Contains(agentsTxt(), "Gear, reloaded from the file") {
		t.Error("a broken file replaced the running declaration")
	}
	hup <- syscall.SIGHUP // a signal reloads too (here: the broken file, refused)
}
