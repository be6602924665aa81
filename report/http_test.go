package report_test

import (
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/reportview"
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
		r.Observe(enforce.Decision{Outcome: enforce.DenyRate, Rule: h, Limit: h, Capability: h, Tool: h, Agent: h, Grade: h,
			Class: enforce.Class{Kind: h, Name: h, Purpose: h}}) // the first one's row
		r.Reloaded(errors.New(h)) // an error may quote the file, or the upstream's address
		r.Upstream(0, errors.New(h))
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
	if s.Total.Requests != int64(3*len(hostile)) {
		t.Errorf("%d requests, want %d", s.Total.Requests, 3*len(hostile))
	}
	if len(s.LastReload.Error) > 256 || len(s.Upstream.LastError) > 256 {
		t.Errorf("an error of %d or %d bytes: not cut", len(s.LastReload.Error), len(s.Upstream.LastError))
	}
}

// TestRefresh: ?refresh=SECONDS, bounded, or Options.Refresh, writes the
// page's <meta http-equiv="refresh">; the JSON and the CSP are unchanged.
func TestRefresh(t *testing.T) {
	meta := regexp.MustCompile(`<meta http-equiv="refresh" content="(\d+)">`)
	refreshOf := func(r *report.Report, path string) string {
		w := get(t, r, "GET", path, "")
		if csp := w.Header().Get("Content-Security-Policy"); csp != "default-src 'none'; style-src 'unsafe-inline'" {
			t.Errorf("%s: CSP %q", path, csp)
		}
		m := meta.FindStringSubmatch(w.Body.String())
		if m == nil {
			if strings.Contains(w.Body.String(), "http-equiv") {
				t.Errorf("%s: a refresh the pattern does not read", path)
			}
			return ""
		}
		return m[1]
	}
	r := report.New(report.Options{Now: newClock().now})
	for path, want := range map[string]string{
		"/": "", "/?refresh=30": "30", "/?refresh=1": "5", "/?refresh=99999": "3600", "/?refresh=0": "", "/?refresh=-5": "",
		"/?refresh=abc": "", "/?refresh=1e3": "", "/?refresh=99999999999999999999": "", `/?refresh=5;url=https://evil.example/`: "",
	} {
		if got := refreshOf(r, path); got != want {
			t.Errorf("%s: refresh %q, want %q", path, got, want)
		}
	}
	r = report.New(report.Options{Now: newClock().now, Refresh: time.Minute})
	for path, want := range map[string]string{"/": "60", "/?refresh=10": "10", "/?refresh=0": "", "/?refresh=x": "60"} {
		if got := refreshOf(r, path); got != want {
			t.Errorf("Options.Refresh 1m, %s: refresh %q, want %q", path, got, want)
		}
	}
	for d, want := range map[time.Duration]string{time.Millisecond: "", 4500 * time.Millisecond: "5", 2 * time.Hour: "3600", time.Duration(1<<63 - 1): "3600", -time.Second: ""} {
		if got := refreshOf(report.New(report.Options{Now: newClock().now, Refresh: d}), "/"); got != want {
			t.Errorf("Options.Refresh %v: refresh %q, want %q", d, got, want)
		}
	}
	if body := get(t, r, "GET", "/report.json?refresh=10", "").Body.String(); strings.Contains(body, "refresh") {
		t.Error("the JSON carries the refresh")
	}
}

