package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/internal/fixtures"
)

// TestCheckGoodSite: a site served by agentready passes.
func TestCheckGoodSite(t *testing.T) {
	m, err := agentready.New(fixtures.OutdoorSupply(), agentready.WithDocuments(agentready.Documents{RobotsTxt: true}), agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.NotFoundHandler()))
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"check", srv.URL}, &out, &errb); code != 0 {
		t.Fatalf("check of an agentready site: %d\n%s", code, out.String())
	}
	for _, want := range []string{"PASS /.well-known/agents.txt", "PASS /.well-known/agents.json", "PASS /.well-known/agents.md", "PASS /agent.json",
		"PASS /.well-known/mcp/server-card.json", "PASS /robots.txt"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCheckBrokenSite: a site with broken documents fails, each problem
// named, in text and in JSON.
func TestCheckBrokenSite(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agents.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("Spec-Version: 1.0\nSite-Name: Broken\nCapability: search\n  Endpoint: https://broken.example/s\n"))
	})
	mux.HandleFunc("/.well-known/agents.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"specVersion": "1.0", "site": {"name": "Broken"}}`))
	})
	mux.HandleFunc("/agent.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{not json`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"check", srv.URL}, &out, &errb); code != 1 {
		t.Fatalf("check of a broken site: %d\n%s", code, out.String())
	}
	for _, want := range []string{"FAIL /.well-known/agents.txt", `Content-Type "text/html"`, "FAIL /.well-known/agents.json", "draft-car_agents-json.schema.json", "FAIL /agent.json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"check", "-json", srv.URL}, &out, &errb); code != 1 {
		t.Fatalf("-json: %d", code)
	}
	var fs []finding
	if err := json.Unmarshal(out.Bytes(), &fs); err != nil || len(fs) < 3 {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if code := run([]string{"check", "ftp://x"}, &out, &errb); code != 2 {
		t.Errorf("an ftp URL: %d", code)
	}
}

// TestCheckDescriptors: the descriptors a registry lists on the site's
// origin are fetched and validated; an unsigned one is a warning.
func TestCheckDescriptors(t *testing.T) {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agents.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write([]byte("Spec-Version: 1.0\\nSite-Name: S\\nSite-URL: https://s.example\\n"))
	})
	mux.HandleFunc("/.well-known/agents.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"agents": {"a": "` + srv.URL + `/agents/a/agent.json", "b": "https://elsewhere.example/b.json"}}`))
	})
	mux.HandleFunc("/agents/a/agent.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/agent+json")
		w.Write([]byte(`{"name": "a"}`))
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"check", srv.URL}, &out, &errb); code != 1 {
		t.Fatalf("a broken descriptor: %d\\n%s", code, out.String())
	}
	for _, want := range []string{"FAIL /agents/a/agent.json", "agent-uri_agent-descriptor.schema.json", "WARN /agents/a/agent.json", "unsigned", "elsewhere.example/b.json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\\n%s", want, out.String())
		}
	}
}
