package config

import (
	"net/url"
	"sort"
	"strings"
	"time"
)

// These accessors resolve the documented defaults in one place, so that every
// renderer and the enforcer agree on them.

// MethodOrDefault is the upper-cased Method, GET when empty.
func (c *Capability) MethodOrDefault() string {
	if c.Method == "" {
		return "GET"
	}
	return strings.ToUpper(c.Method)
}

// ProtocolOrDefault is the Protocol, REST when empty.
func (c *Capability) ProtocolOrDefault() Protocol {
	if c.Protocol == "" {
		return ProtocolREST
	}
	return c.Protocol
}

// NameOrDefault is the Name, the ID when empty.
func (c *Capability) NameOrDefault() string {
	if c.Name == "" {
		return c.ID
	}
	return c.Name
}

// TypeOrDefault is the Type, none when empty.
func (a Auth) TypeOrDefault() AuthType {
	if a.Type == "" {
		return AuthNone
	}
	return a.Type
}

// Required reports whether the auth type demands a credential.
func (a Auth) Required() bool { return a.TypeOrDefault() != AuthNone }

// HeaderOrDefault is the api-key header, X-API-Key when empty.
func (a Auth) HeaderOrDefault() string {
	if a.Header == "" {
		return DefaultAPIKeyHeader
	}
	return a.Header
}

// InOrDefault is the parameter location, query when empty.
func (p Param) InOrDefault() ParamLocation {
	if p.In == "" {
		return InQuery
	}
	return p.In
}

// TypeOrDefault is the parameter type, string when empty.
func (p Param) TypeOrDefault() ParamType {
	if p.Type == "" {
		return TypeString
	}
	return p.Type
}

