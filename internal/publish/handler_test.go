package publish_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/publish"
)

const (
	profileV3    = "https://agent-uri.org/profile/v3"
	profileOther = "https://example.com/profiles/planner"
)

var (
	modified     = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	modifiedHTTP = "Sun, 01 Feb 2026 00:00:00 GMT"
	txtBody      = []byte("# agents.txt\nSpec-Version: 1.0\nSite-Name: Outdoor Supply Co.\n")
	descBody     = []byte(`{"name":"planner","version":"1.0.0"}`)
)

// testDocs are an agents.txt at two paths and an agent:// descriptor.
func testDocs() []publish.Document {
	return []publish.Document{
		{
			Name:         "agents.txt",
			Paths:        []string{"/.well-known/agents.txt", "/agents.txt"},
			ContentType:  "text/plain; charset=utf-8",
			Body:         txtBody,
			MaxAge:       300 * time.Second,
			LastModified: modified.Add(400 * time.Millisecond), // truncated to seconds
		},
		{
			Name:         "descriptor planner",
			Paths:        []string{"/agents/planner/agent.json"},
			ContentType:  "application/agent+json",
			Body:         descBody,
			MaxAge:       300 * time.Second,
			LastModified: modified,
			Profiles:     []string{profileV3, profileOther},
		},
	}
}

