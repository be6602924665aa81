package enforcer_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/resolve"
)

const uaGPTBot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)"

// ordersSite is the shape of the applications issue 22 reproduced the
// bypasses on: path rules with a query-sensitive Allow, capabilities with
// auth, a template and a method, an agent not permitted one of them.
func ordersSite() config.Site {
	return config.Site{
		Name: "Orders", URL: "https://shop.example", Description: "Orders", Contact: "a@shop.example",
		Capabilities: []config.Capability{
			{ID: "product-search", Description: "Search", Endpoint: "https://shop.example/api/search", Method: "GET", Protocol: config.ProtocolREST, RateLimit: config.PerMinute(2)},
			{ID: "order-list", Description: "List", Endpoint: "https://shop.example/api/orders", Method: "GET", Protocol: config.ProtocolREST,
				Auth: config.Auth{Type: config.AuthBearerToken}},
			{ID: "order-cancel", Description: "Cancel", Endpoint: "https://shop.example/api/orders/{id}", Method: "DELETE", Protocol: config.ProtocolREST,
				Auth: config.Auth{Type: config.AuthBearerToken}},
			{ID: "export", Description: "Export", Endpoint: "https://shop.example/api/export", Method: "GET", Protocol: config.ProtocolREST},
			{ID: "export-csv", Description: "Export as CSV", Endpoint: "https://shop.example/api/export.csv", Method: "GET", Protocol: config.ProtocolREST},
		},
		Access: config.Access{
			Allow:    []string{"/api/*", "/*.css$"},
			Disallow: []string{"/admin", "/private$", "/secret/"},
		},
		Agents: []config.AgentPolicy{
			{Name: "*"},
			{Name: "GPTBot", Capabilities: []string{"product-search", "order-list", "export", "export-csv"}},
		},
	}
}

// readingsEnforcer returns an Enforcer of ordersSite and a function that
// serves a request through Wrap(next) and returns its decision.
func readingsEnforcer(t *testing.T, lenient bool, next http.Handler) func(r *http.Request) enforce.Decision {
	t.Helper()
	return enforcerOf(t, ordersSite(), lenient, next)
}

// enforcerOf is readingsEnforcer of site.
func enforcerOf(t *testing.T, site config.Site, lenient bool, next http.Handler) func(r *http.Request) enforce.Decision {
	t.Helper()
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	var last enforce.Decision
	e, err := enforcer.New(enforcer.Config{Policy: p, LenientRouting: lenient, OnDecision: func(d enforce.Decision) { last = d }})
	if err != nil {
		t.Fatal(err)
	}
	if next == nil {
		next = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	}
	h := e.Wrap(next)
	return func(r *http.Request) enforce.Decision {
		last = enforce.Decision{}
		h.ServeHTTP(httptest.NewRecorder(), r)
		return last
	}
}

func agentRequest(method, target string, body io.Reader) *http.Request {
	r := httptest.NewRequest("GET", target, body)
	r.Method = method // as sent: NewRequest would refuse nothing, but keep the case
	r.Header.Set("User-Agent", uaGPTBot)
	return r
}

