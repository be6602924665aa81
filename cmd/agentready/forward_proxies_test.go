package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// The forward-auth tests run nginx and Caddy, from the distribution,
// with docs/forward-auth's configurations as they are (but for the
// addresses), in front of a Go upstream that records what reaches it,
// beside serve -forward-auth with testdata/forwardauth/site.yaml.

// siteLog is the upstream: it records every request that reaches it.
type siteLog struct {
	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	method, target, decision, xff string
}

func (l *siteLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.seen = append(l.seen, seenRequest{r.Method, r.RequestURI, r.Header.Get("Agentready-Decision"), r.Header.Get("X-Forwarded-For")})
	l.mu.Unlock()
	fmt.Fprintf(w, "site %s %s", r.Method, r.RequestURI)
}

// take returns what reached the site since the last take.
func (l *siteLog) take() []seenRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.seen
	l.seen = nil
	return s
}

// forwardStack is a proxy with agentready beside it and the site behind.
type forwardStack struct {
	front string // the proxy's address
	site  *siteLog
}

// startForwardServe starts serve with -forward-auth for the site at
// upstream, and returns its two addresses.
func startForwardServe(t *testing.T, upstream string) (serveAddr, authAddr string) {
	t.Helper()
	var logs syncBuffer
	c := proxyConfig{configFile: forwardSite, upstream: upstream, addr: "127.0.0.1:0", forwardAuthAddr: "127.0.0.1:0"}
	c.log, _ = newLogger(&logs, "json")
	p, err := newProxy(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	s, err := startServers(c, p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.shutdown)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
	})
	return s.addr.String(), s.forwardAuthAddr.String()
}

// docConfig is docs/forward-auth/NAME with the documented addresses
// replaced by the test's.
func docConfig(t *testing.T, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../docs/forward-auth", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(s, replace[i]) {
			t.Fatalf("docs/forward-auth/%s has no %q", name, replace[i])
		}
		s = strings.ReplaceAll(s, replace[i], replace[i+1])
	}
	return s
}

// runProxy starts cmd, which serves on addr, and waits until addr accepts
// connections; the process is stopped when t ends.
func runProxy(t *testing.T, cmd *exec.Cmd, addr string) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("%s:\n%s", cmd.Path, out.String())
		}
	})
	for deadline := clock.Monotonic().Add(30 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		select {
		case <-done:
			t.Fatalf("%s ended: %s", cmd.Path, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if clock.Monotonic().After(deadline) {
			t.Fatalf("%s does not listen on %s: %s", cmd.Path, addr, out.String())
		}
	}
}

// startNginx is nginx with docs/forward-auth/nginx.conf.
func startNginx(t *testing.T) *forwardStack {
	nginx, missing := testtools.Nginx()
	testtools.Need(t, missing)
	site := &siteLog{}
	up := httptest.NewServer(site)
	t.Cleanup(up.Close)
	serveAddr, authAddr := startForwardServe(t, up.URL)
	front := "127.0.0.1:" + freePort(t)
	dir := t.TempDir()
	server := docConfig(t, "nginx.conf", "127.0.0.1:9090", authAddr, "127.0.0.1:8080", serveAddr,
		"127.0.0.1:3000", up.Listener.Addr().String(), "listen 80;", "listen "+front+";")
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // the workers read and write dir, which is root's
	}
	conf := fmt.Sprintf("%sdaemon off;\nmaster_process off;\npid %[2]s/nginx.pid;\nerror_log %[2]s/error.log info;\nevents {}\nhttp {\n"+
		"access_log off;\nclient_body_temp_path %[2]s/body;\nproxy_temp_path %[2]s/proxy;\nfastcgi_temp_path %[2]s/fcgi;\nuwsgi_temp_path %[2]s/uwsgi;\nscgi_temp_path %[2]s/scgi;\n%s\n}\n",
		user, dir, server)
	file := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	runProxy(t, exec.Command(nginx, "-p", dir, "-c", file, "-e", filepath.Join(dir, "error.log")), front)
	return &forwardStack{front: front, site: site}
}

