package oauthrs

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// WellKnownPath is the well-known URI of protected resource metadata (RFC
// 9728 3, registered in 8.3), and MetadataMediaType its media type (3.2).
const (
	WellKnownPath     = "/.well-known/oauth-protected-resource"
	MetadataMediaType = "application/json"
)

// Metadata is a protected resource's metadata (RFC 9728 2): what an MCP
// endpoint MUST publish so that a client finds its authorization servers
// (MCP 2025-11-25 "Authorization Server Location").
type Metadata struct {
	// Resource is the resource identifier: the capability's endpoint URL,
	// e.g. "https://shop.example/mcp" (RFC 9728 1.2: https, no fragment;
	// http only for a loopback host, for local development).
	Resource string
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers (RFC 8414 2); MCP requires at least one.
	AuthorizationServers []string
	// ScopesSupported lists the scopes a client may request (RECOMMENDED).
	ScopesSupported []string
	// ResourceName is a human-readable name (optional).
	ResourceName string
	// ResourceDocumentation is a URL of documentation for developers
	// (optional).
	ResourceDocumentation string
}

// document is the JSON form, in RFC 9728 2's order of members.
type document struct {
	Resource              string   `json:"resource"`
	AuthorizationServers  []string `json:"authorization_servers"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	BearerMethods         []string `json:"bearer_methods_supported"`
	ResourceName          string   `json:"resource_name,omitempty"`
	ResourceDocumentation string   `json:"resource_documentation,omitempty"`
}

// Render checks m and returns its JSON document (RFC 9728 2, 3.2). Bearer
// tokens are accepted in the Authorization header only
// (bearer_methods_supported ["header"]): MCP 2025-11-25 "Token Handling"
// forbids them in the query string, and a form body is not an MCP body.
func (m Metadata) Render() ([]byte, error) {
	var errs []error
	if _, err := resourceURL(m.Resource); err != nil {
		errs = append(errs, err)
	}
	if len(m.AuthorizationServers) == 0 {
		errs = append(errs, errors.New("oauthrs: metadata: at least one authorization server is required (MCP 2025-11-25 Authorization Server Location)"))
	}
	for _, as := range m.AuthorizationServers {
		if err := checkIssuer(as, true); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range m.ScopesSupported {
		if !ValidScope(s) {
			errs = append(errs, fmt.Errorf("oauthrs: metadata: scope %q is not a scope-token (RFC 6749 3.3)", s))
		}
	}
	if d := m.ResourceDocumentation; d != "" {
		if u, err := url.Parse(d); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("oauthrs: metadata: resource_documentation %q is not an http(s) URL", d))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return json.Marshal(document{
		Resource:              m.Resource,
		AuthorizationServers:  m.AuthorizationServers,
		ScopesSupported:       m.ScopesSupported,
		BearerMethods:         []string{"header"},
		ResourceName:          m.ResourceName,
		ResourceDocumentation: m.ResourceDocumentation,
	})
}

// Location is where a metadata document is served, and the resource it
// must name there.
type Location struct {
	URL  string // absolute, for a challenge's resource_metadata
	Path string // the request path on the resource's host
	// Resource is the resource member of the document served at URL: RFC
	// 9728 3.3 requires it to be the identifier the URL was formed from,
	// and clients check it (the Go SDK v1.8.0 refuses any other). At the
	// root that is the origin, "https://shop.example", not the endpoint.
	Resource string
}

// WellKnown returns where the metadata of resource is served (RFC 9728
// 3.1): suffixed, the well-known URI inserted between the host and the
// path ("https://shop.example/mcp" gives
// "https://shop.example/.well-known/oauth-protected-resource/mcp"), and
// root, the well-known URI alone, which MCP 2025-11-25 clients try next
// ("Protected Resource Metadata Discovery Requirements"). For a resource
// without a path the two are the same. The document at root names the
// origin (Location.Resource): a client that found it there asks for a
// token whose audience is the origin (RFC 8707), not the endpoint.
func WellKnown(resource string) (suffixed, root Location, err error) {
	u, err := resourceURL(resource)
	if err != nil {
		return Location{}, Location{}, err
	}
	// RFC 9728 3.1: "any terminating slash (/) following the host
	// component MUST be removed before inserting /.well-known/".
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	base := u.Scheme + "://" + u.Host
	root = Location{URL: base + WellKnownPath, Path: WellKnownPath, Resource: base}
	suffixed = Location{URL: base + WellKnownPath + p, Path: WellKnownPath + p, Resource: resource}
	if p == "" {
		suffixed.Resource, root.Resource = resource, resource
	}
	return suffixed, root, nil
}