func TestReadings(t *testing.T) {
	for _, tc := range []struct {
		name, method, target string
		header               map[string]string
		lenient              bool
		outcome              enforce.Outcome
		capability           string
	}{
		// A query cannot select an Allow over the path's Disallow.
		{name: "query selects the Allow", method: "GET", target: "/admin/users?.css", outcome: enforce.DenyPath},
		{name: "css allowed", method: "GET", target: "/site.css", outcome: enforce.Allow},
		{name: "query kept for the rule", method: "GET", target: "/api/search?q=tent", outcome: enforce.Allow, capability: "product-search"},
		// chi's StripSlashes and URLFormat route these to /api/orders.
		{name: "trailing slash", method: "GET", target: "/api/orders/", outcome: enforce.DenyAuth, capability: "order-list"},
		{name: "format extension", method: "GET", target: "/api/orders.json", outcome: enforce.DenyAuth, capability: "order-list"},
		{name: "extension and slash", method: "GET", target: "/api/orders.json/", outcome: enforce.DenyAuth, capability: "order-list"},
		{name: "extension with query", method: "GET", target: "/api/orders.json?x=1", outcome: enforce.DenyAuth, capability: "order-list"},
		{name: "anchored disallow, slash", method: "GET", target: "/private/", outcome: enforce.DenyPath},
		{name: "anchored disallow, extension", method: "GET", target: "/private.html", outcome: enforce.DenyPath},
		{name: "two capabilities", method: "GET", target: "/api/export.csv", outcome: enforce.DenyTarget},
		{name: "one capability", method: "GET", target: "/api/export", outcome: enforce.Allow, capability: "export"},
		// Method overrides are decided on.
		{name: "override header", method: "POST", target: "/api/orders/42", header: map[string]string{"X-HTTP-Method-Override": "DELETE"}, outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "override header lower case", method: "POST", target: "/api/orders/42", header: map[string]string{"X-Http-Method": "delete"}, outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "override X-Method-Override", method: "GET", target: "/api/orders/42", header: map[string]string{"X-Method-Override": "DELETE"}, outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "override query", method: "POST", target: "/api/orders/42?_method=DELETE", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "override query escaped", method: "POST", target: "/api/orders/42?x=1;%5Fmethod=De%4cETE", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "override to a second capability", method: "GET", target: "/api/orders?_method=DELETE", outcome: enforce.DenyAuth, capability: "order-list"},
		{name: "override with a no-break space", method: "POST", target: "/api/orders/42", header: map[string]string{"X-HTTP-Method-Override": "DELETE\xa0"}, outcome: enforce.DenyTarget},
		{name: "override padded", method: "POST", target: "/api/orders/42", header: map[string]string{"X-HTTP-Method-Override": " DELETE\t"}, outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "override query bracketed", method: "POST", target: "/api/orders/42?%5B_method%5D=DELETE", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "case-variant method", method: "delete", target: "/api/orders/42", outcome: enforce.DenyTarget},
		{name: "case-variant GET", method: "Get", target: "/api/search", outcome: enforce.DenyTarget},
		{name: "unknown method", method: "PURGE", target: "/api/search", outcome: enforce.Allow},
		// Without LenientRouting, case and an added slash are the
		// application's; with it, they are decided on.
		{name: "case, strict", method: "GET", target: "/ADMIN/users", outcome: enforce.Allow},
		{name: "case, lenient", method: "GET", target: "/ADMIN/users", lenient: true, outcome: enforce.DenyPath},
		{name: "case in a capability, lenient", method: "DELETE", target: "/API/orders/42", lenient: true, outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "case and slash, lenient", method: "GET", target: "/Api/Search/", lenient: true, outcome: enforce.Allow, capability: "product-search"},
		{name: "added slash, strict", method: "GET", target: "/secret", outcome: enforce.Allow},
		{name: "added slash, lenient", method: "GET", target: "/secret", lenient: true, outcome: enforce.DenyPath},
		{name: "escape kept upper, lenient", method: "GET", target: "/ADMIN%3Bx", lenient: true, outcome: enforce.DenyPath},
		// A servlet container removes each segment's ";" parameter before
		// it routes: decided without it too.
		{name: "path parameter", method: "GET", target: "/admin;x/users", outcome: enforce.DenyPath},
		{name: "empty path parameter", method: "GET", target: "/admin;/users", outcome: enforce.DenyPath},
		{name: "path parameter, anchored", method: "GET", target: "/private;jsessionid=1", outcome: enforce.DenyPath},
		{name: "path parameter, slash rule", method: "GET", target: "/secret;x/", outcome: enforce.DenyPath},
		{name: "path parameter on a capability", method: "GET", target: "/api/search;x?q=1", outcome: enforce.Allow, capability: "product-search"},
		{name: "path parameter on a template", method: "DELETE", target: "/api/orders;x/42", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "path parameter in the last segment", method: "DELETE", target: "/api/orders/42;x", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "session id", method: "GET", target: "/cart;jsessionid=A1", outcome: enforce.Allow},
		// A PHP front controller, a CGI script, ASP.NET route the path
		// after the script (PATH_INFO).
		{name: "PATH_INFO", method: "GET", target: "/index.php/admin/users", outcome: enforce.DenyPath},
		{name: "PATH_INFO on a capability", method: "GET", target: "/index.php/api/search?q=1", outcome: enforce.Allow, capability: "product-search"},
		{name: "PATH_INFO on a template", method: "DELETE", target: "/app/index.PHP/api/orders/42", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "PATH_INFO behind a parameter", method: "GET", target: "/index.php;x/secret/y", outcome: enforce.DenyPath},
		// Fastify 4 takes a ";" for the start of the query.
		{name: "cut at ';'", method: "GET", target: "/api/search;/x?q=1", outcome: enforce.Allow, capability: "product-search"},
		{name: "cut at ';', anchored", method: "GET", target: "/private;/x", outcome: enforce.DenyPath},
		{name: "cut at ';', template", method: "DELETE", target: "/api/orders/42;/x", outcome: enforce.DenyCapability, capability: "order-cancel"},
		// ASP.NET removes its cookieless-state segments before it routes.
		{name: "cookieless session", method: "GET", target: "/(S(x))/admin/users", outcome: enforce.DenyPath},
		{name: "cookieless, anchored", method: "GET", target: "/(A(a)S(b))/private", outcome: enforce.DenyPath},
		{name: "cookieless, template", method: "DELETE", target: "/(S(x))/api/orders/42", outcome: enforce.DenyCapability, capability: "order-cancel"},
		{name: "ColdFusion PATH_INFO", method: "GET", target: "/index.cfm/private", outcome: enforce.DenyPath},
		{name: "encoded path parameter", method: "GET", target: "/secret%3Bx/y", outcome: enforce.DenyPath},
		{name: "dot segment behind a parameter", method: "GET", target: "/api/..;/admin/users", outcome: enforce.DenyTarget},
		{name: "encoded dot segment behind a parameter", method: "GET", target: "/api/%2e%2e;/admin/users", outcome: enforce.DenyTarget},
		{name: "empty segment behind a parameter", method: "GET", target: "/;x/admin/users", outcome: enforce.DenyTarget},
		{name: "Latin-1", method: "GET", target: "/caf%E9", outcome: enforce.DenyTarget},
		{name: "overlong dot", method: "GET", target: "/%C0%AE%C0%AE/admin", outcome: enforce.DenyTarget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serve := readingsEnforcer(t, tc.lenient, nil)
			r := agentRequest(tc.method, tc.target, nil)
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			d := serve(r)
			if d.Outcome != tc.outcome || d.Capability != tc.capability {
				t.Errorf("%s %s: %v capability %q (rule %q, err %v), want %v capability %q",
					tc.method, tc.target, d.Outcome, d.Capability, d.Rule, d.Err, tc.outcome, tc.capability)
			}
		})
	}
}

