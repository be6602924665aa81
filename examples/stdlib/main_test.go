package main

import (
	"bytes"
	"io"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/mcpgateway"
)

// TestSiteYAML: site.yaml declares what site declares in Go (examples/chi
// serves the file): the two decode equal and serve identical documents.
func TestSiteYAML(t *testing.T) {
	fromFile, _, err := config.LoadSite("site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromFile, site()) {
		t.Errorf("site.yaml:\n got %+v\nwant %+v", fromFile, site())
	}
	serve := func(site config.Site) func(path string) []byte {
		m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{RobotsTxt: true}), agentready.WithGateway(mcpgateway.Serve), agentready.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		h := m.Handler(nil)
		return func(path string) []byte {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if w.Code != 200 {
				t.Fatalf("%s: %d", path, w.Code)
			}
			return w.Body.Bytes()
		}
	}
	goDocs, fileDocs := serve(site()), serve(fromFile)
	for _, path := range []string{"/.well-known/agents.txt", "/.well-known/agents.json", "/.well-known/agents.md", "/agent.json",
		"/agents/outdoorsupply.example/agent.json", "/.well-known/mcp/server-card.json", "/robots.txt"} {
		if a, b := goDocs(path), fileDocs(path); !bytes.Equal(a, b) {
			t.Errorf("%s differs:\n--- Go\n%s\n--- site.yaml\n%s", path, a, b)
		}
	}
}
