package publish

import (
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/publish/agentsjson"
	"github.com/agentready/agentready/internal/publish/agentsmd"
	"github.com/agentready/agentready/internal/publish/agentstxt"
	"github.com/agentready/agentready/internal/publish/agenturi"
	"github.com/agentready/agentready/internal/publish/awp"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/resolve"
)

// Well-known paths of the published documents.
const (
	pathAgentsTxt          = "/.well-known/agents.txt"
	pathAgentsTxtFallback  = "/agents.txt"
	pathAgentsJSON         = "/.well-known/agents.json"
	pathAgentsMD           = "/.well-known/agents.md"
	pathAgentsMDFallback   = "/agents.md"
	pathAgentJSON          = "/agent.json"
	pathAgentJSONWellKnown = "/.well-known/agent.json"
	// defaultDescriptorPath is where agent:// descriptors are served;
	// "{name}" is replaced by the agent's name (docs/design.md collision 3: never
	// at /agent.json, which is AWP's).
	defaultDescriptorPath = "/agents/{name}/agent.json"
)

// Options say how a declaration is published.
type Options struct {
	// Formats selects the dialect, the agents.json owner and the documents.
	Formats config.Formats
	// DescriptorPath is the path template of agent:// descriptors; it must
	// contain "{name}". Default defaultDescriptorPath.
	DescriptorPath string
	// MaxAge overrides the Cache-Control max-age of a document kind.
	MaxAge map[config.Document]time.Duration
	// LastModified is sent as Last-Modified. Default: Site.GeneratedAt when
	// set, else the zero time, which Render replaces by the time of the call.
	LastModified time.Time
	// DescriptorKey, when set, signs every agent:// descriptor response
	// (agent-uri-03 10.3, conformance level 3): see signDescriptor. It must
	// be a P-256 key. It also signs the A2A v1.0 agent card (A2A 1.0 8.4).
	DescriptorKey *ecdsa.PrivateKey
	// A2AVersion is the A2A agent card's version: cards.A2AVersion10 (the
	// default when empty) or cards.A2AVersion03, for clients that have not
	// moved to 1.0.
	A2AVersion string
}

func (o *Options) descriptorPath() string {
	if o.DescriptorPath == "" {
		return defaultDescriptorPath
	}
	return o.DescriptorPath
}

// descriptorPathFor is the path an agent's descriptor is served at.
func (o *Options) descriptorPathFor(name string) string {
	return strings.ReplaceAll(o.descriptorPath(), "{name}", name)
}

func (o *Options) maxAge(d config.Document, def time.Duration) time.Duration {
	if v, ok := o.MaxAge[d]; ok {
		return v
	}
	return def
}

