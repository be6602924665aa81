package report

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ServeHTTP serves the report: JSON (the members docs/operations.md lists) at a path ending in
// "report.json" or when the request's Accept prefers application/json to
// text/html, else an HTML page. GET and HEAD only. The page is
// server-rendered, every string escaped, with no script and no external
// asset; its Content-Security-Policy allows only its inline style.
func (r *Report) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Add("Vary", "Accept")
	s := r.snapshot()
	var body bytes.Buffer
	if wantsJSON(req) {
		h.Set("Content-Type", "application/json; charset=utf-8")
		enc := json.NewEncoder(&body)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	} else {
		h.Set("Content-Type", "text/html; charset=utf-8")
		if err := page.Execute(&body, newPageData(s, r.refreshOf(req))); err != nil {
			http.Error(w, "report: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(body.Len()))
	if req.Method == http.MethodHead {
		return
	}
	w.Write(body.Bytes())
}

// wantsJSON: the path names the JSON, or Accept (RFC 9110 12.5.1) gives
// application/json a higher weight than text/html. Each is weighed by its
// most specific range ("application/json", "application/*", "*/*"); a tie
// is the page's.
func wantsJSON(req *http.Request) bool {
	if p := req.URL.Path; p == "report.json" || strings.HasSuffix(p, "/report.json") {
		return true
	}
	accept := strings.Join(req.Header.Values("Accept"), ",")
	if accept == "" {
		return false
	}
	return weight(accept, "application", "json") > weight(accept, "text", "html")
}

// weight is the q Accept gives typ/sub: that of its most specific matching
// range, 0 when none matches.
func weight(accept, typ, sub string) float64 {
	best, spec := 0.0, -1
	for _, r := range strings.Split(accept, ",") {
		mt, params, _ := strings.Cut(r, ";")
		t, s, _ := strings.Cut(strings.TrimSpace(mt), "/")
		t, s = strings.ToLower(strings.TrimSpace(t)), strings.ToLower(strings.TrimSpace(s))
		n := -1
		switch {
		case t == typ && s == sub:
			n = 2
		case t == typ && s == "*":
			n = 1
		case t == "*" && s == "*":
			n = 0
		}
		if n < spec || n < 0 {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
					q = f
				}
			}
		}
		if n > spec || q > best {
			best, spec = q, n
		}
	}
	return best
}

// show is how the page writes a name: as it is when every character is
// printable, else Go-quoted with the others escaped (`"a\x1bb"`), so that
// control and format characters (a terminal escape, a bidi override) never
// reach the page raw; html/template then escapes the markup. "" is
// "(none)".
func show(s string) string {
	if s == "" {
		return "(none)"
	}
	for _, c := range s {
		if c == utf8.RuneError || !unicode.IsGraphic(c) {
			return strconv.QuoteToGraphic(s)
		}
	}
	return s
}

// refreshOf is the seconds after which the page asked by req reloads
// itself: its ?refresh=SECONDS (0 for never), bounded to 5..3600, else
// Options.Refresh. A value that is no integer is ignored.
func (r *Report) refreshOf(req *http.Request) int {
	v := req.URL.Query().Get("refresh")
	if v == "" {
		return r.refresh
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return r.refresh
	}
	return refreshSeconds(n)
}
