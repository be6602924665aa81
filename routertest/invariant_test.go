package routertest

// The router invariant, checked against real routers rather than a list of
// expected strings:
//
//	For agent requests, whenever a handler registered under a Disallowed
//	prefix would serve a request, agentready denies it; and whenever a
//	capability's handler would serve it, that capability's scope, auth and
//	limits were applied.
//
// Each request target is parsed exactly as the server parses it
// (http.ReadRequest over a raw request line), served once by the bare router
// (which handler would serve it?) and once through agentready (which status,
// and was any handler reached?). The routers are net/http.ServeMux (Go 1.22
// patterns) and chi, each plain behind m.Handler, with the capability routes
// bound by m.Capability, and chi with r.Use(m.Handler).
//
//	go test -run 'RouterInvariant' -v ./routertest
//	go test -run '^$' -fuzz FuzzRouterInvariant -fuzztime 60s ./routertest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// Handler ids. Every route of every router records one of these in the
// request's slot (and in X-Served-By, for the end-to-end check).
const (
	hAdmin    = "admin"    // /admin/      Disallow: /admin/*
	hInternal = "internal" // /internal/   Disallow: /internal/*
	hSemi     = "a;b"      // /a;b/        Disallow: /a;b/*
	hCafe     = "café"     // /café/       Disallow: /caf%C3%A9/*
	hSearch   = "search"   // GET /api/search         capability "search"
	hOrders   = "orders"   // POST /api/orders/{id}   capability "orders"
	hPublic   = "public"   // /public/     Allow: /public/*
	hRoot     = "root"     // /            Allow: /
)

// disallowedHandler: handlers registered under a Disallowed prefix.
var disallowedHandler = map[string]bool{hAdmin: true, hInternal: true, hSemi: true, hCafe: true}

// capabilityHandler: handler id -> capability id.
var capabilityHandler = map[string]string{hSearch: "search", hOrders: "orders"}

const (
	rinvOrigin = "https://shop.example"
	rinvUA     = "curl/8.5.0"             // a generic client: an agent, policy "*"
	rinvScoped = "python-requests/2.32.3" // declared agent "python-requests": capability "search" only
)

func routerInvariantSite() config.Site {
	return config.Site{
		Name:        "Router Invariant Shop",
		URL:         rinvOrigin,
		Description: "A shop whose declaration is checked against real routers",
		Contact:     "agents@shop.example",
		GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		Capabilities: []config.Capability{
			{
				ID:          "search",
				Description: "Search the catalog",
				Endpoint:    rinvOrigin + "/api/search",
				Method:      "GET",
				Protocol:    config.ProtocolREST,
				Auth:        config.Auth{Type: config.AuthBearerToken, TokenEndpoint: rinvOrigin + "/auth/token"},
				RateLimit:   config.PerMinute(600),
				Params: []config.Param{
					{Name: "q", In: config.InQuery, Type: config.TypeString, Required: true, Description: "Search query"},
				},
			},
			{
				ID:          "orders",
				Description: "Update an order",
				Endpoint:    rinvOrigin + "/api/orders/{id}",
				Method:      "POST",
				Protocol:    config.ProtocolREST,
				Auth:        config.Auth{Type: config.AuthBearerToken, TokenEndpoint: rinvOrigin + "/auth/token"},
				RateLimit:   config.PerMinute(600),
				Params: []config.Param{
					{Name: "id", In: config.InPath, Type: config.TypeString, Required: true, Description: "Order ID"},
				},
			},
		},
		Access: config.Access{
			Allow:    []string{"/", "/api/*", "/public/*"},
			Disallow: []string{"/admin/*", "/internal/*", "/a;b/*", "/caf%C3%A9/*"},
		},
		Agents: []config.AgentPolicy{
			{Name: "*"},
			{Name: "python-requests", Capabilities: []string{"search"}},
		},
	}
}

// slot is where the handler that served a request writes its id.
type slot struct{ id string }

type slotKey struct{}

