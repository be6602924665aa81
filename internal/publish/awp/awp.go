package awp

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsonenc"
	"github.com/agentready/agentready/internal/resolve"
)

// Version is the AWP version rendered as awp_version (AWP 4).
const Version = "0.2"

// doc is agent.json with the top-level fields in the order of AWP 5.
type doc struct {
	AWPVersion   string                  `json:"awp_version"`
	Domain       string                  `json:"domain"`
	Intent       string                  `json:"intent"`
	Protocols    map[string]protocol     `json:"protocols,omitempty"`
	Capabilities *config.AWPCapabilities `json:"capabilities,omitempty"`
	Auth         *authDoc                `json:"auth,omitempty"`
	Entities     map[string]entity       `json:"entities,omitempty"`
	Actions      []action                `json:"actions"`
	Errors       map[string]recovery     `json:"errors,omitempty"`
	Dependencies map[string][]string     `json:"dependencies,omitempty"`
	AgentHints   map[string]string       `json:"agent_hints,omitempty"`
	AgentStatus  *config.AgentStatus     `json:"agent_status,omitempty"`
}

// authDoc is AWP 7 in the order of the specification's example.
type authDoc struct {
	RequiredFor     []string `json:"required_for,omitempty"`
	OptionalFor     []string `json:"optional_for,omitempty"`
	Type            string   `json:"type,omitempty"`
	TokenExpiry     string   `json:"token_expiry,omitempty"`
	RefreshEndpoint string   `json:"refresh_endpoint,omitempty"`
}

// entity is AWP 8; fields is always an object, never null.
type entity struct {
	Fields map[string]string `json:"fields"`
}

// recovery is one AWP 10 error contract.
type recovery struct {
	Recovery string `json:"recovery"`
}

// action is AWP 9 in the order of its field table. id, description,
// auth_required, inputs and outputs are required by AWP 9 and always
// rendered.
type action struct {
	ID                        string                `json:"id"`
	Description               string                `json:"description"`
	AuthRequired              bool                  `json:"auth_required"`
	Inputs                    jsonenc.Object[input] `json:"inputs"`
	Outputs                   map[string]string     `json:"outputs"`
	Endpoint                  string                `json:"endpoint,omitempty"`
	Method                    string                `json:"method,omitempty"`
	Via                       string                `json:"via,omitempty"`
	Operation                 string                `json:"operation,omitempty"`
	RateLimit                 string                `json:"rate_limit,omitempty"`
	Idempotency               *idempotency          `json:"idempotency,omitempty"`
	ExecutionModel            string                `json:"execution_model,omitempty"`
	PollEndpoint              string                `json:"poll_endpoint,omitempty"`
	Sensitivity               string                `json:"sensitivity,omitempty"`
	RequiresHumanConfirmation bool                  `json:"requires_human_confirmation,omitempty"`
	Reversible                *bool                 `json:"reversible,omitempty"`
}

// input is one AWP 9 input parameter, in the order of its field table.
type input struct {
	Type        string `json:"type"`
	Required    bool   `json:"required,omitempty"`
	Default     any    `json:"default,omitempty"`
	Options     []any  `json:"options,omitempty"`
	Description string `json:"description,omitempty"`
}

type idempotency struct {
	Supported bool   `json:"supported"`
	KeyField  string `json:"key_field,omitempty"`
	Window    string `json:"window,omitempty"`
}

