package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServeImplicitAccess: with no Allow/Disallow declared (only the
// capability endpoints are open, draft-car 2.6), serve in its default,
// lenient mode lets an agent reach the endpoint, with or without a query,
// as -strict-upstream does; every other path stays closed. The lenient
// readings (case, an added trailing slash) once refused the endpoint
// itself.
func TestServeImplicitAccess(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream "+r.URL.RequestURI())
	}))
	t.Cleanup(up.Close)
	for _, strict := range []bool{false, true} {
		front := serveFront(t, proxyConfig{configFile: "testdata/implicit/site.yaml", upstream: up.URL, strictUpstream: strict})
		for target, want := range map[string]int{"/api/search?q=1": 200, "/api/search": 200, "/about": 403, "/api/search/more": 403} {
			req, _ := http.NewRequest("GET", front.URL+target, nil)
			req.Header.Set("User-Agent", "GPTBot/1.2")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != want {
				t.Errorf("strict-upstream %v: %s: %d %s, want %d", strict, target, res.StatusCode, body, want)
			}
		}
	}
}
