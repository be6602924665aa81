package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestParamsMergedLocations: Flask's request.values merges the query and
// the form, the query first, as Rails' params and PHP's $_REQUEST merge
// them: a handler reading cart-add's body param qty (integer, min 1) from
// it reads a qty sent in the query. With enforce_params, serve holds such
// a qty to the param's rules as well (docs/enforcement.md, "Params"), so
// that the handler never reads a value the check did not.
func TestParamsMergedLocations(t *testing.T) {
	upstream, app := recordedUpstream(t, upstreamApps[1]) // flask
	base := serveFront(t, proxyConfig{configFile: gatewayDir + "/site.yaml", upstream: upstream, upstreamTimeout: 10 * time.Second}).URL

	post := func(target, form string) (int, map[string]any) {
		r, _ := http.NewRequest(http.MethodPost, base+target, strings.NewReader(form))
		r.Header.Set("User-Agent", gatewayGPT)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var v map[string]any
		_ = json.Unmarshal(b, &v)
		return res.StatusCode, v
	}
	if code, v := post("/api/gateway/cart", "sku=T-100&qty=2"); code != http.StatusOK || v["qty"] != "2" {
		t.Fatalf("a call as declared: %d %v", code, v)
	}
	app.take()
	for _, target := range []string{"/api/gateway/cart?qty=-5", "/api/gateway/cart?qty=x", "/api/gateway/cart?qty=1&qty=-5"} {
		code, v := post(target, "sku=T-100")
		if code != http.StatusBadRequest || !strings.Contains(jsonString(v["detail"]), "qty (query)") {
			t.Errorf("POST %s: %d %v, want a 400 naming qty in the query", target, code, v)
		}
		if got := app.take(); len(got) != 0 {
			t.Errorf("POST %s reached Flask, whose request.values reads the query's qty: %v", target, got)
		}
	}
	if code, v := post("/api/gateway/cart?qty=3", "sku=T-100"); code != http.StatusOK || v["qty"] != "3" {
		t.Errorf("a qty in the query, as declared's rules allow: %d %v", code, v)
	}
}
