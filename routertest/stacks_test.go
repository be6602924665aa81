package routertest

// The stacks the invariant runs: each router people use with agentready,
// with the middlewares that normalise a request after agentready has
// decided, in every order they are written, and a method-override
// middleware after agentready. Each stack is built twice: bare (no
// agentready) and wrapped.

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/gorilla/mux"

	"github.com/agentready/agentready"
)

// pickHeader lets a test choose which override methodOverride honours. The
// frameworks differ (Express reads one header, Rack the form, Laravel the
// query first); choosing any candidate covers each framework's choice.
// agentready does not know the field, so it cannot use it to decide.
const pickHeader = "X-Test-Pick"

// overrideHeaders are the method-override fields frameworks honour.
var overrideHeaders = []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"}

// methodOverride routes the request as the method an override names, as
// Express's method-override, Rack::MethodOverride, Laravel and
// gorilla/handlers' HTTPMethodOverrideHandler do: the candidates are
// _method in the query, each comma-separated element of each override
// header (Node joins repeated fields with ", "), and on a POST _method in
// an urlencoded form body (read and put back). It honours an override on
// any method, which is more than the frameworks do (they take POST only),
// so that the invariant is checked on more. The value is upper-cased as
// Express and Flask do.
func methodOverride(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cands := formValues(r.URL.RawQuery, "_method")
		for _, k := range overrideHeaders {
			for _, v := range r.Header.Values(k) {
				cands = append(cands, strings.Split(v, ",")...)
			}
		}
		if r.Method == http.MethodPost && r.Body != nil && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(bytes.NewReader(b))
			cands = append(cands, formValues(string(b), "_method")...)
		}
		if len(cands) > 0 {
			pick, _ := strconv.Atoi(r.Header.Get(pickHeader))
			if pick < 0 {
				pick = -pick
			}
			if m := strings.ToUpper(strings.TrimSpace(cands[pick%len(cands)])); m != "" && !strings.ContainsAny(m, " \t") {
				r.Method = m
			}
		}
		next.ServeHTTP(w, r)
	})
}

