package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/reportview"
	livereport "github.com/agentready/agentready/report"
)

// reportToken is the tests' token: 32 characters, as openssl rand -hex 16
// makes.
const reportToken = "3f9a0c2b7d1e4f5a6b8c9d0e1f2a3b4c"

// quietLog discards what serve logs.
func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// noEnv is an environment holding nothing.
func noEnv(string) string { return "" }

// reportTraffic sends, through the proxy at base, known traffic of
// testdata/upstream/site.yaml: GPTBot reads /products twice (allowed), is
// refused /admin/users (deny-path) and calls product-search (2/minute)
// three times (two allowed, one rate-limited); a browser reads /products.
func reportTraffic(t *testing.T, base string) {
	t.Helper()
	send := func(path, ua string, want int) { t.Helper(); sendAs(t, base, path, ua, want) }
	send("/products", gptBot, 200)
	send("/products", gptBot, 200)
	send("/admin/users", gptBot, 403)
	send("/api/search?q=a", gptBot, 200)
	send("/api/search?q=b", gptBot, 200)
	send("/api/search?q=c", gptBot, 429)
	send("/products", chromeUA, 200)
}

// sendAs sends GET path as ua and checks the status.
func sendAs(t *testing.T, base, path, ua string, want int) {
	t.Helper()
	r, _ := http.NewRequest("GET", base+path, nil)
	r.Header.Set("User-Agent", ua)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		t.Fatalf("%s as %.20s: %d, want %d", path, ua, res.StatusCode, want)
	}
}

const chromeUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// gptBotCounts reads GPTBot's allowed, denied and rate-limited counts in
// s, summed over its rows.
func gptBotCounts(s reportview.Snapshot) (allowed, denied, limited int64) {
	for _, a := range s.Agents {
		if a.Name == "GPTBot" {
			allowed += a.Allowed
			denied += a.Denied
			limited += a.RateLimited
		}
	}
	return
}

