// Package resourcemeta publishes the OAuth 2.0 protected resource metadata
// (RFC 9728) of the capabilities agents authorize for with OAuth: every
// oauth2 capability, and every bearer-token one that names its
// authorization server, unless the capability names a document of its own
// (Auth.ProtectedResourceMetadata). MCP 2025-11-25 "Authorization" says an
// MCP server MUST publish it; its 401s name it (resource_metadata).
package resourcemeta

import (
	"fmt"
	"slices"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/oauthrs"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// Format is the protected resource metadata.
var Format discovery.Format = format{}

// The documents are derived from what config checks of Auth.
type format struct{ discovery.NoRules }

func (format) Kind() config.Document { return config.DocResourceMetadata }

// Served reports whether agentready serves c's metadata.
func Served(c *config.Capability) bool {
	a := c.Auth
	if a.ProtectedResourceMetadata != "" || a.AuthorizationServer == "" {
		return false
	}
	return a.Type == config.AuthOAuth2 || a.Type == config.AuthBearerToken
}

// URL is the URL of c's metadata agentready serves (the path-suffixed form
// of RFC 9728 3.1), "" when it serves none.
func URL(c *config.Capability) string {
	if !Served(c) {
		return ""
	}
	suffixed, _, err := oauthrs.WellKnown(c.Endpoint)
	if err != nil {
		return ""
	}
	return suffixed.URL
}

// Render renders one document per capability Served, at the path-suffixed
// location of its endpoint (RFC 9728 3.1), naming the endpoint as the
// resource (3.3: the resource a client derived the URL from).
func (format) Render(s *config.Site, _ *discovery.Env) ([]discovery.Doc, error) {
	var docs []discovery.Doc
	seen := map[string]bool{}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if !Served(c) {
			continue
		}
		// The path-suffixed form is the root form for an endpoint without
		// a path; an endpoint with one is not published at the root,
		// whose document must name the origin (3.3), not the endpoint.
		suffixed, _, err := oauthrs.WellKnown(c.Endpoint)
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata of %q: %w", c.ID, err)
		}
		if seen[suffixed.Path] {
			continue // two capabilities at one endpoint: the first's
		}
		seen[suffixed.Path] = true
		body, err := oauthrs.Metadata{Resource: suffixed.Resource, AuthorizationServers: []string{c.Auth.AuthorizationServer},
			ScopesSupported: scopes(c), ResourceName: c.Name, ResourceDocumentation: c.Auth.DocsURL}.Render()
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata of %q: %w", c.ID, err)
		}
		docs = append(docs, discovery.Doc{Name: "protected resource metadata " + c.ID, Paths: []string{suffixed.Path},
			ContentType: discovery.TypeJSON, Body: body, MaxAge: discovery.MaxAgeAgentJSON})
	}
	return docs, nil
}

// scopes are the scopes a call of c may need: the capability's and each
// tool's (RFC 9728 2 scopes_supported).
func scopes(c *config.Capability) []string {
	out := append([]string(nil), c.Auth.Scopes...)
	for _, t := range c.Tools {
		for _, sc := range t.Auth.Scopes {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	return out
}
