package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// AgentsMD holds what only agents.md carries. Can, Cannot and Behavior are
// derived from the declaration when nil (see the publish package); a
// non-nil empty slice omits the section.
type AgentsMD struct {
	// MCP declares an MCP gateway; with it agents.md is rendered as
	// Format B (YAML front matter), without it as Format A.
	MCP *MCPGateway
	// Can, Cannot and Behavior override the derived list sections.
	Can      []string
	Cannot   []string
	Behavior []string
	// Contact lines; default Site.Contact.
	Contact []string
}

// MCPGateway is the agents.md MCP gateway (agents.md 3, Appendix B).
type MCPGateway struct {
	// Endpoint is the MCP server URL. Required.
	Endpoint string `validate:"required"`
	// Transport is "streamable-http" (default) or "sse".
	Transport string `validate:"omitempty,oneof=streamable-http sse"`
	// Auth is none (default), api-key (rendered "api_key") or oauth2.
	Auth string
}

// AWP holds what only the AWP agent.json carries (AWP 5-13).
type AWP struct {
	// Domain is the canonical domain; default the host of Site.URL.
	Domain string
	// Intent is the plain-language description; default Site.Description.
	Intent string
	// Protocols are the sibling protocols, keyed by identifier (a2a, mcp,
	// acp, ap2, x402, openapi, graphql, payment, or a custom one).
	Protocols map[string]AWPProtocol `validate:"dive"`
	// Capabilities are the AWP feature flags (nil: omitted).
	Capabilities *AWPCapabilities
	// Auth is the AWP authentication contract (nil: derived from the
	// capabilities' Auth when any requires one).
	Auth *AWPAuth
	// Entities are named data models referenced by actions' types.
	Entities map[string]Entity
	// Errors maps error codes to machine-actionable recovery instructions.
	Errors map[string]string
	// Hints are free-form planning hints (agent_hints).
	Hints map[string]string
	// Status is the liveness signal (agent_status; nil: omitted).
	Status *AgentStatus
}

// AWPProtocol is one entry of AWP protocols (5.5).
type AWPProtocol struct {
	Version  string `validate:"required"`
	Endpoint string
	// Extra carries protocol-specific fields (agent_card, transport,
	// wallet, type, agent_op, ...), rendered beside version and endpoint.
	Extra map[string]string
}

// AWPCapabilities are AWP feature flags (6).
type AWPCapabilities struct {
	Streaming    bool   `json:"streaming"`
	BatchActions bool   `json:"batch_actions"`
	Webhooks     bool   `json:"webhooks"`
	Pagination   string `json:"pagination,omitempty" validate:"omitempty,oneof=cursor offset page none"`
	Idempotency  bool   `json:"idempotency"`
}

// AWPAuth is the AWP auth contract (7). RequiredFor and OptionalFor default
// to the capabilities whose Auth is not none / none.
type AWPAuth struct {
	Type            string `validate:"omitempty,oneof=none api-key bearer-token oauth2 hmac"`
	RequiredFor     []string
	OptionalFor     []string
	TokenExpiry     string
	RefreshEndpoint string
}

// Entity is an AWP entity (8): field name to AWP type.
type Entity struct {
	Fields map[string]string `json:"fields"`
}

// AgentStatus is the AWP liveness signal (13).
type AgentStatus struct {
	Operational     bool     `json:"operational"`
	DegradedActions []string `json:"degraded_actions,omitempty"`
	StatusEndpoint  string   `json:"status_endpoint,omitempty"`
}

// HostedAgent is an agent:// agent published by this site
// (draft-narvaneni-agent-uri-03 section 7).
type HostedAgent struct {
	// Name is the registry key and descriptor name: letters, digits, "-",
	// "_", "." and "/". Required.
	Name string `validate:"required"`
	// Version follows SemVer 2.0.0. Required.
	Version     string `validate:"required"`
	Description string
	// URL is the canonical agent:// URI; default agent://<host>/<name>.
	URL string
	// Skills are the agent's skills (at least one).
	Skills         []Skill `validate:"required,min=1,dive"`
	Transport      Transport
	Authentication *AgentAuthentication
	Provider       *Provider
	// ConformanceLevel is 0 to 3 (nil: not declared; new(3) declares 3).
	ConformanceLevel *int `validate:"omitempty,min=0,max=3"`
	// Status is active (default), deprecated or experimental.
	Status string `validate:"omitempty,oneof=active deprecated experimental"`
	// DeprecatedAt, Sunset and Successor describe a deprecated descriptor
	// on the wire (agent-uri-03 7.1.3): its responses carry Deprecation
	// (RFC 9745; DeprecatedAt, else the documents' Last-Modified), Sunset
	// (RFC 8594) when set, and Link rel="successor-version" to Successor
	// when set. They apply only with Status "deprecated".
	DeprecatedAt      time.Time
	Sunset            time.Time
	Successor         string
	Environment       string
	DocumentationURL  string
	InteractionModels []string
	SupportedVersions map[string]string
	// Context is the optional JSON-LD @context (URLs).
	Context []string
}

