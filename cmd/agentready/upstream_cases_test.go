package main

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Agents the cases send as. GPTBot's policy permits product-search only;
// the others fall under "*", which permits every capability.
const (
	gptBot    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"
	claudeBot = "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
)

// upstreamCase is one attack on the bare stack: requests, from one client,
// that the bare app routes to a handler the declaration closes to them.
type upstreamCase struct {
	name   string
	ua     string
	bearer bool
	req    wireRequest
	// sends is how many times the request is sent (a limit's case);
	// default 1.
	sends int
	// bare names, per app, the handler the bare app runs for req: the
	// case is an attack there (checked, so that a case that attacks
	// nothing is seen). An app not named may run anything.
	bare map[string]string
}

// form is the header of a urlencoded form body.
func form() [][2]string {
	return [][2]string{{"Content-Type", "application/x-www-form-urlencoded"}}
}

// upstreamCases are issue 22's reproduced cases, and their siblings.
var upstreamCases = []upstreamCase{
	// Express routes ignoring case and a trailing slash.
	{name: "/ADMIN/users", ua: gptBot, req: wireRequest{method: "GET", target: "/ADMIN/users"},
		bare: map[string]string{"express": "admin GET"}},
	{name: "/Admin", ua: gptBot, req: wireRequest{method: "GET", target: "/Admin"}, bare: map[string]string{"express": "admin GET"}},
	{name: "/admin/", ua: gptBot, req: wireRequest{method: "GET", target: "/admin/"}, bare: map[string]string{"express": "admin GET"}},
	{name: "/admin/users?.css", ua: gptBot, req: wireRequest{method: "GET", target: "/admin/users?.css"},
		bare: map[string]string{"express": "admin GET", "flask": "admin GET"}},
	{name: "/admin/users.css", ua: gptBot, req: wireRequest{method: "GET", target: "/admin/users.css"},
		bare: map[string]string{"express": "admin GET", "flask": "admin GET"}},
	{name: "/ADMIN/users?.css", ua: gptBot, req: wireRequest{method: "GET", target: "/ADMIN/users?.css"},
		bare: map[string]string{"express": "admin GET"}},
	// Werkzeug decodes the path before routing.
	{name: "/%61dmin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/%61dmin/users"},
		bare: map[string]string{"flask": "admin GET"}},
	// Werkzeug merges slashes and routes a decoded %2F as a '/'; Django
	// (on wsgiref's decoded PATH_INFO) and PHP's built-in server route
	// both to the admin area too, and Jetty the %2F.
	{name: "//admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "//admin/users"},
		bare: map[string]string{"flask": "admin GET", "django": "admin GET", "php": "admin GET"}},
	{name: "/admin%2Fusers", ua: gptBot, req: wireRequest{method: "GET", target: "/admin%2Fusers"},
		bare: map[string]string{"flask": "admin GET", "django": "admin GET", "php": "admin GET", "jetty": "admin GET"}},
	{name: "DELETE /admin by override", ua: gptBot, req: wireRequest{method: "POST", target: "/Admin/x", header: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}},
		bare: map[string]string{"express": "admin DELETE"}},

	// method-override turns a POST into a DELETE: order-cancel for an
	// agent not permitted it, or past its limit.
	{name: "override header, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}},
		bare: map[string]string{"express": "order-cancel DELETE", "flask": "order-update POST"}},
	{name: "X-HTTP-Method, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"X-HTTP-Method", "DELETE"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "X-Method-Override, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"x-method-override", "delete"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "override list, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"X-HTTP-Method-Override", "DELETE, GET"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "override repeated, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"X-HTTP-Method-Override", "DELETE"}, {"X-HTTP-Method-Override", "GET"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "_method query, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42?_method=delete"},
		bare: map[string]string{"express": "order-cancel DELETE", "flask": "order-update POST"}},
	{name: "%5Fmethod query, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42?%5Fmethod=DELETE"},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "_method form, GPTBot", ua: gptBot, bearer: true,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: form(), body: "_method=DELETE"},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "_method form, media type in capitals, GPTBot", ua: gptBot, bearer: true,
		req: wireRequest{method: "POST", target: "/api/orders/42", body: "a=1&_method=DELETE",
			header: [][2]string{{"Content-Type", "Application/X-WWW-Form-Urlencoded; charset=UTF-8"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "override header, no token", ua: claudeBot,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "override header, past the limit", ua: claudeBot, bearer: true, sends: 4,
		req:  wireRequest{method: "POST", target: "/api/orders/42", header: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "override to GET /api/search, past the limit", ua: claudeBot, sends: 4,
		req:  wireRequest{method: "POST", target: "/api/search", header: [][2]string{{"X-HTTP-Method-Override", "GET"}}},
		bare: map[string]string{"express": "product-search GET"}},

	// The capability's endpoint spelled otherwise.
	{name: "DELETE /API/orders/42, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/API/orders/42"},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "DELETE /API/orders/42, no token", ua: claudeBot, req: wireRequest{method: "DELETE", target: "/API/orders/42"},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "DELETE /api/orders/42/, no token", ua: claudeBot, req: wireRequest{method: "DELETE", target: "/api/orders/42/"},
		bare: map[string]string{"express": "order-cancel DELETE"}},
	{name: "DELETE /api/orders/42.json, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/api/orders/42.json"},
		bare: map[string]string{"express": "order-cancel DELETE", "flask": "order-cancel DELETE"}},
	{name: "DELETE /api/orders/42, past the limit", ua: claudeBot, bearer: true, sends: 4, req: wireRequest{method: "DELETE", target: "/api/orders/42"},
		bare: map[string]string{"express": "order-cancel DELETE", "flask": "order-cancel DELETE"}},
	{name: "GET /api/search/, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/api/search/"},
		bare: map[string]string{"express": "product-search GET"}},
	{name: "GET /API/Search, past the limit", ua: gptBot, sends: 4, req: wireRequest{method: "GET", target: "/API/Search?q=tent"},
		bare: map[string]string{"express": "product-search GET"}},
	{name: "HEAD /api/search, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "HEAD", target: "/api/search"},
		bare: map[string]string{"express": "product-search HEAD", "flask": "product-search HEAD"}},

	// Werkzeug upper-cases the method: a lower-case delete is a DELETE.
	{name: "delete, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "delete", target: "/api/orders/42"},
		bare: map[string]string{"flask": "order-cancel DELETE"}},
	{name: "Delete, no token", ua: claudeBot, req: wireRequest{method: "Delete", target: "/api/orders/42"},
		bare: map[string]string{"flask": "order-cancel DELETE"}},
	{name: "get /api/search, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "get", target: "/api/search"},
		bare: map[string]string{"flask": "product-search GET"}},
}

