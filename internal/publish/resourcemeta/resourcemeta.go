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

// URL is the URL of c's metadata agentready serves, "" when it serves
// none.
func URL(c *config.Capability) string {
	l, ok := location(c)
	if !ok {
		return ""
	}
	return l.URL
}

// location is where c's metadata is served, and the resource it names:
// the path-suffixed location of its endpoint, naming the endpoint (RFC
// 9728 3.1, 3.3), which is the root location for an endpoint without a
// path; the root location, naming the origin, when the capability's
// tokens are for the origin (Auth.Audience): a client that read the
// endpoint's would get tokens the capability refuses.
func location(c *config.Capability) (oauthrs.Location, bool) {
	if !Served(c) {
		return oauthrs.Location{}, false
	}
	suffixed, root, err := oauthrs.WellKnown(c.Endpoint)
	if err != nil {
		return oauthrs.Location{}, false
	}
	if c.Auth.Audience == root.Resource {
		return root, true
	}
	return suffixed, true
}

// Render renders one document per capability Served, at its location.
// An endpoint the resource identifier rules refuse (RFC 9728 1.2: https,
// no query or fragment) is an error.
func (format) Render(s *config.Site, _ *discovery.Env) ([]discovery.Doc, error) {
	var docs []discovery.Doc
	seen := map[string]bool{}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if !Served(c) {
			continue
		}
		if _, _, err := oauthrs.WellKnown(c.Endpoint); err != nil {
			return nil, fmt.Errorf("protected resource metadata of %q: %w", c.ID, err)
		}
		l, _ := location(c)
		if seen[l.Path] {
			continue // two capabilities at one location: the first's
		}
		seen[l.Path] = true
		body, err := oauthrs.Metadata{Resource: l.Resource, AuthorizationServers: []string{c.Auth.AuthorizationServer},
			ScopesSupported: scopes(c), ResourceName: c.Name, ResourceDocumentation: c.Auth.DocsURL}.Render()
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata of %q: %w", c.ID, err)
		}
		docs = append(docs, discovery.Doc{Name: "protected resource metadata " + c.ID, Paths: []string{l.Path},
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
