package cards

import (
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is the neighbour cards: the MCP server cards, the A2A agent card
// and the AI Catalog that lists them.
var Format discovery.Format = format{}

// The cards are derived from what the other formats check.
type format struct{ discovery.NoRules }

// The cards' well-known paths and media types.
const (
	// pathMCPServerCard is SEP-1649's MCP server card location, kept as a
	// legacy alias of the first card (see Render).
	pathMCPServerCard = "/.well-known/mcp/server-card.json"
	// legacySuffix ends the Name of the legacy alias's Doc.
	legacySuffix = " (legacy path)"
	// pathA2AAgentCard is the A2A agent card's well-known URI (A2A 1.0
	// 8.2, 14.3; v0.3.0 5.3).
	pathA2AAgentCard = "/.well-known/agent-card.json"
	// pathAICatalog is the AI Catalog's well-known URI (AI Catalog,
	// "Well-Known URI"; discovery.md, "Well-Known URI").
	pathAICatalog = "/.well-known/ai-catalog.json"
	// TypeAICatalog is the AI Catalog's ("Media Type"; "When served over
	// HTTP, the document SHOULD be served with" it).
	TypeAICatalog = "application/ai-catalog+json"
)

func (format) Kind() config.Document { return config.DocCards }

func (format) Render(s *config.Site, env *discovery.Env) ([]discovery.Doc, error) {
	mcp, err := MCPCards(s)
	if err != nil {
		return nil, fmt.Errorf("MCP server card: %w", err)
	}
	var docs []discovery.Doc
	card := func(name, path, ctype string, body []byte, alternates ...string) {
		docs = append(docs, discovery.Doc{Name: name, Paths: []string{path}, ContentType: ctype, Body: body,
			MaxAge: discovery.MaxAgeAgentJSON, Alternates: alternates})
	}
	for i, c := range mcp {
		// Every card the site serves is at its endpoint's "/server-card",
		// labelled with the card media type, or application/json for a
		// client that asks for that (discovery.md, "Hosted Server Card
		// Location").
		if c.Path != "" {
			card("MCP server card "+c.Capability, c.Path, TypeMCPServerCard, c.Body, discovery.TypeJSON)
		}
		// The first one also at the well-known path of SEP-1649, which
		// scanners written for that proposal still ask, as the
		// application/json they expect. The final discovery document
		// describes no such alias: it names a .well-known card location
		// among the alternatives "not recommended" and has clients find
		// cards through the AI Catalog, which lists only the endpoint
		// paths.
		if i == 0 {
			card("MCP server card "+c.Capability+legacySuffix, pathMCPServerCard, discovery.TypeJSON, c.Body, TypeMCPServerCard)
		}
	}
	// Signed with the descriptors' key and kid (its RFC 7638 thumbprint),
	// which every descriptor's authentication.jwks publishes.
	a2a, err := A2ACardWith(s, A2AOptions{Version: env.A2AVersion, Key: env.Key, KeyID: env.KeyID})
	if err != nil {
		return nil, fmt.Errorf("A2A agent card: %w", err)
	}
	a2aPath := ""
	if a2a != nil {
		a2aPath = pathA2AAgentCard
		card("A2A agent card", pathA2AAgentCard, discovery.TypeJSON, a2a)
	}
	catalog, err := Catalog(s, mcp, a2aPath)
	if err != nil {
		return nil, fmt.Errorf("AI Catalog: %w", err)
	}
	if catalog != nil {
		card("ai-catalog.json", pathAICatalog, TypeAICatalog, catalog, discovery.TypeJSON)
	}
	return docs, nil
}
