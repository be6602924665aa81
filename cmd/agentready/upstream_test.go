package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/logbuf"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// The upstream tests run agentready serve in front of real applications
// started from testdata, each with the same routes: an Express app
// (testdata/express: Express's routing defaults and method-override), a
// Flask app (testdata/flask, on Werkzeug's server), servlets on Tomcat 10
// (testdata/tomcat) and on Jetty 9 (testdata/jetty), a Django app
// (testdata/django, on runserver's server), a PHP front controller on
// PHP's built-in server (testdata/php) and a Go app that takes h2c
// upgrades (h2cApp). Without what one needs (internal/testing/testtools says
// what) its tests are skipped, unless AGENTREADY_REQUIRE_UPSTREAMS=1 (set
// by .ci/run): then they fail, so that CI never passes by skipping.
const envRequireUpstreams = testtools.EnvRequire

// upstreamSite is the declaration the proxy puts in front of every app.
const upstreamSite = "testdata/upstream/site.yaml"

// upstreamApp is how to start one of the apps.
type upstreamApp struct {
	name string
	// missing says what is not installed to run it, "" when all is.
	missing func() string
	// cmd is the command that starts the app; it prints "listening
	// PORT" once it listens on a free 127.0.0.1 port it picked. t's
	// TempDir is the app's to write in.
	cmd func(t testing.TB) *exec.Cmd
	// cmdOnPort, for an app that cannot say which port it picked,
	// instead starts it on port, a free one startUpstream picked.
	cmdOnPort func(port string) *exec.Cmd
	// serve, for an app in the test's process, starts it and returns
	// its host:port; it stops when t ends.
	serve func(t testing.TB) string
}

var upstreamApps = []upstreamApp{
	{
		name:    "express",
		missing: func() string { return testtools.NodePackage("testdata/express", "express") },
		cmd: func(testing.TB) *exec.Cmd {
			c := exec.Command("node", "app.js")
			c.Dir = "testdata/express"
			return c
		},
	},
	{
		name:    "flask",
		missing: func() string { _, why := testtools.FlaskPython(); return why },
		cmd: func(testing.TB) *exec.Cmd {
			py, _ := testtools.FlaskPython()
			c := exec.Command(py, "app.py")
			c.Dir = "testdata/flask"
			return c
		},
	},
	{
		name:    "tomcat",
		missing: func() string { _, why := testtools.Tomcat(); return why },
		cmd: func(t testing.TB) *exec.Cmd {
			cp, _ := testtools.Tomcat()
			c := javaApp(cp, t.TempDir())
			c.Dir = "testdata/tomcat"
			return c
		},
	},
	{
		name:    "jetty",
		missing: func() string { _, why := testtools.Jetty(); return why },
		cmd: func(testing.TB) *exec.Cmd {
			cp, _ := testtools.Jetty()
			c := javaApp(cp)
			c.Dir = "testdata/jetty"
			return c
		},
	},
	{
		name:    "django",
		missing: func() string { _, why := testtools.DjangoPython(); return why },
		cmd: func(testing.TB) *exec.Cmd {
			py, _ := testtools.DjangoPython()
			c := exec.Command(py, "app.py")
			c.Dir = "testdata/django"
			return c
		},
	},
	{
		name:    "php",
		missing: testtools.PHP,
		// No router script: the built-in server itself finds the
		// script and derives PATH_INFO (testdata/php/index.php says
		// how). It prints no port it picked, so it is given one.
		cmdOnPort: func(port string) *exec.Cmd {
			c := exec.Command("php", "-S", "127.0.0.1:"+port, "-t", ".")
			c.Dir = "testdata/php"
			return c
		},
	},
	{
		name:    "h2c",
		missing: func() string { return "" },
		serve:   startH2CApp,
	},
}

// javaApp runs testdata's one-file app App.java on the class path cp,
// with args. java compiles it in memory at launch; C1 alone
// (TieredStopAtLevel=1) starts it in about 1.5 s rather than 2: the
// tests send too few requests for C2 to pay.
func javaApp(cp string, args ...string) *exec.Cmd {
	return exec.Command("java", append([]string{"-XX:TieredStopAtLevel=1", "-cp", cp, "App.java"}, args...)...)
}

// startWait bounds how long an upstream may take to start and answer: a
// ceiling, not a measure (the wait ends when it answers). A JVM compiling
// its servlets took 15 s at load 7; CI runs the race detector beside it.
const startWait = 2 * time.Minute

