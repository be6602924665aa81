package config

import "time"

// Site is the whole declaration: what agents may do on one site. It feeds
// every published format; fields name the formats they are rendered into:
//
//	draft-car  agents.txt / agents.json of draft-car-agents-txt-wellknown-00
//	v0.1.0     agents.txt Format Specification v0.1.0 and its agents.json
//	agents.md  agents.md Protocol 1.0.0-draft
//	AWP        Agent Web Protocol v0.2 agent.json
//	agent://   draft-narvaneni-agent-uri-03 registry and descriptors
type Site struct {
	Name string `validate:"required"` // draft-car Site-Name, v0.1.0 Site, agents.md H1
	// URL is https, or http on loopback or with Formats.AllowHTTP. Its host
	// is the default AWP domain and agent:// authority.
	URL string `validate:"required"`
	// Description: draft-car Site-Description, v0.1.0 Description, agents.md,
	// the default AWP intent and agent:// description.
	Description     string
	Contact         string    // an email (draft-car); v0.1.0, agents.md: or a URL
	PrivacyPolicy   string    // a URL (draft-car Site-Privacy-Policy)
	DeclarationType string    `validate:"omitempty,oneof=platform agent"` // draft-car 2.3
	OperatesOn      []string  // platform URLs an "agent" declaration acts on
	GeneratedAt     time.Time // rendered when set, never filled in
	Version         string    // agent:// SemVer; default "1.0.0"

	// Dialect is the agents.txt grammar the site publishes ("dialect:
	// draft-car" or "v0.1.0" in a file). Validate and agentready.New read
	// it unless Formats.Dialect (agentready.Documents.Dialect) names
	// DialectV010, which wins: the zero value is the default, draft-car,
	// and cannot override.
	Dialect Dialect
	// ImplicitAccess says to whom draft-car 2.6's capability-only default
	// applies when Access declares no Allow or Disallow rule:
	// "all-agents" (every automated client) or "ai-agents" (declared and
	// known agents only), agentready.ImplicitAllAgents and
	// ImplicitAIAgents. agentready.New refuses a site without rules that
	// says neither, unless agentready.WithImplicitAccess does (and wins).
	ImplicitAccess string

	Capabilities []Capability `validate:"dive"`
	Access       Access
	Agents       []AgentPolicy `validate:"dive"` // draft-car 2.7

	Flows     []Flow `validate:"dive"` // v0.1.0 suggested workflows
	RateLimit Rate   // site-wide (v0.1.0 Rate-Limit, per minute)
	Usage     Usage
	Session   Session
	Audit     Audit
	DocsURL   string // docs of the agent integration (v0.1.0)
	// AgentsJSONURL is the Agents-JSON line of agents.txt; default
	// URL + "/.well-known/agents.json" in v0.1.0, omitted in draft-car.
	AgentsJSONURL string
	Metadata      map[string]string // draft-car agents.json "metadata"

	AgentsMD     AgentsMD
	AWP          AWP
	HostedAgents []HostedAgent `validate:"dive"` // none: see PublishedAgents
}

// Declaration types (draft-car 2.3), the values of Site.DeclarationType.
const (
	DeclarationPlatform = "platform"
	DeclarationAgent    = "agent"
)

// Access lists robots.txt patterns; the longest match wins, Allow a tie.
// With both empty, agents may use only capability endpoints (draft-car 2.6).
type Access struct {
	Allow    []string
	Disallow []string
	// LinkPreviews serves link previews and feed readers as a browser is
	// served: no rule, limit or preference applies to them. They fetch a
	// page because a person shared or subscribed to it (Slackbot,
	// Discordbot, Twitterbot, facebookexternalhit, Feedly, ...: the
	// known-agent data lists them as user-triggered). Any client can send
	// a browser's User-Agent and be served so; this opens nothing more.
	LinkPreviews bool
	// EnforceParams refuses a call of a capability whose query, header or
	// body params are not as declared (a required one missing, a wrong
	// type, a value outside its enum or bounds) with 400, before the
	// handler runs. Without it such calls are only reported, under
	// report-only and in the shadow log (docs/enforcement.md). A gateway
	// tool's arguments are always checked.
	EnforceParams bool
}

// AgentPolicy is one Agent block (draft-car 2.7).
type AgentPolicy struct {
	Name             string   `validate:"required"` // a User-Agent product token; "*": default
	RateLimit        Rate     // per client by default
	Capabilities     []string // the IDs it may use; nil: all
	AgentDeclaration string   // URL of the operator's own agents.txt
	// Proven, when set, replaces RateLimit and Capabilities for a client
	// whose identity is proven (docs/design.md, "Grades of identity"):
	// for a named policy, a client that proves it is this agent (the
	// sources of Verify, defaulting to the known-agent data); for "*", an
	// agent the site does not declare whose operator is proven (a
	// signature by a key from a trusted directory, or an address or host
	// in a known agent's published sources). Its limit is counted in a
	// bucket of its own. A client that names the agent and does not prove
	// it gets RateLimit and Capabilities, unless Verify.Required refuses
	// it or serves it as "*".
	Proven *Grant
	Verify Verification
}

// Grant is what a policy gives a proven client (AgentPolicy.Proven).
type Grant struct {
	RateLimit    Rate     // per client by default, in a bucket of its own
	Capabilities []string // the IDs it may use; nil: all
}

// Verification makes a policy's grants go only to a client that proves it is
// the agent named (docs/design.md, "Verified agents"). Nil sources default to
// the known-agent data, so {Required: true} suffices for a well-known agent.
type Verification struct {
	// Required refuses an unproven claim (403), or with FallBack serves it
	// as "*". A claim no source can answer for is served as "*", logged.
	// Without Required, the sources still grade the claim (proven or
	// claimed) when the policy sets Proven.
	Required bool
	Methods  []string // accepted; empty: any that has a source
	// SignatureAgents are the Signature-Agent URLs trusted: JWK Set URLs
	// or key directory origins. On "*" (with Proven), directories whose
	// signed agents count as proven though the site declares none.
	SignatureAgents []string
	IPRanges        []string // URLs of the operator's IP range lists
	ReverseDNS      []string // domains of forward-confirmed PTR names
	// Card is the URL of the agent's Signature Agent Card
	// (draft-meunier-webbotauth-registry-04 4: its client_id, an https
	// URL): the purpose and trigger it declares are the proven agent's
	// purpose. A card is not found from a key directory (4.1), so the
	// site names it.
	Card     string
	FallBack bool
}

// Verification methods, the values of Verification.Methods.
const (
	VerifySignature  = "signature"   // Web Bot Auth, RFC 9421
	VerifyIPRange    = "ip-range"    // in the operator's published ranges
	VerifyReverseDNS = "reverse-dns" // forward-confirmed reverse DNS
)

// Flow is a v0.1.0 suggested workflow.
type Flow struct {
	Name        string   `validate:"required"`
	Steps       []string `validate:"required,min=1"`
	Description string
}

// Session configures v0.1.0 sessions.
type Session struct {
	Endpoint    string        // default "/.well-known/agents/api/session"
	TTL         time.Duration // whole seconds, at least 60; default 30m
	MaxSessions int           `validate:"min=0"` // per agent; 0: undeclared
}

// Audit configures the v0.1.0 audit trail.
type Audit struct {
	Enabled   bool
	Endpoint  string // default URL + "/.well-known/agents/api/audit/:session_id"
	PublicKey string // standard base64 Ed25519 key that signs artifacts
}