func record(id string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s, ok := r.Context().Value(slotKey{}).(*slot); ok {
			s.id = id
		}
		w.Header().Set("X-Served-By", id)
		_, _ = io.WriteString(w, "served "+id)
	})
}

// bindFunc binds a capability route (identity for the bare routers).
type bindFunc func(id string, h http.Handler) http.Handler

func noBind(_ string, h http.Handler) http.Handler { return h }

func bindWith(m *agentready.Middleware) bindFunc {
	return func(id string, h http.Handler) http.Handler { return m.Capability(id)(h) }
}

func newInvMux(bind bindFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/admin/", record(hAdmin))
	mux.Handle("/internal/", record(hInternal))
	mux.Handle("/a;b/", record(hSemi))
	mux.Handle("/café/", record(hCafe))
	mux.Handle("GET /api/search", bind("search", record(hSearch)))
	mux.Handle("POST /api/orders/{id}", bind("orders", record(hOrders)))
	mux.Handle("/public/", record(hPublic))
	mux.Handle("/", record(hRoot))
	return mux
}

// chiRoutes registers the routes on a chi router; with m, the capability
// routes are bound the README's way, r.With(m.Capability(id)).Get(...).
func chiRoutes(r chi.Router, m *agentready.Middleware) {
	r.Handle("/admin/*", record(hAdmin))
	r.Handle("/internal/*", record(hInternal))
	r.Handle("/a;b/*", record(hSemi))
	r.Handle("/café/*", record(hCafe))
	if m == nil {
		r.Get("/api/search", record(hSearch).ServeHTTP)
		r.Post("/api/orders/{id}", record(hOrders).ServeHTTP)
	} else {
		r.With(m.Capability("search")).Get("/api/search", record(hSearch).ServeHTTP)
		r.With(m.Capability("orders")).Post("/api/orders/{id}", record(hOrders).ServeHTTP)
	}
	r.Handle("/public/*", record(hPublic))
	r.Handle("/*", record(hRoot))
}

// newInvChi is chi with the routes (bound to their capabilities with m).
func newInvChi(m *agentready.Middleware) http.Handler {
	r := chi.NewRouter()
	chiRoutes(r, m)
	return r
}

// newInvChiUse is chi with m.Handler as r.Use middleware and bound
// capability routes, as the README's chi quick start.
func newInvChiUse(m *agentready.Middleware) http.Handler {
	r := chi.NewRouter()
	r.Use(m.Handler)
	chiRoutes(r, m)
	return r
}

// routerVariant is one router: bare (no agentready) and wrapped.
type routerVariant struct {
	name    string
	bare    http.Handler
	wrapped http.Handler
}

type invFixture struct {
	m        *agentready.Middleware
	variants []routerVariant
}

var (
	invOnce sync.Once
	invFix  *invFixture
	invErr  error
)

// routerInvariantFixture builds the declaration and the routers once per
// process (the fuzz workers each build their own).
func routerInvariantFixture(tb testing.TB) *invFixture {
	tb.Helper()
	invOnce.Do(func() {
		m, err := agentready.New(routerInvariantSite())
		if err != nil {
			invErr = err
			return
		}
		bareMux, bareChi := newInvMux(noBind), newInvChi(nil)
		invFix = &invFixture{m: m, variants: []routerVariant{
			{"servemux", bareMux, m.Handler(newInvMux(noBind))},
			{"servemux+Capability", bareMux, m.Handler(newInvMux(bindWith(m)))},
			{"chi", bareChi, m.Handler(newInvChi(nil))},
			{"chi+With(Capability)", bareChi, m.Handler(newInvChi(m))},
			{"chi+Use(Handler)+With(Capability)", bareChi, newInvChiUse(m)},
		}}
	})
	if invErr != nil {
		tb.Fatalf("the declaration does not validate: %v", invErr)
	}
	return invFix
}

// outcome is what serving one request produced.
type outcome struct {
	status   int
	served   string // handler id from the slot, "" when no handler ran
	header   http.Header
	panicked any
}