// getReport fetches path from the report at base; auth is an
// Authorization value or "".
func getReport(t *testing.T, base, path, accept, auth string) (int, http.Header, string) {
	t.Helper()
	r, _ := http.NewRequest("GET", base+path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// TestServeReportLoopback runs agentready serve -report 127.0.0.1:0 as a
// process: the banner names the report's bound address; after known
// traffic through the proxy, the report answers without a token, HTML at
// / and JSON at /report.json and for Accept: application/json, with the
// counts sent; the public address does not serve it; a SIGHUP reload
// keeps it.
func TestServeReportLoopback(t *testing.T) {
	var upstreamHits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamHits.Add(1)
		io.WriteString(w, "upstream "+r.URL.Path)
	}))
	defer up.Close()
	cmd := agentreadyProcess(t, "serve", "-config", upstreamSite, "-upstream", up.URL, "-addr", "127.0.0.1:0", "-report", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, defaultReportTokenEnv+"=") // no token from the test's environment
	banner, errLines := startServe(t, cmd)
	var line string
	select {
	case line = <-banner:
	case <-time.After(30 * time.Second):
		t.Fatalf("no banner; stderr: %v", drainLines(errLines))
	}
	public := strings.Fields(strings.TrimPrefix(line, "agentready serve: "))[0]
	_, at, ok := strings.Cut(line, "report at http://")
	if !ok {
		t.Fatalf("the banner does not name the report: %q", line)
	}
	reportAddr := strings.TrimSuffix(strings.Fields(at)[0], "/")
	if !strings.HasPrefix(reportAddr, "127.0.0.1:") || strings.HasSuffix(reportAddr, ":0") || reportAddr == public {
		t.Fatalf("the banner names the report at %q (public %q)", reportAddr, public)
	}
	if !strings.Contains(line, "/ open to loopback)") {
		t.Errorf("banner %q", line)
	}
	reportTraffic(t, "http://"+public)

	code, h, body := getReport(t, "http://"+reportAddr, "/", "", "")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(body, "GPTBot") {
		t.Fatalf("the page: %d %q\n%s", code, h.Get("Content-Type"), body)
	}
	for _, path := range []string{"/report.json", "/"} {
		accept := ""
		if path == "/" {
			accept = "application/json"
		}
		code, h, body = getReport(t, "http://"+reportAddr, path, accept, "")
		var s reportview.Snapshot
		if err := json.Unmarshal([]byte(body), &s); code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || err != nil {
			t.Fatalf("%s (Accept %q): %d %q %v\n%s", path, accept, code, h.Get("Content-Type"), err, body)
		}
		if a, d, l := gptBotCounts(s); a != 4 || d != 1 || l != 1 {
			t.Errorf("%s: GPTBot allowed %d, denied %d, rate-limited %d; want 4, 1, 1\n%s", path, a, d, l, body)
		}
	}
	// The public address proxies /report.json like any path: the
	// upstream answers it, not the report.
	before := upstreamHits.Load()
	code, _, body = getReport(t, "http://"+public, "/report.json", "application/json", "")
	if code != 200 || body != "upstream /report.json" || upstreamHits.Load() != before+1 {
		t.Errorf("the public address served /report.json itself: %d %q", code, body)
	}

	// A reload keeps the report and its counts.
	cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.After(10 * time.Second)
	for reloaded := false; !reloaded; {
		select {
		case l, ok := <-errLines:
			if !ok {
				t.Fatal("stderr closed before a reload was logged")
			}
			reloaded = strings.Contains(l, "declaration reloaded")
		case <-deadline:
			t.Fatal("no reload logged after SIGHUP")
		}
	}
	sendAs(t, "http://"+public, "/admin", gptBot, 403)
	_, _, body = getReport(t, "http://"+reportAddr, "/report.json", "", "")
	var s reportview.Snapshot
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if a, d, l := gptBotCounts(s); a != 4 || d != 2 || l != 1 {
		t.Errorf("after a reload: GPTBot allowed %d, denied %d, rate-limited %d; want 4, 2, 1", a, d, l)
	}
	// The process told its report of the SIGHUP's reload and of the 6
	// requests it sent the upstream (5 of reportTraffic, /report.json).
	if r, u := s.LastReload, s.Upstream; r == nil || !r.OK || r.Succeeded != 1 || u == nil || u.Requests != 6 || u.Errors != 0 {
		t.Errorf("after a reload: last reload %+v, upstream %+v", r, u)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve ended with %v, want status 0", err)
	}
}

// TestServeReportRefusals: serve refuses to start with the report on the
// public address, off loopback without a token (naming the flags), with a
// token too short or a token file without one, and with a window that is
// not positive.
func TestServeReportRefusals(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n\nsecond line\n"), 0o600)
	for _, tc := range []struct {
		name string
		f    reportFlags
		addr string
		want []string
	}{
		{"on the public address", reportFlags{addr: "127.0.0.1:8080"}, "127.0.0.1:8080", []string{"never served on the public address"}},
		{"on all interfaces, the public port", reportFlags{addr: ":8080"}, "127.0.0.1:8080", []string{"never served on the public address"}},
		{"off loopback, no token", reportFlags{addr: "0.0.0.0:0", tokenEnv: defaultReportTokenEnv}, "127.0.0.1:0",
			[]string{"not a loopback address", "-report-token-file", "AGENTREADY_REPORT_TOKEN", "-report-token-env"}},
		{"all interfaces, no token", reportFlags{addr: ":0"}, "127.0.0.1:0", []string{"not a loopback address"}},
		{"a token file without one", reportFlags{addr: "127.0.0.1:0", tokenFile: empty}, "127.0.0.1:0", []string{"the first line holds no token"}},
		{"a missing token file", reportFlags{addr: "127.0.0.1:0", tokenFile: filepath.Join(dir, "none")}, "127.0.0.1:0", []string{"-report-token-file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.window == 0 {
				tc.f.window = time.Hour
			}
			rs, err := openReport(tc.f, tc.addr, noEnv, quietLog())
			if err == nil {
				rs.ln.Close()
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: does not say %q", err, w)
				}
			}
		})
	}
	short := func(string) string { return "short" }
	if _, err := openReport(reportFlags{addr: "127.0.0.1:0", tokenEnv: "X", window: time.Hour}, "127.0.0.1:0", short, quietLog()); err == nil ||
		!strings.Contains(err.Error(), "fewer than 16") {
		t.Errorf("a short token: %v", err)
	}
	if _, err := openReport(reportFlags{addr: "127.0.0.1:0", window: -time.Second}, "127.0.0.1:0", noEnv, quietLog()); err == nil {
		t.Error("a negative window accepted")
	}
	// As a process: the refusal is said, and serve ends with status 1
	// before it listens.
	cmd := agentreadyProcess(t, "serve", "-config", upstreamSite, "-upstream", "http://127.0.0.1:1", "-addr", "127.0.0.1:0", "-report", "0.0.0.0:0")
	cmd.Env = append(cmd.Env, defaultReportTokenEnv+"=")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || !strings.Contains(string(out), "-report-token-file FILE") ||
		strings.Contains(string(out), "in front of") {
		t.Errorf("serve -report 0.0.0.0:0 without a token: exit %d\n%s", code, out)
	}
	// The report's own flags without -report configure nothing: said, not
	// ignored.
	cmd = agentreadyProcess(t, "serve", "-config", upstreamSite, "-upstream", "http://127.0.0.1:1", "-addr", "127.0.0.1:0", "-report-window", "5m")
	out, err = cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 2 || !strings.Contains(string(out), "-report-window given without -report ADDR") {
		t.Errorf("serve -report-window without -report: exit %d\n%s", code, out)
	}
}

