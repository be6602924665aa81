package routertest

// Issue 37's "the published contract, checked": with
// Access.EnforceParams, a call whose params are not as declared is
// refused with 400 before the handler runs, through a real ServeMux and a
// real chi router, bound and not.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
)

func paramsBound(f float64) *float64 { return &f }

// paramsSite declares a search (query params, a header param) and an
// order update (a path param and JSON body params), each with a limit
// of limit calls a minute.
func paramsSite(enforceParams bool, limit int) config.Site {
	return config.Site{
		Name: "Params Shop", URL: rinvOrigin, Description: "Issue 37", Contact: "agents@shop.example",
		GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		Capabilities: []config.Capability{
			{ID: "search", Description: "Search", Endpoint: rinvOrigin + "/api/search", Method: "GET",
				Protocol: config.ProtocolREST, RateLimit: config.PerMinute(limit),
				Params: []config.Param{
					{Name: "q", Required: true},
					{Name: "limit", Type: config.TypeInteger, Min: paramsBound(1), Max: paramsBound(50)},
					{Name: "sort", Enum: []any{"price", "name"}},
					{Name: "tag", Type: config.TypeArray},
					{Name: "X-Currency", In: config.InHeader, Enum: []any{"EUR", "USD"}},
				}},
			{ID: "order.update", Description: "Update an order", Endpoint: rinvOrigin + "/api/orders/{id}", Method: "PATCH",
				Protocol: config.ProtocolREST, RateLimit: config.PerMinute(limit),
				Params: []config.Param{
					{Name: "id", In: config.InPath, Type: config.TypeInteger, Required: true},
					{Name: "qty", In: config.InBody, Type: config.TypeInteger, Required: true, Min: paramsBound(1)},
					{Name: "gift", In: config.InBody, Type: config.TypeBoolean},
				}},
		},
		Access: config.Access{Allow: []string{"/api/*"}, EnforceParams: enforceParams},
		Agents: []config.AgentPolicy{{Name: "*"}},
	}
}

// paramsApp records what each handler received.
type paramsApp struct {
	mu    sync.Mutex
	calls []string // "search ?q=..." or "order.update <body>"
}

func (a *paramsApp) handler(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.calls = append(a.calls, name+" "+r.URL.RawQuery+" "+string(b))
		a.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}
}

func (a *paramsApp) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.calls
	a.calls = nil
	return c
}

// paramsStacks are the routers the test runs through: ServeMux and chi,
// each with the routes bound (m.Capability) and not.
func paramsStacks(t *testing.T, site config.Site, opts ...agentready.Option) map[string]struct {
	h   http.Handler
	app *paramsApp
} {
	t.Helper()
	out := map[string]struct {
		h   http.Handler
		app *paramsApp
	}{}
	for _, bind := range []bool{false, true} {
		for _, router := range []string{"mux", "chi"} {
			// v0.1.0 declares array params (draft-car has none).
			m, err := agentready.New(site, append([]agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010})}, opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			app := &paramsApp{}
			search, update := http.Handler(app.handler("search")), http.Handler(app.handler("order.update"))
			if bind {
				search, update = m.Capability("search")(search), m.Capability("order.update")(update)
			}
			var h http.Handler
			switch router {
			case "mux":
				mux := http.NewServeMux()
				mux.Handle("GET /api/search", search)
				mux.Handle("PATCH /api/orders/{id}", update)
				h = m.Handler(mux)
			case "chi":
				r := chi.NewRouter()
				r.Use(m.Handler)
				r.Method("GET", "/api/search", search)
				r.Method("PATCH", "/api/orders/{id}", update)
				h = r
			}
			name := router
			if bind {
				name += "+bound"
			}
			out[name] = struct {
				h   http.Handler
				app *paramsApp
			}{h, app}
		}
	}
	return out
}

