package config

// Capability is one action agents may take: a draft-car Capability block, a
// v0.1.0 Allow line, an AWP action and an agent:// skill.
type Capability struct {
	// ID: [a-z0-9-]+ in draft-car, ^[a-z][a-z0-9_.]*$ in v0.1.0.
	ID          string `validate:"required"`
	Name        string // default ID
	Description string // required by draft-car agents.json and agent://
	// Endpoint is the full URL (https in draft-car); v0.1.0, AWP use its path.
	Endpoint  string
	Method    string // default GET
	Protocol  string `validate:"omitempty,oneof=REST MCP A2A GraphQL WebSocket"`
	Auth      Auth
	RateLimit Rate
	Params    []Param `validate:"dive"`
	OpenAPI   string  // URL of an OpenAPI document of the endpoint

	// AWP action fields (AWP 9). Outputs maps output names to AWP types
	// ("string", "array[flight]").
	Outputs                   map[string]string
	Sensitivity               string       `validate:"omitempty,oneof=standard destructive irreversible"`
	RequiresHumanConfirmation bool         // agents SHOULD prompt the user first
	Reversible                *bool        // nil: unstated
	Idempotency               *Idempotency // Supported marks the agent:// skill idempotent too
	ExecutionModel            string       `validate:"omitempty,oneof=sync async"` // default sync
	PollEndpoint              string
	// Via names the AWP.Protocols entry invoking it; Operation, its operation.
	Via       string
	Operation string
	Requires  []string // IDs that must run first (AWP dependencies), acyclic

	RequiresSession bool // the call needs an X-Agent-Session (v0.1.0)
	HumanHandoff    bool // the call returns a URL for a human to complete
	// BodyLimit caps the body of a call recorded in an audit trail, in
	// bytes (413 above it); zero means 1 MiB.
	BodyLimit int64 `validate:"gte=0"`

	// agent:// skill fields; Output defaults to a schema of Outputs.
	Tags            []string
	Streaming       bool
	StreamingFormat string
	Depends         []Depends `validate:"dive"`
	Output          map[string]any

	// Tools are the tools of an MCP capability (Protocol MCP), each call
	// of which is decided per tool: a capability that lists tools is
	// closed to every tool it does not list (docs/mcp.md).
	Tools []Tool `validate:"dive"`
	// Gateway has agentready answer the endpoint of this MCP capability
	// itself, as an MCP server made from the declaration: each of its
	// Tools calls a capability of the site (Tool.Calls), and the site's
	// handler never sees the endpoint (docs/gateway.md). It needs a
	// server for the protocol, the module
	// github.com/agentready/agentready/mcpgateway.
	Gateway bool
}

// Tool is one tool of an MCP capability. A call to it (tools/call) needs
// the capability and the tool granted, the capability's auth with the
// tool's scopes added, and a token of the capability's limit and Cost of
// the tool's own.
type Tool struct {
	// Name is the MCP tool name, matched exactly, case and all: 1 to 128
	// of A-Z a-z 0-9 _ - . (MCP 2025-11-25, Tools: tool names).
	Name        string `validate:"required"`
	Description string
	RateLimit   Rate
	// Cost is what a call takes from RateLimit, for expensive tools (0:
	// 1); it needs a RateLimit of at least Cost.
	Cost int `validate:"gte=0"`
	// Auth adds scopes to the capability's: its type and servers are the
	// capability's.
	Auth            ToolAuth
	Sensitivity     string `validate:"omitempty,oneof=standard destructive irreversible"`
	RequiresSession bool   // a call needs an X-Agent-Session (v0.1.0)
	// Params are the tool's arguments, for redaction in the audit trail
	// and for publishing; In is not used. A gateway's tool has none: its
	// arguments are the params of the capability it calls.
	Params []Param `validate:"dive"`
	// Calls is the ID of the capability a gateway's tool calls (a REST
	// capability of the site), in a Gateway capability only.
	Calls string
}

// ToolAuth is what a Tool's call needs beyond its capability's auth.
type ToolAuth struct {
	Scopes []string // OAuth2 scopes required besides the capability's
}

// Protocols (draft-car 2.5) of Capability.Protocol; REST is the default.
const (
	ProtocolREST      = "REST"
	ProtocolMCP       = "MCP"
	ProtocolA2A       = "A2A"
	ProtocolGraphQL   = "GraphQL"
	ProtocolWebSocket = "WebSocket"
)

// Auth is how agents authenticate, mapped per format (docs/design.md
// collision 6). It never carries a credential.
type Auth struct {
	Type          string   `validate:"omitempty,oneof=none api-key bearer-token oauth2 hmac"`
	TokenEndpoint string   // draft-car Auth-Endpoint; bearer-token, oauth2 need it
	DocsURL       string   // documents the flow (draft-car Auth-Docs)
	Scopes        []string // OAuth2 scopes required
	Header        string   // carries an api-key; default "X-API-Key", unpublished
	// AuthorizationServer and ProtectedResourceMetadata are agent:// OAuth
	// metadata URLs (RFC 8414 issuer, RFC 9728 document). agentready
	// serves the RFC 9728 document of an oauth2 capability, or of a
	// bearer-token one with an AuthorizationServer, unless one is named
	// here (docs/mcp.md).
	AuthorizationServer       string
	ProtectedResourceMetadata string
	// JWT verifies a bearer token as a JWT access token of the
	// AuthorizationServer (its RFC 8414 metadata and JWK Set): issuer,
	// audience, lifetime, signature and the scopes the call needs.
	// Audience, when set, is the audience the token must name (and sets
	// JWT); the default is the capability's Endpoint (RFC 8707).
	JWT      bool
	Audience string
}

// Auth types (draft-car 2.5), the values of Auth.Type; empty is none.
const (
	AuthNone        = "none"
	AuthAPIKey      = "api-key"
	AuthBearerToken = "bearer-token"
	AuthOAuth2      = "oauth2"
	AuthHMAC        = "hmac"
)

// Param is one parameter (draft-car 2.5, AWP input, agent:// input schema).
type Param struct {
	Name        string `validate:"required"`
	In          string `validate:"omitempty,oneof=query path header body"` // default query
	Type        string `validate:"omitempty,oneof=string integer number boolean array object"`
	Format      string // finer AWP type ("ISO8601"), rendered instead of Type
	Required    bool
	Description string
	Default     any      // a JSON value
	Enum        []any    // JSON values
	Min, Max    *float64 // new(0.0) for a bound of 0
}

// Parameter locations (draft-car 2.5), the values of Param.In.
const (
	InQuery  = "query"
	InPath   = "path"
	InHeader = "header"
	InBody   = "body"
)

// Parameter types, the values of Param.Type (default string); draft-car has
// no array or object.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeArray   = "array"
	TypeObject  = "object"
)

// Sensitivity levels (AWP 9) of Capability.Sensitivity; empty is standard.
const (
	SensitivityDestructive  = "destructive"
	SensitivityIrreversible = "irreversible"
)

// Execution models (AWP 9), the values of Capability.ExecutionModel.
const (
	ExecutionSync  = "sync"
	ExecutionAsync = "async"
)

// Idempotency is the AWP idempotency contract.
type Idempotency struct {
	Supported bool
	KeyField  string
	Window    string
}

// Depends is an agent:// skill dependency (draft-narvaneni 7.1.4).
type Depends struct {
	URI               string `validate:"required"`
	Relation          string
	VersionConstraint string
}
