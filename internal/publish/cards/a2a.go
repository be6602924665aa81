package cards

import (
	"encoding/json"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// A2A v0.3.0 AgentCard (specification section 5.5).
type agentCard struct {
	ProtocolVersion    string                    `json:"protocolVersion"`
	Name               string                    `json:"name"`
	Description        string                    `json:"description"`
	URL                string                    `json:"url"`
	PreferredTransport string                    `json:"preferredTransport"`
	Version            string                    `json:"version"`
	Provider           *provider                 `json:"provider,omitempty"`
	DocumentationURL   string                    `json:"documentationUrl,omitempty"`
	Capabilities       struct{}                  `json:"capabilities"`
	SecuritySchemes    map[string]securityScheme `json:"securitySchemes,omitempty"`
	Security           []map[string][]string     `json:"security,omitempty"`
	DefaultInputModes  []string                  `json:"defaultInputModes"`
	DefaultOutputModes []string                  `json:"defaultOutputModes"`
	Skills             []skill                   `json:"skills"`
}

type provider struct {
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

type securityScheme struct {
	Type         string `json:"type"`
	Scheme       string `json:"scheme,omitempty"`
	In           string `json:"in,omitempty"`
	Name         string `json:"name,omitempty"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

type skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

// A2ACard returns the site's A2A agent card, or nil when it declares no
// A2A capability: its url is the first A2A capability's endpoint, each A2A
// capability a skill, and the declared auth its security schemes.
func A2ACard(s *config.Site) ([]byte, error) {
	card := agentCard{
		ProtocolVersion: "0.3.0", Name: s.Name, Description: firstNonEmpty(s.Description, s.Name),
		PreferredTransport: "JSONRPC", Version: resolve.Version(s), DocumentationURL: s.DocsURL,
		Provider:           &provider{Organization: s.Name, URL: s.URL},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
	}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if c.Protocol != config.ProtocolA2A {
			continue
		}
		if card.URL == "" {
			card.URL = c.Endpoint
		}
		tags := c.Tags
		if len(tags) == 0 {
			tags = []string{c.ID}
		}
		card.Skills = append(card.Skills, skill{ID: c.ID, Name: c.ID, Description: firstNonEmpty(c.Description, c.ID), Tags: tags})
		name, scheme := securityOf(&c.Auth)
		if name != "" {
			if card.SecuritySchemes == nil {
				card.SecuritySchemes = map[string]securityScheme{}
			}
			if _, ok := card.SecuritySchemes[name]; !ok {
				card.SecuritySchemes[name] = scheme
				card.Security = append(card.Security, map[string][]string{name: {}})
			}
		}
	}
	if len(card.Skills) == 0 {
		return nil, nil
	}
	b, err := json.MarshalIndent(card, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// securityOf maps a declared auth to an A2A (OpenAPI-style) security
// scheme; hmac has none.
func securityOf(a *config.Auth) (string, securityScheme) {
	switch resolve.AuthType(*a) {
	case config.AuthBearerToken, config.AuthOAuth2:
		return "bearer", securityScheme{Type: "http", Scheme: "bearer"}
	case config.AuthAPIKey:
		return "apiKey", securityScheme{Type: "apiKey", In: "header", Name: resolve.Header(*a)}
	}
	return "", securityScheme{}
}
