package agentsjson

import (
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsonenc"
	"github.com/agentready/agentready/internal/resolve"
)

// SpecVersion is the draft-car specVersion (draft-car 2.3: MUST be "1.0").
const SpecVersion = "1.0"

// generatedAtLayout is the form of the draft's own example (3.2),
// "2026-02-01T00:00:00.000Z": UTC with milliseconds.
const generatedAtLayout = "2006-01-02T15:04:05.000Z"

// The draft-car types mirror section 3.2 field by field, in the order of the
// draft's example, so that encoding/json writes them in that order.

type carDoc struct {
	SpecVersion     string               `json:"specVersion"`
	GeneratedAt     string               `json:"generatedAt,omitempty"`
	DeclarationType string               `json:"declarationType,omitempty"`
	OperatesOn      []string             `json:"operatesOn,omitempty"`
	Site            carSite              `json:"site"`
	Capabilities    []carCapability      `json:"capabilities"`
	Access          carAccess            `json:"access"`
	Agents          map[string]carPolicy `json:"agents"`
	Metadata        map[string]string    `json:"metadata,omitempty"`
}

type carSite struct {
	Name          string `json:"name"`
	URL           string `json:"url"`
	Description   string `json:"description,omitempty"`
	Contact       string `json:"contact,omitempty"`
	PrivacyPolicy string `json:"privacyPolicy,omitempty"`
}

type carCapability struct {
	ID          string     `json:"id"`
	Description string     `json:"description"`
	Endpoint    string     `json:"endpoint"`
	Method      string     `json:"method,omitempty"`
	Protocol    string     `json:"protocol"`
	Auth        carAuth    `json:"auth"`
	RateLimit   *carRate   `json:"rateLimit,omitempty"`
	OpenAPI     string     `json:"openapi,omitempty"`
	Parameters  []carParam `json:"parameters,omitempty"`
	// SessionEndpoint is agentready's extension (draft-car 2.5: unknown
	// fields MUST be ignored): where a capability that requires a v0.1.0
	// session gets one.
	SessionEndpoint string `json:"sessionEndpoint,omitempty"`
	// Tools is agentready's extension (2.5): the tools of an MCP
	// capability, each call of which is decided per tool (docs/mcp.md).
	Tools []carTool `json:"tools,omitempty"`
}

// carTool is one tool of an MCP capability, in the capability's shape.
type carTool struct {
	Name            string   `json:"name"`
	Description     string   `json:"description,omitempty"`
	RateLimit       *carRate `json:"rateLimit,omitempty"`
	Cost            int      `json:"cost,omitempty"`
	Scopes          []string `json:"scopes,omitempty"`
	Sensitivity     string   `json:"sensitivity,omitempty"`
	RequiresSession bool     `json:"requiresSession,omitempty"`
}

type carAuth struct {
	Type          string   `json:"type"`
	TokenEndpoint string   `json:"tokenEndpoint,omitempty"`
	DocsURL       string   `json:"docsUrl,omitempty"`
	Scopes        []string `json:"scopes,omitempty"`
}

type carRate struct {
	Requests int    `json:"requests"`
	Window   string `json:"window"`
}