// formValues returns the values of key in an urlencoded string, pairs
// split on '&' and ';' as Rack does, keys and values unescaped.
func formValues(q, key string) []string {
	var vals []string
	for _, pair := range strings.FieldsFunc(q, func(c rune) bool { return c == '&' || c == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if uk, err := url.QueryUnescape(k); err == nil && uk == key {
			uv, _ := url.QueryUnescape(v)
			vals = append(vals, uv)
		}
	}
	return vals
}

// bindFunc binds a capability route (identity for the bare routers).
type bindFunc func(id string, h http.Handler) http.Handler

func noBind(_ string, h http.Handler) http.Handler { return h }

func bindWith(m *agentready.Middleware) bindFunc {
	return func(id string, h http.Handler) http.Handler { return m.Capability(id)(h) }
}

func newInvMux(bind bindFunc) *http.ServeMux {
	mx := http.NewServeMux()
	mx.Handle("/admin/", record(hAdmin))
	mx.Handle("/internal/", record(hInternal))
	mx.Handle("/a;b/", record(hSemi))
	mx.Handle("/café/", record(hCafe))
	mx.Handle("/secret", record(hSecret))
	mx.Handle("GET /api/search", bind("search", record(hSearch)))
	mx.Handle("POST /api/orders/{id}", bind("orders", record(hOrders)))
	mx.Handle("DELETE /api/orders/{id}", bind("cancel", record(hCancel)))
	mx.Handle("/public/", record(hPublic))
	mx.Handle("/", record(hRoot))
	return mx
}

// newInvChi is chi with the middlewares mws (r.Use, in order) and the
// routes, bound to their capabilities with bind the README's way,
// r.With(m.Capability(id)).
func newInvChi(bind bindFunc, mws ...func(http.Handler) http.Handler) http.Handler {
	r := chi.NewRouter()
	for _, mw := range mws {
		r.Use(mw)
	}
	r.Handle("/admin/*", record(hAdmin))
	r.Handle("/internal/*", record(hInternal))
	r.Handle("/a;b/*", record(hSemi))
	r.Handle("/café/*", record(hCafe))
	r.Handle("/secret", record(hSecret))
	with := func(id string) chi.Router {
		return r.With(func(h http.Handler) http.Handler { return bind(id, h) })
	}
	with("search").Get("/api/search", record(hSearch).ServeHTTP)
	with("orders").Post("/api/orders/{id}", record(hOrders).ServeHTTP)
	with("cancel").Delete("/api/orders/{id}", record(hCancel).ServeHTTP)
	r.Handle("/public/*", record(hPublic))
	r.Handle("/*", record(hRoot))
	return r
}

// newInvGorilla is gorilla/mux with StrictSlash(true) (a route "/x/"
// answers "/x" with a redirect, and the reverse) and its default path
// cleaning, with the middlewares mws (r.Use: they run after the route is
// matched).
func newInvGorilla(bind bindFunc, mws ...mux.MiddlewareFunc) http.Handler {
	r := mux.NewRouter().StrictSlash(true)
	r.PathPrefix("/admin/").Handler(record(hAdmin))
	r.PathPrefix("/internal/").Handler(record(hInternal))
	r.PathPrefix("/a;b/").Handler(record(hSemi))
	r.PathPrefix("/café/").Handler(record(hCafe))
	r.Handle("/secret", record(hSecret))
	r.Handle("/api/search", bind("search", record(hSearch))).Methods(http.MethodGet)
	r.Handle("/api/orders/{id}", bind("orders", record(hOrders))).Methods(http.MethodPost)
	r.Handle("/api/orders/{id}", bind("cancel", record(hCancel))).Methods(http.MethodDelete)
	r.PathPrefix("/public/").Handler(record(hPublic))
	r.PathPrefix("/").Handler(record(hRoot))
	r.Use(mws...)
	return r
}

// stack is one router stack: bare (no agentready) and wrapped.
type stack struct {
	name    string
	bare    http.Handler
	wrapped http.Handler
}

// chiMiddlewares are chi's middlewares that change the path chi routes.
var chiMiddlewares = []struct {
	name string
	mw   func(http.Handler) http.Handler
}{
	{"StripSlashes", middleware.StripSlashes},
	{"RedirectSlashes", middleware.RedirectSlashes},
	{"URLFormat", middleware.URLFormat},
	{"CleanPath", middleware.CleanPath},
}

// invStacks builds every stack for the Middleware m.
func invStacks(m *agentready.Middleware) []stack {
	bound := bindWith(m)
	bareMux := newInvMux(noBind)
	ss := []stack{
		// m.Handler directly over the mux: it asks the mux which route a
		// request reaches. No override middleware: it would hide the mux.
		{"servemux", bareMux, m.Handler(newInvMux(noBind))},
		{"servemux+Capability", bareMux, m.Handler(newInvMux(bound))},
		{"servemux+override", methodOverride(bareMux), m.Handler(methodOverride(newInvMux(noBind)))},
		{"servemux+override+Capability", methodOverride(bareMux), m.Handler(methodOverride(newInvMux(bound)))},
	}

	bareChi := newInvChi(noBind, methodOverride)
	ss = append(ss,
		stack{"Handler(chi)", bareChi, m.Handler(newInvChi(noBind, methodOverride))},
		stack{"Handler(chi)+Capability", bareChi, m.Handler(newInvChi(bound, methodOverride))},
		stack{"chi.Use(Handler)", bareChi, newInvChi(noBind, m.Handler, methodOverride)},
		stack{"chi.Use(Handler)+Capability", bareChi, newInvChi(bound, m.Handler, methodOverride)},
	)
	for _, c := range chiMiddlewares {
		bare := newInvChi(noBind, c.mw, methodOverride)
		ss = append(ss,
			stack{"Handler(chi.Use(" + c.name + "))", bare, m.Handler(newInvChi(noBind, c.mw, methodOverride))},
			stack{"chi.Use(" + c.name + ",Handler)", bare, newInvChi(noBind, c.mw, m.Handler, methodOverride)},
			stack{"chi.Use(Handler," + c.name + ")", bare, newInvChi(noBind, m.Handler, c.mw, methodOverride)},
			stack{"chi.Use(" + c.name + ",Handler)+Capability", bare, newInvChi(bound, c.mw, m.Handler, methodOverride)},
			stack{"chi.Use(Handler," + c.name + ")+Capability", bare, newInvChi(bound, m.Handler, c.mw, methodOverride)},
		)
	}

	bareGorilla := methodOverride(newInvGorilla(noBind))
	ss = append(ss,
		stack{"Handler(gorilla)", bareGorilla, m.Handler(methodOverride(newInvGorilla(noBind)))},
		stack{"Handler(gorilla)+Capability", bareGorilla, m.Handler(methodOverride(newInvGorilla(bound)))},
		// gorilla runs r.Use middlewares after it matched a route, so
		// agentready there sees the request after the override.
		stack{"gorilla.Use(Handler)", bareGorilla, methodOverride(newInvGorilla(noBind, m.Handler))},
	)
	return ss
}
