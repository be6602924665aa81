package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

const forwardSite = "testdata/forwardauth/site.yaml"

// forwardAuthServer is serve's forward-auth handler for the declaration
// file, on a loopback listener (a trusted proxy's address).
func forwardAuthServer(t *testing.T, file string) (*proxy, *httptest.Server) {
	t.Helper()
	p, err := newProxy(proxyConfig{configFile: file, upstream: "http://127.0.0.1:1", forwardAuthAddr: "x",
		log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	s := httptest.NewServer(p.forwardAuth)
	t.Cleanup(s.Close)
	return p, s
}

// subrequest sends what a proxy sends for method target (Host
// shop.example, from 203.0.113.7) to path, with hdr's fields.
func subrequest(t *testing.T, base, path, method, target, ua string, hdr ...string) (*http.Response, string) {
	t.Helper()
	r, _ := http.NewRequest("GET", base+path, nil)
	r.Header.Set(hdrForwardedMethod, method)
	r.Header.Set(hdrForwardedURI, target)
	r.Header.Set(hdrForwardedHost, "shop.example")
	r.Header.Set("X-Forwarded-Proto", "https")
	r.Header.Set("X-Forwarded-For", "203.0.113.7")
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

// noRedirects is a client that returns a redirect as it is.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

const (
	agentUA = "ExampleAgent/1.0 (+https://agent.example)"
)

// TestForwardAuth: each kind of request a proxy asks about gets the
// answer docs/forward-auth.md gives, at /auth (the refusal as it is).
func TestForwardAuth(t *testing.T) {
	_, s := forwardAuthServer(t, forwardSite)
	for _, c := range []struct {
		name, method, target, ua string
		hdr                      []string
		status                   int
		want                     string // in the body, or in Agentready-Decision for a 200
	}{
		{"browser on a Disallow", "GET", "/admin/users", chromeUA, nil, 200, "class=browser"},
		{"agent on a Disallow", "GET", "/admin/users", agentUA, nil, 403, `"Disallow: /admin/"`},
		{"agent on a capability", "GET", "/api/search?q=tent", agentUA, nil, 200, `capability="search"`},
		{"agent without the token", "GET", "/api/orders", agentUA, nil, 401, "bearer"},
		{"agent with the token", "GET", "/api/orders", agentUA, []string{"Authorization", "Bearer t0ken"}, 200, `capability="orders"`},
		{"an override in a body it cannot read", "POST", "/api/cart", agentUA, []string{"Content-Type", "application/x-www-form-urlencoded"}, 400, "method"},
		{"an override in the query", "GET", "/api/cart?_method=POST", agentUA, nil, 400, "two-capabilities"},
		{"the MCP gateway", "GET", "/mcp", agentUA, nil, 421, "route it to agentready serve"},
		{"the MCP gateway, posted to", "POST", "/mcp", agentUA, []string{"Content-Type", "application/json"}, 421, "route it to agentready serve"},
		{"the MCP gateway, for a browser", "GET", "/mcp", chromeUA, nil, 421, "route it to agentready serve"},
		{"the MCP gateway's path spelt otherwise", "POST", "/%6dcp", agentUA, []string{"Content-Type", "application/json"}, 421, "cannot decide /mcp"},
		{"a document", "GET", "/.well-known/agents.txt", agentUA, nil, 421, "route it to agentready serve"},
		{"robots.txt, for a browser too", "GET", "/robots.txt", chromeUA, nil, 421, "route it to agentready serve"},
		{"a target not canonical", "GET", "/%61pi/search?q=tent", agentUA, nil, 308, "send it as /api/search?q=tent"},
		{"an empty segment", "GET", "/api//orders", agentUA, []string{"Authorization", "Bearer t0ken"}, 400, "empty-segment"},
		{"a dot segment", "GET", "/api/../admin/users", agentUA, nil, 400, "dot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, body := subrequest(t, s.URL, forwardAuthPath, c.method, c.target, c.ua, c.hdr...)
			if res.StatusCode != c.status {
				t.Fatalf("%d %s, want %d", res.StatusCode, body, c.status)
			}
			got := body
			if c.status == 200 {
				got = res.Header.Get("Agentready-Decision")
				if body != "" {
					t.Errorf("a 200 with a body: %q", body)
				}
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("%q, want %q in it", got, c.want)
			}
			if strings.Contains(c.want, `"search"`) && (res.Header.Get("RateLimit") == "" || res.Header.Get("RateLimit-Policy") == "") {
				t.Errorf("no RateLimit fields to copy onto the response: %v", res.Header)
			}
			if loc := res.Header.Get("Location"); c.status == 308 && loc != "/api/search?q=tent" {
				t.Errorf("Location %q", res.Header.Get("Location"))
			}
		})
	}
	// The search capability's limit, 2/hour: the call above and the
	// redirected one took its tokens.
	res, body := subrequest(t, s.URL, forwardAuthPath, "GET", "/api/search?q=b", agentUA)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "quota-exceeded") {
		t.Fatalf("the third search: %d %s, Retry-After %q", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
}

// TestForwardAuthNginx: at /auth/nginx a refusal is a 401 or a 403 that
// names the real status and a reference, which /problem/ answers once
// with the refusal itself, without deciding again.
func TestForwardAuthNginx(t *testing.T) {
	_, s := forwardAuthServer(t, forwardSite)
	for range 2 {
		if res, _ := subrequest(t, s.URL, forwardAuthNginxPath, "GET", "/api/search?q=x", agentUA); res.StatusCode != 200 {
			t.Fatalf("a search within the limit: %d", res.StatusCode)
		}
	}
	res, body := subrequest(t, s.URL, forwardAuthNginxPath, "GET", "/api/search?q=x", agentUA)
	ref := res.Header.Get(hdrProblem)
	if res.StatusCode != 403 || res.Header.Get(hdrStatus) != "429" || res.Header.Get("Retry-After") == "" || ref == "" || body != "" {
		t.Fatalf("over the limit: %d %q, %s %q, ref %q", res.StatusCode, body, hdrStatus, res.Header.Get(hdrStatus), ref)
	}
	get := func(path string) (*http.Response, string) {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body = get(forwardProblemPath + ref)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "quota-exceeded") || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("the refusal fetched: %d %s %v", res.StatusCode, body, res.Header)
	}
	if res, _ = get(forwardProblemPath + ref); res.StatusCode != 403 {
		t.Errorf("a reference fetched twice: %d, want 403", res.StatusCode)
	}
	if res, _ = get(forwardProblemPath + "00000000000000000000000000000000"); res.StatusCode != 403 {
		t.Errorf("a reference never made: %d, want 403", res.StatusCode)
	}
	res, _ = subrequest(t, s.URL, forwardAuthNginxPath, "GET", "/api/orders", agentUA)
	if res.StatusCode != 401 || !strings.Contains(res.Header.Get("WWW-Authenticate"), "Bearer") || res.Header.Get(hdrProblem) == "" {
		t.Errorf("without the token: %d %v", res.StatusCode, res.Header)
	}
}

// TestForwardAuthRefusesWhatItCannotTrust: a peer that is no trusted
// proxy, and a subrequest without the original's method, target or
// host, are refused; a declaration without trusted proxies is refused
// for forward-auth.
func TestForwardAuthRefusesWhatItCannotTrust(t *testing.T) {
	p, s := forwardAuthServer(t, forwardSite)
	r := httptest.NewRequest("GET", forwardAuthPath, nil)
	r.RemoteAddr = "192.0.2.1:4000"
	r.Header.Set(hdrForwardedMethod, "GET")
	r.Header.Set(hdrForwardedURI, "/api/search?q=x")
	r.Header.Set(hdrForwardedHost, "shop.example")
	rec := httptest.NewRecorder()
	p.forwardAuth.ServeHTTP(rec, r)
	if rec.Code != 403 {
		t.Errorf("an untrusted peer: %d", rec.Code)
	}
	for name, hdr := range map[string][]string{
		"no method":      {hdrForwardedMethod, ""},
		"a bad method":   {hdrForwardedMethod, "GE T"},
		"no host":        {hdrForwardedHost, ""},
		"no target":      {hdrForwardedURI, ""},
		"absolute form":  {hdrForwardedURI, "http://other.example/admin/"},
		"a bad escape":   {hdrForwardedURI, "/api/%zz"},
		"a star":         {hdrForwardedURI, "*"},
		"relative":       {hdrForwardedURI, "admin/users"},
		"host with path": {hdrForwardedHost, "shop.example/admin"},
	} {
		res, body := subrequest(t, s.URL, forwardAuthPath, "GET", "/api/search?q=x", agentUA, hdr...)
		if res.StatusCode/100 == 2 || res.StatusCode/100 == 3 {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}
	dir := t.TempDir()
	b, _ := os.ReadFile(forwardSite)
	file := filepath.Join(dir, "site.yaml")
	os.WriteFile(file, []byte(strings.Replace(string(b), "trusted_proxies: [127.0.0.1]", "trusted_proxies: []", 1)), 0o644)
	if _, err := newProxy(proxyConfig{configFile: file, upstream: "http://127.0.0.1:1", forwardAuthAddr: "x", log: slog.New(slog.NewTextHandler(io.Discard, nil))}); err == nil || !strings.Contains(err.Error(), "trusted proxies") {
		t.Errorf("forward-auth without trusted proxies: %v", err)
	}
}

// TestForwardAuthMethodOverridesNone: with upstream: {method_overrides:
// none}, an agent's POST is decided without its body.
func TestForwardAuthMethodOverridesNone(t *testing.T) {
	dir := t.TempDir()
	b, _ := os.ReadFile(forwardSite)
	file := filepath.Join(dir, "site.yaml")
	os.WriteFile(file, append(b, "upstream: {method_overrides: none}\n"...), 0o644)
	_, s := forwardAuthServer(t, file)
	res, body := subrequest(t, s.URL, forwardAuthPath, "POST", "/api/cart", agentUA, "Content-Type", "application/x-www-form-urlencoded")
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Agentready-Decision"), `capability="cart-add"`) {
		t.Errorf("%d %s %q", res.StatusCode, body, res.Header.Get("Agentready-Decision"))
	}
}

// FuzzForwardAuth: whatever target a proxy names, an agent is let
// through only where no reading of it an upstream may route by (the
// path decoded, its dot segments resolved, its ";" parameters removed,
// its case folded) is under the Disallowed /admin/; and nothing panics.
func FuzzForwardAuth(f *testing.F) {
	for _, s := range []string{"/admin/users", "/api/search?q=x", "/%61dmin/", "/api/../admin/", "/admin;x/users", "/ADMIN/users",
		"/api/%2e%2e/admin/", "/api/search/..%2fadmin", "//admin/", "/admin%2fusers", "/.well-known/../admin/", "/api;/../admin/"} {
		f.Add("GET", s)
	}
	p, err := newProxy(proxyConfig{configFile: forwardSite, upstream: "http://127.0.0.1:1", forwardAuthAddr: "x",
		log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.close)
	f.Fuzz(func(t *testing.T, method, target string) {
		r := httptest.NewRequest("GET", forwardAuthPath, nil)
		r.RemoteAddr = "127.0.0.1:4000"
		r.Header[hdrForwardedMethod] = []string{method}
		r.Header[hdrForwardedURI] = []string{target}
		r.Header.Set(hdrForwardedHost, "shop.example")
		r.Header.Set("User-Agent", agentUA)
		rec := httptest.NewRecorder()
		p.forwardAuth.ServeHTTP(rec, r)
		if rec.Code != 200 {
			return
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("%s %q let through, which no upstream parses: %v", method, target, err)
		}
		for _, reading := range upstreamReadings(u) {
			if strings.HasPrefix(reading, "/admin/") || reading == "/admin" {
				t.Fatalf("%s %q let through, which an upstream may read as %q", method, target, reading)
			}
		}
	})
}

// upstreamReadings are the paths an upstream may route u by.
func upstreamReadings(u *url.URL) []string {
	var out []string
	for _, p := range []string{u.Path, u.EscapedPath()} {
		var segs []string
		for _, s := range strings.Split(p, "/") {
			s, _, _ = strings.Cut(s, ";")
			segs = append(segs, s)
		}
		stripped := strings.Join(segs, "/")
		for _, q := range []string{p, stripped} {
			for _, v := range []string{q, path.Clean(q), strings.ToLower(path.Clean(q))} {
				if d, err := url.PathUnescape(v); err == nil {
					v = path.Clean("/" + d)
				}
				out = append(out, v, strings.ToLower(v))
			}
		}
	}
	return out
}
