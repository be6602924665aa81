package routertest

// The requests the router invariant is checked on: hostile targets,
// respellings of the paths that reach a handler, method overrides, and
// the controls that keep the invariant from being vacuous.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// routerInvariantTargets are hostile request targets: encoded and raw dot
// segments, encoded slashes and backslashes, NUL, empty segments, the
// absolute form, escapes of ordinary and of sub-delim characters, the
// capability endpoints themselves, and the spellings issue 22 found open.
var routerInvariantTargets = []string{
	// plain
	"/admin/x", "/internal/metrics", "/a;b/x", "/café/x", "/caf%C3%A9/x", "/public/x", "/x", "/secret",
	"/api/search", "/api/search?q=tent", "/api/orders/7", "/api/orders/7?x=1",
	// issue 22: trailing slash, format extension, a query that selects the rule
	"/secret/", "/secret.html", "/secret.json/", "/secret/.json", "/api/orders/7/", "/api/orders/7.json",
	"/api/search/", "/api/search.json", "/api/search.json?q=1", "/api/search/?q=1", "/admin/users?.css",
	"/admin/users?x=.css", "/admin/users.css", "/admin/users.css/", "/admin.css", "/a;b/x?.css", "/secret?.css",
	// encoded slash
	"/admin/..%2Fapi", "/admin/..%2fapi/search", "/admin%2Fx", "/%2Fadmin/x", "/internal%2Fmetrics",
	"/public/..%2F..%2Fadmin/x", "/api/orders/7%2F8", "/api%2Fsearch", "/admin%2Fx/", "/secret%2F",
	// dot segments, raw and encoded
	"/admin/%2e%2e/x", "/admin/%2E%2E/api/search", "/x/../admin/y", "/./admin/y", "/admin/x/..", "/admin/.",
	"/public/../admin/x", "/public/%2e%2e/admin/x", "/api/./search", "/api/x/../search", "/api/x/%2E%2E/search",
	"/x/%2e%2e/admin/y", "/x/.%2e/admin/y", "/robots.txt/../admin/x", "/.well-known/../admin/x",
	"/.well-known/agents.txt/..%2F..%2Fadmin", "/secret/.", "/x/../secret", "/secret%2E", "/secret.",
	// empty segments
	"//admin/x", "/api//search", "//api/search", "/admin//x", "/secret//", "//secret",
	// absolute form
	"http://host/admin/..%2Fapi", "http://example.com/admin/x", "http://host//admin/x", "HTTP://HOST/admin/x",
	"http://host/api/search", "http://host/%61dmin/x", "http://host/x/%2e%2e/admin/y", "http://host/secret/",
	// escapes of ordinary characters
	"/%61dmin/x", "/%41dmin/x", "/ADMIN/x", "/%69nternal/x", "/api/s%65arch", "/api/search%3Fq=1",
	"/api/orders/%37", "/%61pi/orders/7", "/a%3Bb/x", "/a%3bb/x", "/caf%c3%a9/x", "/caf%C3%A9%2Fx",
	"/secre%74", "/secret%2Ejson", "/secret%2F", "/api/search%2Ejson", "/admin/users%3F.css",
	// backslash, NUL and other controls
	"/admin\\x", "/admin%5Cx", "/admin%5C..%5Cx", "/public\\..\\admin\\x", "/admin/x%00", "/admin%00/x",
	"/api/search%00", "/admin%0Ax", "/admin%09/x", "/secret\\", "/secret%5C",
	// odd but legal
	"/admin", "/admin/", "/api/search;jsessionid=1", "/api/orders/7;x", "/API/search", "/SECRET",
	"*", "/admin/%", "/admin%", "/%zzadmin/x", "/admin/x#frag", "/secret;x", "/secret;.json",
}

// spellingBases are paths that reach a handler on every router.
var spellingBases = []string{"/admin/users", "/admin", "/secret", "/a;b/x", "/internal/m", "/café/x", "/api/search", "/api/orders/7", "/x"}

// spellings are the respellings spell applies, one bit each.
var spellings = []byte{0, 1, 2, 4, 8, 16, 32, 64, 128, 1 | 2, 2 | 1<<4, 1 | 16, 64 | 16, 2 | 32, 4 | 1}

