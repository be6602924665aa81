package main

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
)

// The neighbour cards: where they are and what they are served as.
const (
	// pathA2ACard is the A2A agent card's well-known URI (A2A 1.0 8.2;
	// v0.3.0 5.3).
	pathA2ACard = "/.well-known/agent-card.json"
	// pathMCPCardLegacy is SEP-1649's server card location, which
	// agentready keeps for the scanners written for it.
	pathMCPCardLegacy = "/.well-known/mcp/server-card.json"
	// pathAICatalog is the AI Catalog's well-known URI (AI Catalog,
	// "Discovery", "Well-Known URI").
	pathAICatalog = "/.well-known/ai-catalog.json"

	typeAICatalog     = "application/ai-catalog+json"
	typeMCPServerCard = "application/mcp-server-card+json"
	// typeA2ACard is the AI Catalog's known type for an A2A card
	// ("Catalog Entry", type). A2A itself registers no media type: its
	// card is JSON, so application/json is accepted too.
	typeA2ACard = "application/a2a-agent-card+json"

	schemaMCPCard = "mcp_server-card.schema.json#/$defs/ServerCard"
	schemaA2A10   = "a2a_v1.0.1_a2a.json#/definitions/Agent%20Card"
	schemaA2A03   = "a2a_v0.3.0_a2a.json#/definitions/AgentCard"
)

// cards checks the A2A agent card and the MCP server cards: at their
// well-known locations, and every card the AI Catalog lists, which is how
// the MCP discovery document has clients find cards (experimental-ext-
// server-card docs/discovery.md, "AI Catalog"), at `<endpoint>/server-card`.
func (c *checker) cards() {
	if body, h, p, ok := c.get(request{loc: pathA2ACard, what: "A2A agent card", spec: "A2A agent card", json: true}); ok {
		c.a2aCard(p, body, h, "")
	}
	if body, h, p, ok := c.get(request{loc: pathMCPCardLegacy, what: "MCP server card (SEP-1649 location)", spec: "MCP server card", json: true}); ok {
		c.mcpCard(p, body, h, "application/json")
	}
	c.catalog()
}

// catalogEntry is the part of an AI Catalog entry check reads ("Catalog
// Entry": identifier, type, and exactly one of url and data).
type catalogEntry struct {
	Identifier string          `json:"identifier"`
	Type       string          `json:"type"`
	URL        string          `json:"url"`
	Data       json.RawMessage `json:"data"`
}

// catalog checks the AI Catalog and the MCP and A2A cards it lists.
func (c *checker) catalog() {
	const spec = "AI Catalog"
	body, h, p, ok := c.get(request{loc: pathAICatalog, what: "AI Catalog", spec: spec, accept: typeAICatalog, json: true})
	if !ok {
		return
	}
	n := len(c.findings)
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != typeAICatalog {
		level := "warn"
		if mt != "application/json" {
			level = "fail" // not even JSON
		}
		c.add(p, spec, level, "Content-Type %q: it SHOULD be %s (AI Catalog, \"Location Independence\")", h.Get("Content-Type"), typeAICatalog)
	}
	valid := c.schema(p, spec, "ai-catalog.schema.json", body)
	var cat struct {
		Entries []catalogEntry `json:"entries"`
	}
	if err := json.Unmarshal(body, &cat); err != nil {
		if valid {
			c.add(p, spec, "fail", "not an AI Catalog: %v", oneLine(err))
		}
		return
	}
	if len(c.findings) == n {
		c.add(p, spec, "pass", "valid, %s", count(len(cat.Entries), "entry"))
	}
	for i, e := range cat.Entries {
		where := p + "#/entries/" + strconv.Itoa(i)
		what := "catalog entry " + strconv.Quote(e.Identifier)
		if i == maxLinked {
			c.skipped(where, fmt.Sprintf("%d more catalog entries", len(cat.Entries)-maxLinked), p, fmt.Sprintf("check follows the first %d entries", maxLinked))
			break
		}
		var check func(path string, body []byte, h http.Header, want string)
		switch e.Type {
		case typeMCPServerCard:
			what, check = "MCP server card "+strconv.Quote(e.Identifier), c.mcpCard
		case typeA2ACard:
			what, check = "A2A agent card "+strconv.Quote(e.Identifier), c.a2aCard
		default:
			loc := e.URL
			if loc == "" {
				loc = where
			}
			c.skipped(loc, what, p, "type "+strconv.Quote(e.Type)+": check validates MCP server cards and A2A agent cards only")
			continue
		}
		switch {
		case len(e.Data) > 0 && string(e.Data) != "null":
			c.inline(where, what, p)
			check(where, e.Data, nil, "")
		case e.URL != "":
			if body, h, path, ok := c.get(request{loc: e.URL, what: what, spec: spec, from: p, accept: e.Type, required: true,
				missingNote: "the AI Catalog lists it here"}); ok {
				check(path, body, h, e.Type)
			}
		}
	}
}

// mcpCard checks an MCP server card against the SEP-2127 schema, and its
// media type: want, or the card type (a server that negotiates answers
// either).
func (c *checker) mcpCard(p string, body []byte, h http.Header, want string) {
	const spec = "MCP server card"
	n := len(c.findings)
	if h != nil {
		mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
		switch {
		case err == nil && (mt == typeMCPServerCard || mt == want):
		case err == nil && mt == "application/json":
			// Listed with its type by an AI Catalog: "The document served
			// at this URL SHOULD be served with the media type declared in
			// the type field" ("Catalog Entry", url).
			c.add(p, spec, "warn", "Content-Type %q, though the AI Catalog lists it as %s (SHOULD)", h.Get("Content-Type"), want)
		default:
			c.add(p, spec, "fail", "Content-Type %q, want %s or application/json", h.Get("Content-Type"), typeMCPServerCard)
		}
	}
	c.schema(p, spec, schemaMCPCard, body)
	if len(c.findings) == n {
		c.add(p, spec, "pass", "valid")
	}
}

// a2aCard checks an A2A agent card against the schema of its version:
// v1.0 lists its endpoints in supportedInterfaces (A2A 1.0 4.4), v0.3.0
// names one url with its protocolVersion.
func (c *checker) a2aCard(p string, body []byte, h http.Header, _ string) {
	spec := "A2A agent card"
	n := len(c.findings)
	if h != nil {
		if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || (mt != "application/json" && mt != typeA2ACard) {
			c.add(p, spec, "fail", "Content-Type %q, want application/json", h.Get("Content-Type"))
		}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		c.add(p, spec, "fail", "not a JSON object: %v", oneLine(err))
		return
	}
	switch {
	case probe["supportedInterfaces"] != nil:
		spec = "A2A 1.0 card"
		c.schema(p, spec, schemaA2A10, body)
	case probe["protocolVersion"] != nil:
		spec = "A2A 0.3 card"
		c.schema(p, spec, schemaA2A03, body)
	default:
		c.add(p, spec, "fail", "neither an A2A 1.0 card (supportedInterfaces) nor a 0.3 card (protocolVersion)")
	}
	if len(c.findings) == n {
		c.add(p, spec, "pass", "valid")
	}
}