func newHandler(t testing.TB) *publish.Handler {
	t.Helper()
	h, err := publish.NewHandler(testDocs())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// etagOf is the ETag the package promises: the quoted hex of the first 16
// bytes of the body's SHA-256.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

var (
	txtETag  = etagOf(txtBody)
	descETag = etagOf(descBody)
	descType = `application/agent+json; profile="` + profileV3 + `"`
)

// expect is a response as the tests describe it: a status, headers that
// must have exactly these values (a nil value: must be absent) and a body
// (nil: not checked beyond Content-Length).
type expect struct {
	status int
	header map[string][]string
	body   []byte
}

func txt200() map[string][]string {
	return map[string][]string{
		"Content-Type":                {"text/plain; charset=utf-8"},
		"Content-Length":              {fmt.Sprint(len(txtBody))},
		"Cache-Control":               {"public, max-age=300"},
		"Etag":                        {txtETag},
		"Last-Modified":               {modifiedHTTP},
		"X-Content-Type-Options":      {"nosniff"},
		"Access-Control-Allow-Origin": {"*"},
		"Vary":                        {"Origin"},
		"Accept-Ranges":               {"bytes"},
		"Allow":                       nil,
	}
}

func desc200() map[string][]string {
	return map[string][]string{
		"Content-Type":                {descType},
		"Content-Length":              {fmt.Sprint(len(descBody))},
		"Cache-Control":               {"public, max-age=300"},
		"Etag":                        {descETag},
		"Last-Modified":               {modifiedHTTP},
		"X-Content-Type-Options":      {"nosniff"},
		"Access-Control-Allow-Origin": {"*"},
		"Vary":                        {"Accept", "Origin"},
	}
}

// txt304 is what a 304 carries: the fields RFC 9110 15.4.5 lists. With an
// ETag present, http.ServeContent leaves Last-Modified off, as 15.4.5
// advises for metadata that does not guide the cache update.
func txt304() map[string][]string {
	return map[string][]string{
		"Etag":                        {txtETag},
		"Cache-Control":               {"public, max-age=300"},
		"Last-Modified":               nil,
		"Vary":                        {"Origin"},
		"Access-Control-Allow-Origin": {"*"},
		"Content-Type":                nil,
		"Content-Length":              nil,
	}
}

func problemHeaders() map[string][]string {
	return map[string][]string{
		"Content-Type":           {"application/problem+json"},
		"X-Content-Type-Options": {"nosniff"},
	}
}

func with(m map[string][]string, kv ...any) map[string][]string {
	for i := 0; i < len(kv); i += 2 {
		v, _ := kv[i+1].([]string)
		m[kv[i].(string)] = v
	}
	return m
}

// serveCase is one request and what must come back. It runs both against
// an httptest recorder and end to end through a real server.
type serveCase struct {
	name   string
	method string
	path   string
	header map[string]string
	want   expect
}

func serveCases() []serveCase {
	later := "Sun, 01 Feb 2026 00:00:01 GMT"
	earlier := "Sat, 31 Jan 2026 23:59:59 GMT"
	return []serveCase{
		{name: "GET 200", method: "GET", path: "/.well-known/agents.txt",
			want: expect{200, txt200(), txtBody}},
		{name: "GET fallback path", method: "GET", path: "/agents.txt",
			want: expect{200, txt200(), txtBody}},
		{name: "GET with query", method: "GET", path: "/agents.txt?x=1",
			want: expect{200, txt200(), txtBody}},
		{name: "HEAD 200 no body", method: "HEAD", path: "/.well-known/agents.txt",
			want: expect{200, txt200(), []byte{}}},
		{name: "If-None-Match exact", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-None-Match": txtETag},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-None-Match weak", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-None-Match": "W/" + txtETag},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-None-Match list", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-None-Match": `"a,b", W/"old" ,` + txtETag},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-None-Match star", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-None-Match": "*"},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-None-Match HEAD", method: "HEAD", path: "/agents.txt",
			header: map[string]string{"If-None-Match": txtETag},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-None-Match other", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-None-Match": `"0123", W/"4567"`},
			want:   expect{200, txt200(), txtBody}},
		{name: "If-Modified-Since equal", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Modified-Since": modifiedHTTP},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-Modified-Since later", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Modified-Since": later},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-Modified-Since rfc850", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Modified-Since": "Sunday, 01-Feb-26 00:00:00 GMT"},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-Modified-Since asctime", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Modified-Since": "Sun Feb  1 00:00:00 2026"},
			want:   expect{304, txt304(), []byte{}}},
		{name: "If-Modified-Since earlier", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Modified-Since": earlier},
			want:   expect{200, txt200(), txtBody}},
		{name: "If-Modified-Since invalid", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Modified-Since": "yesterday"},
			want:   expect{200, txt200(), txtBody}},
		{name: "If-Modified-Since ignored under If-None-Match", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-None-Match": `"other"`, "If-Modified-Since": later},
			want:   expect{200, txt200(), txtBody}},
		{name: "If-Match mismatch 412", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Match": `"other"`},
			want:   expect{412, with(problemHeaders(), "Etag", nil, "Vary", []string{"Origin"}), nil}},
		{name: "If-Match weak never matches 412", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Match": "W/" + txtETag},
			want:   expect{412, problemHeaders(), nil}},
		{name: "If-Match exact 200", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Match": txtETag},
			want:   expect{200, txt200(), txtBody}},
		{name: "If-Unmodified-Since earlier 412", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Unmodified-Since": earlier},
			want:   expect{412, problemHeaders(), nil}},
		{name: "If-Unmodified-Since ignored under If-Match", method: "GET", path: "/agents.txt",
			header: map[string]string{"If-Match": "*", "If-Unmodified-Since": earlier},
			want:   expect{200, txt200(), txtBody}},
		{name: "Range 206", method: "GET", path: "/agents.txt",
			header: map[string]string{"Range": "bytes=0-11"},
			want: expect{206, map[string][]string{"Content-Range": {fmt.Sprintf("bytes 0-11/%d", len(txtBody))},
				"Content-Length": {"12"}, "Etag": {txtETag}}, txtBody[:12]}},
		{name: "If-Range stale sends all", method: "GET", path: "/agents.txt",
			header: map[string]string{"Range": "bytes=0-11", "If-Range": `"old"`},
			want:   expect{200, txt200(), txtBody}},
		{name: "Range unsatisfiable 416", method: "GET", path: "/agents.txt",
			header: map[string]string{"Range": "bytes=1000-"},
			want: expect{416, with(problemHeaders(), "Content-Range", []string{fmt.Sprintf("bytes */%d", len(txtBody))},
				"Etag", nil, "Access-Control-Allow-Origin", []string{"*"}), nil}},
		{name: "POST 405", method: "POST", path: "/agents.txt",
			want: expect{405, with(problemHeaders(), "Allow", []string{"GET, HEAD, OPTIONS"},
				"Access-Control-Allow-Origin", nil, "Etag", nil), nil}},
		{name: "DELETE 405 cross-origin", method: "DELETE", path: "/agents.txt",
			header: map[string]string{"Origin": "https://other.example"},
			want: expect{405, with(problemHeaders(), "Allow", []string{"GET, HEAD, OPTIONS"},
				"Vary", []string{"Origin"}, "Access-Control-Allow-Origin", nil), nil}},
		{name: "OPTIONS 204 Allow", method: "OPTIONS", path: "/agents.txt",
			want: expect{204, map[string][]string{"Allow": {"GET, HEAD, OPTIONS"}, "Content-Length": nil,
				"Access-Control-Allow-Methods": nil}, []byte{}}},
		{name: "preflight 204", method: "OPTIONS", path: "/.well-known/agents.txt",
			header: map[string]string{
				"Origin":                         "https://other.example",
				"Access-Control-Request-Method":  "GET",
				"Access-Control-Request-Headers": "if-none-match",
			},
			want: expect{204, map[string][]string{
				"Access-Control-Allow-Origin":  {"*"},
				"Access-Control-Allow-Methods": {"GET"},
				"Access-Control-Allow-Headers": {"if-none-match"},
				"Access-Control-Max-Age":       {"300"},
				"Vary":                         {"Origin, Access-Control-Request-Method, Access-Control-Request-Headers"},
				"Allow":                        nil,
			}, []byte{}}},
		{name: "preflight for a method not offered", method: "OPTIONS", path: "/agents.txt",
			header: map[string]string{"Origin": "https://other.example", "Access-Control-Request-Method": "PUT"},
			want: expect{204, map[string][]string{"Access-Control-Allow-Origin": nil,
				"Access-Control-Allow-Methods": nil}, []byte{}}},
		{name: "descriptor 200 no Accept", method: "GET", path: "/agents/planner/agent.json",
			want: expect{200, desc200(), descBody}},
		{name: "descriptor 200 profile", method: "GET", path: "/agents/planner/agent.json",
			header: map[string]string{"Accept": `application/agent+json; profile="` + profileV3 + `"`},
			want:   expect{200, desc200(), descBody}},
		{name: "descriptor 200 second profile", method: "GET", path: "/agents/planner/agent.json",
			header: map[string]string{"Accept": `application/agent+json;profile="` + profileOther + `"`},
			want:   expect{200, desc200(), descBody}},
		{name: "descriptor 200 browser Accept", method: "GET", path: "/agents/planner/agent.json",
			header: map[string]string{"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
			want:   expect{200, desc200(), descBody}},
		{name: "descriptor 304", method: "GET", path: "/agents/planner/agent.json",
			header: map[string]string{"If-None-Match": descETag, "Accept": "application/json"},
			want: expect{304, map[string][]string{"Etag": {descETag}, "Vary": {"Accept", "Origin"},
				"Content-Type": nil}, []byte{}}},
		{name: "descriptor 406 profile", method: "GET", path: "/agents/planner/agent.json",
			header: map[string]string{"Accept": `application/agent+json; profile="https://agent-uri.org/profile/v4"`},
			want: expect{406, with(problemHeaders(), "Vary", []string{"Accept", "Origin"},
				"Access-Control-Allow-Origin", []string{"*"}, "Etag", nil), nil}},
		{name: "descriptor 406 wins over 304", method: "GET", path: "/agents/planner/agent.json",
			header: map[string]string{"Accept": "application/agent+json;q=0", "If-None-Match": "*"},
			want:   expect{406, problemHeaders(), nil}},
		{name: "descriptor HEAD 406 no body", method: "HEAD", path: "/agents/planner/agent.json",
			header: map[string]string{"Accept": "text/html"},
			want:   expect{406, problemHeaders(), []byte{}}},
	}
}

func newRequest(c serveCase) *http.Request {
	r := httptest.NewRequest(c.method, c.path, nil)
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	return r
}

func check(t *testing.T, status int, header http.Header, body []byte, want expect) {
	t.Helper()
	if status != want.status {
		t.Errorf("status %d, want %d (body %s)", status, want.status, body)
	}
	for k, v := range want.header {
		got, ok := header[k]
		switch {
		case v == nil && ok:
			t.Errorf("%s: %q, want none", k, got)
		case v != nil && !slices.Equal(got, v):
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if want.body != nil && string(body) != string(want.body) {
		t.Errorf("body %q, want %q", body, want.body)
	}
	if cl, ok := header["Content-Length"]; ok && status != 304 && len(want.body) > 0 {
		if cl[0] != fmt.Sprint(len(body)) {
			t.Errorf("Content-Length %s, body %d bytes", cl[0], len(body))
		}
	}
}

func TestServeRecorder(t *testing.T) {
	h := newHandler(t)
	for _, c := range serveCases() {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newRequest(c))
			want := c.want
			if c.method == "HEAD" {
				// The recorder keeps what a handler writes; the handler
				// must not write a body for HEAD at all.
				want.body = []byte{}
			}
			check(t, rec.Code, rec.Header(), rec.Body.Bytes(), want)
		})
	}
}

