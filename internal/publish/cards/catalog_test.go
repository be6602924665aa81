package cards_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

const catalogSchema = "ai-catalog.schema.json"

// TestCatalogSchemaExamples: the catalog schema, written from the
// specification's CDDL, accepts the specification's and the MCP discovery
// document's examples and refuses documents that break its rules
// (testdata/ai-catalog/SOURCE.md).
func TestCatalogSchemaExamples(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "ai-catalog", dir, "*.json"))
		if len(files) < 3 {
			t.Fatalf("%d %s examples", len(files), dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := schematest.Check(t, catalogSchema, b); (err == nil) != (dir == "valid") {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}

type catalogOf struct {
	SpecVersion string `json:"specVersion"`
	Host        struct {
		DisplayName, Identifier string
	} `json:"host"`
	Entries []struct {
		Identifier string          `json:"identifier"`
		Type       string          `json:"type"`
		URL        string          `json:"url"`
		Data       json.RawMessage `json:"data"`
	} `json:"entries"`
}

// catalogSite serves two MCP servers, declares one on another host and an
// A2A agent.
func catalogSite(siteURL string) config.Site {
	s := fixtures.OutdoorSupply()
	s.URL = siteURL
	s.Capabilities = []config.Capability{
		{ID: "store-assistant", Description: "The store", Endpoint: siteURL + "/mcp", Protocol: config.ProtocolMCP},
		{ID: "inventory", Description: "Stock", Endpoint: siteURL + "/api/caf%C3%A9", Protocol: config.ProtocolMCP},
		{ID: "remote-tools", Description: "Elsewhere", Endpoint: "https://mcp.other.example/tools", Protocol: config.ProtocolMCP},
		{ID: "trip-planner", Description: "Plans trips", Endpoint: siteURL + "/a2a", Protocol: config.ProtocolA2A},
	}
	return s
}

func renderCatalog(t *testing.T, s config.Site, a2aPath string) (catalogOf, []cards.MCPCard) {
	t.Helper()
	mcp, err := cards.MCPCards(&s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cards.Catalog(&s, mcp, a2aPath)
	if err != nil || b == nil {
		t.Fatalf("Catalog: %s %v", b, err)
	}
	schematest.Validate(t, catalogSchema, b)
	var c catalogOf
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c, mcp
}

// TestCatalog: the catalog is specVersion 1.0 with a Host Info, an entry
// for every MCP card (by absolute URL when the site serves it, inline when
// the server is on another host, the inline card valid against the card
// schema) and one for the A2A card, identified by urn:air under the site's
// domain in ASCII.
func TestCatalog(t *testing.T) {
	c, mcp := renderCatalog(t, catalogSite("https://bücher.example"), "/.well-known/agent-card.json")
	if c.SpecVersion != "1.0" || c.Host.DisplayName != "Outdoor Supply Co." || c.Host.Identifier != "xn--bcher-kva.example" || len(c.Entries) != 4 {
		t.Fatalf("catalog: %+v", c)
	}
	want := []struct{ id, typ, url string }{
		{"urn:air:xn--bcher-kva.example:mcp:store-assistant", cards.TypeMCPServerCard, "https://xn--bcher-kva.example/mcp/server-card"},
		{"urn:air:xn--bcher-kva.example:mcp:inventory", cards.TypeMCPServerCard, "https://xn--bcher-kva.example/api/caf%C3%A9/server-card"},
		{"urn:air:xn--bcher-kva.example:mcp:remote-tools", cards.TypeMCPServerCard, ""},
		{"urn:air:xn--bcher-kva.example:a2a:agent", cards.TypeA2AAgentCard, "https://xn--bcher-kva.example/.well-known/agent-card.json"},
	}
	for i, w := range want {
		e := c.Entries[i]
		if e.Identifier != w.id || e.Type != w.typ || e.URL != w.url {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
		if w.url != "" {
			if u, err := url.Parse(e.URL); err != nil || !u.IsAbs() || u.Host == "" || e.Data != nil {
				t.Errorf("entry %d: url %q is not absolute, or data is set too", i, e.URL)
			}
		}
	}
	remote := c.Entries[2]
	schematest.Validate(t, serverCardSchema, remote.Data)
	var inline struct{ Name string }
	if err := json.Unmarshal(remote.Data, &inline); err != nil || inline.Name != "example.xn--bcher-kva/remote-tools" {
		t.Errorf("inline card: %s", remote.Data)
	}
	if mcp[2].Path != "" {
		t.Errorf("the inline card is also served: %+v", mcp[2])
	}
}

// TestCatalogIPHost: a site on an IP literal has no domain for urn:air:
// its entries are identified by the card's URL, or the server's for an
// inline card, and the host has no identifier.
func TestCatalogIPHost(t *testing.T) {
	c, _ := renderCatalog(t, catalogSite("https://[2001:db8::1]:8443"), "/.well-known/agent-card.json")
	if c.Host.Identifier != "" {
		t.Errorf("host identifier %q", c.Host.Identifier)
	}
	for i, id := range []string{"https://[2001:db8::1]:8443/mcp/server-card", "https://[2001:db8::1]:8443/api/caf%C3%A9/server-card",
		"https://mcp.other.example/tools", "https://[2001:db8::1]:8443/.well-known/agent-card.json"} {
		if c.Entries[i].Identifier != id {
			t.Errorf("entry %d: identifier %q, want %q", i, c.Entries[i].Identifier, id)
		}
	}
}

// TestCatalogWithout: no A2A path lists the MCP cards alone; a site with
// neither has no catalog.
func TestCatalogWithout(t *testing.T) {
	c, _ := renderCatalog(t, catalogSite("https://outdoorsupply.example"), "")
	for _, e := range c.Entries {
		if e.Type != cards.TypeMCPServerCard || !strings.HasPrefix(e.Identifier, "urn:air:outdoorsupply.example:mcp:") {
			t.Errorf("entry %+v", e)
		}
	}
	s := fixtures.OutdoorSupply()
	s.Capabilities = s.Capabilities[:1] // REST only
	if b, err := cards.Catalog(&s, nil, ""); b != nil || err != nil {
		t.Errorf("a site with nothing to list has a catalog: %s %v", b, err)
	}
}