// Skill is one agent:// skill (7.1.4).
type Skill struct {
	ID              string `validate:"required"`
	Name            string `validate:"required"`
	Description     string `validate:"required"`
	Version         string
	Tags            []string
	Input           map[string]any
	Output          map[string]any
	Accepts         []string
	Produces        []string
	Streaming       bool
	StreamingFormat string `validate:"omitempty,oneof=sse ndjson grpc-stream"`
	Idempotent      bool
	Status          string `validate:"omitempty,oneof=active deprecated experimental"`
	Authentication  *AgentAuthentication
	Depends         []Depends `validate:"dive"`
}

// Transport is agent:// transport metadata (7.1.2): at least one field set.
type Transport struct {
	Endpoint string `json:"endpoint,omitempty"`
	HTTPS    string `json:"https,omitempty"`
	WSS      string `json:"wss,omitempty"`
	GRPC     string `json:"grpc,omitempty"`
	MQTT     string `json:"mqtt,omitempty"`
	Local    string `json:"local,omitempty"`
	Unix     string `json:"unix,omitempty"`
}

// AgentAuthentication is agent:// authentication metadata (10.1).
type AgentAuthentication struct {
	Schemes                   []string `json:"schemes,omitempty"`
	AuthorizationServer       string   `json:"authorizationServer,omitempty"`
	ProtectedResourceMetadata string   `json:"protectedResourceMetadata,omitempty"`
	JWKSURI                   string   `json:"jwksUri,omitempty"`
	// JWKS is an inline JWK Set (RFC 7517): the keys that sign the
	// descriptor's responses (agent-uri-03 10.3). agentready fills it when
	// descriptors are signed (WithDescriptorSigning).
	JWKS json.RawMessage `json:"jwks,omitempty"`
}

// Provider is the agent:// provider object.
type Provider struct {
	Organization string `json:"organization,omitempty"`
	URL          string `json:"url,omitempty"`
}

// Dialect selects the agents.txt grammar (docs/design.md collision 1).
type Dialect int

// Dialects.
const (
	// DialectIETFDraft is the IETF Internet-Draft
	// draft-car-agents-txt-wellknown-00 (default; "draft-car" for short).
	DialectIETFDraft Dialect = iota
	// DialectV010 is the agents.txt Format Specification v0.1.0.
	DialectV010
)

func (d Dialect) String() string {
	switch d {
	case DialectIETFDraft:
		return "draft-car"
	case DialectV010:
		return "v0.1.0"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// MarshalText implements encoding.TextMarshaler with String, so that a
// Dialect logs by name in JSON (log/slog, encoding/json), not as a number.
func (d Dialect) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// AgentsJSONMode selects what /.well-known/agents.json holds (collision 2).
type AgentsJSONMode int

// agents.json modes.
const (
	// AgentsJSONCompanion serves the companion of the agents.txt dialect.
	AgentsJSONCompanion AgentsJSONMode = iota
	// AgentsJSONRegistry serves the agent:// registry.
	AgentsJSONRegistry
)

// Document is one published document kind.
type Document uint8

// Documents. Descriptors are one per hosted agent.
const (
	DocAgentsTxt Document = 1 << iota
	DocAgentsJSON
	DocAgentsMD
	DocAWP
	DocDescriptors
	// DocCards are the neighbour cards: an MCP server card per MCP
	// capability, an A2A agent card for the A2A capabilities.
	DocCards

	AllDocuments = DocAgentsTxt | DocAgentsJSON | DocAgentsMD | DocAWP | DocDescriptors | DocCards
)

func (d Document) String() string {
	switch d {
	case DocAgentsTxt:
		return "agents.txt"
	case DocAgentsJSON:
		return "agents.json"
	case DocAgentsMD:
		return "agents.md"
	case DocAWP:
		return "agent.json (AWP)"
	case DocDescriptors:
		return "agent:// descriptor"
	case DocCards:
		return "MCP server and A2A agent cards"
	}
	return fmt.Sprintf("Document(%d)", uint8(d))
}

// Formats says what is published, which decides what validation requires.
// The zero value publishes every document in the draft-car dialect.
type Formats struct {
	Dialect    Dialect
	AgentsJSON AgentsJSONMode
	// Disabled lists documents that are not published.
	Disabled Document
	// AllowHTTP permits plain-http URLs everywhere (development). Without it
	// http is accepted only for localhost, 127.0.0.0/8 and [::1].
	AllowHTTP bool
}

// Serves reports whether d is published.
func (f Formats) Serves(d Document) bool { return f.Disabled&d == 0 }