func (o outcome) String() string {
	s := fmt.Sprintf("%d", o.status)
	if o.served != "" {
		s += " handler=" + o.served
	} else {
		s += " no handler"
	}
	if o.status >= 300 && o.status < 400 {
		s += " Location=" + o.header.Get("Location")
	}
	if o.panicked != nil {
		s += fmt.Sprintf(" PANIC=%v", o.panicked)
	}
	return s
}

// profile is one kind of agent request.
type profile struct {
	name  string
	ua    string
	token bool // send Authorization: Bearer x
}

// uaChrome is a browser: it passes untouched.
const uaChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

var invProfiles = []profile{
	{"anonymous", rinvUA, false},
	{"token", rinvUA, true},
	{"scoped", rinvScoped, true},
}

func rawRequest(method, target string, p profile) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: example.com\r\nUser-Agent: " + p.ua + "\r\n")
	if p.token {
		b.WriteString("Authorization: Bearer x\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// parseTarget parses the request exactly as the server does. ok is false
// when ReadRequest rejects it, or when the target bytes changed the request
// beyond its target (a CR or LF smuggling a header): out of scope.
func parseTarget(method, target string, p profile) (*http.Request, bool) {
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(rawRequest(method, target, p))))
	if err != nil || req.Method != method || req.RequestURI != target || req.Header.Get("User-Agent") != p.ua {
		return nil, false
	}
	headers := 1 // User-Agent (Host is req.Host)
	if p.token {
		headers++
		if req.Header.Get("Authorization") != "Bearer x" {
			return nil, false
		}
	}
	if len(req.Header) != headers {
		return nil, false
	}
	req.RemoteAddr = "192.0.2.1:4711" // as the server sets it
	return req, true
}

func serveOne(h http.Handler, req *http.Request) (o outcome) {
	s := &slot{}
	req = req.WithContext(context.WithValue(req.Context(), slotKey{}, s))
	rec := httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			o = outcome{status: -1, served: s.id, header: rec.Header(), panicked: v}
		}
	}()
	h.ServeHTTP(rec, req)
	return outcome{status: rec.Code, served: s.id, header: rec.Header()}
}

// violations checks the invariant for one request: bare is what the router
// alone did, got what it did behind agentready, for a request of profile p.
func violations(p profile, bare, got outcome) []string {
	var v []string
	if got.panicked != nil {
		v = append(v, fmt.Sprintf("agentready panicked: %v", got.panicked))
		return v
	}
	if got.status >= 500 {
		v = append(v, fmt.Sprintf("agentready answered %d (5xx)", got.status))
	}

	// Disallowed prefixes: never reached, 403 or 400.
	if disallowedHandler[got.served] {
		v = append(v, fmt.Sprintf("reached the handler %q of a Disallowed prefix", got.served))
	}
	if disallowedHandler[bare.served] && got.status != http.StatusForbidden && got.status != http.StatusBadRequest {
		v = append(v, fmt.Sprintf("the router serves %q (Disallowed) but agentready answered %d, want 403 or 400", bare.served, got.status))
	}

	// Capabilities: scope, auth and limits applied.
	if capID, ok := capabilityHandler[got.served]; ok {
		switch {
		case !p.token:
			v = append(v, fmt.Sprintf("reached capability %q's handler without a credential (auth not applied)", capID))
		case p.ua == rinvScoped && capID != "search":
			v = append(v, fmt.Sprintf("reached capability %q's handler for an agent not permitted to use it (scope not applied)", capID))
		case !strings.Contains(got.header.Get("RateLimit-Policy"), `"capability/`+capID+`"`):
			v = append(v, fmt.Sprintf("reached capability %q's handler without its rate limit (RateLimit-Policy %q)", capID, got.header.Get("RateLimit-Policy")))
		}
	}
	if capID, ok := capabilityHandler[bare.served]; ok && got.served != bare.served {
		var want map[int]bool
		switch {
		case !p.token:
			want = map[int]bool{401: true, 403: true, 400: true} // auth applied, or refused earlier
		case p.ua == rinvScoped && capID != "search":
			want = map[int]bool{403: true, 400: true} // scope applied, or refused earlier
		default:
			want = map[int]bool{403: true, 400: true, 429: true} // with a token, only a refusal or the limit stop it
		}
		if !want[got.status] {
			v = append(v, fmt.Sprintf("the router serves capability %q but agentready answered %d (handler %q)", capID, got.status, got.served))
		}
	}

	// A refusal is agentready's, and agentready's refusals are problem+json.
	if got.served == "" && (got.status == 400 || got.status == 401 || got.status == 403) {
		if ct := got.header.Get("Content-Type"); ct != "application/problem+json" {
			v = append(v, fmt.Sprintf("refused with %d but Content-Type %q, want application/problem+json", got.status, ct))
		}
	}
	return v
}

