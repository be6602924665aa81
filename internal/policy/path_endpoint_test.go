package policy

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
)

// implicitSite is a site with no Allow or Disallow (draft-car 2.6) whose
// capabilities have these endpoint paths, each with its method ("" for
// any).
func implicitSite(endpoints map[string]string) *config.Site {
	s := &config.Site{Name: "x", URL: "https://x.example"}
	for path, method := range endpoints {
		s.Capabilities = append(s.Capabilities, config.Capability{ID: "c" + string(rune('a'+len(s.Capabilities))),
			Endpoint: "https://x.example" + path, Method: method, Protocol: config.ProtocolREST})
	}
	return s
}

func mustCompile(t testing.TB, s *config.Site) *Policy {
	t.Helper()
	p, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Implicit {
		t.Fatal("the rules are not implicit")
	}
	return p
}

// TestImplicitTemplateOneSegment: with no Allow/Disallow declared, a
// "{param}" admits exactly one non-empty segment, with or without a query
// (found by review: "{id}" became "*", which crosses '/', so
// /api/orders/42/invoice and, from "/{tenant}/feed", /admin/internal/feed
// were served with no capability's auth or limit).
func TestImplicitTemplateOneSegment(t *testing.T) {
	p := mustCompile(t, implicitSite(map[string]string{
		"/api/orders/{id}":            "GET",
		"/{tenant}/feed":              "GET",
		"/api/search":                 "GET",
		"/api/a/{x}/b/{y}":            "POST",
		"/files/{name}.json":          "GET", // not a whole segment: literal, as Route reads it
		"/api/star*/{id}":             "GET", // a literal '*'
		"/api/orders/{id}/items/{n}/": "GET",
	}))
	allowed := []string{
		"/api/orders/42", "/api/orders/42?x=1", "/api/orders/export", "/api/orders/%7Bid%7D", "/api/orders/42$",
		"/acme/feed", "/acme/feed?since=1",
		"/api/search", "/api/search?q=tent", "/api/search?",
		"/api/a/1/b/2", "/api/a/1/b/2?z",
		"/files/%7Bname%7D.json",
		"/api/star%2A/7",
		"/api/orders/1/items/2/", "/api/orders/1/items/2/?q",
	}
	denied := []string{
		"/api/orders/42/invoice", "/api/orders/export/all", "/api/orders/", "/api/orders", "/api/orders//",
		"/api/orders/42/", "/api/ordersx/42",
		"/admin/internal/feed", "/feed", "//feed", "/acme/feedx", "/acme/feed/x",
		"/api/search/", "/api/searchx", "/api/search/x",
		"/api/a/1/b", "/api/a//b/2", "/api/a/1/b/2/3", "/api/a/1/c/2",
		"/files/x.json", "/files/a.json",
		"/api/starx/7", "/api/star/7", "/api/star/x/7",
		"/api/orders/1/items/2", "/api/orders/1/items//", "/api/orders/1/items/2/3",
		"/", "/admin",
	}
	for _, path := range allowed {
		if d := decision(t, p.Rules, path); d != "allow" {
			t.Errorf("%s: %s, want allow", path, d)
		}
	}
	for _, path := range denied {
		if d := decision(t, p.Rules, path); d != "disallow" {
			t.Errorf("%s: %s, want disallow", path, d)
		}
	}
	for _, r := range p.Rules.List() {
		if r.Allow != r.Endpoint || strings.ContainsAny(r.Pattern, "*$") {
			t.Errorf("rule %+v", r)
		}
		if r.Endpoint && p.Capabilities[r.Index].Path != r.Pattern && strings.Contains(r.Pattern, "{") &&
			!strings.Contains(p.Capabilities[r.Index].Path, "*") {
			t.Errorf("rule %+v names %q, not its capability's template %q", r, r.Pattern, p.Capabilities[r.Index].Path)
		}
	}
}

// TestImplicitTemplateTruncated: a path longer than MaxPathLen is never
// admitted by an endpoint whose end lies past what Match sees.
func TestImplicitTemplateTruncated(t *testing.T) {
	p := mustCompile(t, implicitSite(map[string]string{"/api/orders/{id}": "GET", "/api/search": "GET"}))
	long := strings.Repeat("a", MaxPathLen)
	for _, path := range []string{"/api/orders/" + long, "/api/orders/" + long + "/x", "/api/search" + strings.Repeat("/", MaxPathLen)} {
		if rule, ok := p.Rules.Match(path); !ok || rule.Allow {
			t.Errorf("%.40s...: %+v %v", path, rule, ok)
		}
	}
	// A query past the cap is still a query: the path ended before it.
	if rule, ok := p.Rules.Match("/api/orders/42?" + long); !ok || !rule.Allow {
		t.Errorf("a long query: %+v %v", rule, ok)
	}
}

// TestDeclaredPatternsGainNoParams: "{id}" in a declared pattern is the
// literal text (%7Bid%7D), never a param: declared patterns are robots.txt
// patterns.
func TestDeclaredPatternsGainNoParams(t *testing.T) {
	r := mustRules(t, []string{"/api/{id}$"}, []string{"/"})
	if d := decision(t, r, "/api/42"); d != "disallow" {
		t.Errorf("/api/42: %s", d)
	}
	if d := decision(t, r, "/api/%7Bid%7D"); d != "allow" {
		t.Errorf("/api/%%7Bid%%7D: %s", d)
	}
	for _, rule := range r.List() {
		if rule.Endpoint {
			t.Errorf("a declared rule is an Endpoint rule: %+v", rule)
		}
	}
}

