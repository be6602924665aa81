package enforce

import (
	"net/http"

	"github.com/agentready/agentready/config"
)

// Authenticator checks a credential's validity for a capability. It is the
// site's hook: agentready itself only sees that a credential of the declared
// kind is present. Return nil to accept, an error (whose text is sent in
// the 401 detail) to reject.
type Authenticator func(r *http.Request, c *config.Capability, credential string) error

// KeyFunc returns the identity rate limits are counted under for a request.
type KeyFunc func(r *http.Request) (id string, ok bool)

// HeaderReportOnly names, on a response served in report-only mode, the
// decision that would have applied: the outcome, then the status and the
// rule as structured-field parameters (RFC 9651), as in
// `deny-path;status=403;rule="Disallow: /admin/*"`.
const HeaderReportOnly = "Agentready-Report-Only"

// HeaderDecision names, on a request agentready passes on (every request
// agentready serve forwards; in process with agentready.WithDecisionHeader),
// the decision taken on it: an RFC 9651 dictionary of policy (String),
// class, grade and purpose (Tokens), capability (String, absent when
// none), rule (String) and outcome (Token), such as
//
//	policy="GPTBot", class=known, grade=claimed, purpose=training-crawler, capability="product-search", rule="Allow: /api/*", outcome=allow
//
// A copy the client sent is removed first. It is trustworthy only on a
// request that comes from agentready: an application reachable otherwise
// must not believe it.
const HeaderDecision = "Agentready-Decision"

// Rules of a Pass for an infrastructure probe (agentready.Clients
// ProbePaths and ProbeNets).
const (
	RuleProbePath    = "probe path"
	RuleProbeNetwork = "probe network"
)

// RuleLinkPreview is the Rule of a Pass for a link preview or feed
// reader the site serves as a browser (config.Access.LinkPreviews).
const RuleLinkPreview = "link preview (access.link_previews)"

// Rule names for session decisions (Decision.Rule).
const (
	// RuleRequiresSession: the capability declares requires_session and the
	// request has no valid X-Agent-Session (v0.1.0: 401).
	RuleRequiresSession = "requires_session"
	// RuleSessionStore: the request presents an X-Agent-Session that the
	// session store could not look up (it is down): 503, whatever the
	// capability, since a valid session's action must be recorded.
	RuleSessionStore = "session store unavailable"
	// RuleSessionEndpoint is the Decision.Rule of an allowed request to the
	// v0.1.0 session endpoint: it is exempt from path rules, and only the
	// rate limits apply.
	RuleSessionEndpoint = "session endpoint (rate limits only)"
)