// checkTarget runs one method and target through every variant and profile
// and returns the violations, each described in full. ok is false when the
// request is out of scope (ReadRequest rejects it).
// trace, when set, receives every outcome.
func checkTarget(fx *invFixture, method, target string, trace func(string)) (vs []string, ok bool) {
	for _, rv := range fx.variants {
		req, ok := parseTarget(method, target, invProfiles[0])
		if !ok {
			return nil, false
		}
		bare := serveOne(rv.bare, req)
		if bare.panicked != nil {
			vs = append(vs, fmt.Sprintf("[%s] %s %q: the bare router panicked: %v", rv.name, method, target, bare.panicked))
			continue
		}
		for _, p := range invProfiles {
			req, ok := parseTarget(method, target, p) // a fresh parse
			if !ok {
				continue
			}
			got := serveOne(rv.wrapped, req)
			if trace != nil {
				trace(fmt.Sprintf("[%s] %s %q (%s): bare router: %s; agentready: %s", rv.name, method, target, p.name, bare, got))
			}
			for _, v := range violations(p, bare, got) {
				vs = append(vs, fmt.Sprintf("[%s] %s %q (%s): bare router: %s; agentready: %s: %s",
					rv.name, method, target, p.name, bare, got, v))
			}
		}
	}
	return vs, true
}

// routerInvariantTargets are hostile request targets: encoded and raw dot
// segments, encoded slashes and backslashes, NUL, empty segments, the
// absolute form, escapes of ordinary and of sub-delim characters, and the
// capability endpoints themselves.
var routerInvariantTargets = []string{
	// plain
	"/admin/x", "/internal/metrics", "/a;b/x", "/café/x", "/caf%C3%A9/x", "/public/x", "/x",
	"/api/search", "/api/search?q=tent", "/api/orders/7", "/api/orders/7?x=1",
	// encoded slash
	"/admin/..%2Fapi", "/admin/..%2fapi/search", "/admin%2Fx", "/%2Fadmin/x", "/internal%2Fmetrics",
	"/public/..%2F..%2Fadmin/x", "/api/orders/7%2F8", "/api%2Fsearch",
	// dot segments, raw and encoded
	"/admin/%2e%2e/x", "/admin/%2E%2E/api/search", "/x/../admin/y", "/./admin/y", "/admin/x/..", "/admin/.",
	"/public/../admin/x", "/public/%2e%2e/admin/x", "/api/./search", "/api/x/../search", "/api/x/%2E%2E/search",
	"/x/%2e%2e/admin/y", "/x/.%2e/admin/y", "/robots.txt/../admin/x", "/.well-known/../admin/x",
	"/.well-known/agents.txt/..%2F..%2Fadmin",
	// empty segments
	"//admin/x", "/api//search", "//api/search", "/admin//x",
	// absolute form
	"http://host/admin/..%2Fapi", "http://example.com/admin/x", "http://host//admin/x", "HTTP://HOST/admin/x",
	"http://host/api/search", "http://host/%61dmin/x", "http://host/x/%2e%2e/admin/y",
	// escapes of ordinary characters
	"/%61dmin/x", "/%41dmin/x", "/ADMIN/x", "/%69nternal/x", "/api/s%65arch", "/api/search%3Fq=1",
	"/api/orders/%37", "/%61pi/orders/7", "/a%3Bb/x", "/a%3bb/x", "/caf%c3%a9/x", "/caf%C3%A9%2Fx",
	// backslash, NUL and other controls
	"/admin\\x", "/admin%5Cx", "/admin%5C..%5Cx", "/public\\..\\admin\\x", "/admin/x%00", "/admin%00/x",
	"/api/search%00", "/admin%0Ax", "/admin%09/x",
	// odd but legal
	"/admin", "/admin/", "/api/search/", "/api/search;jsessionid=1", "/api/orders/7;x", "/api/orders/7/",
	"/API/search", "*", "/admin/%", "/admin%", "/%zzadmin/x", "/admin/x#frag",
}