// A _method field in a form or JSON body is decided on, and the handler
// still reads the body as sent.
func TestReadingsFormOverride(t *testing.T) {
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	_ = mw.WriteField("note", "x")
	_ = mw.WriteField("_method", "DELETE")
	_ = mw.Close()
	part := func(ctype, headers string) (string, string) {
		return ctype + "; boundary=zz", "--zz\r\n" + headers + "\r\n\r\nDELETE\r\n--zz--\r\n"
	}
	mixedCT, mixed := part("multipart/mixed", `Content-Disposition: form-data; name="_method"`)
	cidCT, cid := part("multipart/form-data", "Content-ID: <_method>")
	badCT, bad := part("multipart/form-data", `Content-Disposition: form-data; name="_method"; foo`)
	bracketCT, bracket := part("multipart/form-data", `Content-Disposition: form-data; name="[_method]"`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte("_method=DELETE"))
	_ = zw.Close()
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, contentType, body string
		header                  map[string]string
		outcome                 enforce.Outcome
	}{
		{name: "urlencoded", contentType: form, body: "a=1&_method=DELETE", outcome: enforce.DenyCapability},
		{name: "urlencoded, another field", contentType: form, body: "a=1&shipping_method=UPS+Ground", outcome: enforce.DenyPath},
		{name: "loose name", contentType: form, body: "a=1&method=DELETE", outcome: enforce.DenyCapability},
		// The names frameworks read as _method (PHP, Laravel, Rack, qs).
		{name: "brackets", contentType: form, body: "%5B_method%5D=DELETE", outcome: enforce.DenyCapability},
		{name: "array", contentType: form, body: "_method%5B%5D=DELETE", outcome: enforce.DenyCapability},
		{name: "php dot", contentType: form, body: ".method=DELETE", outcome: enforce.DenyCapability},
		{name: "php space", contentType: form, body: "+_method=DELETE", outcome: enforce.DenyCapability},
		{name: "php NUL", contentType: form, body: "_method%00x=DELETE", outcome: enforce.DenyCapability},
		{name: "not a method name", contentType: form, body: "_method=DELETE%C2%A0", outcome: enforce.DenyTarget},
		{name: "no content type is a form (Rack)", body: "_method=DELETE", outcome: enforce.DenyCapability},
		{name: "gzip", contentType: form, body: gz.String(), header: map[string]string{"Content-Encoding": "gzip"}, outcome: enforce.DenyTarget},
		{name: "identity", contentType: form, body: "a=1", header: map[string]string{"Content-Encoding": "identity"}, outcome: enforce.DenyPath},
		{name: "multipart", contentType: mw.FormDataContentType(), body: mp.String(), outcome: enforce.DenyCapability},
		{name: "multipart/mixed", contentType: mixedCT, body: mixed, outcome: enforce.DenyCapability},
		{name: "multipart Content-ID", contentType: cidCT, body: cid, outcome: enforce.DenyCapability},
		{name: "multipart bracket name", contentType: bracketCT, body: bracket, outcome: enforce.DenyCapability},
		{name: "multipart disposition broken", contentType: badCT, body: bad, outcome: enforce.DenyTarget},
		{name: "multipart, broken", contentType: "multipart/form-data; boundary=zz", body: "--zz\r\nbroken", outcome: enforce.DenyTarget},
		{name: "too large", contentType: form, body: "a=" + strings.Repeat("x", resolve.DefaultBodyLimit), outcome: enforce.DenyBody},
		{name: "json member", contentType: "application/json", body: `{"a":1,"_method":"DELETE"}`, outcome: enforce.DenyCapability},
		{name: "json member array", contentType: "application/json", body: `{"_method":["DELETE"]}`, outcome: enforce.DenyCapability},
		{name: "json with a BOM", contentType: "application/json", body: "\uFEFF" + `{"_method":"DELETE"}`, outcome: enforce.DenyCapability},
		{name: "json invalid", contentType: "application/json", body: `{"_method":"DELETE"`, outcome: enforce.DenyTarget},
		{name: "json too deep", contentType: "application/json", body: strings.Repeat("[", 10001) + strings.Repeat("]", 10001), outcome: enforce.DenyTarget},
		{name: "json in utf-16", contentType: "application/json; charset=utf-16le", body: "{}", outcome: enforce.DenyTarget},
		{name: "json array body", contentType: "application/json", body: `[{"_method":"DELETE"}]`, outcome: enforce.DenyPath},
		{name: "text is no form", contentType: "text/plain", body: "_method=DELETE", outcome: enforce.DenyPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			serve := readingsEnforcer(t, false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got = string(b)
			}))
			// POST /api/orders/42 is no capability's and no rule allows it:
			// /api/* does; so a denial here is the override's.
			r := agentRequest("POST", "/api/orders/42", strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			d := serve(r)
			want := tc.outcome
			if want == enforce.DenyPath {
				want = enforce.Allow // no override: POST /api/orders/42 is open under Allow: /api/*
			}
			if d.Outcome != want {
				t.Fatalf("%v (err %v), want %v", d.Outcome, d.Err, want)
			}
			if want == enforce.Allow && got != tc.body {
				t.Errorf("the handler read %d bytes of a %d-byte body", len(got), len(tc.body))
			}
		})
	}
	// A body sent where no other method routes a capability is not read:
	// an upload larger than the limit is not refused for it.
	var got int
	serve := readingsEnforcer(t, false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = len(b)
	}))
	big := "a=" + strings.Repeat("x", 2*resolve.DefaultBodyLimit)
	r := agentRequest("POST", "/upload", strings.NewReader(big))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if d := serve(r); d.Outcome != enforce.Allow || got != len(big) {
		t.Errorf("upload: %v, the handler read %d of %d bytes", d.Outcome, got, len(big))
	}
}