type carParam struct {
	Name        string   `json:"name"`
	In          string   `json:"in"`
	Type        string   `json:"type"`
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Description string   `json:"description,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	Min         *float64 `json:"min,omitempty"`
}

type carAccess struct {
	Allow    []string `json:"allow"`
	Disallow []string `json:"disallow"`
}

type carPolicy struct {
	RateLimit *carRate `json:"rateLimit,omitempty"`
	// Capabilities is a pointer so that nil (all capabilities, draft-car
	// 2.7) is omitted while a declared empty list renders as [].
	Capabilities     *[]string `json:"capabilities,omitempty"`
	AgentDeclaration string    `json:"agentDeclaration,omitempty"`
	// Proven is agentready's extension (2.5: unknown fields MUST be
	// ignored; 3.2: the JSON carries what the text does, where agents.txt
	// writes Proven-Rate-Limit and Proven-Capabilities): the limit and
	// capabilities of a client that proves it is the agent
	// (config.AgentPolicy.Proven; on "*", an agent the site does not
	// declare whose operator is proven). rateLimit and capabilities beside
	// it stay what a client naming the agent gets (4.2); {} is a proven
	// form without limit or restriction.
	Proven *carGrant `json:"proven,omitempty"`
	// Tools is agentready's extension (2.5), as agents.txt has no place
	// for it: the single tools granted, by capability ID, besides the
	// capabilities granted whole (docs/mcp.md).
	Tools map[string][]string `json:"tools,omitempty"`
}

// carGrant is a carPolicy's proven form, in the policy's own shape.
type carGrant struct {
	RateLimit    *carRate            `json:"rateLimit,omitempty"`
	Capabilities *[]string           `json:"capabilities,omitempty"`
	Tools        map[string][]string `json:"tools,omitempty"`
}

// DraftCar renders the agents.json companion of
// draft-car-agents-txt-wellknown-00 (section 3.2): the same information as
// the draft-car agents.txt, typed. Arrays and objects the schema requires
// (capabilities, access.allow, access.disallow, agents) are always present,
// empty when the declaration has none.
func DraftCar(s *config.Site) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("agentsjson: nil site")
	}
	doc := carDoc{
		SpecVersion: SpecVersion,
		OperatesOn:  s.OperatesOn,
		Site: carSite{
			Name:          s.Name,
			URL:           s.URL,
			Description:   s.Description,
			Contact:       s.Contact,
			PrivacyPolicy: s.PrivacyPolicy,
		},
		Capabilities: make([]carCapability, 0, len(s.Capabilities)),
		Access: carAccess{
			Allow:    nonNil(s.Access.Allow),
			Disallow: nonNil(s.Access.Disallow),
		},
		Agents:   make(map[string]carPolicy, len(s.Agents)),
		Metadata: s.Metadata,
	}
	if !s.GeneratedAt.IsZero() {
		doc.GeneratedAt = s.GeneratedAt.UTC().Format(generatedAtLayout)
	}
	// "platform" is the default (draft-car 2.3) and stays implicit.
	if s.DeclarationType == config.DeclarationAgent {
		doc.DeclarationType = string(config.DeclarationAgent)
	}
	for i := range s.Capabilities {
		cc := carCap(&s.Capabilities[i])
		if s.Capabilities[i].RequiresSession {
			cc.SessionEndpoint = resolve.SessionEndpointURL(s)
		}
		doc.Capabilities = append(doc.Capabilities, cc)
	}
	for _, a := range s.Agents {
		p := carPolicy{RateLimit: carRateOf(a.RateLimit), Capabilities: carIDs(resolve.WholeGrants(a.Capabilities)),
			AgentDeclaration: a.AgentDeclaration, Tools: resolve.ToolGrants(a.Capabilities)}
		if g := a.Proven; g != nil {
			p.Proven = &carGrant{RateLimit: carRateOf(g.RateLimit), Capabilities: carIDs(resolve.WholeGrants(g.Capabilities)),
				Tools: resolve.ToolGrants(g.Capabilities)}
		}
		doc.Agents[a.Name] = p
	}
	return jsonenc.Encode(doc)
}

// carIDs is a list of permitted capabilities: nil (all, draft-car 2.7)
// is omitted, a declared empty list renders as [].
func carIDs(ids []string) *[]string {
	if ids == nil {
		return nil
	}
	return &ids
}

// carTools are c's tools, each with the scopes its call needs beyond the
// capability's.
func carTools(c *config.Capability) []carTool {
	var out []carTool
	for _, t := range c.Tools {
		out = append(out, carTool{Name: t.Name, Description: t.Description, RateLimit: carRateOf(t.RateLimit),
			Cost: t.Cost, Scopes: t.Auth.Scopes, Sensitivity: t.Sensitivity, RequiresSession: t.RequiresSession})
	}
	return out
}

func carCap(c *config.Capability) carCapability {
	out := carCapability{
		Tools:       carTools(c),
		ID:          c.ID,
		Description: c.Description,
		Endpoint:    c.Endpoint,
		Protocol:    string(resolve.Protocol(c)),
		// auth is rendered even for "none", as in the draft's example
		// (3.2), so that agents need not know the default.
		Auth: carAuth{
			Type:          string(resolve.AuthType(c.Auth)),
			TokenEndpoint: c.Auth.TokenEndpoint,
			DocsURL:       c.Auth.DocsURL,
			Scopes:        c.Auth.Scopes,
		},
		RateLimit: carRateOf(c.RateLimit),
		OpenAPI:   c.OpenAPI,
	}
	// Method defaults to GET "for REST endpoints" (draft-car 2.5). An MCP,
	// A2A, GraphQL or WebSocket endpoint without a declared method gets
	// none, as in the draft's Appendix A: "GET" would send an agent to open
	// an MCP session the wrong way.
	if c.Method != "" || resolve.Protocol(c) == config.ProtocolREST {
		out.Method = resolve.Method(c)
	}
	for _, p := range c.Params {
		out.Parameters = append(out.Parameters, carParam{
			Name:        p.Name,
			In:          string(resolve.ParamIn(p)),
			Type:        string(resolve.ParamType(p)),
			Required:    p.Required,
			Default:     p.Default,
			Description: p.Description,
			Max:         p.Max,
			Min:         p.Min,
		})
	}
	return out
}

func carRateOf(r config.Rate) *carRate {
	if r.IsZero() {
		return nil
	}
	return &carRate{Requests: r.Requests, Window: string(r.Window)}
}

// nonNil turns a nil slice into an empty one, which encodes as [] where the
// schema requires an array (null would not validate).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
