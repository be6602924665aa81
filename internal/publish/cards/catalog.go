package cards

import (
	"encoding/json"
	"net/url"

	"github.com/agentready/agentready/config"
)

// The AI Catalog (github.com/Agent-Card/ai-catalog,
// specification/ai-catalog.md), which the MCP discovery document names as
// the way clients find server cards (experimental-ext-server-card
// docs/discovery.md, "AI Catalog"): a site's MCP servers and its A2A agent,
// one entry each.
const (
	// CatalogSpecVersion is the specVersion the catalog conforms to
	// ("Top-Level Structure", "Version Handling": "Major.Minor").
	CatalogSpecVersion = "1.0"
	// TypeMCPServerCard is the media type of an MCP server card, its
	// entries' type (discovery.md, "Server Card Entries": MUST).
	TypeMCPServerCard = "application/mcp-server-card+json"
	// TypeA2AAgentCard is the AI Catalog's known type for an A2A agent
	// card ("Catalog Entry", type).
	TypeA2AAgentCard = "application/a2a-agent-card+json"
)

type catalog struct {
	SpecVersion string         `json:"specVersion"`
	Host        *catalogHost   `json:"host,omitempty"`
	Entries     []catalogEntry `json:"entries"`
}

// catalogHost is Host Info: it makes the catalog a Level 2 "Discoverable
// Catalog" ("Conformance Levels").
type catalogHost struct {
	DisplayName      string `json:"displayName"`
	Identifier       string `json:"identifier,omitempty"`
	DocumentationURL string `json:"documentationUrl,omitempty"`
}

// catalogEntry carries exactly one of url and data ("Catalog Entry"). It
// repeats none of the card's name, description or version: the card is
// their authoritative source and the specification asks entries to omit
// them so that they cannot drift ("Catalog Entry", displayName,
// description, version).
type catalogEntry struct {
	Identifier string          `json:"identifier"`
	Type       string          `json:"type"`
	URL        string          `json:"url,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// Catalog renders the site's AI Catalog for its MCP server cards (from
// MCPCards) and, when a2aPath is not empty, the A2A agent card served at
// that path. It is nil when there is nothing to list.
//
// A card the site serves is listed by its absolute URL (Path and URL of
// MCPCard); the card of a server on another host, which the site does not
// serve, is listed inline (data), as the entry format allows, rather than
// by a URL that host may not answer. Identifiers are urn:air:{site host}:
// mcp:{capability ID} and urn:air:{site host}:a2a:agent, the form the
// specification RECOMMENDS for a publisher that wants them kept across
// catalogs and the one discovery.md pairs with the card's name
// (urn:air:example.com:mcp:weather for com.example/weather). A site on an
// IP address has no domain to publish under: its entries are identified by
// the absolute URL of the card, or of the server for an inline card ("a
// globally unique absolute URI is RECOMMENDED").
func Catalog(s *config.Site, mcp []MCPCard, a2aPath string) ([]byte, error) {
	site, err := url.Parse(s.URL)
	if err != nil {
		return nil, err
	}
	domain, named := publisherDomain(site.Hostname())
	origin := asciiOrigin(site)
	id := func(namespace, name, uri string) string {
		if named {
			return "urn:air:" + domain + ":" + namespace + ":" + name
		}
		return uri
	}
	c := catalog{SpecVersion: CatalogSpecVersion, Host: &catalogHost{DisplayName: s.Name, DocumentationURL: s.DocsURL}}
	if named {
		c.Host.Identifier = domain
	}
	for _, m := range mcp {
		e := catalogEntry{Type: TypeMCPServerCard}
		if m.URL != "" {
			e.Identifier, e.URL = id("mcp", m.Capability, m.URL), m.URL
		} else {
			e.Identifier, e.Data = id("mcp", m.Capability, remoteURL(m.Body)), json.RawMessage(m.Body)
		}
		c.Entries = append(c.Entries, e)
	}
	if a2aPath != "" {
		u := origin + (&url.URL{Path: a2aPath}).EscapedPath()
		c.Entries = append(c.Entries, catalogEntry{Identifier: id("a2a", "agent", u), Type: TypeA2AAgentCard, URL: u})
	}
	if len(c.Entries) == 0 {
		return nil, nil
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// remoteURL is the URL of a card's remote, the server the card describes.
func remoteURL(card []byte) string {
	var c serverCard
	if json.Unmarshal(card, &c) != nil || len(c.Remotes) == 0 {
		return ""
	}
	return c.Remotes[0].URL
}
