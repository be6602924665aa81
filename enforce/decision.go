package enforce

import (
	"net/netip"
	"time"

	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/verify"
)

// Outcome is what the enforcer decided for one request.
type Outcome uint8

// Outcomes. Only Pass and Allow let the request through.
const (
	// Pass: not an agent (a browser); the request is not touched.
	Pass Outcome = iota
	// Allow: an agent request every declared rule permits.
	Allow
	// DenyPath: an Allow/Disallow rule (or draft-car 2.6's implicit rule)
	// closes the path to agents: 403.
	DenyPath
	// DenyCapability: the agent's policy does not list the capability: 403.
	DenyCapability
	// DenyAuth: the capability's declared auth is missing or rejected: 401.
	DenyAuth
	// DenyRate: a declared rate limit is exhausted: 429.
	DenyRate
	// StoreError: the rate-limit store failed; see Decision.Err.
	StoreError
	// DenySession: the capability requires a v0.1.0 session and the
	// request has no valid X-Agent-Session (missing, unknown, expired,
	// foreign): 401 (503 when the session store fails). Err says which.
	DenySession
	// DenyTarget: the request target is one routers read differently (an
	// encoded '/', a dot segment, a NUL): 400. Err is the
	// *policy.TargetError.
	DenyTarget
	// DenyBody: a request recorded in an audit trail has a body over the
	// capability's BodyLimit (413) or one the trail cannot record (400).
	// Err says which.
	DenyBody
	// DenyIdentity: the request claims a verified-only agent policy and
	// does not prove it: 403. Err wraps verify.ErrFailed.
	DenyIdentity
	// DenyPreference: the site's enforced usage preference for the path
	// denies the agent's purpose ("Content-Usage: train-ai=n"): 403.
	DenyPreference
	// DenyHost: the request names a host the declaration does not speak
	// for (agentready.Clients.Hosts, serve's hosts): 421.
	DenyHost
	// DenyParams: a call of a capability whose params are not as declared
	// (a required one missing, a wrong type, a value outside its enum or
	// bounds; config.Access.EnforceParams, docs/enforcement.md): 400. Err
	// names every param at fault.
	DenyParams
)

var outcomeNames = [...]string{"pass", "allow", "deny-path", "deny-capability", "deny-auth", "deny-rate", "store-error", "deny-session", "deny-target", "deny-body", "deny-identity", "deny-preference", "deny-host", "deny-params"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// MarshalText makes an Outcome log by name in JSON, not as a number.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Allowed reports whether the request is let through.
func (o Outcome) Allowed() bool { return o == Pass || o == Allow }

// Decision is what the enforcer decided for one request, and why. It is
// handed to the decision hook by value and returned by Explain.
type Decision struct {
	Outcome Outcome
	// Method and Path are the request's (r.Method, r.URL.Path), and Client
	// the client's address (trusted proxies honoured; set for agent
	// requests), so that a decision logged on its own says which request
	// it was. They are request data: never use them as metric labels.
	Method, Path string
	Client       netip.Addr
	// Status is the HTTP status of a denial (403, 401, 429, 503), 0 when the
	// request is let through.
	Status int
	// Class is how the client was classified.
	Class Class
	// Agent is the name of the agent policy that applied ("claude", "*"),
	// "" when none did.
	Agent string
	// Grade is how much of who the client is was proven (docs/design.md,
	// "Grades of identity"): GradeProven, GradeClaimed or GradeAnonymous.
	// A browser that passes untouched is GradeAnonymous.
	Grade string
	// Identity is who the agent claims to be and how that was proven
	// (verify.None unless a claim was checked and proven).
	Identity verify.Identity
	// Unverified is set when the request claimed a verified-only policy,
	// could not prove it, and was served under the "*" policy instead.
	Unverified bool
	// Capability is the ID of the capability the request addresses, "" when
	// it addresses none.
	Capability string
	// Tool is the declared MCP tool a tools/call to the capability names
	// (config.Tool.Name), "" for any other request and for a tool the
	// capability does not list (docs/mcp.md).
	Tool string
	// Rule is the declared rule that decided, as written in agents.txt:
	// "Disallow: /admin/*", "Allow: /api/*", "Agent: claude / Capabilities:
	// product-search", "Auth: bearer-token", "Rate-Limit: 60/minute". It is
	// "" when no rule applied.
	Rule string
	// Limit is the name of the rate limit that denied the request
	// ("capability/product-search"), "" otherwise.
	Limit string
	// Limits are the names of the limits that applied, in order (site,
	// agent, capability, tool), and Results what the store answered for
	// each.
	Limits  [4]string
	Results [4]ratelimit.Result
	// RetryAfter is, for DenyRate, the time until every limit has a token.
	RetryAfter time.Duration
	// Err is the store's error for StoreError or a Degraded decision, the
	// credential check's error for DenyAuth, or why a checked claim was
	// not proven (DenyIdentity, or a claim served as claimed).
	Err error
	// PresenceOnly is set when the capability's declared auth was checked
	// for the credential's presence only: no Authenticator is configured.
	PresenceOnly bool
	// ReportOnly is set when the enforcer runs in report-only mode and this
	// decision, a denial, was not applied: the request was served.
	ReportOnly bool
	// Degraded is set when the rate-limit store answered by its failure
	// policy (ratelimit.NewFailover); Err wraps ratelimit.ErrDegraded.
	Degraded bool
}

// Grades of identity, the values of Decision.Grade. They are few and
// fixed: a metric may use them as a label.
const (
	// GradeProven: a proof the site or agentready's operator data trusts
	// names the agent's operator: a valid Web Bot Auth signature by a key
	// from a trusted directory, an address in the operator's published IP
	// ranges, or forward-confirmed reverse DNS in its domains.
	GradeProven = "proven"
	// GradeClaimed: the User-Agent names a declared or known agent and
	// nothing proves it (no proof was offered, none was checked, or the
	// check failed).
	GradeClaimed = "claimed"
	// GradeAnonymous: neither a name nor a proof.
	GradeAnonymous = "anonymous"
)

// Class is how a client was classified, from its User-Agent.
type Class struct {
	// Kind says what made the client an agent: KindDeclared (a name of one
	// of the site's agent policies), KindKnown (a known AI agent or
	// crawler), KindGeneric (an HTTP library, a command-line tool, a
	// headless browser) or KindUnknown (nothing listed, an empty or
	// unreadable User-Agent); or KindBrowser, a plausible browser, which
	// is not an agent.
	Kind string
	// Name is the canonical name that matched: the declared policy name as
	// written, the known agent's or generic client's name as listed; "" for
	// a browser and an unknown client.
	Name string
	// Purpose is the agent's purpose, one of the Purpose constants: the
	// proven purpose when a proof names the agent and its operator
	// declares one (Identity.Purpose), else the known purpose of the name
	// that matched; PurposeUnknown when neither says.
	Purpose string
}

// Class kinds.
const (
	KindBrowser  = "browser"
	KindDeclared = "declared"
	KindKnown    = "known"
	KindGeneric  = "generic"
	KindUnknown  = "unknown"
)

// Purposes of known agents, from their operators' pages.
const (
	PurposeUnknown = "unknown"
	// PurposeTrainingCrawler crawls to train AI models.
	PurposeTrainingCrawler = "training-crawler"
	// PurposeSearchCrawler crawls to build a search index.
	PurposeSearchCrawler = "search-crawler"
	// PurposeUserAgent fetches on a person's request (a user-triggered
	// fetcher, an AI assistant or agent acting for someone): never a
	// crawler.
	PurposeUserAgent = "user-agent"
)
