package config

import "time"

// Site is the whole declaration: what agents may do on one site. It is plain
// data; agentready.New validates it (see Validate) and compiles it once.
//
// One Site feeds every published format. Each field documents the formats it
// is rendered into, using these short names:
//
//	draft-car  agents.txt / agents.json of draft-car-agents-txt-wellknown-00
//	v0.1.0     agents.txt Format Specification v0.1.0 and its agents.json
//	agents.md  agents.md Protocol 1.0.0-draft
//	AWP        Agent Web Protocol v0.2 agent.json
//	agent://   draft-narvaneni-agent-uri-03 registry and descriptors
type Site struct {
	// Name is the human-readable site name. Required.
	// draft-car Site-Name (2.4); v0.1.0 Site; agents.md H1; AWP (none).
	Name string `validate:"required"`
	// URL is the canonical site URL, https (http only for localhost or with
	// Formats.AllowHTTP). Required. draft-car Site-URL; v0.1.0 URL; the AWP
	// domain and the agent:// authority default to its host.
	URL string `validate:"required"`
	// Description is a brief description. draft-car Site-Description;
	// v0.1.0 Description; agents.md paragraph under the H1; AWP intent when
	// AWP.Intent is empty; the derived agent:// descriptor's description.
	Description string
	// Contact is an email address for agent-related inquiries (draft-car
	// Site-Contact requires an email; v0.1.0 and agents.md also accept a URL).
	Contact string
	// PrivacyPolicy is the URL of the site's privacy policy
	// (draft-car Site-Privacy-Policy).
	PrivacyPolicy string
	// DeclarationType is "platform" (default, omitted when rendering) or
	// "agent" (draft-car 2.3).
	DeclarationType string `validate:"omitempty,oneof=platform agent"`
	// OperatesOn lists platform URLs an agent declaration operates on
	// (draft-car 2.3 Operates-On); only meaningful with DeclarationTypeAgent.
	OperatesOn []string
	// GeneratedAt is rendered as Generated-At / generatedAt when set. It is
	// never filled in automatically: output stays deterministic.
	GeneratedAt time.Time
	// Version is the version of the site's agent interface, used for the
	// derived agent:// descriptor (SemVer). Default "1.0.0".
	Version string

	// Capabilities are the actions the site sanctions for agents.
	Capabilities []Capability `validate:"dive"`
	// Access holds the Allow/Disallow path patterns (draft-car 2.6).
	Access Access
	// Agents are the per-agent policies (draft-car 2.7). Name "*" is the
	// default policy.
	Agents []AgentPolicy `validate:"dive"`

	// Flows are suggested multi-step workflows (v0.1.0 Flow /
	// Flow-Description). Each step names a capability ID.
	Flows []Flow `validate:"dive"`
	// RateLimit is the site-wide limit (v0.1.0 Rate-Limit, which only has a
	// per-minute form; rendered there as requests per minute).
	RateLimit Rate
	// Usage says what the site's content may be used for (training,
	// search, AI input), site-wide and per path: published in robots.txt
	// and as a Content-Usage response header, enforced with Usage.Enforce.
	Usage Usage
	// Session configures v0.1.0 sessions.
	Session Session
	// Audit configures the v0.1.0 audit trail.
	Audit Audit
	// DocsURL is the URL of human-readable documentation of the site's agent
	// integration (v0.1.0 agents.json docs_url).
	DocsURL string
	// AgentsJSONURL is rendered as the Agents-JSON line of agents.txt.
	// Default: URL + "/.well-known/agents.json" in the v0.1.0 dialect (whose
	// example carries it), omitted in draft-car.
	AgentsJSONURL string
	// Metadata is free string metadata (draft-car agents.json "metadata").
	Metadata map[string]string

	// AgentsMD holds what only agents.md carries.
	AgentsMD AgentsMD
	// AWP holds what only the AWP agent.json carries.
	AWP AWP
	// HostedAgents are agent:// agents hosted by this site. When empty, the
	// site itself is published as one agent whose skills are its
	// capabilities (see PublishedAgents).
	HostedAgents []HostedAgent `validate:"dive"`
}

// Declaration types (draft-car 2.3), the values of Site.DeclarationType.
const (
	DeclarationPlatform = "platform"
	DeclarationAgent    = "agent"
)