// TestServeEndToEnd sends the same requests through net/http, so that what
// the server adds or drops (Date, Content-Length on 304 and 204, HEAD
// bodies) is part of what is checked.
func TestServeEndToEnd(t *testing.T) {
	h := newHandler(t)
	srv := httptest.NewServer(h.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "app")
	})))
	t.Cleanup(srv.Close)
	for _, c := range serveCases() {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, srv.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			check(t, res.StatusCode, res.Header, body, c.want)
			if res.Header.Get("Date") == "" {
				t.Error("no Date")
			}
			if c.method == "HEAD" && c.want.status == 200 && res.ContentLength != int64(len(txtBody)) {
				t.Errorf("HEAD Content-Length %d, want %d", res.ContentLength, len(txtBody))
			}
		})
	}
	t.Run("other paths reach the application", func(t *testing.T) {
		res, err := srv.Client().Get(srv.URL + "/agents.txt/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != "app" {
			t.Errorf("got %d %q, want the application's answer", res.StatusCode, body)
		}
	})
}

// TestDocumentHeaderOnFullResponses: a Document's own fields (a signed
// descriptor's Signature covers "@status" 200 and the whole body's digest)
// go on 200s only, not on 304s or 206s.
func TestDocumentHeaderOnFullResponses(t *testing.T) {
	docs := testDocs()
	docs[1].Header = http.Header{"content-digest": {"sha-256=:x:"}}
	h, err := publish.NewHandler(docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
		want   []string
	}{
		{"200", nil, 200, []string{"sha-256=:x:"}},
		{"304", map[string]string{"If-None-Match": descETag}, 304, nil},
		{"206", map[string]string{"Range": "bytes=0-1"}, 206, nil},
		{"412", map[string]string{"If-Match": `"other"`}, 412, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newRequest(serveCase{method: "GET", path: "/agents/planner/agent.json", header: c.header}))
			if rec.Code != c.status || !slices.Equal(rec.Header()["Content-Digest"], c.want) {
				t.Errorf("%d with Content-Digest %q, want %d with %q", rec.Code, rec.Header()["Content-Digest"], c.status, c.want)
			}
		})
	}
}