// pathCases are issue 33's: targets that servlet containers (Tomcat,
// Jetty), PHP's built-in server and the others read otherwise than as
// sent, and an HTTP/2 request smuggled past an h2c upgrade. A bare entry
// of "" or of the "none" handler is a case looked at on that app that
// attacks nothing there.
var pathCases = []upstreamCase{
	// Servlet containers remove a segment's ";..." before they route.
	{name: "/admin;x/users", ua: gptBot, req: wireRequest{method: "GET", target: "/admin;x/users"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "admin GET", "flask": "none GET"}},
	{name: "/admin;/users", ua: gptBot, req: wireRequest{method: "GET", target: "/admin;/users"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "admin GET"}},
	{name: "/admin;x", ua: gptBot, req: wireRequest{method: "GET", target: "/admin;x"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "admin GET"}},
	{name: "/admin/users;x", ua: gptBot, req: wireRequest{method: "GET", target: "/admin/users;x"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "admin GET", "express": "admin GET", "php": "admin GET"}},
	{name: "/;x/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/;x/admin/users"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "none GET"}},

	// Dot segments behind ';': Tomcat removes it, then decodes, then
	// resolves them; Jetty's default compliance refuses them (400).
	{name: "/api/..;/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/..;/admin/users"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": ""}},
	{name: "/api/search/..;/..;/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/search/..;/..;/admin/users"},
		bare: map[string]string{"tomcat": "admin GET"}},
	{name: "/api/%2e%2e;/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/%2e%2e;/admin/users"},
		bare: map[string]string{"tomcat": "admin GET"}},
	{name: "/api/%2E%2E;x/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/%2E%2E;x/admin/users"},
		bare: map[string]string{"tomcat": "admin GET"}},
	{name: "/api/.%2e;/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/.%2e;/admin/users"},
		bare: map[string]string{"tomcat": "admin GET"}},
	{name: "/api/.;/..;/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/.;/..;/admin/users"},
		bare: map[string]string{"tomcat": "admin GET"}},
	// An empty segment behind ';': Jetty and PHP resolve the dot
	// segments after it, Tomcat refuses it.
	{name: "/api/;x/../../admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/;x/../../admin/users"},
		bare: map[string]string{"jetty": "admin GET", "php": "admin GET", "tomcat": ""}},

	// A capability's endpoint with a path parameter: past its limit, or
	// by an agent it is not permitted to.
	{name: "/api/search;x, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/api/search;x?q=1"},
		bare: map[string]string{"tomcat": "product-search GET", "jetty": "product-search GET"}},
	{name: "/api;x/search, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/api;x/search?q=1"},
		bare: map[string]string{"tomcat": "product-search GET", "jetty": "product-search GET"}},
	{name: "/api/search;jsessionid=A1, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/api/search;jsessionid=A1?q=1"},
		bare: map[string]string{"tomcat": "product-search GET", "jetty": "product-search GET"}},
	{name: "DELETE /api/orders;x/42, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/api/orders;x/42"},
		bare: map[string]string{"tomcat": "order-cancel DELETE", "jetty": "order-cancel DELETE"}},
	{name: "DELETE /api/orders;x/42, no token", ua: claudeBot, req: wireRequest{method: "DELETE", target: "/api/orders;x/42"},
		bare: map[string]string{"tomcat": "order-cancel DELETE", "jetty": "order-cancel DELETE"}},
	{name: "DELETE /api;x/orders/42, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/api;x/orders/42"},
		bare: map[string]string{"tomcat": "order-cancel DELETE", "jetty": "order-cancel DELETE"}},
	{name: "DELETE /api/orders/42;x, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/api/orders/42;x"},
		bare: map[string]string{"tomcat": "order-cancel DELETE", "jetty": "order-cancel DELETE", "flask": "order-cancel DELETE", "php": "order-cancel DELETE"}},
	{name: "DELETE /api/orders/4%32, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/api/orders/4%32"},
		bare: map[string]string{"tomcat": "order-cancel DELETE", "django": "order-cancel DELETE", "h2c": "order-cancel DELETE"}},

	// Mixed encodings.
	{name: "/%61dmin;x/users", ua: gptBot, req: wireRequest{method: "GET", target: "/%61dmin;x/users"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "admin GET"}},
	{name: "/adm%69n/users", ua: gptBot, req: wireRequest{method: "GET", target: "/adm%69n/users"},
		bare: map[string]string{"tomcat": "admin GET", "jetty": "admin GET", "django": "admin GET", "php": "admin GET", "h2c": "admin GET"}},
	{name: "/api/s%65arch;x, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/api/s%65arch;x?q=1"},
		bare: map[string]string{"tomcat": "product-search GET", "jetty": "product-search GET"}},

	// Overlong UTF-8 for '.', which no app here decodes as one (Tomcat
	// refuses it): looked at, no attack.
	{name: "/%C0%AE%C0%AE/admin", ua: gptBot, req: wireRequest{method: "GET", target: "/%C0%AE%C0%AE/admin"},
		bare: map[string]string{"tomcat": "", "jetty": "none GET", "php": "none GET", "django": "none GET"}},
	{name: "/api/%C0%AE%C0%AE/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/%C0%AE%C0%AE/admin/users"},
		bare: map[string]string{"tomcat": "", "jetty": "none GET", "php": "none GET"}},
	// A byte that is not UTF-8: Latin-1 to Werkzeug, Django and PHP.
	{name: "/admin/caf%E9", ua: gptBot, req: wireRequest{method: "GET", target: "/admin/caf%E9"},
		bare: map[string]string{"flask": "admin GET", "django": "admin GET", "jetty": "admin GET", "php": "admin GET", "h2c": "admin GET", "tomcat": ""}},
	{name: "/api/%E9/..;/..;/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/%E9/..;/..;/admin/users"},
		bare: map[string]string{"tomcat": "admin GET"}},
	// Malformed escapes: PHP keeps one as it is and resolves the dot
	// segments after it.
	{name: "/%zz/../admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/%zz/../admin/users"},
		bare: map[string]string{"php": "admin GET", "tomcat": "", "jetty": ""}},
	{name: "/admin%zz", ua: gptBot, req: wireRequest{method: "GET", target: "/admin%zz"},
		bare: map[string]string{"php": "none GET", "tomcat": ""}},
	{name: "/api/search%, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/api/search%"},
		bare: map[string]string{"php": "none GET", "tomcat": ""}},

	// PHP's PATH_INFO: the built-in server resolves dot segments before
	// it looks for the script, so /api/search.php/../admin is /api/admin
	// to it (no attack), while one more ".." reaches /admin/users.
	{name: "/index.php/admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/index.php/admin/users"},
		bare: map[string]string{"php": "admin GET"}},
	{name: "/api/search.php/../admin", ua: gptBot, req: wireRequest{method: "GET", target: "/api/search.php/../admin"},
		bare: map[string]string{"php": "none GET"}},
	{name: "/api/search.php/../../admin/users", ua: gptBot, req: wireRequest{method: "GET", target: "/api/search.php/../../admin/users"},
		bare: map[string]string{"php": "admin GET", "tomcat": "admin GET", "jetty": "admin GET"}},
	{name: "/index.php/api/search, past the limit", ua: claudeBot, sends: 4, req: wireRequest{method: "GET", target: "/index.php/api/search?q=1"},
		bare: map[string]string{"php": "product-search GET"}},
	{name: "DELETE /index.php/api/orders/42, GPTBot", ua: gptBot, bearer: true, req: wireRequest{method: "DELETE", target: "/index.php/api/orders/42"},
		bare: map[string]string{"php": "order-cancel DELETE"}},

	// An HTTP/2 request on the connection an "Upgrade: h2c" turned.
	{name: "GET /admin/users smuggled after an h2c upgrade", ua: gptBot,
		req:  wireRequest{method: "GET", target: "/products/tent", header: h2cUpgrade(), smuggle: "/admin/users"},
		bare: map[string]string{"h2c": "admin GET", "tomcat": "admin GET", "jetty": "admin GET", "express": "none GET"}},
}