// startUpstream starts app on a free 127.0.0.1 port, waits until it
// answers, and stops it when t ends. It returns the app's host:port.
func startUpstream(t testing.TB, app upstreamApp) string {
	t.Helper()
	if why := app.missing(); why != "" {
		if os.Getenv(envRequireUpstreams) == "1" {
			t.Fatalf("%s upstream: %s, and %s=1", app.name, why, envRequireUpstreams)
		}
		t.Skipf("%s upstream: %s (%s=1 makes this a failure)", app.name, why, envRequireUpstreams)
	}
	if app.serve != nil {
		return app.serve(t)
	}
	var cmd *exec.Cmd
	var given string
	if app.cmdOnPort != nil {
		given = freePort(t)
		cmd = app.cmdOnPort(given)
	} else {
		cmd = app.cmd(t)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr logbuf.Buffer // written by the process's copier, read here
	cmd.Stderr = &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s upstream: %v", app.name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	port := make(chan string, 1)
	if given != "" {
		port <- given
	}
	go func() {
		sc := bufio.NewScanner(out)
		for given == "" && sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				port <- p
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	var addr string
	select {
	case p := <-port:
		addr = net.JoinHostPort("127.0.0.1", strings.TrimSpace(p))
	case <-done:
		t.Fatalf("%s upstream exited: %s", app.name, stderr.String())
	case <-time.After(startWait):
		t.Fatalf("%s upstream did not start in %v: %s", app.name, startWait, stderr.String())
	}
	for deadline := time.Now().Add(startWait); ; {
		res, err := http.Get("http://" + addr + "/up")
		if err == nil {
			res.Body.Close()
			t.Logf("%s upstream answers after %v", app.name, time.Since(began).Round(time.Millisecond))
			return addr
		}
		select {
		case <-done:
			t.Fatalf("%s upstream exited: %s", app.name, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s upstream does not answer at %s: %v", app.name, addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort returns a 127.0.0.1 port that was free a moment ago, for an
// app that must be told one. Another process could take it before the
// app does; then the app exits and startUpstream says so.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// front is agentready serve in front of one started upstream.
type front struct {
	app      string
	upstream string // the app's host:port, for the bare stack
	addr     string // the proxy's host:port
	ledger   *ledger
}

// startFront starts app and the proxy in front of it, built as serve
// builds it from upstreamSite, with 127.0.0.1 a trusted proxy so that
// each request names its own client in X-Forwarded-For (and so gets its
// own rate limits). extra adjusts the configuration (a strict upstream).
func startFront(t testing.TB, app upstreamApp, extra func(*proxyConfig)) *front {
	t.Helper()
	up := startUpstream(t, app)
	c := proxyConfig{configFile: upstreamSite, upstream: "http://" + up, trusted: []string{"127.0.0.1/32"}, upstreamTimeout: 10 * time.Second}
	if extra != nil {
		extra(&c)
	}
	srv := serveFront(t, c)
	return &front{app: app.name, upstream: up, addr: strings.TrimPrefix(srv.URL, "http://"), ledger: &ledger{runs: map[string]int{}, first: map[string]time.Time{}}}
}

// wireRequest is one request as it goes on the wire: the method and the
// target exactly as written, fields in order (names as written), a body.
type wireRequest struct {
	method, target string
	header         [][2]string
	body           string
	// smuggle, when the answer is 101 to an "Upgrade: h2c" in header,
	// is the path of a GET sent next on the connection, over HTTP/2
	// (smuggleH2C): the response is then that request's.
	smuggle string
}

// wireResponse is what came back: the status, the header, the body, and
// the app's JSON echo when it ran a handler.
type wireResponse struct {
	status  int
	header  http.Header
	body    []byte
	handler string // X-Handler: "<handler> <method>", "" when no handler ran
	echo    struct {
		Handler, Method string
		Headers         map[string]any
		// Target is the request-target as the app received it, from
		// its echo handler (upstream_canonical_test.go) only.
		Target string
	}
}

// do sends r to addr on a connection of its own, written byte for byte
// (http.Client would canonicalise what the tests must send as is).
func (r wireRequest) do(addr string) (*wireResponse, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(15 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: shop.example\r\n", r.method, r.target)
	connection := false // a Connection field of r's replaces "close"
	for _, h := range r.header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
		connection = connection || strings.EqualFold(h[0], "Connection")
	}
	if !connection {
		b.WriteString("Connection: close\r\n")
	}
	if r.body != "" || r.method == "POST" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n" + r.body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return nil, err
	}
	m := r.method
	if strings.EqualFold(m, "HEAD") {
		m = "HEAD" // no body follows, whoever upper-cased it
	}
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, &http.Request{Method: m})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode == http.StatusSwitchingProtocols && r.smuggle != "" {
		if res, body, err = smuggleH2C(conn, br, r.smuggle, r.header); err != nil {
			return nil, fmt.Errorf("after the 101: %v", err)
		}
	}
	w := &wireResponse{status: res.StatusCode, header: res.Header, body: body, handler: res.Header.Get("X-Handler")}
	if w.handler != "" && len(body) > 0 {
		if err := json.Unmarshal(body, &w.echo); err != nil {
			return nil, fmt.Errorf("the app's echo: %v: %q", err, body)
		}
	}
	return w, nil
}

// echoed returns the value of the header field name the app received,
// "" when none (Node lower-cases names, Werkzeug capitalises them).
func (w *wireResponse) echoed(name string) (string, bool) {
	for k, v := range w.echo.Headers {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s, true
		}
	}
	return "", false
}

// client is one requester: an agent (a User-Agent, never a browser's:
// every request is one agentready decides on) from an address of its own,
// with or without a bearer token.
type client struct {
	ua, addr string
	bearer   bool
}

// clients numbers fresh client addresses (10.x.y.z), so that each case
// and each fuzz input has limits of its own.
var clients atomic.Uint32

func newClient(ua string, bearer bool) client {
	n := clients.Add(1)
	return client{ua: ua, addr: fmt.Sprintf("10.%d.%d.%d", n>>16&0xff, n>>8&0xff, n&0xff), bearer: bearer}
}

// send sends r as c through the proxy of f, checks the invariant on what
// the upstream ran, and returns the response.
func (f *front) send(t testing.TB, c client, r wireRequest) *wireResponse {
	t.Helper()
	r.header = append([][2]string{{"User-Agent", c.ua}, {"X-Forwarded-For", c.addr}}, r.header...)
	if c.bearer {
		r.header = append(r.header, [2]string{"Authorization", "Bearer tok-" + c.addr})
	}
	w, err := r.do(f.addr)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("%s: %s %q %q: no answer: %v", f.app, r.method, r.target, r.header, err)
	}
	if err != nil {
		// An app breaks the connection of a request it cannot parse
		// (Node resets one with a method it does not know and a body it
		// did not read) before any handler runs, and the proxy passes the
		// break on. That is all it may be: the bare app must run nothing
		// for the request either.
		if b, berr := r.do(f.upstream); berr == nil && b.handler != "" {
			t.Fatalf("%s: %s %q: %v, and the bare app runs %s for it", f.app, r.method, r.target, err, b.handler)
		}
		return &wireResponse{}
	}
	if err := f.ledger.check(c, w); err != nil {
		t.Errorf("%s: %s %q %q by %s: %v", f.app, r.method, r.target, r.header[2:], c.ua, err)
	}
	return w
}

// bare sends r to the upstream directly, as a client of the bare stack,
// and returns the handler the app ran ("" for none).
func (f *front) bare(t testing.TB, r wireRequest) string {
	t.Helper()
	w, err := r.do(f.upstream)
	if err != nil {
		t.Fatalf("%s bare: %s %q: %v", f.app, r.method, r.target, err)
	}
	return w.handler
}

// The declaration's limits (upstreamSite), per client and minute.
var capabilityLimits = map[string]int{"product-search": 2, "order-cancel": 2}

// ledger holds, per client, the capability handlers the upstream ran.
type ledger struct {
	mu    sync.Mutex
	runs  map[string]int       // client address + " " + handler
	first map[string]time.Time // when that handler first ran for the client
}

// check is the invariant, on a response of the proxy: whenever the
// upstream ran a handler, it was one the declaration lets this client
// run. Never the admin area's (Disallow: /admin, /admin/*); order-cancel
// only for an agent permitted it (not GPTBot) with a bearer token; each
// capability at most its limit's times per client; and the app was told
// the client address agentready derived, in X-Real-IP and
// X-Forwarded-For.
func (l *ledger) check(c client, w *wireResponse) error {
	if w.handler == "" {
		return nil // denied by agentready, or nothing of the app ran
	}
	handler, method, _ := strings.Cut(w.handler, " ")
	if method != "HEAD" && w.echo.Headers != nil {
		for _, f := range []string{"X-Real-IP", "X-Forwarded-For"} {
			if v, _ := w.echoed(f); v != c.addr {
				return fmt.Errorf("the upstream got %s %q, want the derived %q", f, v, c.addr)
			}
		}
	}
	switch handler {
	case "admin":
		return fmt.Errorf("the upstream ran the admin handler (%s), which Disallow: /admin closes", w.handler)
	case "order-cancel":
		if strings.Contains(c.ua, "GPTBot/") { // gptBot is a browser-like string with GPTBot/1.2 inside
			return fmt.Errorf("the upstream ran %s for GPTBot, whose policy does not permit order-cancel", w.handler)
		}
		if !c.bearer {
			return fmt.Errorf("the upstream ran %s without a bearer token", w.handler)
		}
	}
	if limit, ok := capabilityLimits[handler]; ok {
		l.mu.Lock()
		k := c.addr + " " + handler
		if l.runs[k] == 0 {
			l.first[k] = time.Now()
		}
		l.runs[k]++
		n, since := l.runs[k], time.Since(l.first[k])
		l.mu.Unlock()
		// The burst, and one more each 1/limit of a minute since the
		// first: a loaded machine that takes longer sends more, rightly.
		if allowed := limit + int(since*time.Duration(limit)/time.Minute); n > allowed {
			return fmt.Errorf("the upstream ran %s %d times for one client in %v, past its %d/minute limit", w.handler, n, since.Round(time.Millisecond), limit)
		}
	}
	return nil
}

// onWire makes s a request-target the tests can write: a leading '/', and
// the bytes no request line may hold (controls, space, non-ASCII)
// percent-encoded.
func onWire(s string) string {
	var b strings.Builder
	if !strings.HasPrefix(s, "/") {
		b.WriteByte('/')
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// withQuery adds name=value to target's query.
func withQuery(target, name, value string) string {
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	return target + sep + name + "=" + url.QueryEscape(value)
}