// TestServeReportToken: off loopback, with a token, the report answers 401
// with a Basic challenge without credentials or with a wrong token, and
// 200 to the token as a Bearer token or as a Basic password. The token
// comes from the first line of -report-token-file or from the
// environment.
func TestServeReportToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("  "+reportToken+"  \nignored\n"), 0o600)
	env := func(k string) string {
		if k == "REPORT_TOKEN" {
			return reportToken
		}
		return ""
	}
	for _, f := range []reportFlags{
		{addr: "0.0.0.0:0", tokenFile: file, tokenEnv: defaultReportTokenEnv, window: time.Hour},
		{addr: "0.0.0.0:0", tokenEnv: "REPORT_TOKEN", window: time.Hour},
	} {
		rs, err := openReport(f, "127.0.0.1:8080", env, quietLog())
		if err != nil {
			t.Fatal(err)
		}
		go rs.serve()
		defer rs.srv.Close()
		if rs.banner() == "" || !strings.Contains(rs.banner(), "/ behind its token") {
			t.Errorf("banner %q", rs.banner())
		}
		_, port, _ := net.SplitHostPort(rs.ln.Addr().String())
		base := "http://127.0.0.1:" + port
		basic := func(user, pw string) string {
			r, _ := http.NewRequest("GET", "/", nil)
			r.SetBasicAuth(user, pw)
			return r.Header.Get("Authorization")
		}
		for _, tc := range []struct {
			name, auth string
			want       int
		}{
			{"no credentials", "", 401},
			{"Bearer", "Bearer " + reportToken, 200},
			{"bearer, lower case", "bearer " + reportToken, 200},
			{"Basic", basic("operator", reportToken), 200},
			{"Basic, no user name", basic("", reportToken), 200},
			{"a wrong Bearer", "Bearer " + reportToken[:31] + "5", 401},
			{"a Bearer prefix of the token", "Bearer " + reportToken[:16], 401},
			{"a wrong Basic password", basic("operator", "wrong"), 401},
			{"the token as the Basic user name", basic(reportToken, ""), 401},
			{"another scheme", "Token " + reportToken, 401},
		} {
			for _, path := range []string{"/", "/report.json"} {
				code, h, body := getReport(t, base, path, "", tc.auth)
				if code != tc.want {
					t.Errorf("%s %s: %d, want %d", tc.name, path, code, tc.want)
				}
				if code == 401 {
					if got := h.Values("WWW-Authenticate"); len(got) != 1 || got[0] != `Basic realm="agentready report"` {
						t.Errorf("%s: WWW-Authenticate %q", tc.name, got)
					}
					if strings.Contains(body, "<html") || strings.Contains(body, "{") {
						t.Errorf("%s: the 401 shows the report: %s", tc.name, body)
					}
				}
			}
		}
	}
}