// TestProxyUpstreamCases: agentready serve in front of each app, each
// case's requests sent through it: whatever the bare app would run for
// them (checked first), the upstream never runs a handler the
// declaration closes to the client (ledger.check).
func TestProxyUpstreamCases(t *testing.T) { runUpstreamCases(t, upstreamCases) }

// TestProxyUpstreamPathCases: the same for pathCases.
func TestProxyUpstreamPathCases(t *testing.T) { runUpstreamCases(t, pathCases) }

func runUpstreamCases(t *testing.T, cases []upstreamCase) {
	for _, app := range upstreamApps {
		t.Run(app.name, func(t *testing.T) {
			f := startFront(t, app, nil)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if want, ok := tc.bare[app.name]; ok {
						if got := f.bare(t, tc.req); got != want {
							t.Fatalf("the bare app ran %q, want %q: the case attacks nothing here", got, want)
						}
					}
					c := newClient(tc.ua, tc.bearer)
					var got []string
					for range max(tc.sends, 1) {
						w := f.send(t, c, tc.req)
						got = append(got, strconv.Itoa(w.status)+" "+w.handler)
					}
					t.Logf("through the proxy: %s", strings.Join(got, "; "))
				})
			}
		})
	}
}

// overrideFields are the method-override fields FuzzProxyUpstream sends,
// by its field index (0: none).
var overrideFields = []string{"", "X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}

// fuzzAgents are the User-Agents FuzzProxyUpstream sends as, by index:
// all are agents agentready decides on.
var fuzzAgents = []string{gptBot, claudeBot, "python-requests/2.32.3", "PerplexityBot/1.0"}

// FuzzProxyUpstream: the invariant of TestProxyUpstreamCases, over the
// method (case variants too), the path's spelling (case, trailing slash,
// extension, a query such as "?.css"), a method-override field, _method
// in the query and in a form body, the agent and its token; each request
// sent three times from a client of its own, to every app. The seed
// corpus is the cases (but a smuggled one's second request).
func FuzzProxyUpstream(f *testing.F) {
	for _, tc := range slices.Concat(upstreamCases, pathCases) {
		if tc.req.smuggle != "" {
			continue
		}
		var field uint8
		var override string
		for _, h := range tc.req.header {
			for i, name := range overrideFields[1:] {
				if strings.EqualFold(h[0], name) {
					field, override = uint8(i+1), h[1]
				}
			}
		}
		var body string
		if v, ok := strings.CutPrefix(tc.req.body, "_method="); ok {
			body = v
		}
		agent := uint8(1)
		if tc.ua == gptBot {
			agent = 0
		}
		f.Add(tc.req.method, tc.req.target, field, override, "", body, agent, tc.bearer)
	}
	f.Add("POST", "/API/Orders/7/", uint8(1), "delete", "DELETE", "", uint8(2), false)
	f.Add("GET", "/Admin.CSS", uint8(0), "", "", "", uint8(3), true)
	var fronts []*front
	for _, app := range upstreamApps {
		fronts = append(fronts, startFront(f, app, nil))
	}
	f.Fuzz(func(t *testing.T, method, target string, field uint8, override, queryMethod, bodyMethod string, agent uint8, bearer bool) {
		if !token(method) || len(method) > 16 || len(target) > 1024 || !fieldValue(override) {
			return
		}
		r := wireRequest{method: method, target: onWire(target)}
		if queryMethod != "" {
			r.target = withQuery(r.target, "_method", queryMethod)
		}
		if name := overrideFields[int(field)%len(overrideFields)]; name != "" {
			r.header = append(r.header, [2]string{name, override})
		}
		if bodyMethod != "" {
			r.header = append(r.header, form()...)
			r.body = "_method=" + url.QueryEscape(bodyMethod)
		}
		for _, f := range fronts {
			c := newClient(fuzzAgents[int(agent)%len(fuzzAgents)], bearer)
			for range 3 {
				f.send(t, c, r)
			}
		}
	})
}

// token reports whether s is an RFC 9110 token, as a method must be.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// fieldValue reports whether s can be written as a field value.
func fieldValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
