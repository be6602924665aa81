package publish_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkServe measures the handler alone: the ResponseWriter's header map
// is reused and cleared between requests (see reusableWriter), as the map
// net/http allocates per response is not the handler's cost.
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

// benchRequest is a request with the headers a real agent sends
// (User-Agent, Accept-Encoding), plus kv.
func benchRequest(method, path string, kv ...string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("User-Agent", "ExampleBot/1.0 (+https://bot.example)")
	r.Header.Set("Accept-Encoding", "gzip")
	for i := 0; i < len(kv); i += 2 {
		r.Header.Set(kv[i], kv[i+1])
	}
	return r
}

// reusableWriter is a ResponseWriter whose header map survives between
// requests, cleared each time, and whose body is discarded.
type reusableWriter struct {
	header http.Header
	status int
}

func newReusableWriter() *reusableWriter { return &reusableWriter{header: make(http.Header)} }

func (w *reusableWriter) Header() http.Header { return w.header }

func (w *reusableWriter) WriteHeader(code int) { w.status = code }

func (w *reusableWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}

func (w *reusableWriter) reset() {
	clear(w.header)
	w.status = 0
}