// spell respells target by the bits of sp: 1 a trailing slash, 2 a format
// extension (.json), 4 the first letter in upper case, 8 the first letter
// escaped, 16 a query ".css" (issue 22: the query selects the rule), 32 a
// query _method=DELETE, 64 the extension .css, 128 a matrix parameter.
func spell(target string, sp byte) string {
	path, query, hasQuery := strings.Cut(target, "?")
	if sp&64 != 0 {
		path += ".css"
	}
	if sp&2 != 0 {
		path += ".json"
	}
	if sp&128 != 0 {
		path += ";x"
	}
	if sp&1 != 0 {
		path += "/"
	}
	if sp&(4|8) != 0 {
		if i := strings.IndexFunc(path, func(c rune) bool { return c >= 'a' && c <= 'z' }); i >= 0 {
			c := path[i]
			switch {
			case sp&8 != 0:
				path = path[:i] + fmt.Sprintf("%%%02X", c) + path[i+1:]
			default:
				path = path[:i] + strings.ToUpper(string(c)) + path[i+1:]
			}
		}
	}
	add := func(q string) {
		if hasQuery && query != "" {
			query += "&" + q
		} else {
			query = q
		}
		hasQuery = true
	}
	if sp&16 != 0 {
		add(".css")
	}
	if sp&32 != 0 {
		add("_method=DELETE")
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// overrideSpecs are requests whose method a method override changes: an
// update that is a cancel (orders-only may update, not cancel), overrides
// in each header, in the query and in a form, case variants, lists, and
// overrides on closed paths.
func overrideSpecs() []reqSpec {
	var specs []reqSpec
	// "po\u017ft" is upper-cased to POST by Go, JavaScript and Python
	// (U+017F LATIN SMALL LETTER LONG S upper-cases to 'S').
	values := []string{"DELETE", "delete", "POST, DELETE", "DELETE, POST", "DELETE,", "GET", "PUT", "po\u017ft"}
	for _, target := range []string{"/api/orders/7", "/api/orders/7/", "/api/orders/7.json", "/api/search?q=1", "/admin/x", "/secret", "/x"} {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			for _, h := range overrideHeaders {
				for _, v := range values {
					for _, pick := range []string{"", "1"} {
						s := reqSpec{method: method, target: target, headers: [][2]string{{h, v}}}
						if pick != "" {
							s.headers = append(s.headers, [2]string{pickHeader, pick})
						}
						specs = append(specs, s)
					}
				}
			}
			sep := "?"
			if strings.Contains(target, "?") {
				sep = "&"
			}
			for _, q := range []string{"_method=DELETE", "_method=delete", "%5Fmethod=DELETE", "x=1;_method=DELETE", "_method=GET&_method=DELETE"} {
				specs = append(specs, reqSpec{method: method, target: target + sep + q})
				specs = append(specs, reqSpec{method: method, target: target + sep + q, headers: [][2]string{{pickHeader, "1"}}})
			}
		}
		for _, form := range []string{"_method=DELETE", "a=1&_method=delete", "%5Fmethod=DELETE"} {
			specs = append(specs, reqSpec{method: http.MethodPost, target: target, form: form})
		}
	}
	return specs
}

// routerInvariantControls: the invariant is not vacuous. Each stack routes
// the requests the cases are about to the handlers they are about, the
// override honours what it should, and agentready lets a credentialed
// agent and a browser through.
func routerInvariantControls(t *testing.T, fx *invFixture) {
	bare := []struct {
		s       reqSpec
		handler string
	}{
		{reqSpec{method: "GET", target: "/admin/x"}, hAdmin},
		{reqSpec{method: "GET", target: "/internal/m"}, hInternal},
		{reqSpec{method: "GET", target: "/a;b/x"}, hSemi},
		{reqSpec{method: "GET", target: "/café/x"}, hCafe},
		{reqSpec{method: "GET", target: "/caf%C3%A9/x"}, hCafe},
		{reqSpec{method: "GET", target: "/secret"}, hSecret},
		{reqSpec{method: "GET", target: "/api/search"}, hSearch},
		{reqSpec{method: "POST", target: "/api/orders/7"}, hOrders},
		{reqSpec{method: "DELETE", target: "/api/orders/7"}, hCancel},
		{reqSpec{method: "GET", target: "/public/x"}, hPublic},
		{reqSpec{method: "GET", target: "/x"}, hRoot},
	}
	for _, c := range bare {
		for _, st := range fx.stacks {
			req, ok := parseRequest(c.s, invProfiles[0])
			if !ok {
				t.Fatalf("ReadRequest rejects %s", c.s)
			}
			if o := serveOne(st.bare, req); o.served != c.handler {
				t.Errorf("[%s] bare %s: %s, want handler %q", st.name, c.s, o, c.handler)
			}
		}
	}
	// What each normalisation routes, on the stacks that have it: the
	// cases below are the issue's, and reach the handler bare.
	normalised := []struct {
		stack   string // a substring of the stack names
		s       reqSpec
		handler string
	}{
		{"StripSlashes", reqSpec{method: "GET", target: "/secret/"}, hSecret},
		{"StripSlashes", reqSpec{method: "POST", target: "/api/orders/7/"}, hOrders},
		{"URLFormat", reqSpec{method: "GET", target: "/secret.html"}, hSecret},
		{"URLFormat", reqSpec{method: "GET", target: "/api/search.json"}, hSearch},
		{"URLFormat", reqSpec{method: "GET", target: "/admin/users.css"}, hAdmin},
		{"chi", reqSpec{method: "GET", target: "/admin/users?.css"}, hAdmin},
		{"override", reqSpec{method: "POST", target: "/api/orders/7", headers: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}}, hCancel},
		{"chi", reqSpec{method: "POST", target: "/api/orders/7?_method=delete"}, hCancel},
		{"gorilla", reqSpec{method: "POST", target: "/api/orders/7", form: "_method=DELETE"}, hCancel},
		{"gorilla", reqSpec{method: "GET", target: "/%61dmin/x"}, hAdmin},
	}
	for _, c := range normalised {
		seen := false
		for _, st := range fx.stacks {
			if !strings.Contains(st.name, c.stack) {
				continue
			}
			seen = true
			req, _ := parseRequest(c.s, invProfiles[0])
			if o := serveOne(st.bare, req); o.served != c.handler {
				t.Errorf("[%s] bare %s: %s, want handler %q", st.name, c.s, o, c.handler)
			}
		}
		if !seen {
			t.Errorf("no stack named like %q", c.stack)
		}
	}
	for _, st := range fx.stacks {
		for _, c := range []struct {
			s              reqSpec
			p              profile
			handler, limit string
		}{
			{reqSpec{method: "GET", target: "/api/search?q=tent"}, invProfiles[1], hSearch, `"capability/search"`},
			{reqSpec{method: "POST", target: "/api/orders/7"}, invProfiles[1], hOrders, `"capability/orders"`},
			{reqSpec{method: "DELETE", target: "/api/orders/7"}, invProfiles[1], hCancel, `"capability/cancel"`},
			{reqSpec{method: "POST", target: "/api/orders/7"}, invProfiles[3], hOrders, `"capability/orders"`},
		} {
			req, _ := parseRequest(c.s, c.p)
			o := serveOne(st.wrapped, req)
			if o.status != 200 || o.served != c.handler || !strings.Contains(o.header.Get("RateLimit-Policy"), c.limit) {
				t.Errorf("[%s] %s (%s): %s RateLimit-Policy %q", st.name, c.s, c.p.name, o, o.header.Get("RateLimit-Policy"))
			}
		}
		for _, c := range []struct {
			s       reqSpec
			p       profile
			handler string
		}{
			{reqSpec{method: "GET", target: "/public/x"}, invProfiles[0], hPublic},
			{reqSpec{method: "GET", target: "/public/x.css"}, invProfiles[0], hPublic},
			{reqSpec{method: "GET", target: "/admin/x"}, profile{name: "browser", ua: uaChrome}, hAdmin},
			{reqSpec{method: "GET", target: "/secret/"}, profile{name: "browser", ua: uaChrome}, ""},
		} {
			req, _ := parseRequest(c.s, c.p)
			o := serveOne(st.wrapped, req)
			breq, _ := parseRequest(c.s, c.p)
			b := serveOne(st.bare, breq)
			want := c.handler
			if want == "" {
				want = b.served // a browser gets what the stack serves, a redirect included
			}
			if o.served != want || o.status != b.status {
				t.Errorf("[%s] %s (%s): %s, bare %s", st.name, c.s, c.p.name, o, b)
			}
		}
	}
}
