package report_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/verify"
)

func get(t *testing.T, h http.Handler, method, path, accept string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestServeHTTP: which form each request gets, and the headers of both.
func TestServeHTTP(t *testing.T) {
	r := report.New(report.Options{Now: newClock().now})
	const html, js = "text/html; charset=utf-8", "application/json; charset=utf-8"
	browserAccept := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tc := range []struct {
		method, path, accept string
		status               int
		ctype                string
	}{
		{"GET", "/", "", 200, html},
		{"GET", "/", browserAccept, 200, html},
		{"GET", "/", "application/json", 200, js},
		{"GET", "/anything", "application/json, text/html;q=0.5", 200, js},
		{"GET", "/", "text/html;q=0.5, application/json;q=0.9", 200, js},
		{"GET", "/", "application/*", 200, js},
		{"GET", "/", "*/*", 200, html},                       // a tie is the page's
		{"GET", "/", "application/json;q=0, */*", 200, html}, // refused
		{"GET", "/", "APPLICATION/JSON;Q=1", 200, js},        // case-insensitive
		{"GET", "/report.json", "", 200, js},                 // the path names it
		{"GET", "/report.json", "text/html", 200, js},        //
		{"GET", "/x/report.json", "", 200, js},               //
		{"GET", "/myreport.json", "", 200, html},             // not the name
		{"HEAD", "/", "", 200, html},                         //
		{"HEAD", "/report.json", "", 200, js},                //
		{"POST", "/", "", http.StatusMethodNotAllowed, ""},   //
		{"DELETE", "/report.json", "", http.StatusMethodNotAllowed, ""},
	} {
		w := get(t, r, tc.method, tc.path, tc.accept)
		name := tc.method + " " + tc.path + " Accept: " + tc.accept
		if w.Code != tc.status {
			t.Errorf("%s: %d, want %d", name, w.Code, tc.status)
			continue
		}
		h := w.Header()
		if tc.status != 200 {
			if h.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s: Allow %q", name, h.Get("Allow"))
			}
			continue
		}
		if ct := h.Get("Content-Type"); ct != tc.ctype {
			t.Errorf("%s: Content-Type %q, want %q", name, ct, tc.ctype)
		}
		for k, v := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
			"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'", "Vary": "Accept"} {
			if h.Get(k) != v {
				t.Errorf("%s: %s %q, want %q", name, k, h.Get(k), v)
			}
		}
		if (tc.method == "HEAD") != (w.Body.Len() == 0) || (tc.method == "HEAD" && h.Get("Content-Length") == "0") {
			t.Errorf("%s: body of %d bytes, Content-Length %s", name, w.Body.Len(), h.Get("Content-Length"))
		}
	}
}