// TestHeaderValuesNotAliased: a middleware appending to one response's
// header value (Header().Add) must not write into another response's.
func TestHeaderValuesNotAliased(t *testing.T) {
	h := newHandler(t)
	serve := func() http.Header {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/agents/planner/agent.json", nil))
		return rec.Header()
	}
	first, second := serve(), serve()
	first.Add("Vary", "Accept-Encoding")
	second.Add("Vary", "Cookie")
	if got, want := first["Vary"], []string{"Accept", "Origin", "Accept-Encoding"}; !slices.Equal(got, want) {
		t.Errorf("first response Vary: %q, want %q", got, want)
	}
	for _, k := range []string{"Etag", "Cache-Control", "Content-Type", "Access-Control-Allow-Origin"} {
		first.Add(k, "x")
		if got := second[k]; len(got) != 1 {
			t.Errorf("second response %s: %q", k, got)
		}
	}
	if got := serve()["Vary"]; !slices.Equal(got, []string{"Accept", "Origin"}) {
		t.Errorf("third response Vary %q", got)
	}
}

// ExampleHandler_Wrap publishes one document in front of an application.
func ExampleHandler_Wrap() {
	docs, err := publish.NewHandler([]publish.Document{{
		Name:         "agents.txt",
		Paths:        []string{"/.well-known/agents.txt", "/agents.txt"},
		ContentType:  "text/plain; charset=utf-8",
		Body:         []byte("Spec-Version: 1.0\nSite-Name: Example Shop\n"),
		MaxAge:       300 * time.Second,
		LastModified: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "the application")
	})
	srv := httptest.NewServer(docs.Wrap(app))
	defer srv.Close()

	get := func(path, ifNoneMatch string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			panic(err)
		}
		return res
	}

	res := get("/.well-known/agents.txt", "")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.Status)
	for _, k := range []string{"Content-Type", "Cache-Control", "Etag", "Last-Modified", "Access-Control-Allow-Origin"} {
		fmt.Printf("%s: %s\n", k, res.Header.Get(k))
	}
	fmt.Print(string(body))

	res = get("/agents.txt", res.Header.Get("Etag"))
	res.Body.Close()
	fmt.Println(res.Status)

	res = get("/shop", "")
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Print(res.Status, " ", string(body))
	// Output:
	// 200 OK
	// Content-Type: text/plain; charset=utf-8
	// Cache-Control: public, max-age=300
	// Etag: "b7041aff54c73d36135dbf012d4110f9"
	// Last-Modified: Sun, 01 Mar 2026 12:00:00 GMT
	// Access-Control-Allow-Origin: *
	// Spec-Version: 1.0
	// Site-Name: Example Shop
	// 304 Not Modified
	// 200 OK the application
}