// Render renders every document the options publish for a validated site.
// It is called once, at construction; the result is served as is.
func Render(s *config.Site, o Options) ([]Document, error) {
	if !strings.Contains(o.descriptorPath(), "{name}") || !strings.HasPrefix(o.descriptorPath(), "/") {
		return nil, fmt.Errorf("publish: descriptor path %q must start with / and contain {name}", o.descriptorPath())
	}
	lm := o.LastModified
	if lm.IsZero() {
		lm = s.GeneratedAt
	}
	if lm.IsZero() {
		lm = clock.Wall()
	}
	lm = lm.UTC().Truncate(time.Second)

	f := o.Formats
	var docs []Document
	add := func(kind config.Document, name, ctype string, maxAge time.Duration, body []byte, profiles []string, paths ...string) {
		docs = append(docs, Document{
			Name:         name,
			Paths:        paths,
			ContentType:  ctype,
			Body:         body,
			MaxAge:       o.maxAge(kind, maxAge),
			LastModified: lm,
			Profiles:     profiles,
		})
	}

	if f.Serves(config.DocAgentsTxt) {
		b, err := agentstxt.Render(s, f.Dialect)
		if err != nil {
			return nil, fmt.Errorf("publish: agents.txt: %w", err)
		}
		add(config.DocAgentsTxt, "agents.txt", contentTypeText, maxAgeAgentsTxt, b, nil, pathAgentsTxt, pathAgentsTxtFallback)
	}
	agents := s.PublishedAgents()
	if f.Serves(config.DocAgentsJSON) {
		var b []byte
		var err error
		switch {
		case f.AgentsJSON == config.AgentsJSONRegistry:
			b, err = agenturi.Registry(s, func(name string) string { return resolve.Origin(s) + o.descriptorPathFor(name) })
		case f.Dialect == config.DialectV010:
			b, err = agentsjson.V010(s)
		default:
			b, err = agentsjson.DraftCar(s)
		}
		if err != nil {
			return nil, fmt.Errorf("publish: agents.json: %w", err)
		}
		add(config.DocAgentsJSON, "agents.json", contentTypeJSON, maxAgeAgentsTxt, b, nil, pathAgentsJSON)
	}
	if f.Serves(config.DocAgentsMD) {
		b, err := agentsmd.Render(s)
		if err != nil {
			return nil, fmt.Errorf("publish: agents.md: %w", err)
		}
		add(config.DocAgentsMD, "agents.md", contentTypeMarkdown, maxAgeAgentsMD, b, nil, pathAgentsMD, pathAgentsMDFallback)
	}
	if f.Serves(config.DocAWP) {
		b, err := awp.AgentJSON(s, o.A2AVersion)
		if err != nil {
			return nil, fmt.Errorf("publish: agent.json: %w", err)
		}
		add(config.DocAWP, "agent.json", contentTypeJSON, maxAgeAgentJSON, b, nil, pathAgentJSON, pathAgentJSONWellKnown)
	}
	if f.Serves(config.DocDescriptors) {
		var jwks []byte
		var kid string
		if o.DescriptorKey != nil {
			var err error
			if jwks, kid, err = descriptorJWKS(o.DescriptorKey); err != nil {
				return nil, fmt.Errorf("publish: descriptor key: %w", err)
			}
		}
		for i := range agents {
			a := agents[i]
			if jwks != nil {
				a = withJWKS(a, jwks)
			}
			b, err := agenturi.Descriptor(a)
			if err != nil {
				return nil, fmt.Errorf("publish: descriptor %q: %w", a.Name, err)
			}
			add(config.DocDescriptors, "descriptor "+a.Name, contentTypeAgentJSON, maxAgeAgentJSON, b,
				[]string{agenturi.Profile}, o.descriptorPathFor(a.Name))
			h := deprecationHeader(&a, lm)
			var head http.Header // HEAD's fields, when they differ (signDescriptorHead)
			if o.DescriptorKey != nil {
				if h == nil {
					h = http.Header{}
				}
				head = h.Clone()
				ctype := contentTypeAgentJSON + `; profile="` + agenturi.Profile + `"`
				if err := signDescriptor(h, b, ctype, o.DescriptorKey, kid, lm); err != nil {
					return nil, fmt.Errorf("publish: signing descriptor %q: %w", a.Name, err)
				}
				if err := signDescriptorHead(head, b, ctype, o.DescriptorKey, kid, lm); err != nil {
					return nil, fmt.Errorf("publish: signing descriptor %q: %w", a.Name, err)
				}
			}
			docs[len(docs)-1].Header = h
			docs[len(docs)-1].HeadHeader = head
		}
	}
	if f.Serves(config.DocCards) {
		mcp, err := cards.MCPCards(s)
		if err != nil {
			return nil, fmt.Errorf("publish: MCP server card: %w", err)
		}
		for i, c := range mcp {
			// Every card the site serves is at its endpoint's
			// "/server-card", labelled with the card media type, or
			// application/json for a client that asks for that
			// (discovery.md, "Hosted Server Card Location").
			if c.Path != "" {
				add(config.DocCards, "MCP server card "+c.Capability, contentTypeMCPServerCard, maxAgeAgentJSON, c.Body, nil, c.Path)
				docs[len(docs)-1].Alternates = []string{contentTypeJSON}
			}
			// The first one also at the well-known path of SEP-1649, which
			// scanners written for that proposal still ask, as the
			// application/json they expect. The final discovery document
			// describes no such alias: it names a .well-known card
			// location among the alternatives "not recommended" and has
			// clients find cards through the AI Catalog, which lists only
			// the endpoint paths.
			if i == 0 {
				add(config.DocCards, "MCP server card "+c.Capability+legacySuffix, contentTypeJSON, maxAgeAgentJSON, c.Body, nil, pathMCPServerCard)
				docs[len(docs)-1].Alternates = []string{contentTypeMCPServerCard}
			}
		}
		a2aOpts := cards.A2AOptions{Version: o.A2AVersion}
		if o.DescriptorKey != nil {
			// The descriptors' key and kid (its RFC 7638 thumbprint), which
			// every descriptor's authentication.jwks publishes.
			_, kid, err := descriptorJWKS(o.DescriptorKey)
			if err != nil {
				return nil, fmt.Errorf("publish: descriptor key: %w", err)
			}
			a2aOpts.Key, a2aOpts.KeyID = o.DescriptorKey, kid
		}
		a2a, err := cards.A2ACardWith(s, a2aOpts)
		if err != nil {
			return nil, fmt.Errorf("publish: A2A agent card: %w", err)
		}
		if a2a != nil {
			add(config.DocCards, "A2A agent card", contentTypeJSON, maxAgeAgentJSON, a2a, nil, pathA2AAgentCard)
		}
		a2aPath := ""
		if a2a != nil {
			a2aPath = pathA2AAgentCard
		}
		catalog, err := cards.Catalog(s, mcp, a2aPath)
		if err != nil {
			return nil, fmt.Errorf("publish: AI Catalog: %w", err)
		}
		if catalog != nil {
			add(config.DocCards, "ai-catalog.json", contentTypeAICatalog, maxAgeAgentJSON, catalog, nil, pathAICatalog)
			docs[len(docs)-1].Alternates = []string{contentTypeJSON}
		}
	}
	return docs, nil
}

// The neighbour cards' well-known paths and media types.
const (
	// pathMCPServerCard is SEP-1649's MCP server card location, kept as a
	// legacy alias of the first card (see Render).
	pathMCPServerCard = "/.well-known/mcp/server-card.json"
	// legacySuffix ends the Name of the legacy alias's Document.
	legacySuffix = " (legacy path)"
	// pathA2AAgentCard is the A2A agent card's well-known URI (A2A 1.0
	// 8.2, 14.3; v0.3.0 5.3).
	pathA2AAgentCard = "/.well-known/agent-card.json"
	// pathAICatalog is the AI Catalog's well-known URI (AI Catalog,
	// "Well-Known URI"; discovery.md, "Well-Known URI").
	pathAICatalog = "/.well-known/ai-catalog.json"
	// contentTypeMCPServerCard is a server card's media type
	// (discovery.md, "MCP Server Cards"). JSON media types have no
	// charset parameter (RFC 8259 11); the card's own type carries none.
	contentTypeMCPServerCard = cards.TypeMCPServerCard
	// contentTypeAICatalog is the AI Catalog's ("Media Type"; "When served
	// over HTTP, the document SHOULD be served with" it).
	contentTypeAICatalog = "application/ai-catalog+json"
)