// TestServeReportWiring: newProxy feeds the report it is given from every
// request, and a reload keeps feeding the same report; without -report
// there is none.
func TestServeReportWiring(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer up.Close()
	rep := livereport.New(livereport.Options{Window: time.Hour})
	p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, report: rep, log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	front := httptest.NewServer(p.handler)
	defer front.Close()
	reportTraffic(t, front.URL)
	if a, d, l := gptBotCounts(reportJSON(t, rep)); a != 4 || d != 1 || l != 1 {
		t.Errorf("GPTBot allowed %d, denied %d, rate-limited %d; want 4, 1, 1", a, d, l)
	}
	if err := p.reload(); err != nil {
		t.Fatal(err)
	}
	sendAs(t, front.URL, "/products", gptBot, 200)
	sendAs(t, front.URL, "/admin/users", gptBot, 403)
	sendAs(t, front.URL, "/api/search?q=d", gptBot, 429) // the store is kept: the limit's bucket is still empty
	if a, d, l := gptBotCounts(reportJSON(t, rep)); a != 5 || d != 2 || l != 2 {
		t.Errorf("after a reload: GPTBot allowed %d, denied %d, rate-limited %d; want 5, 2, 2", a, d, l)
	}
}

// TestServeReportHealth: serve tells the report of each request to the
// upstream (answered, or failed with a 502) and of each reload, taken or
// refused.
func TestServeReportHealth(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/blog/broken" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, "ok")
	}))
	defer up.Close()
	src, err := os.ReadFile(upstreamSite)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "site.yaml")
	os.WriteFile(file, src, 0o600)
	rep := livereport.New(livereport.Options{Window: time.Hour})
	p, err := newProxy(proxyConfig{configFile: file, upstream: up.URL, report: rep, log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	front := httptest.NewServer(p.handler)
	defer front.Close()
	if s := reportJSON(t, rep); s.Upstream != nil || s.LastReload != nil {
		t.Fatalf("before any request: upstream %+v reload %+v", s.Upstream, s.LastReload)
	}
	reportTraffic(t, front.URL) // 5 requests reach the upstream, 2 are refused before it
	sendAs(t, front.URL, "/blog/broken", chromeUA, 503)
	s := reportJSON(t, rep)
	if s.Upstream == nil || s.Upstream.Requests != 6 || s.Upstream.Errors != 0 || s.Upstream.ServerErrors != 1 {
		t.Fatalf("upstream %+v, want 6 requests, 0 errors, 1 5xx", s.Upstream)
	}
	if err := p.reload(); err != nil {
		t.Fatal(err)
	}
	if s := reportJSON(t, rep); s.LastReload == nil || !s.LastReload.OK || s.LastReload.Succeeded != 1 {
		t.Fatalf("after a reload: %+v", s.LastReload)
	}
	os.WriteFile(file, []byte("site: [unclosed\n"), 0o600)
	if err := p.reload(); err == nil {
		t.Fatal("a broken file was reloaded")
	}
	s = reportJSON(t, rep)
	if r := s.LastReload; r == nil || r.OK || r.Error == "" || r.Succeeded != 1 || r.Failed != 1 || r.LastOK.IsZero() {
		t.Errorf("after a refused reload: %+v", r)
	}
	// The upstream gone: the client has a 502, the report an error.
	up.Close()
	sendAs(t, front.URL, "/products", chromeUA, http.StatusBadGateway)
	s = reportJSON(t, rep)
	if u := s.Upstream; u.Requests != 7 || u.Errors != 1 || !strings.Contains(u.LastError, "connect") || u.LastErrorAt.IsZero() {
		t.Errorf("the upstream down: %+v", u)
	}
}

// reportJSON reads what rep serves as JSON, as a site's tooling does.
func reportJSON(t *testing.T, rep *livereport.Report) reportview.Snapshot {
	t.Helper()
	w := httptest.NewRecorder()
	rep.ServeHTTP(w, httptest.NewRequest("GET", "/report.json", nil))
	var s reportview.Snapshot
	if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
		t.Fatalf("the report's JSON: %v", err)
	}
	return s
}
