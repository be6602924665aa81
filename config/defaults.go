package config

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/endpoint"
)

// What the declaration implies beyond its fields. The documented defaults
// of single fields are resolved by internal/resolve, for the renderers and
// the enforcer; these are the derived values Validate checks too.

// defaultVersion is Site.Version's default (resolve.DefaultVersion).
const defaultVersion = "1.0.0"

// PublishedAgents returns HostedAgents or, when none, the site as one agent
// named after its host whose skills are its capabilities.
func (s *Site) PublishedAgents() []HostedAgent {
	if len(s.HostedAgents) > 0 {
		return s.HostedAgents
	}
	if len(s.Capabilities) == 0 {
		return nil
	}
	return []HostedAgent{s.defaultAgent()}
}

// defaultAgent is the site published as one agent:// agent.
func (s *Site) defaultAgent() HostedAgent {
	host := endpoint.Host(s.URL)
	a := HostedAgent{
		Name:        agentName(host),
		Version:     cmp.Or(s.Version, defaultVersion),
		Description: s.Description,
		URL:         "agent://" + host + "/",
		Status:      "active",
		Transport:   Transport{Endpoint: endpoint.Origin(s.URL)},
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
		a.Skills = append(a.Skills, c.skill())
		for k := range c.Tools {
			a.Skills = append(a.Skills, c.toolSkill(&c.Tools[k]))
		}
		switch cmp.Or(c.Protocol, ProtocolREST) {
		case ProtocolMCP:
			models["mcp"] = true
		case ProtocolA2A:
			models["agent2agent"] = true
		case ProtocolREST:
			if c.OpenAPI != "" {
				models["openapi"] = true
			}
		}
		if sc := c.Auth.httpScheme(); sc != "" && !seenScheme[sc] {
			seenScheme[sc] = true
			schemes = append(schemes, sc)
		}
	}
	a.InteractionModels = slices.Sorted(maps.Keys(models))
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

// httpScheme is the IANA HTTP authentication scheme the auth type implies
// ("Bearer" for bearer-token and oauth2), "" when there is none.
func (a Auth) httpScheme() string {
	switch a.Type {
	case AuthBearerToken, AuthOAuth2:
		return "Bearer"
	}
	return ""
}

// skill is the capability as an agent:// skill of the site's default agent.
func (c *Capability) skill() Skill {
	sk := Skill{
		ID:              c.ID,
		Name:            cmp.Or(c.Name, c.ID),
		Description:     c.Description,
		Tags:            c.Tags,
		Input:           c.inputSchema(),
		Output:          c.Output,
		Streaming:       c.Streaming,
		StreamingFormat: c.StreamingFormat,
		Depends:         c.Depends,
	}
	if sk.Output == nil && len(c.Outputs) > 0 {
		props := map[string]any{}
		for name, t := range c.Outputs {
			props[name] = awpTypeSchema(t)
		}
		sk.Output = map[string]any{"type": "object", "properties": props}
	}
	if c.Idempotency != nil {
		sk.Idempotent = c.Idempotency.Supported
	} else if m := endpoint.Method(c.Method); cmp.Or(c.Protocol, ProtocolREST) == ProtocolREST && (m == "GET" || m == "HEAD" || m == "PUT" || m == "DELETE") {
		sk.Idempotent = true // RFC 9110 9.2.2
	}
	if c.Auth.Type != "" && c.Auth.Type != AuthNone {
		auth := &AgentAuthentication{
			AuthorizationServer:       c.Auth.AuthorizationServer,
			ProtectedResourceMetadata: c.Auth.ProtectedResourceMetadata,
		}
		if sc := c.Auth.httpScheme(); sc != "" {
			auth.Schemes = []string{sc}
		}
		sk.Authentication = auth
	}
	return sk
}

// toolSkill is a tool of an MCP capability as an agent:// skill,
// "CAPABILITY/TOOL" as agent policies grant it, with the capability's
// authentication (docs/mcp.md).
func (c *Capability) toolSkill(t *Tool) Skill {
	sk := c.skill()
	sk.ID, sk.Name = c.ID+"/"+t.Name, t.Name
	sk.Description = cmp.Or(t.Description, "The tool "+t.Name+" of "+cmp.Or(c.Name, c.ID))
	sk.Input, sk.Output, sk.Tags, sk.Depends = paramsSchema(t.Params), nil, nil, nil
	sk.Streaming, sk.StreamingFormat, sk.Idempotent = false, "", false
	return sk
}

// inputSchema is the JSON Schema of the capability's params (nil without
// params).
func (c *Capability) inputSchema() map[string]any { return paramsSchema(c.Params) }

// paramsSchema is the JSON Schema of params (nil without params).
func paramsSchema(params []Param) map[string]any {
	if len(params) == 0 {
		return nil
	}
	props := map[string]any{}
	var required []string
	for _, p := range params {
		ps := map[string]any{"type": string(cmp.Or(p.Type, TypeString))}
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
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// awpTypeSchema maps an AWP type name (AWP 8) to a JSON Schema.
func awpTypeSchema(t string) map[string]any {
	t = strings.TrimSpace(t)
	switch {
	case t == "string":
		return map[string]any{"type": "string"}
	case t == "integer":
		return map[string]any{"type": "integer"}
	case t == "float" || t == "number":
		return map[string]any{"type": "number"}
	case t == "boolean":
		return map[string]any{"type": "boolean"}
	case t == "ISO8601":
		return map[string]any{"type": "string", "format": "date-time"}
	case t == "url":
		return map[string]any{"type": "string", "format": "uri"}
	case strings.HasPrefix(t, "array[") && strings.HasSuffix(t, "]"):
		return map[string]any{"type": "array", "items": awpTypeSchema(t[len("array[") : len(t)-1])}
	case strings.HasPrefix(t, "enum[") && strings.HasSuffix(t, "]"):
		var vals []any
		for _, v := range strings.Split(t[len("enum["):len(t)-1], ",") {
			vals = append(vals, strings.TrimSpace(v))
		}
		return map[string]any{"type": "string", "enum": vals}
	case strings.HasPrefix(t, "object["):
		return map[string]any{"type": "object"}
	}
	return map[string]any{"type": "string"}
}