// Host is the host (with port) of the site URL, "" when it does not parse.
func (s *Site) Host() string {
	u, err := url.Parse(s.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// Origin is scheme://host of the site URL, without a trailing slash.
func (s *Site) Origin() string {
	u, err := url.Parse(s.URL)
	if err != nil || u.Scheme == "" {
		return strings.TrimRight(s.URL, "/")
	}
	return u.Scheme + "://" + u.Host
}

// VersionOrDefault is Version, DefaultVersion when empty.
func (s *Site) VersionOrDefault() string {
	if s.Version == "" {
		return DefaultVersion
	}
	return s.Version
}

// SessionEndpointOrDefault is the session endpoint path.
func (s *Site) SessionEndpointOrDefault() string {
	if s.Session.Endpoint == "" {
		return DefaultSessionEndpoint
	}
	return s.Session.Endpoint
}

// SessionEndpointURL is the session endpoint as an absolute URL: the
// endpoint path on the site's origin (an absolute URL is kept as it is).
func (s *Site) SessionEndpointURL() string {
	ep := s.SessionEndpointOrDefault()
	if strings.Contains(ep, "://") {
		return ep
	}
	return s.Origin() + ep
}

// SessionTTLOrDefault is the session TTL.
func (s *Site) SessionTTLOrDefault() time.Duration {
	if s.Session.TTL == 0 {
		return DefaultSessionTTL
	}
	return s.Session.TTL
}

// AuditEndpointOrDefault is the audit endpoint in its agents.txt form, with
// the ":session_id" placeholder.
func (s *Site) AuditEndpointOrDefault() string {
	if s.Audit.Endpoint == "" {
		return s.Origin() + DefaultAuditPath + "/:session_id"
	}
	return s.Audit.Endpoint
}

// Capability returns the capability with the given ID, or nil.
func (s *Site) Capability(id string) *Capability {
	for i := range s.Capabilities {
		if s.Capabilities[i].ID == id {
			return &s.Capabilities[i]
		}
	}
	return nil
}

// NeedsSession reports whether any capability requires a session.
func (s *Site) NeedsSession() bool {
	for i := range s.Capabilities {
		if s.Capabilities[i].RequiresSession {
			return true
		}
	}
	return false
}

// EndpointPath is the path and query of an endpoint URL, as written: what
// follows its scheme and authority, up to any fragment; "/" when the path is
// empty ("https://shop.example?q=1" is "/?q=1"). An endpoint that is already
// a path is returned as is, less any fragment; one that does not parse as a
// URL is returned unchanged.
//
// It cuts the text instead of re-serialising the parsed URL, so that URI
// templates keep their spelling: "/api/jobs/{job_id}" must not become
// "/api/jobs/%7Bjob_id%7D", which no longer names the template variable.
func EndpointPath(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	return pathOf(u, endpoint)
}

// RelativeEndpoint is endpoint as a path relative to the site's Origin when
// it is on that origin (same scheme and host, in any case, and no userinfo),
// and endpoint unchanged otherwise: an MCP server on another host keeps its
// full URL rather than losing its host. A path, and an endpoint that does
// not parse, are returned as is. The path is cut as EndpointPath cuts it,
// so templates such as "/api/jobs/{job_id}" keep their spelling.
func (s *Site) RelativeEndpoint(endpoint string) string {
	if endpoint == "" {
		return ""
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil {
		return endpoint
	}
	o, err := url.Parse(s.Origin())
	if err != nil || !strings.EqualFold(u.Scheme, o.Scheme) || !strings.EqualFold(u.Host, o.Host) {
		return endpoint
	}
	return pathOf(u, endpoint)
}

// pathOf cuts the path and query out of endpoint, which parses as u. It
// splits the text where url.Parse splits it (RFC 3986 3): the fragment
// first, then the scheme, then an authority introduced by "//".
func pathOf(u *url.URL, endpoint string) string {
	rest, _, _ := strings.Cut(endpoint, "#")
	if u.Scheme != "" {
		rest = rest[len(u.Scheme)+len(":"):]
	}
	switch {
	case u.Opaque != "":
		// "mailto:ops@shop.example" has no path; keep only the query.
		rest = rest[len(u.Opaque):]
	case strings.HasPrefix(rest, "//") && (u.Scheme != "" || !strings.HasPrefix(rest, "///")):
		// The authority runs to the path or the query; a path that starts
		// with "///" without a scheme has none (url.Parse agrees).
		rest = rest[len("//"):]
		if i := strings.IndexAny(rest, "/?"); i >= 0 {
			rest = rest[i:]
		} else {
			rest = ""
		}
	}
	if rest == "" || rest[0] == '?' {
		rest = "/" + rest
	}
	return rest
}

// PublishedAgents returns the agent:// agents the site publishes: its
// HostedAgents, or, when there are none, DefaultAgent.
func (s *Site) PublishedAgents() []HostedAgent {
	if len(s.HostedAgents) > 0 {
		return s.HostedAgents
	}
	if len(s.Capabilities) == 0 {
		return nil
	}
	return []HostedAgent{s.DefaultAgent()}
}

// DefaultAgent is the site published as one agent:// agent: named after the
// site's host, versioned by Version, whose skills are the capabilities with
// input schemas derived from their params.
func (s *Site) DefaultAgent() HostedAgent {
	host := s.Host()
	a := HostedAgent{
		Name:        agentName(host),
		Version:     s.VersionOrDefault(),
		Description: s.Description,
		URL:         "agent://" + host + "/",
		Status:      "active",
		Transport:   Transport{Endpoint: s.Origin()},
		Provider:    &Provider{Organization: s.Name, URL: s.URL},
	}
	if s.DocsURL != "" {
		a.DocumentationURL = s.DocsURL
	}
	models := map[string]bool{}
	var schemes []string
	seenScheme := map[string]bool{}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		a.Skills = append(a.Skills, c.Skill())
		switch c.ProtocolOrDefault() {
		case ProtocolMCP:
			models["mcp"] = true
		case ProtocolA2A:
			models["agent2agent"] = true
		case ProtocolREST:
			if c.OpenAPI != "" {
				models["openapi"] = true
			}
		}
		if sc := c.Auth.HTTPScheme(); sc != "" && !seenScheme[sc] {
			seenScheme[sc] = true
			schemes = append(schemes, sc)
		}
	}
	for m := range models {
		a.InteractionModels = append(a.InteractionModels, m)
	}
	sort.Strings(a.InteractionModels)
	if len(schemes) > 0 {
		a.Authentication = &AgentAuthentication{Schemes: schemes}
	}
	return a
}

// agentName turns a host into an agent:// agent name, which the registry
// limits to letters, digits, "-", "_", "." and "/" (its propertyNames): the
// port separator becomes "_" and the brackets of an IPv6 literal go, so
// "localhost:8080" is "localhost_8080" and "[::1]:8080" is "__1_8080".
func agentName(host string) string {
	host = strings.NewReplacer("[", "", "]", "").Replace(host)
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, host)
}

// HTTPScheme is the IANA HTTP authentication scheme the auth type implies
// ("Bearer" for bearer-token and oauth2), "" when there is none.
func (a Auth) HTTPScheme() string {
	switch a.TypeOrDefault() {
	case AuthBearerToken, AuthOAuth2:
		return "Bearer"
	}
	return ""
}

// Skill is the capability as an agent:// skill of the site's default agent.
func (c *Capability) Skill() Skill {
	sk := Skill{
		ID:              c.ID,
		Name:            c.NameOrDefault(),
		Description:     c.Description,
		Tags:            c.Tags,
		Input:           c.InputSchema(),
		Output:          c.Output,
		Streaming:       c.Streaming,
		StreamingFormat: c.StreamingFormat,
		Depends:         c.Depends,
	}
	if sk.Output == nil && len(c.Outputs) > 0 {
		props := Schema{}
		for name, t := range c.Outputs {
			props[name] = AWPTypeSchema(t)
		}
		sk.Output = Schema{"type": "object", "properties": props}
	}
	if c.Idempotency != nil {
		sk.Idempotent = c.Idempotency.Supported
	} else if m := c.MethodOrDefault(); c.ProtocolOrDefault() == ProtocolREST && (m == "GET" || m == "HEAD" || m == "PUT" || m == "DELETE") {
		sk.Idempotent = true // RFC 9110 9.2.2
	}
	if c.Auth.Required() {
		auth := &AgentAuthentication{
			AuthorizationServer:       c.Auth.AuthorizationServer,
			ProtectedResourceMetadata: c.Auth.ProtectedResourceMetadata,
		}
		if sc := c.Auth.HTTPScheme(); sc != "" {
			auth.Schemes = []string{sc}
		}
		sk.Authentication = auth
	}
	return sk
}

// InputSchema is the JSON Schema of the capability's params (nil without
// params).
func (c *Capability) InputSchema() Schema {
	if len(c.Params) == 0 {
		return nil
	}
	props := Schema{}
	var required []string
	for _, p := range c.Params {
		ps := Schema{"type": string(p.TypeOrDefault())}
		if p.Description != "" {
			ps["description"] = p.Description
		}
		if p.Default != nil {
			ps["default"] = p.Default
		}
		if len(p.Enum) > 0 {
			ps["enum"] = p.Enum
		}
		if p.Min != nil {
			ps["minimum"] = *p.Min
		}
		if p.Max != nil {
			ps["maximum"] = *p.Max
		}
		props[p.Name] = ps
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := Schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// AWPTypeSchema maps an AWP type name (AWP 8) to a JSON Schema.
func AWPTypeSchema(t string) Schema {
	t = strings.TrimSpace(t)
	switch {
	case t == "string":
		return Schema{"type": "string"}
	case t == "integer":
		return Schema{"type": "integer"}
	case t == "float" || t == "number":
		return Schema{"type": "number"}
	case t == "boolean":
		return Schema{"type": "boolean"}
	case t == "ISO8601":
		return Schema{"type": "string", "format": "date-time"}
	case t == "url":
		return Schema{"type": "string", "format": "uri"}
	case strings.HasPrefix(t, "array[") && strings.HasSuffix(t, "]"):
		return Schema{"type": "array", "items": AWPTypeSchema(t[len("array[") : len(t)-1])}
	case strings.HasPrefix(t, "enum[") && strings.HasSuffix(t, "]"):
		var vals []any
		for _, v := range strings.Split(t[len("enum["):len(t)-1], ",") {
			vals = append(vals, strings.TrimSpace(v))
		}
		return Schema{"type": "string", "enum": vals}
	case strings.HasPrefix(t, "object["):
		return Schema{"type": "object"}
	}
	return Schema{"type": "string"}
}
