package publish_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkServe measures the handler alone: the ResponseWriter's header map
// is reused and cleared between requests (see reusableWriter), as the map
// net/http allocates per response is not the handler's cost. The requests
// carry the headers a real agent sends (User-Agent, Accept-Encoding), so
// header lookups run against a populated map.
func BenchmarkServe(b *testing.B) {
	h := newHandler(b)
	cases := []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"200", benchRequest("GET", "/.well-known/agents.txt"), 200},
		{"304", benchRequest("GET", "/.well-known/agents.txt", "If-None-Match", txtETag), 304},
		{"HEAD", benchRequest("HEAD", "/.well-known/agents.txt"), 200},
		{"descriptor-accept-profile", benchRequest("GET", "/agents/planner/agent.json",
			"Accept", `application/agent+json; profile="`+profileV3+`"`), 200},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			w := newReusableWriter()
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				h.ServeHTTP(w, c.req)
			}
			if w.status != c.status {
				b.Fatalf("status %d, want %d", w.status, c.status)
			}
		})
	}
}

// benchRequest is a request with the headers a real agent sends
// (User-Agent, Accept-Encoding), so that the conditional-header lookups run
// against a populated map, plus kv.
func benchRequest(method, path string, kv ...string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("User-Agent", "ExampleBot/1.0 (+https://bot.example)")
	r.Header.Set("Accept-Encoding", "gzip")
	for i := 0; i < len(kv); i += 2 {
		r.Header.Set(kv[i], kv[i+1])
	}
	return r
}

// BenchmarkServeFloor is the work no handler serving these headers can
// skip, and nothing else: clearing the reused map, the four request-header
// lookups a GET's preconditions need, and the eight header assignments of a
// 200. BenchmarkServe/200 minus this is the handler's own cost.
func BenchmarkServeFloor(b *testing.B) {
	r := benchRequest("GET", "/.well-known/agents.txt")
	w := newReusableWriter()
	v := []string{"x"}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		w.reset()
		for _, k := range [...]string{"If-Match", "If-Unmodified-Since", "If-None-Match", "If-Modified-Since"} {
			if r.Header[k] != nil {
				n++
			}
		}
		hdr := w.Header()
		hdr["Access-Control-Allow-Origin"] = v
		hdr["Vary"] = v
		hdr["Content-Type"] = v
		hdr["Content-Length"] = v
		hdr["Cache-Control"] = v
		hdr["Etag"] = v
		hdr["Last-Modified"] = v
		hdr["X-Content-Type-Options"] = v
	}
	if n != 0 {
		b.Fatal("conditional headers in the request")
	}
}

// BenchmarkServeWrapped is BenchmarkServe/200 behind Wrap, and a request
// Wrap passes on, to show what the middleware adds to application routes.
func BenchmarkServeWrapped(b *testing.B) {
	h := newHandler(b)
	app := h.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	for _, path := range []string{"/.well-known/agents.txt", "/api/products"} {
		b.Run(path, func(b *testing.B) {
			r := benchRequest("GET", path)
			w := newReusableWriter()
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				app.ServeHTTP(w, r)
			}
		})
	}
}
