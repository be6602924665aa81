package routertest

// The router invariant, checked against real router stacks rather than a
// list of expected strings:
//
//	For agent requests, whenever the bare stack (router, its normalising
//	middlewares, a method override) would run a handler on a path the
//	declaration closes, agentready has denied the request; and whenever it
//	would run a capability's handler, agentready applied that capability's
//	scope, auth and limit, or denied the request.
//
// Each request is parsed exactly as the server parses it (http.ReadRequest
// over raw bytes), served once by the bare stack (which handler, routed on
// which path?) and once through agentready (which status, and was any
// handler reached?). The stacks (stacks_test.go) are net/http.ServeMux,
// chi plain and with each of StripSlashes, RedirectSlashes, URLFormat and
// CleanPath before and after agentready, and gorilla/mux with
// StrictSlash(true), with and without m.Capability bindings.
//
//	go test -run 'RouterInvariant' -v ./routertest
//	go test -run '^$' -fuzz FuzzRouterInvariant -fuzztime 60s ./routertest

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

// Handler ids. Every route of every router records one of these.
const (
	hAdmin    = "admin"    // /admin/      Disallow: /admin (Allow: /*.css$ is longer)
	hInternal = "internal" // /internal/   Disallow: /internal/*
	hSemi     = "a;b"      // /a;b/        Disallow: /a;b/*
	hCafe     = "café"     // /café/       Disallow: /caf%C3%A9/*
	hSecret   = "secret"   // /secret      Disallow: /secret$
	hSearch   = "search"   // GET /api/search           capability "search"
	hOrders   = "orders"   // POST /api/orders/{id}     capability "orders"
	hCancel   = "cancel"   // DELETE /api/orders/{id}   capability "cancel"
	hPublic   = "public"   // /public/     Allow: /public/*
	hRoot     = "root"     // /            Allow: /
)

// closedRoute says, for each handler registered where the declaration
// disallows, whether the path the router routed it on is closed. Allow:
// /*.css$ is longer than Disallow: /admin and /a;b/*, so those two are
// open on a routed path ending in ".css" (Google's precedence); the others
// are closed on every path that reaches them.
var closedRoute = map[string]func(routed string) bool{
	hAdmin:    notCSS,
	hSemi:     notCSS,
	hInternal: always,
	hCafe:     always,
	hSecret:   always,
}

func notCSS(routed string) bool { return !strings.HasSuffix(routed, ".css") }
func always(string) bool        { return true }

// capabilityHandler: handler id -> capability id.
var capabilityHandler = map[string]string{hSearch: "search", hOrders: "orders", hCancel: "cancel"}

const rinvOrigin = "https://shop.example"

func routerInvariantSite() config.Site {
	bearer := config.Auth{Type: config.AuthBearerToken, TokenEndpoint: rinvOrigin + "/auth/token"}
	id := []config.Param{{Name: "id", In: config.InPath, Type: config.TypeString, Required: true, Description: "Order ID"}}
	return config.Site{
		Name:        "Router Invariant Shop",
		URL:         rinvOrigin,
		Description: "A shop whose declaration is checked against real routers",
		Contact:     "agents@shop.example",
		GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		Capabilities: []config.Capability{
			{
				ID: "search", Description: "Search the catalog", Endpoint: rinvOrigin + "/api/search",
				Method: "GET", Protocol: config.ProtocolREST, Auth: bearer, RateLimit: config.PerMinute(100000),
				Params: []config.Param{{Name: "q", In: config.InQuery, Type: config.TypeString, Required: true, Description: "Search query"}},
			},
			{
				ID: "orders", Description: "Update an order", Endpoint: rinvOrigin + "/api/orders/{id}",
				Method: "POST", Protocol: config.ProtocolREST, Auth: bearer, RateLimit: config.PerMinute(100000), Params: id,
			},
			{
				ID: "cancel", Description: "Cancel an order", Endpoint: rinvOrigin + "/api/orders/{id}",
				Method: "DELETE", Protocol: config.ProtocolREST, Auth: bearer, RateLimit: config.PerMinute(100000), Params: id,
			},
		},
		Access: config.Access{
			// Allow: /*.css$ beside the shorter Disallow: /admin is issue
			// 22's "a query selects the rule" (/admin/users?.css).
			Allow:    []string{"/", "/api/*", "/public/*", "/*.css$"},
			Disallow: []string{"/admin", "/internal/*", "/a;b/*", "/caf%C3%A9/*", "/secret$"},
		},
		Agents: []config.AgentPolicy{
			{Name: "*"},
			{Name: "python-requests", Capabilities: []string{"search"}},
			{Name: "Wget", Capabilities: []string{"orders"}},
		},
	}
}