// AgentJSON renders the AWP v0.2 agent.json of the site.
//
// domain defaults to the host of Site.URL and intent to Site.Description.
// Action endpoints and poll endpoints on the site's origin are rendered as
// paths (AWP 9 "API endpoint path"); endpoints elsewhere keep their full URL.
// auth is AWP.Auth completed from the capabilities, or derived from them
// when AWP.Auth is nil (see the auth function); dependencies come from each
// capability's Requires.
func AgentJSON(s *config.Site, a2aVersion string) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("awp: nil site")
	}
	d := doc{
		AWPVersion:   Version,
		Domain:       s.AWP.Domain,
		Intent:       s.AWP.Intent,
		Protocols:    protocols(s, a2aVersion),
		Capabilities: s.AWP.Capabilities,
		Auth:         auth(s),
		Actions:      make([]action, 0, len(s.Capabilities)),
		AgentHints:   s.AWP.Hints,
		AgentStatus:  s.AWP.Status,
	}
	if d.Domain == "" {
		d.Domain = resolve.Host(s)
	}
	if d.Intent == "" {
		d.Intent = s.Description
	}
	if len(s.AWP.Entities) > 0 {
		d.Entities = make(map[string]entity, len(s.AWP.Entities))
		for name, e := range s.AWP.Entities {
			f := e.Fields
			if f == nil {
				f = map[string]string{}
			}
			d.Entities[name] = entity{Fields: f}
		}
	}
	if len(s.AWP.Errors) > 0 {
		d.Errors = make(map[string]recovery, len(s.AWP.Errors))
		for code, r := range s.AWP.Errors {
			d.Errors[code] = recovery{Recovery: r}
		}
	}

	var requiredFor map[string]bool
	if d.Auth != nil {
		requiredFor = make(map[string]bool, len(d.Auth.RequiredFor))
		for _, id := range d.Auth.RequiredFor {
			requiredFor[id] = true
		}
	}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		d.Actions = append(d.Actions, actionOf(s, c, requiredFor[c.ID]))
		if len(c.Requires) > 0 {
			if d.Dependencies == nil {
				d.Dependencies = map[string][]string{}
			}
			d.Dependencies[c.ID] = c.Requires
		}
	}
	if mcp, ok := d.Protocols["mcp"]; ok {
		for i := range s.Capabilities {
			if c := &s.Capabilities[i]; c.Protocol == config.ProtocolMCP && c.Endpoint == mcp.Endpoint {
				d.Actions = append(d.Actions, toolActions(c, requiredFor[c.ID])...)
			}
		}
	}
	return jsonenc.Encode(d)
}

// toolActions are the tools of c, the MCP capability AWP protocols' "mcp"
// entry names, as actions invoked via it: AWP 9 (v0.2) "operation", the
// protocol-specific operation name, "e.g. MCP tool name". Each is
// "CAPABILITY/TOOL", as an agent policy grants it (docs/mcp.md).
func toolActions(c *config.Capability, listedRequired bool) []action {
	var out []action
	for _, t := range c.Tools {
		a := action{
			ID:           c.ID + "/" + t.Name,
			Description:  t.Description,
			AuthRequired: resolve.AuthRequired(c.Auth) || listedRequired,
			Inputs:       make(jsonenc.Object[input], 0, len(t.Params)),
			Outputs:      map[string]string{},
			Via:          "mcp",
			Operation:    t.Name,
			RateLimit:    t.RateLimit.String(),
			Sensitivity:  t.Sensitivity,
		}
		a.Inputs = appendInputs(a.Inputs, t.Params)
		out = append(out, a)
	}
	return out
}

// appendInputs appends params to in as AWP inputs (AWP 9).
func appendInputs(in jsonenc.Object[input], params []config.Param) jsonenc.Object[input] {
	for _, p := range params {
		in = append(in, jsonenc.Member[input]{Name: p.Name, Value: input{
			Type:        inputType(p),
			Required:    p.Required,
			Default:     p.Default,
			Options:     p.Enum,
			Description: p.Description,
		}})
	}
	return in
}

