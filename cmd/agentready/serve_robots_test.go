package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestServeRobotsLastModified: -robots serves robots.txt with a
// Last-Modified, like every other document, and answers its
// If-Modified-Since with 304.
func TestServeRobotsLastModified(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	p, err := newProxy(proxyConfig{configFile: upstreamSite, upstream: up.URL, robots: true, log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	lm := map[string]string{}
	for _, path := range []string{"/robots.txt", "/.well-known/agents.txt"} {
		w := httptest.NewRecorder()
		p.handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		lm[path] = w.Header().Get("Last-Modified")
		if _, err := http.ParseTime(lm[path]); w.Code != 200 || err != nil {
			t.Errorf("%s: %d, Last-Modified %q", path, w.Code, lm[path])
		}
	}
	if lm["/robots.txt"] != lm["/.well-known/agents.txt"] {
		t.Errorf("robots.txt's Last-Modified %q, the other documents' %q", lm["/robots.txt"], lm["/.well-known/agents.txt"])
	}
	r := httptest.NewRequest("GET", "/robots.txt", nil)
	r.Header.Set("If-Modified-Since", time.Now().UTC().Add(time.Hour).Format(http.TimeFormat))
	w := httptest.NewRecorder()
	p.handler.ServeHTTP(w, r)
	if w.Code != http.StatusNotModified {
		t.Errorf("If-Modified-Since after it: %d", w.Code)
	}
}