// TestHealth: the last reload and the upstream's answers, in the JSON
// and on the page; their window counts leave with their slots.
func TestHealth(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Now: c.now})
	if s := r.Snapshot(); s.LastReload != nil || s.Upstream != nil {
		t.Fatalf("told nothing, the report shows %+v %+v", s.LastReload, s.Upstream)
	}
	page := cells(get(t, r, "GET", "/", "").Body.String())
	for _, want := range []string{tr("Last reload", "none since the report started"), tr("Upstream", "not told of (agentready serve tells it)")} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	r.Reloaded(nil)
	c.add(time.Minute)
	r.Upstream(200, nil)
	r.Upstream(404, nil)
	r.Upstream(503, nil)
	r.Upstream(0, errors.New("dial tcp 127.0.0.1:3000: connect: connection refused"))
	c.add(time.Minute)
	r.Reloaded(errors.New("site.yaml:4: <b>bad</b> key"))
	s := r.Snapshot()
	t0 := newClock().now()
	wantReload := reportview.Reload{At: t0.Add(2 * time.Minute), OK: false, Error: "site.yaml:4: <b>bad</b> key", LastOK: t0, Succeeded: 1, Failed: 1}
	wantUp := reportview.Upstream{Requests: 4, Errors: 1, ServerErrors: 1, LastError: "dial tcp 127.0.0.1:3000: connect: connection refused", LastErrorAt: t0.Add(time.Minute)}
	if s.LastReload == nil || *s.LastReload != wantReload || s.Upstream == nil || *s.Upstream != wantUp {
		t.Fatalf("reload %+v upstream %+v,\nwant %+v %+v", s.LastReload, s.Upstream, wantReload, wantUp)
	}
	var js report.Snapshot
	if err := json.Unmarshal(get(t, r, "GET", "/report.json", "").Body.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if js.LastReload == nil || *js.LastReload != wantReload || js.Upstream == nil || *js.Upstream != wantUp {
		t.Errorf("JSON reload %+v upstream %+v", js.LastReload, js.Upstream)
	}
	raw := get(t, r, "GET", "/", "").Body.String()
	page = cells(raw)
	for _, want := range []string{
		tr("Last reload", "2026-05-01 12:02:00 UTC: refused, the running declaration kept serving"),
		tr("Why refused", "site.yaml:4: <b>bad</b> key"), tr("Last reload taken", "2026-05-01 12:00:00 UTC"),
		tr("Reloads in the window", "1 taken, 1 refused"), tr("Upstream requests", "4"), tr("Upstream errors (no answer)", "1"),
		tr("Upstream 5xx answers", "1"), tr("Last upstream error", "2026-05-01 12:01:00 UTC: dial tcp 127.0.0.1:3000: connect: connection refused"),
	} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(raw, "<b>bad") {
		t.Error("a reload's error reached the page raw")
	}
	// An hour on, the window's counts are gone; the last of each stays.
	c.add(time.Hour)
	s = r.Snapshot()
	if s.Upstream.Requests != 0 || s.Upstream.Errors != 0 || s.Upstream.LastError == "" || s.LastReload.Failed != 0 || s.LastReload.OK || s.LastReload.Error == "" {
		t.Errorf("an hour on: reload %+v upstream %+v", s.LastReload, s.Upstream)
	}
	r.Reloaded(nil)
	if s := r.Snapshot(); !s.LastReload.OK || s.LastReload.Error != "" || s.LastReload.Succeeded != 1 {
		t.Errorf("a reload taken: %+v", s.LastReload)
	}
}

// TestChart: the page draws the series as an inline SVG, a bar a slot
// that counted, stacked by outcome, each titled with its counts.
func TestChart(t *testing.T) {
	c := newClock()
	r := report.New(report.Options{Now: c.now})
	for range 4 {
		r.Observe(gptProven)
	}
	c.add(3 * time.Minute)
	r.Observe(gptProven)
	r.Observe(deny(claudeClaimed, enforce.DenyPath, 403, "Disallow: /admin/*", "/admin"))
	r.Observe(deny(claudeClaimed, enforce.DenyRate, 429, "Rate-Limit: 60/minute", "/api"))
	page := get(t, r, "GET", "/", "").Body.String()
	svg := regexp.MustCompile(`(?s)<svg\b.*?</svg>`).FindString(page)
	if svg == "" {
		t.Fatal("the page has no chart")
	}
	rects := regexp.MustCompile(`<rect class="(\w+)" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"/>`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, m := range rects {
		got = append(got, strings.Join(m[1:], " "))
	}
	// Slot 0 (12:00) and slot 3 (12:03) of a window whose current slot is
	// the rightmost (x 44+59*10+1): 12:00 is 3 slots left of it. The
	// peak, 4, is the plot's 100 units from its base at y 108; each of the
	// 3 of 12:03 is 25, stacked allowed, rate-limited, denied.
	want := []string{
		"allowed 605 8 8 100",
		"allowed 635 83 8 25", "limited 635 58 8 25", "denied 635 33 8 25",
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("bars %q, want %q", got, want)
	}
	for _, title := range []string{"12:00:00: 4 agent requests (4 allowed, 0 rate-limited, 0 denied)", "12:03:00: 3 agent requests (1 allowed, 1 rate-limited, 1 denied)"} {
		if !strings.Contains(svg, "<title>"+title+"</title>") {
			t.Errorf("the chart lacks the title %q", title)
		}
	}
	if strings.Contains(svg, "<script") || strings.Contains(svg, "href") || strings.Contains(svg, "http") {
		t.Error("the chart refers to something outside the page")
	}
}
