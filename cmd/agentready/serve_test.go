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
	"regexp"
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
	if !regexp.MustCompile(`agentready_decisions_total\{capability="",class="declared",grade="claimed",outcome="deny-path",policy="claude",verified="none"\} 1`).MatchString(rec.Body.String()) {
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

// TestServeForwardsNoClientAddress: no field a client may write to name
// its address or the target to route reaches the upstream, under any
// spelling an application reads it by (case, '_' for '-'); the upstream
// gets the address agentready derived in X-Real-IP and X-Forwarded-For,
// the peer's or the one a trusted proxy named, and the other fields as
// they were.
func TestServeForwardsNoClientAddress(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("X-Handler", "page "+r.Method)
	}))
	defer upstream.Close()
	written := [][2]string{
		{"X-Real-IP", "10.0.0.1"}, {"True-Client-IP", "10.0.0.2"}, {"Client-IP", "10.0.0.3"},
		{"CF-Connecting-IP", "10.0.0.4"}, {"X-Client-IP", "10.0.0.5"}, {"Fastly-Client-IP", "10.0.0.6"},
		{"X-Cluster-Client-IP", "10.0.0.7"}, {"X-Original-URL", "/admin/users"}, {"X-Rewrite-URL", "/admin/users"},
		{"Forwarded", "for=10.0.0.8;proto=https"}, {"X-Forwarded-Host", "admin.internal"}, {"X-Forwarded-Proto", "https"},
		{"X-Forwarded-Prefix", "/admin"}, {"X-Forwarded-Port", "443"}, {"X-Forwarded-Ssl", "on"}, {"X-Forwarded-Server", "a"},
		{"x-real-ip", "10.0.0.9"}, {"X_Real_IP", "10.0.0.10"}, {"x_forwarded_for", "10.0.0.11"}, {"CF_Connecting_IP", "10.0.0.12"},
		{"X_Original_URL", "/admin"}, {"X_HTTP_Method_Override", "DELETE"}, {"X_Method_Override", "DELETE"},
		{"X-Forwarded", "for=10.0.0.15"}, {"Forwarded-For", "10.0.0.16"}, {"X-Original-Forwarded-For", "10.0.0.17"},
		{"X-Originating-IP", "10.0.0.18"}, {"X-Remote-IP", "10.0.0.19"}, {"X-Remote-Addr", "10.0.0.20"},
		{"X-Envoy-External-Address", "10.0.0.21"}, {"Proxy-Client-IP", "10.0.0.22"}, {"WL-Proxy-Client-IP", "10.0.0.23"},
		{"X-ProxyUser-Ip", "10.0.0.24"}, {"X-Original-URI", "/admin"}, {"X-Host", "admin.internal"}, {"X-Scheme", "https"},
		// PHP reads '.' and ' ' as '_', and '_' as '-' (found by review).
		{"X.Forwarded.For", "10.0.0.25"}, {"X.Real.IP", "10.0.0.26"}, {"X.HTTP.Method.Override", "DELETE"},
	}
	for _, tc := range []struct {
		name    string
		trusted []string
		xff     string // sent in the request's own X-Forwarded-For
		derived string
	}{
		{"no trusted proxy", nil, "10.0.0.13", "127.0.0.1"},
		{"a trusted proxy", []string{"127.0.0.1/32"}, "203.0.113.9", "203.0.113.9"},
		{"a trusted proxy, a chain", []string{"127.0.0.1/32"}, "10.0.0.14, 203.0.113.10", "203.0.113.10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: upstream.URL, trusted: tc.trusted,
				log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			front := httptest.NewServer(p.handler)
			defer front.Close()
			for _, ua := range []string{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", gptBot} {
				mu.Lock()
				got = nil
				mu.Unlock()
				r := wireRequest{method: "GET", target: "/products?id=1", header: append([][2]string{{"User-Agent", ua},
					{"X-Forwarded-For", tc.xff}, {"X-Kept", "yes"}}, written...)}
				w, err := r.do(strings.TrimPrefix(front.URL, "http://"))
				if err != nil || w.handler != "page GET" {
					t.Fatalf("%s: %v %+v", ua, err, w)
				}
				mu.Lock()
				h := got
				mu.Unlock()
				want := map[string]string{"X-Real-Ip": tc.derived, "X-Forwarded-For": tc.derived,
					"X-Forwarded-Host": "shop.example", "X-Forwarded-Proto": "http", "X-Kept": "yes"}
				for k, v := range want {
					if vs := h.Values(k); len(vs) != 1 || vs[0] != v {
						t.Errorf("%s: the upstream got %s %q, want %q", ua, k, vs, v)
					}
				}
				for k, v := range h {
					if _, ours := want[k]; ours {
						continue
					}
					n := strings.NewReplacer("_", "-", ".", "-").Replace(k)
					for _, f := range written {
						if strings.EqualFold(n, strings.NewReplacer("_", "-", ".", "-").Replace(f[0])) {
							t.Errorf("%s: the upstream got %s: %q, which the client wrote", ua, k, v)
						}
					}
				}
			}
		})
	}
}