// Access lists path patterns in robots.txt syntax: a prefix match, "*"
// matches any run of characters, a trailing "$" anchors the end. The longest
// pattern wins; Allow wins a tie. When both lists are empty, agents may use
// only the paths of declared capability endpoints (draft-car 2.6).
type Access struct {
	Allow    []string
	Disallow []string
}

// AgentPolicy is one Agent block (draft-car 2.7).
type AgentPolicy struct {
	// Name is the agent identifier, matched case-insensitively against the
	// User-Agent's product tokens; "*" is the default policy.
	Name string `validate:"required"`
	// RateLimit applies to this agent (per client by default).
	RateLimit Rate
	// Capabilities lists the capability IDs this agent may use; nil means
	// all declared capabilities.
	Capabilities []string
	// AgentDeclaration is the URL of the agent operator's own agents.txt.
	AgentDeclaration string
	// Verify makes the policy verified-only: its limit and capabilities go
	// only to a client that proves it is the agent it names (a Web Bot
	// Auth signature, an address in the operator's published ranges, a
	// forward-confirmed reverse DNS name). See Verification.
	Verify Verification
}

// Verification says how the claim to a verified-only agent policy is
// proven (docs/design.md, "Verified agents"). The sources default to what
// the known-agent data holds for the policy's Name (package verify), so
// that marking a well-known agent verified needs no URL:
//
//	{Name: "ChatGPT-User", Verify: config.Verification{Required: true}}
type Verification struct {
	// Required makes the policy verified-only. A claim that is not proven
	// never gets the policy's grants: it is refused with 403 problem+json
	// naming the failed verification, or, with FallBack, served under the
	// "*" policy. A claim that cannot be checked because a source cannot
	// answer (a range list not loaded or too old, a DNS timeout, a key
	// directory unreachable) is served under "*", and the failure logged.
	Required bool
	// Methods are the accepted methods; empty accepts any method that has
	// a source.
	Methods []string
	// SignatureAgents are the origins of the Web Bot Auth key directories
	// trusted for this agent ("https://chatgpt.com"); only these are ever
	// fetched. Nil: the known-agent data's.
	SignatureAgents []string
	// IPRanges are the URLs of the operator's published IP range lists
	// ({"prefixes": [{"ipv4Prefix": ...}]}). Nil: the known-agent data's.
	IPRanges []string
	// ReverseDNS are the domains a forward-confirmed reverse DNS name must
	// be in ("googlebot.com"). Nil: the known-agent data's.
	ReverseDNS []string
	// FallBack serves an unproven claim under the "*" policy instead of
	// refusing it.
	FallBack bool
}

// Verification methods, the values of Verification.Methods: the ways to
// prove an agent's identity.
const (
	// VerifySignature: a Web Bot Auth signature (RFC 9421) by a key in a
	// trusted key directory.
	VerifySignature = "signature"
	// VerifyIPRange: the client address is in the operator's published
	// IP ranges.
	VerifyIPRange = "ip-range"
	// VerifyReverseDNS: the client address has a PTR name in the
	// operator's domains whose own addresses include it (forward-confirmed
	// reverse DNS).
	VerifyReverseDNS = "reverse-dns"
)

// Flow is a v0.1.0 suggested workflow.
type Flow struct {
	Name        string   `validate:"required"`
	Steps       []string `validate:"required,min=1"`
	Description string
}

// Session configures v0.1.0 sessions.
type Session struct {
	// Endpoint is the session endpoint path. Default
	// "/.well-known/agents/api/session".
	Endpoint string
	// TTL is the hard session lifetime (v0.1.0 Session-TTL, whole seconds,
	// at least 60). Zero means the default of 1800 s; it is rendered only
	// when set or when a capability requires a session.
	TTL time.Duration
	// MaxSessions is the number of concurrent sessions per agent
	// (agents.json rate_limit.max_sessions). Zero: not declared.
	MaxSessions int `validate:"min=0"`
}

// Audit configures the v0.1.0 audit trail.
type Audit struct {
	Enabled bool
	// Endpoint is the URL agents retrieve audit artifacts from; the
	// agents.txt form carries a ":session_id" placeholder. Default
	// URL + "/.well-known/agents/api/audit/:session_id".
	Endpoint string
	// PublicKey is the base64-encoded (standard encoding) Ed25519 public key
	// that signs audit artifacts.
	PublicKey string
}
