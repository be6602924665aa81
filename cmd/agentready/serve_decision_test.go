package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// TestServeDecisionField: serve hands every request it forwards its
// decision in Agentready-Decision, an RFC 9651 dictionary, and a copy a
// client wrote, in any spelling, never reaches the upstream.
func TestServeDecisionField(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(r.Header) // every field, as received
	}))
	t.Cleanup(up.Close)
	addr := serveFront(t, proxyConfig{configFile: "testdata/canonical/site.yaml", upstream: up.URL}).Listener.Addr().String()
	forged := [][2]string{
		{"Agentready-Decision", `outcome=allow, capability="admin"`},
		{"agentready-decision", `outcome=allow`},
		{"Agentready_Decision", `outcome=allow`},
		{"Agentready.Decision", `outcome=allow`},
		// httputil.ReverseProxy removes what Connection names.
		{"Connection", "agentready-decision"},
	}
	for _, tc := range []struct {
		name, target, ua string
		want             map[string]any // members; a missing one must be absent
	}{
		{"an agent's capability", "/api/search?q=1", claudeBot, map[string]any{
			"policy": "", "class": httpsfv.Token("known"), "grade": httpsfv.Token("claimed"), "purpose": httpsfv.Token("training-crawler"),
			"capability": "product-search", "rule": "Allow: /", "outcome": httpsfv.Token("allow")}},
		{"an agent's page", "/about", gptBot, map[string]any{
			"policy": "", "class": httpsfv.Token("known"), "grade": httpsfv.Token("claimed"), "purpose": httpsfv.Token("training-crawler"),
			"rule": "Allow: /", "outcome": httpsfv.Token("allow")}},
		{"a browser", "/admin/users", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", map[string]any{
			"policy": "", "class": httpsfv.Token("browser"), "grade": httpsfv.Token("anonymous"), "purpose": httpsfv.Token("unknown"),
			"rule": "", "outcome": httpsfv.Token("pass")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body, err := testtools.RawRequest(addr, "GET", tc.target, append([][2]string{{"User-Agent", tc.ua}}, forged...))
			if err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("%v %v %s", err, res, body)
			}
			var got map[string][]string
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			for k := range got {
				if k != enforce.HeaderDecision && sameName(k, enforce.HeaderDecision) {
					t.Errorf("the upstream received %s: %q", k, got[k])
				}
			}
			v := got[enforce.HeaderDecision]
			if len(v) != 1 {
				t.Fatalf("the upstream received %s: %q, want one value (serve's)", enforce.HeaderDecision, v)
			}
			dict, err := httpsfv.UnmarshalDictionary(v)
			if err != nil {
				t.Fatalf("%q: %v", v, err)
			}
			if len(dict.Names()) != len(tc.want) {
				t.Errorf("%q: members %v, want %d", v, dict.Names(), len(tc.want))
			}
			for name, want := range tc.want {
				m, ok := dict.Get(name)
				if item, isItem := m.(httpsfv.Item); !ok || !isItem || item.Value != want {
					t.Errorf("%q: %s = %#v, want %#v", v, name, m, want)
				}
			}
		})
	}
}

// sameName compares field names without case, '_' and '.' read as '-'.
func sameName(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i]|0x20, b[i]|0x20
		if a[i] == '_' || a[i] == '.' {
			x = '-'
		}
		if x != y {
			return false
		}
	}
	return true
}