// TestServeStrictUpstream: by default serve holds the rules and the
// capability endpoints on every case and trailing-slash spelling of a
// path, which an upstream like Express routes alike; -strict-upstream, or
// upstream: {strict: true} in the file, declares an upstream that does
// not, and then /ADMIN/users is another path than /admin/users (here the
// upstream lies, and routes it to the admin area: the declaration is the
// operator's promise). A reload cannot change the setting: it is refused
// and the running declaration keeps serving.
func TestServeStrictUpstream(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
	}))
	defer upstream.Close()
	src, err := os.ReadFile(upstreamSite)
	if err != nil {
		t.Fatal(err)
	}
	strictFile := filepath.Join(t.TempDir(), "strict.yaml")
	os.WriteFile(strictFile, append(src, "\nupstream:\n  strict: true\n"...), 0o644)
	reaches := func(p *proxy, path string) bool {
		t.Helper()
		mu.Lock()
		seen = nil
		mu.Unlock()
		r := httptest.NewRequest("GET", "http://shop.example"+path, nil)
		r.Header.Set("User-Agent", gptBot)
		p.handler.ServeHTTP(httptest.NewRecorder(), r)
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == 1
	}
	for _, tc := range []struct {
		name   string
		c      proxyConfig
		strict bool
	}{
		{"default", proxyConfig{configFile: upstreamSite}, false},
		{"-strict-upstream", proxyConfig{configFile: upstreamSite, strictUpstream: true}, true},
		{"upstream: {strict: true}", proxyConfig{configFile: strictFile}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.upstream, tc.c.log = upstream.URL, slog.New(slog.NewTextHandler(io.Discard, nil))
			p, err := newProxy(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			if reaches(p, "/admin/users") {
				t.Error("/admin/users reached the upstream")
			}
			for _, path := range []string{"/ADMIN/users", "/Admin/Users"} {
				if got := reaches(p, path); got != tc.strict {
					t.Errorf("%s reached the upstream: %v, want %v", path, got, tc.strict)
				}
			}
		})
	}
	// A reload that would change the setting is refused; one that keeps
	// it is taken.
	file := filepath.Join(t.TempDir(), "site.yaml")
	os.WriteFile(file, src, 0o644)
	p, err := newProxy(proxyConfig{configFile: file, upstream: upstream.URL, log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	os.WriteFile(file, append(src, "\nupstream: {strict: true}\n"...), 0o644)
	if err := p.reload(); err == nil || !strings.Contains(err.Error(), "restart agentready serve") {
		t.Errorf("a reload turning strict on: %v", err)
	}
	if reaches(p, "/ADMIN/users") {
		t.Error("after a refused reload, /ADMIN/users reached the upstream")
	}
	os.WriteFile(file, append(src, "\nupstream: {strict: false}\n"...), 0o644)
	if err := p.reload(); err != nil {
		t.Errorf("a reload keeping the setting: %v", err)
	}
	pf, err := newProxy(proxyConfig{configFile: file, upstream: upstream.URL, strictUpstream: true, log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer pf.close()
	os.WriteFile(file, append(src, "\nupstream: {strict: true}\n"...), 0o644)
	if err := pf.reload(); err != nil {
		t.Errorf("with -strict-upstream, a file saying strict too: %v", err)
	}
}
