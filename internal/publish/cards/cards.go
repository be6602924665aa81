// Package cards renders the neighbour cards scanners look for, from the
// same capabilities as the other documents: an MCP server card for each MCP
// capability (the server card of the MCP discovery proposal, schema
// https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json)
// and an A2A agent card (A2A v0.3.0, AgentCard) for the site's A2A
// capabilities.
package cards

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// ServerCardSchema is the $schema every MCP server card names.
const ServerCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// MCPCard is the server card of one MCP server.
type MCPCard struct {
	// Capability is the ID of the first capability at the server's
	// endpoint.
	Capability string
	// Path is where the site serves the card, unescaped as a request's
	// URL.Path is: the endpoint's path with "/server-card" appended, the
	// location MCP reserves for a streamable-http server's card
	// (experimental-ext-server-card docs/discovery.md, "Hosted Server
	// Card Location"). It is "" for an endpoint on another host, whose
	// paths are not the site's to serve.
	Path string
	// URL is Path as an absolute URL on the site's origin, its host in
	// ASCII, for the AI Catalog; "" when Path is.
	URL  string
	Body []byte
}

type serverCard struct {
	Schema      string   `json:"$schema"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description"`
	Version     string   `json:"version"`
	WebsiteURL  string   `json:"websiteUrl,omitempty"`
	Remotes     []remote `json:"remotes"`
}

type remote struct {
	Type                      string     `json:"type"`
	URL                       string     `json:"url"`
	Headers                   []kvHeader `json:"headers,omitempty"`
	SupportedProtocolVersions []string   `json:"supportedProtocolVersions,omitempty"`
}

type kvHeader struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

// MCPCards returns a server card for each MCP server, in declaration
// order: one per endpoint (host and path), from the first MCP capability
// at it. Its name is the site host in reverse-DNS order, "/", the
// capability ID (serverName), its remote the endpoint over
// streamable-http with the MCP versions it supports (protocolVersions),
// and its declared auth a required, secret header.
func MCPCards(s *config.Site) ([]MCPCard, error) {
	var site *url.URL
	host := ""
	if u, err := url.Parse(s.URL); err == nil {
		site, host = u, u.Hostname()
	}
	var cards []MCPCard
	servers := map[string]bool{} // host and path of the endpoints carded
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if c.Protocol != config.ProtocolMCP || c.Endpoint == "" {
			continue
		}
		u, err := url.Parse(c.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("cards: capability %q endpoint: %w", c.ID, err)
		}
		if servers[u.Host+u.Path] {
			continue // that server has its card
		}
		servers[u.Host+u.Path] = true
		card := serverCard{
			Schema:      ServerCardSchema,
			Name:        serverName(host, c.ID),
			Title:       clip(s.Name, 100),
			Description: clip(firstNonEmpty(c.Description, s.Description, c.ID), 100),
			Version:     resolve.Version(s),
			WebsiteURL:  websiteURL(site, s.URL),
			Remotes: []remote{{Type: "streamable-http", URL: c.Endpoint, Headers: authHeaders(&c.Auth),
				SupportedProtocolVersions: protocolVersions(s, c)}},
		}
		b, err := json.MarshalIndent(card, "", "  ")
		if err != nil {
			return nil, err
		}
		card1 := MCPCard{Capability: c.ID, Body: append(b, '\n')}
		if site != nil && u.Host == site.Host {
			card1.Path = strings.TrimSuffix(u.Path, "/") + "/server-card"
			card1.URL = asciiOrigin(site) + strings.TrimSuffix(u.EscapedPath(), "/") + "/server-card"
		}
		cards = append(cards, card1)
	}
	return cards, nil
}

// authHeaders describes the header a capability's declared auth asks for.
func authHeaders(a *config.Auth) []kvHeader {
	switch resolve.AuthType(*a) {
	case config.AuthBearerToken, config.AuthOAuth2:
		d := "Bearer token"
		if a.TokenEndpoint != "" {
			d += " from " + a.TokenEndpoint
		}
		return []kvHeader{{Name: "Authorization", Description: d, IsRequired: true, IsSecret: true}}
	case config.AuthAPIKey:
		return []kvHeader{{Name: resolve.Header(*a), Description: "API key", IsRequired: true, IsSecret: true}}
	case config.AuthHMAC:
		return []kvHeader{{Name: "Signature", Description: "HTTP Message Signature (RFC 9421)", IsRequired: true}}
	}
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