// TestPage: the page and the JSON after known traffic.
func TestPage(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Now: c.now})
	knownTraffic(r)
	page := get(t, r, "GET", "/", "").Body.String()
	for _, want := range []string{
		"From 2026-05-01 12:00:00 UTC to 2026-05-01 12:00:00 UTC", "since the report started", "60 slots of 1m0s",
		"This report is this replica's", "The fleet's view is Prometheus's (docs/operations.md)",
		"Agents by name, grade and purpose", "Refusals by reason", "Rules that refused most", "Paths refused most", "Verification failures by reason", "Totals",
		tr("claude", "claude", "claimed", "user-agent", "12", "4", "6", "2", "1"),
		tr("GPTBot", "GPTBot", "proven", "training-crawler", "5", "5", "0", "0", "0"),
		tr("GPTBot", "GPTBot", "claimed", "training-crawler", "1", "0", "1", "0", "0"),
		tr("Slackbot", "(none)", "claimed", "user-agent", "1", "1", "0", "0", "0"),
		tr("total", "", "", "", "19", "10", "7", "2", "1"),
		tr("Disallow: /admin/*", "claude", "claimed", "(none)", "3", "3", "0", "1"),
		tr("deny-identity", "GPTBot", "claimed", "(none)", "1", "1", "0", "0"),
		tr("/api/search", "5", "3", "2", "0"),
		tr("dot-segment", "1", "1", "0", "0"),
		tr("deny-path", "3", "3", "0", "1"),
		tr("unproven", "1", "0", "1", "0", "0"),
		tr("Sessions opened", "1"), tr("Audit artifacts sealed", "2"), tr("Browsers and probes passed (not agents)", "3"),
	} {
		if !strings.Contains(cells(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<caption>"); n != 9 {
		t.Errorf("%d captions, want one a table (9)", n)
	}
	if strings.Contains(page, `http-equiv="refresh"`) {
		t.Error("the page refreshes itself unasked")
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page has a script or an external reference")
	}
	var s report.Snapshot
	if err := json.Unmarshal(get(t, r, "GET", "/report.json", "").Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	want := r.Snapshot()
	if s.Total != want.Total || len(s.Agents) != 4 || s.Agents[0] != want.Agents[0] || s.Rules[3].Name != "deny-identity" ||
		s.Paths[0] != want.Paths[0] || s.Reasons[0].Name != "unproven" || len(s.Refusals) != 6 || s.Refusals[4] != want.Refusals[4] || s.ArtifactsSealed != 2 || !s.From.Equal(want.From) || s.Window != want.Window {
		t.Errorf("JSON %+v\nwant %+v", s, want)
	}
}

var reTags = regexp.MustCompile(`<[^>]*>`)

// cells is the page's text with each cell's end marked "|".
func cells(page string) string {
	page = strings.NewReplacer("</td>", "|", "</th>", "|").Replace(page)
	return reTags.ReplaceAllString(page, "")
}

// tr is the text of a table row as cells gives it.
func tr(cols ...string) string { return strings.Join(cols, "|") + "|" }

// TestHostile: names, rules, paths and reasons a Go site or a client
// controls never reach the page raw, and the JSON stays valid.
func TestHostile(t *testing.T) {
	r := report.New(report.Options{Now: newClock().now})
	hostile := []string{
		`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `' onmouseover='x`, "a\x1b[31mred\x07",
		"bidi \u202egnp.exe", "nul\x00byte", "bad \xff\xfe utf-8", "</td></tr></table><h1>x", "&amp;", strings.Repeat("<script>", 100_000),
	}
	for _, h := range hostile {
		r.Observe(enforce.Decision{Outcome: enforce.DenyPath, Path: h, Rule: h, Agent: h, Grade: h,
			Class: enforce.Class{Kind: h, Name: h, Purpose: h}, Identity: verify.Identity{Reason: h}})
		r.Observe(enforce.Decision{Outcome: enforce.Allow, Class: enforce.Class{Kind: h}}) // no name: its kind
	}
	page := get(t, r, "GET", "/", "").Body.String()
	for _, raw := range []string{"<script", "<img", "onmouseover='", "\x1b", "\x07", "\x00", "\xff", "\u202e", "<h1>x", "</td></tr></table><h1>"} {
		if strings.Contains(page, raw) {
			t.Errorf("the page holds %q raw", raw)
		}
	}
	for _, escaped := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b[31mred\a`, `\u202e`, "&amp;amp;", `\xff\xfe`} {
		if !strings.Contains(page, escaped) {
			t.Errorf("the page lacks the escaped form %q", escaped)
		}
	}
	if len(page) > 200_000 {
		t.Errorf("the page is %d bytes: a long name was not cut", len(page))
	}
	body := get(t, r, "GET", "/report.json", "").Body.Bytes()
	var s report.Snapshot
	if !json.Valid(body) || json.Unmarshal(body, &s) != nil {
		t.Fatal("the JSON is not valid")
	}
	names := map[string]bool{}
	for _, w := range s.Agents {
		names[w.Name] = true
		if len(w.Name) > 256 || len(w.Policy) > 256 {
			t.Errorf("a %d-byte name", len(w.Name))
		}
	}
	if !names[`<script>alert(1)</script>`] || !names["("+`<script>alert(1)</script>`+")"] {
		t.Errorf("JSON names %v lack the script as given", names)
	}
	if s.Total.Requests != int64(2*len(hostile)) {
		t.Errorf("%d requests, want %d", s.Total.Requests, 2*len(hostile))
	}
}