// startCaddy is Caddy with docs/forward-auth/Caddyfile.
func startCaddy(t *testing.T) *forwardStack {
	testtools.Need(t, testtools.Caddy())
	site := &siteLog{}
	up := httptest.NewServer(site)
	t.Cleanup(up.Close)
	serveAddr, authAddr := startForwardServe(t, up.URL)
	port := freePort(t)
	dir := t.TempDir()
	caddyfile := "{\n\tadmin off\n\tauto_https off\n\tdefault_bind 127.0.0.1\n}\n\n" +
		docConfig(t, "Caddyfile", "127.0.0.1:9090", authAddr, "127.0.0.1:8080", serveAddr,
			"127.0.0.1:3000", up.Listener.Addr().String(), "\nshop.example {", "\nhttp://:"+port+" {")
	file := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(file, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("caddy", "run", "--config", file, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	runProxy(t, cmd, "127.0.0.1:"+port)
	return &forwardStack{front: "127.0.0.1:" + port, site: site}
}

// send sends method target (as written) to the proxy with Host
// shop.example.
func (fs *forwardStack) send(t *testing.T, method, target, ua, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	var rb io.Reader
	if body != "" {
		rb = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, "http://"+fs.front+"/", rb)
	if err != nil {
		t.Fatal(err)
	}
	path, query, _ := strings.Cut(target, "?")
	r.URL.Opaque, r.URL.RawQuery = path, query
	r.Host = "shop.example"
	r.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := noRedirects.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestNginxForwardAuth(t *testing.T) { forwardAuthCases(t, startNginx(t)) }
func TestCaddyForwardAuth(t *testing.T) { forwardAuthCases(t, startCaddy(t)) }

// forwardAuthCases are the enforcement tests' agent cases through a
// proxy beside agentready: what reaches the site, and what the client
// gets, are what serve in front would give.
func forwardAuthCases(t *testing.T, fs *forwardStack) {
	type want struct {
		status int
		body   string // in the response's body
		site   string // the target the site saw, "" for none
	}
	for _, c := range []struct {
		name, method, target, ua, body string
		hdr                            []string
		want
	}{
		{"a browser, untouched", "GET", "/admin/users", chromeUA, "", []string{"Agentready-Decision", `outcome=allow`}, want{200, "site GET /admin/users", "/admin/users"}},
		{"an agent on a Disallow", "GET", "/admin/users", agentUA, "", nil, want{403, `"Disallow: /admin/"`, ""}},
		{"an agent naming another target in the subrequest's fields", "GET", "/admin/users", agentUA, "", []string{"X-Forwarded-Uri", "/api/orders", "X-Forwarded-Method", "GET", "X-Forwarded-Host", "shop.example", "X-Original-URL", "/api/orders"}, want{403, `"Disallow: /admin/"`, ""}},
		{"an agent on a capability, the target as decided", "GET", "/api/search?q=a%20b;c", agentUA, "", nil, want{200, "site GET /api/search?q=a%20b;c", "/api/search?q=a%20b;c"}},
		{"without the token", "GET", "/api/orders", agentUA, "", nil, want{401, "bearer", ""}},
		{"with the token", "GET", "/api/orders", agentUA, "", []string{"Authorization", "Bearer t0ken"}, want{200, "site GET /api/orders", "/api/orders"}},
		{"an override in a body", "POST", "/api/cart", agentUA, "_method=GET", []string{"Content-Type", "application/x-www-form-urlencoded"}, want{400, "method", ""}},
		{"a target not canonical", "GET", "/%61pi/orders", agentUA, "", []string{"Authorization", "Bearer t0ken"}, want{308, "send it as /api/orders", ""}},
		{"a document", "GET", "/.well-known/agents.txt", agentUA, "", nil, want{200, "Site-Name: Forward Shop", ""}},
		{"robots.txt", "GET", "/robots.txt", agentUA, "", nil, want{200, "Disallow: /admin/", ""}},
		{"the MCP gateway, answered by serve", "POST", "/mcp", agentUA, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, want{200, `"result":{}`, ""}},
		{"a gateway tool's call, through serve to the site", "POST", "/mcp", agentUA, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"view_cart","arguments":{}}}`, []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, want{200, "site GET /api/cart", "/api/cart"}},
		{"the limit's first call", "GET", "/api/search?q=2", agentUA, "", nil, want{200, "site GET", "/api/search?q=2"}},
		{"over the limit", "GET", "/api/search?q=3", agentUA, "", nil, want{429, "quota-exceeded", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, body := fs.send(t, c.method, c.target, c.ua, c.body, c.hdr...)
			if res.StatusCode != c.status || !strings.Contains(body, c.want.body) {
				t.Errorf("%d %q, want %d with %q", res.StatusCode, body, c.status, c.want.body)
			}
			seen := fs.site.take()
			switch {
			case c.site == "" && len(seen) > 0:
				t.Errorf("the site saw %+v", seen)
			case c.site != "" && (len(seen) != 1 || seen[0].target != c.site):
				t.Errorf("the site saw %+v, want one request for %s", seen, c.site)
			case c.site != "":
				if !strings.Contains(seen[0].decision, "outcome=") || strings.Contains(seen[0].decision, `outcome=allow, outcome`) {
					t.Errorf("the site's Agentready-Decision %q", seen[0].decision)
				}
				if seen[0].xff != "127.0.0.1" {
					t.Errorf("the site's X-Forwarded-For %q", seen[0].xff)
				}
			}
			switch c.status {
			case 429:
				if res.Header.Get("Retry-After") == "" || res.Header.Get("Content-Type") != "application/problem+json" {
					t.Errorf("over the limit without Retry-After or its problem: %v", res.Header)
				}
			case 401:
				if !strings.Contains(res.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("401 without its challenge: %v", res.Header)
				}
			case 308:
				if res.Header.Get("Location") != "/api/orders" {
					t.Errorf("Location %q", res.Header.Get("Location"))
				}
			}
			if strings.HasPrefix(c.target, "/api/search") && c.status == 200 && (res.Header.Get("RateLimit") == "" || res.Header.Get("RateLimit-Policy") == "") {
				t.Errorf("no RateLimit fields on the response: %v", res.Header)
			}
			if c.name == "a browser, untouched" && len(seen) == 1 && !strings.Contains(seen[0].decision, "class=browser") {
				t.Errorf("the client's Agentready-Decision reached the site: %q", seen[0].decision)
			}
		})
	}
}
