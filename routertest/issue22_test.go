package routertest

// Issue 22's reproductions, with the statuses it reported open now
// expected closed: a capability whose bearer token an Authenticator
// checks, reached by /api/orders/ (StripSlashes) and /api/orders.json
// (URLFormat) without a token; Disallow: /admin$ and /admin/, /admin.html;
// Allow: /*.css$ beside Disallow: /admin and /admin/users?.css; a method
// override and a case-variant method.

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
)

// issue22Site is the issue's shop: GET /api/orders lists orders with a
// bearer token, DELETE /api/orders/{id} cancels one; disallow holds the
// issue's Disallow rules (with allow's Allow rules).
func issue22Site(allow, disallow []string) config.Site {
	bearer := config.Auth{Type: config.AuthBearerToken, TokenEndpoint: rinvOrigin + "/auth/token"}
	return config.Site{
		Name: "Issue 22 Shop", URL: rinvOrigin, Description: "Issue 22's reproductions", Contact: "agents@shop.example",
		GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		Capabilities: []config.Capability{
			{ID: "orders", Description: "List orders", Endpoint: rinvOrigin + "/api/orders", Method: "GET",
				Protocol: config.ProtocolREST, Auth: bearer, RateLimit: config.PerMinute(100000)},
			{ID: "order-cancel", Description: "Cancel an order", Endpoint: rinvOrigin + "/api/orders/{id}", Method: "DELETE",
				Protocol: config.ProtocolREST, Auth: bearer, RateLimit: config.PerMinute(100000),
				Params: []config.Param{{Name: "id", In: config.InPath, Type: config.TypeString, Required: true, Description: "Order ID"}}},
		},
		Access: config.Access{Allow: allow, Disallow: disallow},
		Agents: []config.AgentPolicy{{Name: "*", Capabilities: []string{"orders"}}},
	}
}

// acceptGood accepts the bearer token "good" only.
func acceptGood(_ *http.Request, _ *config.Capability, credential string) error {
	if credential != "good" {
		return errors.New("unknown token")
	}
	return nil
}

// issue22Chi is the issue's chi application: mws in order (m.Handler among
// them), routes not bound.
func issue22Chi(mws ...func(http.Handler) http.Handler) http.Handler {
	r := chi.NewRouter()
	for _, mw := range mws {
		r.Use(mw)
	}
	r.Get("/api/orders", record("orders").ServeHTTP)
	r.Delete("/api/orders/{id}", record("order-cancel").ServeHTTP)
	r.Post("/api/orders/{id}", record("order-update").ServeHTTP)
	r.Handle("/admin", record(hAdmin))
	r.Handle("/admin/*", record(hAdmin))
	r.Handle("/*", record(hRoot))
	return r
}

func TestIssue22(t *testing.T) {
	type c struct {
		s      reqSpec
		token  string // "" for none
		status int
	}
	ordersCases := []c{
		{reqSpec{method: "GET", target: "/api/orders"}, "", 401},
		{reqSpec{method: "GET", target: "/api/orders/"}, "", 401},
		{reqSpec{method: "GET", target: "/api/orders.json"}, "", 401},
		{reqSpec{method: "GET", target: "/api/orders/"}, "forged", 401},
		{reqSpec{method: "GET", target: "/api/orders.json"}, "forged", 401},
		{reqSpec{method: "GET", target: "/api/orders"}, "good", 200},
		{reqSpec{method: "GET", target: "/admin"}, "", 403},
		{reqSpec{method: "GET", target: "/admin/"}, "", 403},
		{reqSpec{method: "GET", target: "/admin.html"}, "", 403},
		{reqSpec{method: "GET", target: "/admin/users"}, "", 200}, // Disallow: /admin$ closes /admin only
		// The agent may list orders, not cancel them.
		{reqSpec{method: "DELETE", target: "/api/orders/42"}, "good", 403},
		{reqSpec{method: "POST", target: "/api/orders/42", headers: [][2]string{{"X-HTTP-Method-Override", "DELETE"}}}, "good", 403},
		{reqSpec{method: "POST", target: "/api/orders/42?_method=DELETE"}, "good", 403},
		{reqSpec{method: "POST", target: "/api/orders/42", form: "_method=DELETE"}, "good", 403},
		{reqSpec{method: "delete", target: "/api/orders/42"}, "good", 400},
		{reqSpec{method: "POST", target: "/api/orders/42"}, "good", 200},
	}
	queryCases := []c{
		{reqSpec{method: "GET", target: "/admin/users?.css"}, "", 403},
		{reqSpec{method: "GET", target: "/admin/users?x=1&y=.css"}, "", 403},
		{reqSpec{method: "GET", target: "/admin/users"}, "", 403},
		{reqSpec{method: "GET", target: "/site.css"}, "", 200},
		{reqSpec{method: "GET", target: "/x?.css"}, "", 200},
	}
	for _, site := range []struct {
		name  string
		site  config.Site
		cases []c
	}{
		{"Disallow: /admin$", issue22Site([]string{"/"}, []string{"/admin$"}), ordersCases},
		{"Allow: /*.css$, Disallow: /admin", issue22Site([]string{"/*.css$"}, []string{"/admin"}), queryCases},
	} {
		m, err := agentready.New(site.site, agentready.WithAuthenticator(enforce.Authenticator(acceptGood)))
		if err != nil {
			t.Fatalf("%s: %v", site.name, err)
		}
		stacks := map[string]http.Handler{
			"chi.Use(StripSlashes,Handler)": issue22Chi(middleware.StripSlashes, m.Handler, methodOverride),
			"chi.Use(Handler,StripSlashes)": issue22Chi(m.Handler, middleware.StripSlashes, methodOverride),
			"chi.Use(URLFormat,Handler)":    issue22Chi(middleware.URLFormat, m.Handler, methodOverride),
			"chi.Use(Handler,URLFormat)":    issue22Chi(m.Handler, middleware.URLFormat, methodOverride),
			"Handler(chi)":                  m.Handler(issue22Chi(methodOverride)),
		}
		for name, h := range stacks {
			for _, tc := range site.cases {
				p := profile{name: "agent", ua: "curl/8.5.0"}
				if tc.token != "" {
					tc.s.headers = append(tc.s.headers, [2]string{"Authorization", "Bearer " + tc.token})
				}
				req, ok := parseRequest(tc.s, p)
				if !ok {
					t.Fatalf("ReadRequest rejects %s", tc.s)
				}
				if o := serveOne(h, req); o.status != tc.status {
					t.Errorf("[%s] [%s] %s: %s, want %d", site.name, name, tc.s, o, tc.status)
				}
			}
		}
	}
}