// uaChrome is a browser: it passes untouched.
const uaChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

var invProfiles = []profile{
	{name: "anonymous", ua: "curl/8.5.0"},          // policy "*", no credential
	{name: "token", ua: "curl/8.5.0", token: true}, // policy "*": every capability
	{name: "scoped", ua: "python-requests/2.32.3", token: true, caps: []string{"search"}},
	{name: "orders-only", ua: "Wget/1.21.4", token: true, caps: []string{"orders"}}, // may update, not cancel
}

type invFixture struct {
	m      *agentready.Middleware
	stacks []stack
}

var (
	invOnce sync.Once
	invFix  *invFixture
	invErr  error
)

// routerInvariantFixture builds the declaration and the stacks once per
// process (the fuzz workers each build their own).
func routerInvariantFixture(tb testing.TB) *invFixture {
	tb.Helper()
	invOnce.Do(func() {
		m, err := agentready.New(routerInvariantSite())
		if err != nil {
			invErr = err
			return
		}
		invFix = &invFixture{m: m, stacks: invStacks(m)}
	})
	if invErr != nil {
		tb.Fatalf("the declaration does not validate: %v", invErr)
	}
	return invFix
}

// violations checks the invariant for one request: bare is what the stack
// alone did, got what it did behind agentready, for a request of profile p.
func violations(p profile, bare, got outcome) []string {
	var v []string
	if got.panicked != nil {
		return append(v, fmt.Sprintf("agentready panicked: %v", got.panicked))
	}
	if got.status >= 500 {
		v = append(v, fmt.Sprintf("agentready answered %d (5xx)", got.status))
	}

	// Closed paths: never reached; the request is refused (403, or 400 for
	// a target or method agentready will not decide on).
	if closed, ok := closedRoute[got.served]; ok && closed(got.routed) {
		v = append(v, fmt.Sprintf("reached the handler %q on %q, which the declaration closes", got.served, got.routed))
	}
	if closed, ok := closedRoute[bare.served]; ok && closed(bare.routed) && got.status != http.StatusForbidden && got.status != http.StatusBadRequest {
		v = append(v, fmt.Sprintf("the stack serves %q on %q (closed) but agentready answered %d, want 403 or 400", bare.served, bare.routed, got.status))
	}

	// Capabilities: scope, auth and limit applied.
	if capID, ok := capabilityHandler[got.served]; ok {
		switch {
		case !p.token:
			v = append(v, fmt.Sprintf("reached capability %q's handler without a credential (auth not applied)", capID))
		case !p.permits(capID):
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
		case !p.permits(capID):
			want = map[int]bool{403: true, 400: true} // scope applied, or refused earlier
		default:
			want = map[int]bool{403: true, 400: true, 429: true} // with a token, only a refusal or the limit stop it
		}
		if !want[got.status] {
			v = append(v, fmt.Sprintf("the stack serves capability %q but agentready answered %d (handler %q)", capID, got.status, got.served))
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

// checkRequest runs one request through every stack and profile and
// returns the violations, each described in full. ok is false when the
// request is out of scope (ReadRequest rejects it). trace, when set,
// receives every outcome.
func checkRequest(fx *invFixture, s reqSpec, trace func(string)) (vs []string, ok bool) {
	for _, st := range fx.stacks {
		req, ok := parseRequest(s, invProfiles[0])
		if !ok {
			return nil, false
		}
		bare := serveOne(st.bare, req)
		if bare.panicked != nil {
			vs = append(vs, fmt.Sprintf("[%s] %s: the bare stack panicked: %v", st.name, s, bare.panicked))
			continue
		}
		for _, p := range invProfiles {
			req, ok := parseRequest(s, p) // a fresh parse: the stacks change requests
			if !ok {
				continue
			}
			got := serveOne(st.wrapped, req)
			if trace != nil {
				trace(fmt.Sprintf("[%s] %s (%s): bare: %s; agentready: %s", st.name, s, p.name, bare, got))
			}
			for _, v := range violations(p, bare, got) {
				vs = append(vs, fmt.Sprintf("[%s] %s (%s): bare: %s; agentready: %s: %s", st.name, s, p.name, bare, got, v))
			}
		}
	}
	return vs, true
}

var routerInvariantMethods = []string{http.MethodGet, http.MethodPost, http.MethodHead, http.MethodDelete}

// fuzzMethods adds the methods a framework routes as another: case
// variants (Go routes "delete" as no method it knows, Flask upper-cases
// it) and methods no route names.
var fuzzMethods = append(append([]string(nil), routerInvariantMethods...),
	http.MethodPut, http.MethodPatch, http.MethodOptions, "get", "post", "delete", "Delete", "dELETE", "pOST", "PURGE")

func runTable(t *testing.T, fx *invFixture, specs []reqSpec) (inScope int) {
	t.Helper()
	var trace func(string)
	if os.Getenv("ROUTERINV_TRACE") != "" { // log every outcome, not only the violations
		trace = func(s string) { t.Log(s) }
	}
	for _, s := range specs {
		vs, ok := checkRequest(fx, s, trace)
		if !ok {
			t.Logf("out of scope (ReadRequest rejects it): %s", s)
			continue
		}
		inScope++
		for _, v := range vs {
			t.Error(v)
		}
	}
	return inScope
}

func TestRouterInvariant(t *testing.T) {
	fx := routerInvariantFixture(t)
	t.Run("controls", func(t *testing.T) { routerInvariantControls(t, fx) })
	t.Run("targets", func(t *testing.T) {
		var specs []reqSpec
		for _, target := range routerInvariantTargets {
			for _, method := range routerInvariantMethods {
				specs = append(specs, reqSpec{method: method, target: target})
			}
		}
		n := runTable(t, fx, specs)
		t.Logf("%d requests in scope, %d stacks, %d profiles", n, len(fx.stacks), len(invProfiles))
	})
	t.Run("spellings", func(t *testing.T) {
		// Each path that reaches a handler, spelled as the stacks
		// normalise it: a trailing slash, a format extension, a query that
		// selects a rule, case, escapes.
		var specs []reqSpec
		for _, base := range spellingBases {
			for _, sp := range spellings {
				for _, method := range routerInvariantMethods {
					specs = append(specs, reqSpec{method: method, target: spell(base, sp)})
				}
			}
		}
		n := runTable(t, fx, specs)
		t.Logf("%d requests in scope", n)
	})
	t.Run("overrides", func(t *testing.T) {
		n := runTable(t, fx, overrideSpecs())
		t.Logf("%d requests in scope", n)
	})
	t.Run("methods", func(t *testing.T) {
		var specs []reqSpec
		for _, method := range fuzzMethods {
			for _, target := range []string{"/admin/x", "/secret", "/api/search?q=1", "/api/orders/7", "/api/orders/7/", "/api/orders/7.json", "/x"} {
				specs = append(specs, reqSpec{method: method, target: target})
			}
		}
		n := runTable(t, fx, specs)
		t.Logf("%d requests in scope", n)
	})
}

// FuzzRouterInvariant: m picks the method (case variants included), spell
// respells the target (spell), ov picks an override header (0: none) sent
// with the value val, and pick which override methodOverride honours.
func FuzzRouterInvariant(f *testing.F) {
	for i, target := range routerInvariantTargets {
		f.Add(byte(i), target, byte(0), byte(0), "", byte(0))
	}
	for i, base := range spellingBases {
		for j, sp := range spellings {
			f.Add(byte(i+j), base, sp, byte(j%4), "DELETE", byte(j))
		}
	}
	for _, s := range overrideSpecs() {
		for i, h := range overrideHeaders {
			if len(s.headers) > 0 && s.headers[0][0] == h {
				f.Add(byte(1), s.target, byte(0), byte(i+1), s.headers[0][1], byte(len(s.headers)-1))
			}
		}
	}
	f.Add(byte(1), "/api/orders/%2e%2e", byte(0), byte(0), "", byte(0))
	f.Add(byte(0), "/api/search/..", byte(0), byte(0), "", byte(0))
	fx := routerInvariantFixture(f)
	f.Fuzz(func(t *testing.T, m byte, target string, sp, ov byte, val string, pick byte) {
		s := reqSpec{method: fuzzMethods[int(m)%len(fuzzMethods)], target: spell(target, sp)}
		if h := int(ov) % (len(overrideHeaders) + 1); h > 0 {
			s.headers = append(s.headers, [2]string{overrideHeaders[h-1], val})
		}
		if pick != 0 {
			s.headers = append(s.headers, [2]string{pickHeader, fmt.Sprint(pick)})
		}
		vs, _ := checkRequest(fx, s, nil)
		for _, v := range vs {
			t.Error(v)
		}
	})
}
