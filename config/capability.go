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
	Protocol Protocol `validate:"omitempty,oneof=REST MCP A2A GraphQL WebSocket"`
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
	// Sensitivity is standard (default), destructive or irreversible.
	Sensitivity Sensitivity `validate:"omitempty,oneof=standard destructive irreversible"`
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
	ExecutionModel ExecutionModel `validate:"omitempty,oneof=sync async"`
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
	Output Schema
}

// Protocol is a draft-car capability protocol (2.5).
type Protocol string

// Protocols of draft-car 2.5.
const (
	ProtocolREST      Protocol = "REST"
	ProtocolMCP       Protocol = "MCP"
	ProtocolA2A       Protocol = "A2A"
	ProtocolGraphQL   Protocol = "GraphQL"
	ProtocolWebSocket Protocol = "WebSocket"
)

// Auth is one typed authentication declaration, mapped per format
// (docs/design.md collision 6). It never carries a credential.
type Auth struct {
	// Type is none (zero value), api-key, bearer-token, oauth2 or hmac.
	Type AuthType `validate:"omitempty,oneof=none api-key bearer-token oauth2 hmac"`
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

// AuthType is the draft-car auth vocabulary.
type AuthType string

// Auth types (draft-car 2.5).
const (
	AuthNone        AuthType = "none"
	AuthAPIKey      AuthType = "api-key"
	AuthBearerToken AuthType = "bearer-token"
	AuthOAuth2      AuthType = "oauth2"
	AuthHMAC        AuthType = "hmac"
)

// Param declares one parameter (draft-car 2.5 Param, v0.1.0 params, AWP
// inputs, agent:// input schema).
type Param struct {
	Name string `validate:"required"`
	// In is query (default), path, header or body.
	In ParamLocation `validate:"omitempty,oneof=query path header body"`
	// Type is string (default), integer, number, boolean; array and object
	// only in formats that allow them (v0.1.0, AWP, agent://).
	Type ParamType `validate:"omitempty,oneof=string integer number boolean array object"`
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

// ParamLocation is where a parameter travels.
type ParamLocation string

// Parameter locations (draft-car 2.5).
const (
	InQuery  ParamLocation = "query"
	InPath   ParamLocation = "path"
	InHeader ParamLocation = "header"
	InBody   ParamLocation = "body"
)

// ParamType is a parameter's JSON type.
type ParamType string

// Parameter types.
const (
	TypeString  ParamType = "string"
	TypeInteger ParamType = "integer"
	TypeNumber  ParamType = "number"
	TypeBoolean ParamType = "boolean"
	TypeArray   ParamType = "array"
	TypeObject  ParamType = "object"
)

// Sensitivity is the AWP action sensitivity level.
type Sensitivity string

// Sensitivity levels (AWP 9).
const (
	SensitivityStandard     Sensitivity = "standard"
	SensitivityDestructive  Sensitivity = "destructive"
	SensitivityIrreversible Sensitivity = "irreversible"
)

// ExecutionModel is the AWP execution model.
type ExecutionModel string

// Execution models (AWP 9).
const (
	ExecutionSync  ExecutionModel = "sync"
	ExecutionAsync ExecutionModel = "async"
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

// Schema is a JSON Schema document, kept as plain JSON data.
type Schema = map[string]any
