package config

// Capability is one action the site sanctions for agents: a draft-car
// Capability block, a v0.1.0 Allow line and agents.json capability, an AWP
// action and an agent:// skill of the site's default agent.
type Capability struct {
	// ID identifies the capability. Each served format restricts it:
	// draft-car [a-z0-9-]+, v0.1.0 ^[a-z][a-z0-9_.]*$; AWP and agent:// are
	// free-form. Required.
	ID string `validate:"required"`
	// Name is a human-readable name (agent:// skill name). Default: ID.
	Name string
	// Description says what it does. Required by draft-car agents.json and
	// agent:// skills.
	Description string
	// Endpoint is the full URL of the endpoint (draft-car requires HTTPS).
	// v0.1.0 and AWP render its path relative to the site origin.
	Endpoint string
	// Method is the HTTP method. Default GET.
	Method string
	// Protocol is REST (default), MCP, A2A, GraphQL or WebSocket.
	Protocol string `validate:"omitempty,oneof=REST MCP A2A GraphQL WebSocket"`
	// Auth is how agents authenticate. Zero value: none.
	Auth Auth
	// RateLimit is this capability's limit.
	RateLimit Rate
	// Params declares the endpoint's parameters.
	Params []Param `validate:"dive"`
	// OpenAPI is the URL of an OpenAPI document describing the endpoint.
	OpenAPI string

	// AWP action fields (AWP 9).

	// Outputs maps output field names to AWP types ("string",
	// "array[flight]", ...).
	Outputs map[string]string
	// Sensitivity is "standard" (the default: leave it empty),
	// SensitivityDestructive or SensitivityIrreversible.
	Sensitivity string `validate:"omitempty,oneof=standard destructive irreversible"`
	// RequiresHumanConfirmation: agents SHOULD prompt the user first.
	RequiresHumanConfirmation bool
	// Reversible says whether the action can be undone (nil: not declared;
	// new(true) or new(false) declares it).
	Reversible *bool
	// Idempotency is the AWP idempotency contract; Supported also marks the
	// agent:// skill idempotent.
	Idempotency *Idempotency
	// ExecutionModel is sync (default) or async; async may name a
	// PollEndpoint.
	ExecutionModel string `validate:"omitempty,oneof=sync async"`
	PollEndpoint   string
	// Via names a protocol declared in AWP.Protocols through which the
	// action is invoked; Operation is the protocol-specific operation.
	Via       string
	Operation string
	// Requires lists capability IDs that must run before this one (AWP
	// dependencies). Cycles are rejected.
	Requires []string

	// v0.1.0 fields.

	// RequiresSession: the capability needs an X-Agent-Session.
	RequiresSession bool
	// HumanHandoff: the capability returns a URL for a human to complete.
	HumanHandoff bool
	// BodyLimit is the largest request body, in bytes, that a call of this
	// capability recorded in an audit trail may carry: the body is read
	// and recorded before the handler runs, and a larger one is refused
	// with 413. Zero means 1 MiB. It applies only to
	// requests that are recorded (those carrying a session, with the
	// audit trail on).
	BodyLimit int64 `validate:"gte=0"`

	// agent:// skill fields of the derived descriptor.

	Tags            []string
	Streaming       bool
	StreamingFormat string
	// Depends are agent:// references to agents this skill may invoke.
	Depends []Depends `validate:"dive"`
	// Output is the JSON Schema of the output; default derived from Outputs.
	Output map[string]any
}

// Protocols of draft-car 2.5, the values of Capability.Protocol.
const (
	ProtocolREST      = "REST"
	ProtocolMCP       = "MCP"
	ProtocolA2A       = "A2A"
	ProtocolGraphQL   = "GraphQL"
	ProtocolWebSocket = "WebSocket"
)

// Auth is one typed authentication declaration, mapped per format
// (docs/design.md collision 6). It never carries a credential.
type Auth struct {
	// Type is none (zero value), api-key, bearer-token, oauth2 or hmac.
	Type string `validate:"omitempty,oneof=none api-key bearer-token oauth2 hmac"`
	// TokenEndpoint is where agents obtain tokens (draft-car Auth-Endpoint;
	// required for bearer-token and oauth2).
	TokenEndpoint string
	// DocsURL documents the authentication flow (draft-car Auth-Docs).
	DocsURL string
	// Scopes are the OAuth2 scopes required.
	Scopes []string
	// Header is the request header that carries an api-key credential.
	// Default "X-API-Key". Not published.
	Header string
	// AuthorizationServer and ProtectedResourceMetadata are the agent://
	// descriptor's OAuth metadata URLs (RFC 8414 issuer, RFC 9728 document).
	AuthorizationServer       string
	ProtectedResourceMetadata string
}

// Auth types (draft-car 2.5), the values of Auth.Type.
const (
	AuthNone        = "none"
	AuthAPIKey      = "api-key"
	AuthBearerToken = "bearer-token"
	AuthOAuth2      = "oauth2"
	AuthHMAC        = "hmac"
)

// Param declares one parameter (draft-car 2.5 Param, v0.1.0 params, AWP
// inputs, agent:// input schema).
type Param struct {
	Name string `validate:"required"`
	// In is query (default), path, header or body.
	In string `validate:"omitempty,oneof=query path header body"`
	// Type is string (default), integer, number, boolean; array and object
	// only in formats that allow them (v0.1.0, AWP, agent://).
	Type string `validate:"omitempty,oneof=string integer number boolean array object"`
	// Format is a finer AWP type name ("ISO8601", "url", "airport_code");
	// rendered as the AWP input type instead of Type when set.
	Format      string
	Required    bool
	Description string
	// Default is the default value (any JSON value).
	Default any
	// Enum lists the allowed values.
	Enum []any
	// Min and Max bound numeric values (new(0.0) for a bound of 0).
	Min, Max *float64
}

// Parameter locations (draft-car 2.5), the values of Param.In.
const (
	InQuery  = "query"
	InPath   = "path"
	InHeader = "header"
	InBody   = "body"
)

// Parameter types, the values of Param.Type.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeArray   = "array"
	TypeObject  = "object"
)

// Sensitivity levels (AWP 9), the values of Capability.Sensitivity.
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