// paramsCall sends one agent call.
func paramsCall(h http.Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	var rb io.Reader
	if body != "" {
		rb = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rb)
	r.Header.Set("User-Agent", "claude/1.0")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// paramsProblem reads the names of the params a 400's problem lists.
func paramsProblem(t *testing.T, w *httptest.ResponseRecorder) []string {
	t.Helper()
	var p struct {
		Status int
		Detail string
		Params []struct{ Name, In, Fault, Detail string }
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem %s: %v", w.Body, err)
	}
	var names []string
	for _, f := range p.Params {
		names = append(names, f.Name+"/"+f.In+"/"+f.Fault)
		if !strings.Contains(p.Detail, f.Detail) {
			t.Errorf("detail %q does not say %q", p.Detail, f.Detail)
		}
	}
	return names
}

// TestParamsRefused: a call missing a required param, of a wrong type,
// outside its enum or its bounds, and the attacker's spellings, get 400
// naming each param at fault, and the handler does not run; valid calls
// reach it with their body intact, unknown params and arrays as a
// repeated name pass.
func TestParamsRefused(t *testing.T) {
	for name, st := range paramsStacks(t, paramsSite(true, 1000)) {
		for _, tc := range []struct {
			method, target, body string
			header               []string
			want                 string // the faults, "" for a call that reaches the handler
		}{
			{"GET", "/api/search?q=tent", "", nil, ""},
			{"GET", "/api/search?q=tent&limit=50&sort=price&tag=a&tag=b&unknown=x", "", []string{"X-Currency", "EUR"}, ""},
			{"PATCH", "/api/orders/42", `{"qty":2,"gift":true,"note":"unknown, left alone"}`, nil, ""},
			{"GET", "/api/search", "", nil, "q/query/missing"},
			{"GET", "/api/search?q=tent&limit=ten", "", nil, "limit/query/type"},
			{"GET", "/api/search?q=tent&limit=1e2", "", nil, "limit/query/type"},
			{"GET", "/api/search?q=tent&limit=%2B1", "", nil, "limit/query/type"},
			{"GET", "/api/search?q=tent&sort=popularity", "", nil, "sort/query/enum"},
			{"GET", "/api/search?q=tent&limit=51", "", nil, "limit/query/max"},
			{"GET", "/api/search?q=tent&limit=0", "", nil, "limit/query/min"},
			{"GET", "/api/search?limit=99999999999999999999999", "", nil, "q/query/missing,limit/query/max"},
			{"GET", "/api/search?q=tent&limit=5&limit=500", "", nil, "limit/query/repeated,limit/query/max"},
			{"GET", "/api/search?q=tent&LIMIT=500", "", nil, "limit/query/case"},
			{"GET", "/api/search?q=tent", "", []string{"X-Currency", "EUR", "x-currency", "BTC"}, "X-Currency/header/repeated,X-Currency/header/enum"},
			{"PATCH", "/api/orders/abc", `{"qty":1}`, nil, "id/path/type"},
			{"PATCH", "/api/orders/42", `{"qty":0}`, nil, "qty/body/min"},
			{"PATCH", "/api/orders/42", `{"qty":1.5}`, nil, "qty/body/type"},
			{"PATCH", "/api/orders/42", `{"qty":"2"}`, nil, "qty/body/type"},
			{"PATCH", "/api/orders/42", `{}`, nil, "qty/body/missing"},
			{"PATCH", "/api/orders/42", `{"qty":1,"qty":-5}`, nil, "qty/body/repeated,qty/body/min"},
			{"PATCH", "/api/orders/42", `{"qty":1,"QTY":-5}`, nil, "qty/body/case"},
			{"PATCH", "/api/orders/42", `qty=1`, nil, "/body/body"},
		} {
			w := paramsCall(st.h, tc.method, tc.target, tc.body, tc.header...)
			calls := st.app.take()
			if tc.want == "" {
				want := "search " + strings.TrimPrefix(tc.target, "/api/search?") + " "
				if tc.method == "PATCH" {
					want = "order.update  " + tc.body
				}
				if w.Code != 200 || len(calls) != 1 || calls[0] != want {
					t.Errorf("[%s] %s %s: %d, handler got %q, want %q\n%s", name, tc.method, tc.target, w.Code, calls, want, w.Body)
				}
				continue
			}
			if w.Code != 400 || len(calls) != 0 {
				t.Errorf("[%s] %s %s %s: %d, handler ran %q; want 400 before the handler", name, tc.method, tc.target, tc.body, w.Code, calls)
				continue
			}
			if got := strings.Join(paramsProblem(t, w), ","); got != tc.want {
				t.Errorf("[%s] %s %s %s: faults %s, want %s", name, tc.method, tc.target, tc.body, got, tc.want)
			}
		}
	}
}

// TestParamsCountAgainstLimits: a refused call takes its token, so an
// agent cannot probe the contract for free.
func TestParamsCountAgainstLimits(t *testing.T) {
	for name, st := range paramsStacks(t, paramsSite(true, 2)) {
		for i, want := range []int{400, 400, 429} {
			target := "/api/search?limit=x"
			if i == 2 {
				target = "/api/search?q=tent" // valid, and the limit is spent
			}
			if w := paramsCall(st.h, "GET", target, ""); w.Code != want {
				t.Errorf("[%s] call %d: %d, want %d\n%s", name, i+1, w.Code, want, w.Body)
			}
		}
		if calls := st.app.take(); len(calls) != 0 {
			t.Errorf("[%s] the handler ran %q", name, calls)
		}
	}
}

// TestParamsReportOnly: without enforce_params, report-only serves the
// call, body intact, and reports the refusal it would have been; with
// neither, nothing is checked.
func TestParamsReportOnly(t *testing.T) {
	var mu sync.Mutex
	var seen []enforce.Decision
	hook := agentready.WithOnDecision(func(d enforce.Decision) {
		mu.Lock()
		seen = append(seen, d)
		mu.Unlock()
	})
	for name, st := range paramsStacks(t, paramsSite(false, 1000), agentready.WithReportOnly(), hook) {
		seen = nil
		w := paramsCall(st.h, "PATCH", "/api/orders/42", `{"qty":0}`)
		if calls := st.app.take(); w.Code != 200 || len(calls) != 1 || calls[0] != `order.update  {"qty":0}` {
			t.Errorf("[%s] report-only: %d, handler got %q", name, w.Code, calls)
		}
		if h := w.Header().Get(enforce.HeaderReportOnly); !strings.HasPrefix(h, "deny-params;status=400") || !strings.Contains(h, "Param: qty (body, integer, required)") {
			t.Errorf("[%s] %s: %q", name, enforce.HeaderReportOnly, h)
		}
		mu.Lock()
		last := seen[len(seen)-1]
		mu.Unlock()
		if last.Outcome != enforce.DenyParams || !last.ReportOnly || last.Status != 400 || !strings.Contains(last.Err.Error(), "qty (body)") {
			t.Errorf("[%s] decision %v report-only=%v status %d err %v", name, last.Outcome, last.ReportOnly, last.Status, last.Err)
		}
	}
	for name, st := range paramsStacks(t, paramsSite(false, 1000)) {
		if w := paramsCall(st.h, "GET", "/api/search?limit=x", ""); w.Code != 200 || w.Header().Get(enforce.HeaderReportOnly) != "" {
			t.Errorf("[%s] without enforce_params or report-only: %d %q", name, w.Code, w.Header().Get(enforce.HeaderReportOnly))
		}
	}
}
