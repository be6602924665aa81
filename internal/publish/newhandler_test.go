package publish_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/publish"
)

func TestNewHandlerErrors(t *testing.T) {
	ok := func() publish.Document {
		return publish.Document{Name: "d", Paths: []string{"/d"}, ContentType: "application/json; charset=utf-8"}
	}
	tests := []struct {
		name string
		docs func() []publish.Document
		want []string
	}{
		{"empty path", func() []publish.Document {
			d := ok()
			d.Paths = []string{""}
			return []publish.Document{d}
		}, []string{"d: empty path"}},
		{"relative path", func() []publish.Document {
			d := ok()
			d.Paths = []string{".well-known/agents.txt"}
			return []publish.Document{d}
		}, []string{`path ".well-known/agents.txt" does not start with /`}},
		{"query in path", func() []publish.Document {
			d := ok()
			d.Paths = []string{"/a?b"}
			return []publish.Document{d}
		}, []string{"query or fragment"}},
		{"space in path", func() []publish.Document {
			d := ok()
			d.Paths = []string{"/a b"}
			return []publish.Document{d}
		}, []string{"whitespace"}},
		{"no paths", func() []publish.Document {
			d := ok()
			d.Paths = nil
			return []publish.Document{d}
		}, []string{"d: no path"}},
		{"duplicate across documents", func() []publish.Document {
			a, b := ok(), ok()
			b.Name = "e"
			return []publish.Document{a, b}
		}, []string{`path "/d" is served by both d and e`}},
		{"duplicate within a document", func() []publish.Document {
			d := ok()
			d.Paths = []string{"/d", "/d"}
			return []publish.Document{d}
		}, []string{`path "/d" is served by both d and d`}},
		{"unnamed document", func() []publish.Document {
			d := ok()
			d.Name = ""
			d.Paths = nil
			return []publish.Document{ok(), d}
		}, []string{"document 1: no path"}},
		{"no content type", func() []publish.Document {
			d := ok()
			d.ContentType = ""
			return []publish.Document{d}
		}, []string{"no content type"}},
		{"bad content type", func() []publish.Document {
			d := ok()
			d.ContentType = "text/plain; charset"
			return []publish.Document{d}
		}, []string{`content type "text/plain; charset"`}},
		{"negative max-age", func() []publish.Document {
			d := ok()
			d.MaxAge = -time.Second
			return []publish.Document{d}
		}, []string{"negative max-age"}},
		{"profiles on JSON", func() []publish.Document {
			d := ok()
			d.Profiles = []string{profileV3}
			return []publish.Document{d}
		}, []string{"profiles need content type application/agent+json"}},
		{"profile parameter in content type", func() []publish.Document {
			d := ok()
			d.ContentType = `application/agent+json; profile="x"`
			d.Profiles = []string{profileV3}
			return []publish.Document{d}
		}, []string{"has a profile parameter"}},
		{"profile with a quote", func() []publish.Document {
			d := ok()
			d.ContentType = "application/agent+json"
			d.Profiles = []string{`https://x/"v3`, "a b", ""}
			return []publish.Document{d}
		}, []string{`byte '"'`, `profile "a b"`, "empty profile"}},
		{"every problem at once", func() []publish.Document {
			a, b := ok(), ok()
			a.Paths = []string{"x"}
			b.Name, b.ContentType, b.MaxAge = "e", "", -1
			return []publish.Document{a, b}
		}, []string{`"x" does not start`, "e: no content type", "e: negative max-age"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := publish.NewHandler(tt.docs())
			if err == nil {
				t.Fatalf("no error, handler %v", h)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestZeroHandler: a Handler not made by NewHandler serves nothing, and
// says so properly.
func TestZeroHandler(t *testing.T) {
	var h publish.Handler
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/agents.txt", nil))
	check(t, rec.Code, rec.Header(), rec.Body.Bytes(), expect{404, problemHeaders(), nil})
	if h.Lookup("/.well-known/agents.txt") {
		t.Error("a zero handler serves something")
	}
}

func TestNewHandlerEmpty(t *testing.T) {
	h, err := publish.NewHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Lookup("/.well-known/agents.txt") {
		t.Error("an empty handler serves something")
	}
}

func TestLookup(t *testing.T) {
	h := newHandler(t)
	for path, want := range map[string]bool{
		"/.well-known/agents.txt":    true,
		"/agents.txt":                true,
		"/agents/planner/agent.json": true,
		"/agents.txt/":               false,
		"/AGENTS.TXT":                false,
		"":                           false,
	} {
		if got := h.Lookup(path); got != want {
			t.Errorf("Lookup(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestDocumentCopied: a handler serves what NewHandler was given, even if
// the caller reuses its buffers.
func TestDocumentCopied(t *testing.T) {
	docs := testDocs()
	body := []byte("original")
	docs[0].Body = body
	h, err := publish.NewHandler(docs)
	if err != nil {
		t.Fatal(err)
	}
	copy(body, "mutated!")
	docs[1].Profiles[0] = "https://changed.example"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/agents.txt", nil))
	if rec.Body.String() != "original" || rec.Header().Get("Etag") != etagOf([]byte("original")) {
		t.Errorf("served %q with %s", rec.Body, rec.Header().Get("Etag"))
	}
	rec = httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/agents/planner/agent.json", nil)
	r.Header.Set("Accept", `application/agent+json;profile="`+profileV3+`"`)
	h.ServeHTTP(rec, r)
	if rec.Code != 200 {
		t.Errorf("profile changed after NewHandler: %d", rec.Code)
	}
}

// TestDocumentDefaults covers a document without Last-Modified, with a zero
// and a fractional max-age, and without a body.
func TestDocumentDefaults(t *testing.T) {
	h, err := publish.NewHandler([]publish.Document{{
		Name: "empty", Paths: []string{"/e"}, ContentType: "text/markdown; charset=utf-8",
		MaxAge: 1500 * time.Millisecond,
	}, {
		Name: "zero", Paths: []string{"/z"}, ContentType: "application/json; charset=utf-8", Body: []byte("{}"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/e", nil)
	r.Header.Set("If-Modified-Since", modifiedHTTP) // nothing to compare with
	h.ServeHTTP(rec, r)
	check(t, rec.Code, rec.Header(), rec.Body.Bytes(), expect{200, map[string][]string{
		"Content-Type":   {"text/markdown; charset=utf-8"},
		"Content-Length": {"0"},
		"Cache-Control":  {"public, max-age=1"},
		"Etag":           {etagOf(nil)},
		"Last-Modified":  nil,
	}, []byte{}})
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/z", nil))
	if got := rec.Header().Get("Cache-Control"); got != "public, max-age=0" {
		t.Errorf("Cache-Control %q", got)
	}
}