func actionOf(s *config.Site, c *config.Capability, listedRequired bool) action {
	a := action{
		ID:          c.ID,
		Description: c.Description,
		// A capability named in auth.required_for requires auth even when
		// its own Auth is none, so that the action and the contract agree.
		AuthRequired:              resolve.AuthRequired(c.Auth) || listedRequired,
		Inputs:                    make(jsonenc.Object[input], 0, len(c.Params)),
		Outputs:                   c.Outputs,
		Endpoint:                  resolve.RelativeEndpoint(s, c.Endpoint),
		Via:                       c.Via,
		Operation:                 c.Operation,
		RateLimit:                 c.RateLimit.String(),
		ExecutionModel:            string(c.ExecutionModel),
		PollEndpoint:              resolve.RelativeEndpoint(s, c.PollEndpoint),
		Sensitivity:               string(c.Sensitivity),
		RequiresHumanConfirmation: c.RequiresHumanConfirmation,
		Reversible:                c.Reversible,
	}
	if a.Outputs == nil {
		a.Outputs = map[string]string{}
	}
	// method is required unless via names the protocol that carries the
	// action (AWP 9); without via the v0.1 default, direct HTTP, applies.
	// An MCP or A2A endpoint declared without a method is called with
	// POST (MCP streamable HTTP, A2A JSON-RPC), not draft-car's REST
	// default of GET.
	if c.Via == "" || c.Method != "" {
		a.Method = resolve.Method(c)
		if c.Method == "" && (c.Protocol == config.ProtocolMCP || c.Protocol == config.ProtocolA2A) {
			a.Method = "POST"
		}
	}
	if c.Idempotency != nil {
		a.Idempotency = &idempotency{
			Supported: c.Idempotency.Supported,
			KeyField:  c.Idempotency.KeyField,
			Window:    c.Idempotency.Window,
		}
	}
	a.Inputs = appendInputs(a.Inputs, c.Params)
	return a
}

// inputType is the AWP type of a parameter (AWP 8 primitive types): the
// finer Format when declared ("ISO8601", "airport_code", "array[flight]"),
// "enum" with the values as options for an enumeration (AWP 9 example),
// else the JSON type in AWP's words. array and object have no item or
// entity type in a Param; they render bare, and Format spells them fully.
func inputType(p config.Param) string {
	switch {
	case p.Format != "":
		return p.Format
	case len(p.Enum) > 0:
		return "enum"
	}
	switch t := resolve.ParamType(p); t {
	case config.TypeNumber:
		return "float"
	default:
		return string(t)
	}
}

// MCPVersion and A2AVersion are the protocol versions published for MCP
// and A2A capabilities in AWP protocols (5.5) when the site declares none;
// A2AVersion is the agent card's default version, and AgentJSON's caller
// names the other one when the site serves that card instead.
const (
	MCPVersion = "2025-06-18"
	A2AVersion = "1.0"
)

// protocol is one entry of AWP protocols (5.5): its Extra fields beside
// version and endpoint.
type protocol config.AWPProtocol

// MarshalJSON flattens Extra beside version and endpoint.
func (p protocol) MarshalJSON() ([]byte, error) {
	m := make(map[string]string, len(p.Extra)+2)
	maps.Copy(m, p.Extra)
	m["version"] = p.Version
	if p.Endpoint != "" {
		m["endpoint"] = p.Endpoint
	}
	return json.Marshal(m)
}

// protocols is AWP.Protocols with, for the first MCP and the first A2A
// capability the site declares, an "mcp" or "a2a" entry naming its
// endpoint (AWP 5.5), unless AWP.Protocols has one already.
func protocols(s *config.Site, a2aVersion string) map[string]protocol {
	if a2aVersion == "" {
		a2aVersion = A2AVersion
	}
	out := make(map[string]protocol, len(s.AWP.Protocols)+2)
	for k, v := range s.AWP.Protocols {
		out[k] = protocol(v)
	}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if c.Endpoint == "" {
			continue
		}
		switch c.Protocol {
		case config.ProtocolMCP:
			if _, ok := out["mcp"]; !ok {
				out["mcp"] = protocol{Version: MCPVersion, Endpoint: c.Endpoint, Extra: map[string]string{"transport": "http"}}
			}
		case config.ProtocolA2A:
			if _, ok := out["a2a"]; !ok {
				out["a2a"] = protocol{Version: a2aVersion, Endpoint: c.Endpoint,
					Extra: map[string]string{"agent_card": resolve.Origin(s) + "/.well-known/agent-card.json"}}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
