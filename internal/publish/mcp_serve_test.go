package publish_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// cardsSite declares two MCP servers on the site, one on another host and
// an A2A agent.
func cardsSite() config.Site {
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities,
		config.Capability{ID: "inventory", Description: "Stock", Endpoint: "https://outdoorsupply.example/api/caf%C3%A9", Protocol: config.ProtocolMCP},
		config.Capability{ID: "remote-tools", Description: "Elsewhere", Endpoint: "https://mcp.other.example/tools", Protocol: config.ProtocolMCP},
		config.Capability{ID: "trip-planner", Description: "Plans trips", Endpoint: "https://outdoorsupply.example/a2a", Protocol: config.ProtocolA2A})
	return s
}

func cardsHandler(t *testing.T) *publish.Handler {
	t.Helper()
	s := cardsSite()
	docs, err := publish.Render(&s, publish.Options{LastModified: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := publish.NewHandler(docs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestServerCardServing: a card is at its endpoint's /server-card as
// application/mcp-server-card+json, as application/json to a client that
// prefers it, each with its own ETag and Vary: Accept; the legacy
// well-known path serves the first card as application/json unless the
// card type is asked for (discovery.md, "Hosted Server Card Location").
func TestServerCardServing(t *testing.T) {
	h := cardsHandler(t)
	card := get(h, "/mcp/server-card")
	if card.Code != 200 || card.Header().Get("Content-Type") != "application/mcp-server-card+json" ||
		!strings.Contains(strings.Join(card.Header().Values("Vary"), ","), "Accept") {
		t.Fatalf("/mcp/server-card: %d %v", card.Code, card.Header())
	}
	schematest.Validate(t, "mcp_server-card.schema.json#/$defs/ServerCard", card.Body.Bytes())
	asJSON := get(h, "/mcp/server-card", "Accept", "application/json")
	if asJSON.Header().Get("Content-Type") != "application/json; charset=utf-8" || asJSON.Body.String() != card.Body.String() ||
		asJSON.Header().Get("Etag") == card.Header().Get("Etag") {
		t.Errorf("Accept: application/json: %v", asJSON.Header())
	}
	if w := get(h, "/mcp/server-card", "Accept", "application/mcp-server-card+json"); w.Header().Get("Content-Type") != "application/mcp-server-card+json" {
		t.Errorf("Accept: the card type: %v", w.Header())
	}
	// Each representation revalidates with its own ETag.
	if w := get(h, "/mcp/server-card", "If-None-Match", card.Header().Get("Etag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match with the card's ETag: %d", w.Code)
	}
	if w := get(h, "/mcp/server-card", "If-None-Match", asJSON.Header().Get("Etag")); w.Code != http.StatusOK {
		t.Errorf("If-None-Match with the JSON ETag, card asked: %d", w.Code)
	}
	if w := get(h, "/mcp/server-card", "Accept", "application/json", "If-None-Match", asJSON.Header().Get("Etag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match with the JSON ETag, JSON asked: %d", w.Code)
	}
	if w := get(h, "/api/caf%C3%A9/server-card"); w.Code != 200 || !strings.Contains(w.Body.String(), `"name": "example.outdoorsupply/inventory"`) {
		t.Errorf("/api/café/server-card: %d %s", w.Code, w.Body)
	}
	legacy := get(h, "/.well-known/mcp/server-card.json")
	if legacy.Code != 200 || legacy.Header().Get("Content-Type") != "application/json; charset=utf-8" || legacy.Body.String() != card.Body.String() {
		t.Errorf("legacy path: %d %v", legacy.Code, legacy.Header())
	}
	if w := get(h, "/.well-known/mcp/server-card.json", "Accept", "application/mcp-server-card+json"); w.Header().Get("Content-Type") != "application/mcp-server-card+json" {
		t.Errorf("legacy path, card type asked: %v", w.Header())
	}
	if w := get(h, "/tools/server-card"); w.Code != http.StatusNotFound {
		t.Errorf("the card of a server on another host is served here: %d", w.Code)
	}
}

// TestServerCardCORS: card hosts answer browsers as discovery.md's "CORS
// Requirements" ask: any origin, GET, the Content-Type and If-None-Match
// request headers, ETag exposed.
func TestServerCardCORS(t *testing.T) {
	h := cardsHandler(t)
	r := httptest.NewRequest("OPTIONS", "/mcp/server-card", nil)
	r.Header.Set("Origin", "https://agent.example")
	r.Header.Set("Access-Control-Request-Method", "GET")
	r.Header.Set("Access-Control-Request-Headers", "content-type,if-none-match")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	allowed := strings.ToLower(w.Header().Get("Access-Control-Allow-Headers"))
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") == "" ||
		!strings.Contains(allowed, "content-type") || !strings.Contains(allowed, "if-none-match") ||
		w.Header().Get("Access-Control-Allow-Methods") != "GET" {
		t.Errorf("preflight: %d %v", w.Code, w.Header())
	}
	got := get(h, "/mcp/server-card", "Origin", "https://agent.example")
	if got.Header().Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(strings.ToLower(got.Header().Get("Access-Control-Expose-Headers")), "etag") {
		t.Errorf("GET: %v", got.Header())
	}
}

// TestAICatalogServing: /.well-known/ai-catalog.json is an AI Catalog
// (application/ai-catalog+json, application/json on request) valid
// against the schema, and every entry URL answers on the site: the MCP
// cards with the entry's type when a client asks for it as discovery.md's
// "Client Discovery Flow" has it (step 3), the A2A card too.
func TestAICatalogServing(t *testing.T) {
	h := cardsHandler(t)
	w := get(h, "/.well-known/ai-catalog.json")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/ai-catalog+json" {
		t.Fatalf("catalog: %d %v", w.Code, w.Header())
	}
	schematest.Validate(t, "ai-catalog.schema.json", w.Body.Bytes())
	if j := get(h, "/.well-known/ai-catalog.json", "Accept", "application/json"); j.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("catalog as JSON: %v", j.Header())
	}
	var c struct {
		Entries []struct {
			Identifier, Type, URL string
			Data                  json.RawMessage
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 4 {
		t.Fatalf("%d entries: %s", len(c.Entries), w.Body)
	}
	for _, e := range c.Entries {
		if e.URL == "" {
			if e.Identifier != "urn:air:outdoorsupply.example:mcp:remote-tools" || e.Data == nil {
				t.Errorf("inline entry %+v", e)
			}
			continue
		}
		u, err := url.Parse(e.URL)
		if err != nil || u.Scheme != "https" || u.Host != "outdoorsupply.example" {
			t.Errorf("entry URL %q is not absolute on the site", e.URL)
			continue
		}
		got := get(h, u.RequestURI(), "Accept", e.Type)
		if got.Code != 200 {
			t.Errorf("%s: %d", e.URL, got.Code)
		}
		if e.Type == "application/mcp-server-card+json" && got.Header().Get("Content-Type") != e.Type {
			t.Errorf("%s: Content-Type %q, the entry says %s", e.URL, got.Header().Get("Content-Type"), e.Type)
		}
	}
}

// TestFixtureCardsValid: every MCP server card and AI Catalog any fixture
// renders is valid against its schema, the catalog lists every card the
// fixture serves, by the URL it is served at.
func TestFixtureCardsValid(t *testing.T) {
	n := 0
	for _, fx := range append(fixtures.All(), fixtures.Fixture{Name: "cards", Site: cardsSite()}) {
		docs, err := publish.Render(&fx.Site, publish.Options{Formats: fx.Formats})
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		served := map[string]bool{} // the paths of the cards at their endpoints
		var catalog []byte
		for _, d := range docs {
			switch {
			case strings.HasPrefix(d.Name, "MCP server card "):
				n++
				schematest.Validate(t, "mcp_server-card.schema.json#/$defs/ServerCard", d.Body)
				for _, p := range d.Paths {
					if strings.HasSuffix(p, "/server-card") {
						served[p] = true
					}
				}
			case d.Name == "ai-catalog.json":
				schematest.Validate(t, "ai-catalog.schema.json", d.Body)
				catalog = d.Body
			}
		}
		if len(served) > 0 && catalog == nil {
			t.Errorf("%s: cards without a catalog", fx.Name)
			continue
		}
		var c struct{ Entries []struct{ URL string } }
		_ = json.Unmarshal(catalog, &c)
		for _, e := range c.Entries {
			if u, err := url.Parse(e.URL); err == nil {
				delete(served, u.Path)
			}
		}
		if len(served) > 0 {
			t.Errorf("%s: cards the catalog does not list: %v", fx.Name, served)
		}
	}
	if n < 4 {
		t.Fatalf("%d cards rendered", n)
	}
}