// caseRouter routes like a router that says which route a request
// reaches: "/legacy/cancel/{id}" is its alias of the order-cancel route.
type caseRouter struct{}

func (caseRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }

func (caseRouter) Handler(r *http.Request) (http.Handler, string) {
	if strings.HasPrefix(r.URL.Path, "/legacy/cancel/") {
		return nil, "DELETE /api/orders/{orderID}"
	}
	return nil, ""
}

// A capability whose endpoint is the route the router selects holds on
// every spelling that reaches it: Wrap asks a router with ServeMux's
// Handler method.
func TestReadingsRoutePattern(t *testing.T) {
	serve := readingsEnforcer(t, false, caseRouter{})
	d := serve(agentRequest("DELETE", "/legacy/cancel/42", nil))
	if d.Outcome != enforce.DenyCapability || d.Capability != "order-cancel" {
		t.Errorf("alias route: %v capability %q", d.Outcome, d.Capability)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /api/orders/{id}", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /api/export.csv", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/api/orders", func(http.ResponseWriter, *http.Request) {}) // every method
	serve = readingsEnforcer(t, false, mux)
	if d := serve(agentRequest("DELETE", "/api/orders/42", nil)); d.Capability != "order-cancel" {
		t.Errorf("ServeMux: capability %q", d.Capability)
	}
	// A route without a method serves every method from the capability's
	// handler: the capability holds for all of them.
	for _, m := range []string{"GET", "POST", "PUT", "PROPFIND"} {
		if d := serve(agentRequest(m, "/api/orders", nil)); d.Outcome != enforce.DenyAuth || d.Capability != "order-list" {
			t.Errorf("%s /api/orders on a route without a method: %v capability %q", m, d.Outcome, d.Capability)
		}
	}
	// The mux routes /api/export.csv as sent: of the two capabilities its
	// readings address, the router's applies.
	if d := serve(agentRequest("GET", "/api/export.csv", nil)); d.Outcome != enforce.Allow || d.Capability != "export-csv" {
		t.Errorf("/api/export.csv under ServeMux: %v capability %q (err %v)", d.Outcome, d.Capability, d.Err)
	}
}

// decideAs returns a function deciding a GPTBot GET of a target by
// site, with or without LenientRouting.
func decideAs(t *testing.T, site config.Site, lenient bool) func(target string) enforce.Decision {
	t.Helper()
	serve := enforcerOf(t, site, lenient, nil)
	return func(target string) enforce.Decision { return serve(agentRequest("GET", target, nil)) }
}

// TestReadingsLenientOpensWhatIsOpen: the route "/x/" a lenient router
// takes "/x" to is the same route, so a rule closes it only when the rule
// is specific to it. With no Allow/Disallow (draft-car 2.6: only the
// capability endpoints are open) or with "Disallow: /" beside an anchored
// Allow, /api/search is as open to a lenient router as to a strict one
// (serve's default mode refused it with "not a declared capability
// endpoint"); "Disallow: /secret/" still closes /secret.
func TestReadingsLenientOpensWhatIsOpen(t *testing.T) {
	implicit := ordersSite()
	implicit.Access = config.Access{}
	explicit := ordersSite()
	explicit.Access = config.Access{Allow: []string{"/api/search$", "/api/orders"}, Disallow: []string{"/", "/secret/"}}
	for _, tc := range []struct {
		name    string
		site    config.Site
		target  string
		outcome enforce.Outcome
	}{
		{"implicit, the endpoint", implicit, "/api/search", enforce.Allow},
		{"implicit, the endpoint with a query", implicit, "/api/search?q=1", enforce.Allow},
		{"implicit, a templated endpoint", implicit, "/api/orders/42", enforce.Allow},
		{"implicit, not an endpoint", implicit, "/about", enforce.DenyPath},
		{"implicit, below an endpoint", implicit, "/api/search/more", enforce.DenyPath},
		{"explicit, anchored Allow", explicit, "/api/search", enforce.Allow},
		{"explicit, prefix Allow", explicit, "/api/orders", enforce.DenyAuth},
		{"explicit, closed", explicit, "/about", enforce.DenyPath},
		{"explicit, a Disallow of the slash form", explicit, "/secret", enforce.DenyPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := decideAs(t, tc.site, true)(tc.target); d.Outcome != tc.outcome {
				t.Errorf("lenient %s: %v (rule %q, err %v), want %v", tc.target, d.Outcome, d.Rule, d.Err, tc.outcome)
			}
		})
	}
}

