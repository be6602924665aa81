package e2e_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// paramsShop is Appendix A with a capability taking JSON body params.
func paramsShop(enforceParams bool) config.Site {
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities, config.Capability{ID: "cart-add", Description: "Add to the cart",
		Endpoint: "https://outdoorsupply.example/api/cart", Method: "POST", Protocol: config.ProtocolREST,
		Params: []config.Param{{Name: "sku", In: config.InBody, Required: true}, {Name: "qty", In: config.InBody, Type: config.TypeInteger}}})
	s.Agents[1].Capabilities = append(s.Agents[1].Capabilities, "cart-add")
	s.Access.EnforceParams = enforceParams
	return s
}

// TestParamsShadow: the way to turn enforce_params on safely. A candidate
// that sets it, beside the declaration enforced without it, names every
// call it would refuse (logged, and in the hook) while every call is
// served, its body as sent.
func TestParamsShadow(t *testing.T) {
	var rec shadowRecorder
	var logs bytes.Buffer
	m, err := agentready.New(paramsShop(false), agentready.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		agentready.WithShadow(paramsShop(true), rec.hook))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.URL.Path+" "+string(b))
	}))
	send := func(method, target, body string) int {
		var rb io.Reader
		if body != "" {
			rb = strings.NewReader(body)
		}
		r := httptest.NewRequest(method, target, rb)
		r.Header.Set("User-Agent", uaClaudeDeclared)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for _, c := range [][3]string{
		{"GET", "/api/search?q=tent", ""},
		{"GET", "/api/search?limit=many", ""},
		{"POST", "/api/cart", `{"sku":"tent-2p","qty":1}`},
		{"POST", "/api/cart", `{"SKU":"tent-2p","qty":"one"}`},
	} {
		if code := send(c[0], c[1], c[2]); code != 200 {
			t.Errorf("%s %s: %d; the enforced declaration does not check params", c[0], c[1], code)
		}
	}
	if want := []string{"/api/search ", "/api/search ", `/api/cart {"sku":"tent-2p","qty":1}`, `/api/cart {"SKU":"tent-2p","qty":"one"}`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the handler got %q, want %q", got, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var differ []string
	for _, r := range rec.results {
		if r.Differs {
			if r.Candidate.Outcome != enforce.DenyParams || r.Candidate.Status != 400 || r.Enforced.Outcome != enforce.Allow {
				t.Errorf("%+v", r)
			}
			differ = append(differ, r.Candidate.Err.Error())
		}
	}
	if len(differ) != 2 || !strings.Contains(differ[0], "q (query) is required") || !strings.Contains(differ[0], "limit (query)") ||
		!strings.Contains(differ[1], `"SKU" spells "sku"`) || !strings.Contains(differ[1], "qty (body) is a string") {
		t.Errorf("the candidate would refuse %q", differ)
	}
	if n := strings.Count(logs.String(), "candidate=deny-params"); n != 2 {
		t.Errorf("%d log lines name deny-params, want 2:\n%s", n, logs.String())
	}
}

// TestParamsBodyLimit: body params are read within the capability's
// BodyLimit; a larger body is 413 before the handler, and one that is not
// JSON is a 400 that says so.
func TestParamsBodyLimit(t *testing.T) {
	site := paramsShop(true)
	site.Capabilities[2].BodyLimit = 64
	m, err := agentready.New(site)
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
	for _, c := range []struct {
		body, detail string
		want         int
	}{
		{`{"sku":"` + strings.Repeat("x", 100) + `"}`, "larger than the capability's body limit (64 bytes)", 413},
		{`<sku>tent</sku>`, "the body is not a JSON object", 400},
	} {
		r := httptest.NewRequest("POST", "/api/cart", strings.NewReader(c.body))
		r.Header.Set("User-Agent", uaClaudeDeclared)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want || ran || !strings.Contains(w.Body.String(), c.detail) {
			t.Errorf("%s: %d (handler ran: %v) %s", c.body, w.Code, ran, w.Body)
		}
	}
}