var routerInvariantMethods = []string{http.MethodGet, http.MethodPost, http.MethodHead}

func TestRouterInvariant(t *testing.T) {
	fx := routerInvariantFixture(t)

	t.Run("controls", func(t *testing.T) {
		// The invariant is not vacuous: the routers serve the handlers the
		// targets are about, and agentready lets a credentialed agent and a
		// browser through.
		for _, c := range []struct {
			method, target, handler string
		}{
			{"GET", "/admin/x", hAdmin}, {"GET", "/internal/m", hInternal}, {"GET", "/a;b/x", hSemi},
			{"GET", "/café/x", hCafe}, {"GET", "/caf%C3%A9/x", hCafe}, {"GET", "/api/search", hSearch},
			{"POST", "/api/orders/7", hOrders}, {"GET", "/public/x", hPublic}, {"GET", "/x", hRoot},
		} {
			for _, rv := range fx.variants {
				req, ok := parseTarget(c.method, c.target, invProfiles[0])
				if !ok {
					t.Fatalf("ReadRequest rejects %s %s", c.method, c.target)
				}
				if o := serveOne(rv.bare, req); o.served != c.handler {
					t.Errorf("[%s] bare %s %s: %s, want handler %q", rv.name, c.method, c.target, o, c.handler)
				}
			}
		}
		for _, rv := range fx.variants {
			for _, c := range []struct {
				method, target, handler, policy string
			}{
				{"GET", "/api/search?q=tent", hSearch, `"capability/search"`},
				{"POST", "/api/orders/7", hOrders, `"capability/orders"`},
			} {
				req, _ := parseTarget(c.method, c.target, invProfiles[1])
				o := serveOne(rv.wrapped, req)
				if o.status != 200 || o.served != c.handler || !strings.Contains(o.header.Get("RateLimit-Policy"), c.policy) {
					t.Errorf("[%s] %s %s with a token: %s RateLimit-Policy %q", rv.name, c.method, c.target, o, o.header.Get("RateLimit-Policy"))
				}
			}
			req, _ := parseTarget("GET", "/public/x", invProfiles[0])
			if o := serveOne(rv.wrapped, req); o.status != 200 || o.served != hPublic {
				t.Errorf("[%s] GET /public/x: %s", rv.name, o)
			}
			req, _ = parseTarget("GET", "/admin/x", profile{"browser", uaChrome, false})
			if o := serveOne(rv.wrapped, req); o.status != 200 || o.served != hAdmin {
				t.Errorf("[%s] a browser on /admin/x: %s", rv.name, o)
			}
		}
	})

	inScope := 0
	for _, target := range routerInvariantTargets {
		for _, method := range routerInvariantMethods {
			var trace func(string)
			if os.Getenv("ROUTERINV_TRACE") != "" { // log every outcome, not only the violations
				trace = func(s string) { t.Log(s) }
			}
			vs, ok := checkTarget(fx, method, target, trace)
			if !ok {
				t.Logf("out of scope (ReadRequest rejects it): %s %q", method, target)
				continue
			}
			inScope++
			for _, v := range vs {
				t.Error(v)
			}
		}
	}
	t.Logf("%d method+target pairs in scope, %d router variants, %d request profiles", inScope, len(fx.variants), len(invProfiles))
}

