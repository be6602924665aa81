package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// AgentsMD holds what only agents.md carries.
type AgentsMD struct {
	MCP *MCPGateway // set: Format B (YAML front matter); nil: Format A
	// Can, Cannot and Behavior: nil derives the section, empty omits it.
	Can      []string
	Cannot   []string
	Behavior []string
	Contact  []string // default Site.Contact
}

// MCPGateway is the agents.md MCP gateway (agents.md 3, Appendix B).
type MCPGateway struct {
	Endpoint  string `validate:"required"`                            // MCP server URL
	Transport string `validate:"omitempty,oneof=streamable-http sse"` // default streamable-http
	Auth      string // none (default), api-key or oauth2
}

// AWP holds what only the AWP agent.json carries (AWP 5-13).
type AWP struct {
	Domain       string                 // default the host of Site.URL
	Intent       string                 // default Site.Description
	Protocols    map[string]AWPProtocol `validate:"dive"` // by id: a2a, mcp, x402...
	Capabilities *AWPCapabilities
	Auth         *AWPAuth          // nil: derived from the capabilities' Auth
	Entities     map[string]Entity // data models actions' types name
	Errors       map[string]string // error code to recovery instructions
	Hints        map[string]string // agent_hints
	Status       *AgentStatus
}

// AWPProtocol is one entry of AWP protocols (5.5).
type AWPProtocol struct {
	Version  string `validate:"required"`
	Endpoint string
	Extra    map[string]string // protocol-specific: agent_card, transport...
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
// to the capabilities whose Auth is, and is not, none.
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

// HostedAgent is an agent:// agent this site publishes (agent-uri-03 7).
type HostedAgent struct {
	Name             string `validate:"required"` // letters, digits, -, _, . and /
	Version          string `validate:"required"` // SemVer 2.0.0
	Description      string
	URL              string  // canonical agent:// URI; default agent://<host>/<name>
	Skills           []Skill `validate:"required,min=1,dive"`
	Transport        Transport
	Authentication   *AgentAuthentication
	Provider         *Provider
	ConformanceLevel *int   `validate:"omitempty,min=0,max=3"`
	Status           string `validate:"omitempty,oneof=active deprecated experimental"` // default active
	// With Status "deprecated": Deprecation, Sunset and successor Link
	// headers (agent-uri-03 7.1.3); DeprecatedAt defaults to Last-Modified.
	DeprecatedAt      time.Time
	Sunset            time.Time
	Successor         string
	Environment       string
	DocumentationURL  string
	InteractionModels []string
	SupportedVersions map[string]string
	Context           []string // JSON-LD @context URLs
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
	Schemes                   []string        `json:"schemes,omitempty"`
	AuthorizationServer       string          `json:"authorizationServer,omitempty"`
	ProtectedResourceMetadata string          `json:"protectedResourceMetadata,omitempty"`
	JWKSURI                   string          `json:"jwksUri,omitempty"`
	JWKS                      json.RawMessage `json:"jwks,omitempty"` // filled when descriptors are signed
}

// Provider is the agent:// provider object.
type Provider struct {
	Organization string `json:"organization,omitempty"`
	URL          string `json:"url,omitempty"`
}

// Dialect selects the agents.txt grammar (docs/design.md collision 1).
type Dialect int

// Dialects: draft-car (the default) and v0.1.0.
const (
	DialectIETFDraft Dialect = iota
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

// MarshalText returns String, so that a Dialect logs by name in JSON.
func (d Dialect) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// AgentsJSONMode selects what /.well-known/agents.json holds (collision 2).
type AgentsJSONMode int

// agents.json modes.
const (
	AgentsJSONCompanion AgentsJSONMode = iota // the agents.txt dialect's
	AgentsJSONRegistry                        // the agent:// registry
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
	DocCards            // MCP server cards, the A2A agent card
	DocResourceMetadata // RFC 9728 protected resource metadata (docs/mcp.md)

	AllDocuments = DocAgentsTxt | DocAgentsJSON | DocAgentsMD | DocAWP | DocDescriptors | DocCards | DocResourceMetadata
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
	case DocResourceMetadata:
		return "OAuth protected resource metadata"
	}
	return fmt.Sprintf("Document(%d)", uint8(d))
}

// Formats says what is published; the zero value: all, in draft-car.
type Formats struct {
	Dialect    Dialect
	AgentsJSON AgentsJSONMode
	Disabled   Document // documents not published
	AllowHTTP  bool     // http URLs anywhere, not only on loopback
}

// Serves reports whether d is published.
func (f Formats) Serves(d Document) bool { return f.Disabled&d == 0 }