// TestReadingsLenientNeverRefusesTheOpen: over generated declarations
// whose rules close no slash form on its own (Allows, anchored or not,
// beside "Disallow: /" or draft-car 2.6's implicit rules) and targets that
// are their paths in lower case, LenientRouting refuses no target the
// strict reading allows: its extra readings (case, the added slash) are
// the same routes.
func TestReadingsLenientNeverRefusesTheOpen(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 33))
	segs := []string{"api", "search", "orders", "a", "b", "docs", "x.json", "v1"}
	path := func() string {
		var b strings.Builder
		for n := 1 + rng.IntN(3); n > 0; n-- {
			b.WriteString("/" + segs[rng.IntN(len(segs))])
		}
		return b.String()
	}
	for i := range 300 {
		site := ordersSite()
		site.Access = config.Access{}
		var targets []string
		for j := range site.Capabilities {
			p := path()
			site.Capabilities[j].Endpoint = "https://shop.example" + p
			targets = append(targets, p, p+"?q=1")
		}
		if rng.IntN(2) == 0 {
			site.Access.Disallow = []string{"/"}
			for n := 1 + rng.IntN(3); n > 0; n-- {
				p := path()
				if rng.IntN(2) == 0 {
					p += "$"
				}
				site.Access.Allow = append(site.Access.Allow, p)
				targets = append(targets, strings.TrimSuffix(p, "$"))
			}
		}
		if _, err := policy.Compile(&site); err != nil {
			continue // two capabilities at one endpoint, and the like
		}
		strict, lenient := decideAs(t, site, false), decideAs(t, site, true)
		for _, target := range targets {
			s, l := strict(target), lenient(target)
			if s.Outcome.Allowed() && !l.Outcome.Allowed() {
				t.Fatalf("declaration %d (allow %q, disallow %q, endpoints %q): %s allowed strictly, refused leniently: %v %q %v",
					i, site.Access.Allow, site.Access.Disallow, targets, target, l.Outcome, l.Rule, l.Err)
			}
		}
	}
}