func FuzzRouterInvariant(f *testing.F) {
	for _, target := range routerInvariantTargets {
		for i := range routerInvariantMethods {
			f.Add(byte(i), target)
		}
	}
	f.Add(byte(1), "/api/orders/%2e%2e")
	f.Add(byte(0), "/api/search/..")
	fx := routerInvariantFixture(f)
	f.Fuzz(func(t *testing.T, m byte, target string) {
		method := routerInvariantMethods[int(m)%len(routerInvariantMethods)]
		vs, _ := checkTarget(fx, method, target, nil)
		for _, v := range vs {
			t.Error(v)
		}
	})
}

// TestRouterInvariantEndToEnd sends raw request lines through a real
// net/http server, for the targets whose parse the server might treat
// differently from ReadRequest alone, and checks that the real server path
// gives the same routing and the same decision as the in-memory check.
func TestRouterInvariantEndToEnd(t *testing.T) {
	fx := routerInvariantFixture(t)
	targets := []struct{ method, target string }{
		{"GET", "http://host/admin/..%2Fapi"},
		{"GET", "http://example.com/admin/x"},
		{"GET", "/admin/..%2Fapi/search"},
		{"GET", "/admin%2Fx"},
		{"GET", "/x/%2e%2e/admin/y"},
		{"GET", "/a%3Bb/x"},
		{"GET", "/%61dmin/x"},
		{"GET", "/api/s%65arch"},
		{"POST", "/api/orders/7"},
		{"GET", "/api/search"},
	}
	for _, rv := range fx.variants {
		bareSrv := httptest.NewServer(rv.bare)
		wrappedSrv := httptest.NewServer(rv.wrapped)
		for _, tc := range targets {
			p := invProfiles[0]
			bare, err := rawRoundTrip(bareSrv, tc.method, tc.target, p)
			if err != nil {
				t.Errorf("[%s] bare %s %q: %v", rv.name, tc.method, tc.target, err)
				continue
			}
			got, err := rawRoundTrip(wrappedSrv, tc.method, tc.target, p)
			if err != nil {
				t.Errorf("[%s] %s %q: %v", rv.name, tc.method, tc.target, err)
				continue
			}
			for _, v := range violations(p, bare, got) {
				t.Errorf("[%s] end to end %s %q: bare router: %s; agentready: %s: %s", rv.name, tc.method, tc.target, bare, got, v)
			}
			// The real server routes and decides as the in-memory parse does.
			req, ok := parseTarget(tc.method, tc.target, p)
			if !ok {
				t.Errorf("[%s] ReadRequest rejects %s %q, which the server accepted", rv.name, tc.method, tc.target)
				continue
			}
			mem := serveOne(rv.wrapped, req)
			req, _ = parseTarget(tc.method, tc.target, p)
			memBare := serveOne(rv.bare, req)
			if mem.status != got.status || mem.served != got.served || memBare.status != bare.status || memBare.served != bare.served {
				t.Errorf("[%s] %s %q: server %s / bare %s, in memory %s / bare %s", rv.name, tc.method, tc.target, got, bare, mem, memBare)
			}
			t.Logf("[%s] %s %q: bare router: %s; agentready: %s", rv.name, tc.method, tc.target, bare, got)
		}
		bareSrv.Close()
		wrappedSrv.Close()
	}
}

// rawRoundTrip writes one request line as bytes over a TCP connection and
// reads the response; the handler that served it is X-Served-By.
func rawRoundTrip(srv *httptest.Server, method, target string, p profile) (outcome, error) {
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		return outcome{}, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	raw := strings.Replace(rawRequest(method, target, p), "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1)
	if _, err := io.WriteString(conn, raw); err != nil {
		return outcome{}, err
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		return outcome{}, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return outcome{status: res.StatusCode, served: res.Header.Get("X-Served-By"), header: res.Header}, nil
}