// TestImplicitRulesAgreeWithRoute: for random endpoint sets and random
// targets, the implicit rules admit a path only when Route routes it to
// some capability, with and without a query: no path is served under the
// implicit rules without a capability's auth and limits. Conversely every
// path Route routes is admitted ("/acme/feed/" is neither, for
// "/{tenant}/feed": a trailing slash is one more segment).
func TestImplicitRulesAgreeWithRoute(t *testing.T) {
	segs := []string{"api", "orders", "42", "export", "feed", "admin", "x.json", "{id}", "{tenant}", "{a}", "", "%7Bid%7D", "%7e", "~", "*", "caf%c3%a9", "caf%C3%A9", "{n}.json"}
	methods := []string{"GET", "POST", "DELETE", ""}
	rng := rand.New(rand.NewPCG(22, 6))
	path := func(params bool) string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			s := segs[rng.IntN(len(segs))]
			if !params && strings.HasPrefix(s, "{") {
				s = []string{"42", "7", "x"}[rng.IntN(3)]
			}
			b.WriteString("/" + s)
		}
		if rng.IntN(5) == 0 {
			b.WriteString("/")
		}
		return b.String()
	}
	admitted, compared := 0, 0
	for range 300 {
		eps := map[string]string{}
		for range 1 + rng.IntN(5) {
			eps[path(true)] = methods[rng.IntN(len(methods))]
		}
		p := mustCompile(t, implicitSite(eps))
		for range 100 {
			raw := path(false)
			if rng.IntN(2) == 0 {
				// An instance of an endpoint, with its params filled in.
				for ep := range eps {
					raw = ep
					break
				}
				for _, param := range []string{"{id}", "{tenant}", "{a}"} {
					raw = strings.ReplaceAll(raw, param, []string{"42", "", "a/b", "x"}[rng.IntN(4)])
				}
			}
			canon := string(Canonical(nil, raw, ""))
			routes := func(path string) bool {
				for _, m := range []string{"GET", "HEAD", "POST", "DELETE", "PUT"} {
					if p.Route(m, path) >= 0 {
						return true
					}
				}
				return false
			}
			routed := routes(canon)
			for _, target := range []string{canon, canon + "?q=1"} {
				rule, ok := p.Rules.Match(target)
				if !ok {
					t.Fatalf("%s: no rule matches under the implicit rules", target)
				}
				if rule.Allow != routed {
					t.Fatalf("endpoints %v, %s: rules admit=%v (%+v), Route routes=%v", eps, target, rule.Allow, rule, routed)
				}
				compared++
				if routed {
					admitted++
				}
			}
		}
	}
	if admitted < compared/20 {
		t.Fatalf("only %d of %d targets admitted: the test barely exercised the endpoints", admitted, compared)
	}
	t.Logf("%d targets compared, %d admitted", compared, admitted)
}

// TestRouteOthers: RouteOthers says whether a capability other than the
// one routed has its endpoint at the path, literal or templated, so that
// method overrides are read exactly where another method could address
// another capability.
func TestRouteOthers(t *testing.T) {
	s := &config.Site{Name: "x", URL: "https://x.example"}
	for _, c := range []struct{ path, method string }{
		{"/a", "GET"}, {"/a", "DELETE"}, {"/b/{id}", "GET"}, {"/b/{id}", "DELETE"}, {"/c", "GET"}, {"/d/{id}", "DELETE"}, {"/e", ""}, {"/e", "GET"},
	} {
		s.Capabilities = append(s.Capabilities, config.Capability{ID: "c" + string(rune('a'+len(s.Capabilities))),
			Endpoint: "https://x.example" + c.path, Method: c.method, Protocol: config.ProtocolMCP})
	}
	p := mustCompile(t, s)
	for _, tc := range []struct {
		method, path string
		ci           int
		others       bool
	}{
		{"GET", "/a", 0, true},
		{"DELETE", "/a", 1, true},
		{"POST", "/a", -1, true},
		{"GET", "/c", 4, false},
		{"POST", "/c", -1, true},
		{"GET", "/b/1", 2, true},
		{"PUT", "/b/1", -1, true},
		{"POST", "/d/7", -1, true},
		{"DELETE", "/d/7", 5, false},
		{"GET", "/e", 6, true}, // both match GET: the second is another
		{"GET", "/x", -1, false},
		{"GET", "/b/1/2", -1, false},
	} {
		if ci, others := p.RouteOthers(tc.method, tc.path); ci != tc.ci || others != tc.others {
			t.Errorf("RouteOthers(%s, %s) = %d, %v, want %d, %v", tc.method, tc.path, ci, others, tc.ci, tc.others)
		}
		if ci := p.Route(tc.method, tc.path); ci != tc.ci {
			t.Errorf("Route(%s, %s) = %d, want %d", tc.method, tc.path, ci, tc.ci)
		}
	}
}
