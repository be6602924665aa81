package enforcer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/authority"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/oauthrs"
	"github.com/agentready/agentready/internal/paramcheck"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/verify"
)

// Config configures an Enforcer. Only Policy is required.
type Config struct {
	// Policy is the compiled declaration.
	Policy *policy.Policy
	// Store holds the rate-limit buckets. Default: a MemoryStore.
	Store ratelimit.Store
	// ClientIP finds the client address limits are counted per. Default:
	// RemoteAddr only, no forwarding header trusted.
	ClientIP *clientip.Resolver
	// Key, when set, partitions buckets by what it returns (an API key, a
	// token subject) instead of the client address; when it returns false
	// the client address is used.
	Key enforce.KeyFunc
	// ByAgent counts every limit per agent policy only, across all clients.
	ByAgent bool
	// Authenticate checks credentials; without it only their presence is
	// enforced.
	Authenticate enforce.Authenticator
	// OnDecision receives every decision (log it, count it). It runs on the
	// request path: keep it fast and do not retain the Decision's Results.
	OnDecision func(enforce.Decision)
	// Classify, when set, replaces the policy's User-Agent classifier.
	Classify func(r *http.Request) policy.Class
	// Logger receives configuration problems found while serving (a route
	// bound to an undeclared capability). Default slog.Default().
	Logger *slog.Logger
	// ImplicitAIOnly applies draft-car 2.6's implicit rules only to
	// declared and known agents.
	ImplicitAIOnly bool
	// LenientRouting declares that the application may route a path
	// ignoring ASCII case and a trailing slash; the rules then hold on
	// every such spelling.
	LenientRouting bool
	// ReportOnly serves a request that would be denied, its decision with
	// ReportOnly set and its response with HeaderReportOnly.
	ReportOnly bool
	// LiteralPathParameters: the application reads a segment's ";" as
	// data; without it the path is decided on without its parameters too.
	LiteralPathParameters bool
	// DecisionField sets the Agentready-Decision field (HeaderDecision) of
	// every request passed to next to its decision, after removing any
	// copy the client sent.
	DecisionField bool
	// ProbePaths are exact request paths, and ProbeNets client networks
	// (CIDRs or addresses), served without enforcement.
	ProbePaths []string
	ProbeNets  []string
	// Hosts, when not empty, are the hosts (host or host:port, the site's
	// among them) an agent may name besides the address it arrived on.
	Hosts []string
	// Recorder, when set, checks and records the requests of v0.1.0
	// sessions; agentready wires its audit trail here.
	Recorder recorder
	// Shadow, when set, hears of every request and its decision before the
	// decision is carried out (agentready.WithShadow); it reads a body only
	// as the stages do (an MCP message, declared body params), and gives
	// it back as sent.
	Shadow func(r *http.Request, d enforce.Decision)
	// SignedRequests verifies the RFC 9421 signatures of requests to
	// capabilities that declare Auth: hmac (*verifier.RequestSignatures).
	// Without it, hmac needs Authenticate.
	SignedRequests signedRequests
	// Verifier checks claims to verified-only agent policies
	// (config.Verification); required when the policy has any.
	Verifier claimChecker
	// MCPSessions binds the sessions of MCP capabilities to who opened
	// them (internal/mcpsession); nil binds none.
	MCPSessions *mcpsession.Sessions
	// Tokens verify the JWT access tokens of the capabilities that declare
	// Auth.JWT or an Audience, by capability index (nil: none).
	Tokens []*oauthrs.Verifier
}

// claimChecker checks a request's claim to a verified-only agent policy;
// *verifier.Verifier is one. client is the client address (trusted proxies
// honoured), authority the request's host as the server sees it; record
// is false for Explain, which must not use up a signature's nonce.
type claimChecker interface {
	Verify(ctx context.Context, r *http.Request, client netip.Addr, authority, policy string, record bool) (verify.Identity, error)
	// Identify proves a signed request by any trusted key directory; an
	// error wrapping webbotauth.ErrNoSignature when it offers none.
	Identify(ctx context.Context, r *http.Request, authority string, record bool) (verify.Identity, error)
	// Checks reports whether claims to the agent name are checked.
	Checks(name string) bool
	// AcceptSignature is the Accept-Signature value to send when a claim
	// to policy is refused, "" when the policy accepts no signature.
	AcceptSignature(policy string) string
}

// recorder checks and records the requests of v0.1.0 sessions
// (internal/trail). Check is the session stage's, Start the recording
// layer's, after the stages: each may refuse more, never less, and
// neither runs a stage again.
type recorder interface {
	// Check looks up the session of r, decided as d, and returns d as the
	// session amends it and the session, nil when none is valid. pending,
	// when not nil, is the lookup Prefetch started for r: Check finishes it.
	Check(r *http.Request, d enforce.Decision, agent string, client netip.Prefix, pending *sessionmgr.Pending) (enforce.Decision, *session.Session)
	// Prefetch starts the lookup of r's session and returns the context to
	// take r's limits with (sessionmgr.Manager.Prefetch).
	Prefetch(r *http.Request) (context.Context, *sessionmgr.Pending)
	// Start begins recording r, a request of the valid session s, and
	// returns the writer to answer it through (a recording) and d as the
	// recording amends it.
	Start(w http.ResponseWriter, r *http.Request, d enforce.Decision, s *session.Session) (http.ResponseWriter, enforce.Decision)
}

// recording is the writer a recorder's Start returns: it binds the
// response's status to the request's audit event.
type recording interface {
	http.ResponseWriter
	// Begin records the event of a request about to be served; false
	// when it could not, and answered 503 itself.
	Begin() bool
	// Bind makes the event that of the capability a route binding behind
	// Wrap completed the decision d for, and returns d as it amends it.
	Bind(d enforce.Decision) enforce.Decision
	// Finish ends the recording once next has returned.
	Finish(r *http.Request)
}

// signedRequests verifies a request's HTTP Message Signature and returns
// the key id that signed it; *verifier.RequestSignatures is one. record is
// false for Explain (and a shadow declaration), which must not use up the
// signature's nonce.
type signedRequests interface {
	Verify(r *http.Request, record bool) (keyID string, err error)
}

// Enforcer applies a compiled policy to requests (chain.go). It is safe
// for concurrent use.
type Enforcer struct {
	p *policy.Policy
	// folded is the policy with its patterns and endpoints in lower case
	// (LenientRouting), nil otherwise; routes finds the capability of a
	// route pattern; querySensitive: a rule may decide a path and the path
	// with a query differently, so both are matched.
	folded         *policy.Policy
	routes         policy.RouteTable
	querySensitive bool
	implicitAI     bool
	// pathParams: a path is decided on without its ";" parameters too
	// (Config.LiteralPathParameters unset).
	pathParams bool
	// decisionField: Config.DecisionField.
	decisionField bool
	// previews are the known names of link previews and feed readers,
	// which pass as browsers (config.Access.LinkPreviews); nil otherwise.
	previews map[string]bool
	hosts    *authority.List // nil: any Host
	// usage is the site's usage preferences when it states any: every
	// response gets their Content-Usage header; enforceUsage refuses the
	// crawlers they deny.
	usage        *policy.Usage
	enforceUsage bool
	probes       probes

	// Who is calling: the User-Agent classifier, the client address, the
	// proofs of identity and declared auth. declared is the index of each
	// site policy by lower-case name, for the agent a signature proves.
	classFn  func(r *http.Request) policy.Class
	uas      *policy.UACache
	ip       *clientip.Resolver
	verifier claimChecker
	declared map[string]int
	signed   signedRequests
	authFn   enforce.Authenticator

	lim   limiter
	lines declLines
	rec   recorder
	mcp   *mcpsession.Sessions
	// tokens verify JWT access tokens, by capability (Config.Tokens).
	tokens []*oauthrs.Verifier
	// checks hold the calls of each REST capability to its declared
	// params (params.go), nil for one without, all nil unless
	// Access.EnforceParams or ReportOnly asks for the check.
	checks []*paramcheck.Checker
	// bound counts the route bindings made: while there are none, no
	// request's scope outlives Wrap (chain.go's exit).
	bound atomic.Int32

	// What hears of a decision.
	hook       func(enforce.Decision)
	shadow     func(*http.Request, enforce.Decision)
	reportOnly bool
	log        *slog.Logger
	// unverifiedLog is when an unavailable verification source was last
	// logged (unix nanoseconds): at most once a minute.
	unverifiedLog atomic.Int64
}

// declLines are the declaration's lines that denials name, worked out once.
type declLines struct {
	link       []string // Link: <agents.txt>; rel="describedby"
	allow      []string // "Allow: <pattern>" per Access.Allow index
	deny       []string // "Disallow: <pattern>" per Access.Disallow index
	challenges []string // WWW-Authenticate per capability ("" when none)
	auth       []string // "Auth: bearer-token" per capability
	// toolChallenges is WWW-Authenticate per tool of each capability,
	// naming the capability's scopes and the tool's.
	toolChallenges [][]string
}

// New returns an Enforcer for cfg, reporting every configuration problem.
func New(cfg Config) (*Enforcer, error) {
	if cfg.Policy == nil {
		return nil, errors.New("enforce: Config.Policy is nil")
	}
	p := cfg.Policy
	site := p.Site()
	e := &Enforcer{p: p, ip: cfg.ClientIP, authFn: cfg.Authenticate, hook: cfg.OnDecision, classFn: cfg.Classify, log: cfg.Logger,
		rec: cfg.Recorder, mcp: cfg.MCPSessions, verifier: cfg.Verifier, signed: cfg.SignedRequests, shadow: cfg.Shadow,
		implicitAI: cfg.ImplicitAIOnly && p.Implicit, reportOnly: cfg.ReportOnly, pathParams: !cfg.LiteralPathParameters,
		decisionField: cfg.DecisionField}
	var errs []error
	if site.Access.LinkPreviews {
		// The classifier names a known agent as listed: worked out here,
		// a request's check is one lookup.
		e.previews = map[string]bool{}
		for _, n := range policy.KnownAgents() {
			if policy.IsPreview(n) {
				e.previews[n] = true
			}
		}
	}
	hs, err := authority.New(cfg.Hosts)
	if err != nil {
		errs = append(errs, fmt.Errorf("enforce: %w", err))
	}
	e.hosts = hs
	for _, path := range cfg.ProbePaths {
		if e.probes.paths == nil {
			e.probes.paths = map[string]bool{}
		}
		e.probes.paths[path] = true
	}
	for _, n := range cfg.ProbeNets {
		pfx, err := clientip.ParsePrefix(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("enforce: probe network %q: %w", n, err))
			continue
		}
		e.probes.nets = append(e.probes.nets, pfx)
	}
	store := cfg.Store
	if store == nil {
		ms, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
		if err != nil {
			return nil, err // unreachable: the zero MemoryConfig is valid
		}
		store = ms
	}
	if e.ip == nil {
		e.ip, _ = clientip.New(nil)
	}
	e.uas = policy.NewUACache()
	if e.log == nil {
		e.log = slog.Default()
	}
	e.lines = newDeclLines(p)
	for i := range p.Capabilities {
		c := &p.Capabilities[i]
		if UnverifiedHMAC(c.Auth, e.authFn != nil, e.signed != nil) {
			errs = append(errs, fmt.Errorf("enforce: capability %q: %s", c.ID, HMACProblem))
		}
		if (c.Auth.JWT || c.Auth.Audience != "") && (i >= len(cfg.Tokens) || cfg.Tokens[i] == nil) {
			errs = append(errs, fmt.Errorf("enforce: capability %q verifies JWTs and Config.Tokens has no verifier for it", c.ID))
		}
	}
	e.tokens = make([]*oauthrs.Verifier, len(p.Capabilities))
	copy(e.tokens, cfg.Tokens)
	e.checks = newChecks(p, site.Access.EnforceParams || cfg.ReportOnly, cfg.LenientRouting)
	e.routes = policy.NewRouteTable(p)
	e.querySensitive = policy.QuerySensitive(p.Rules)
	if cfg.LenientRouting {
		var err error
		if e.folded, err = policy.Compile(policy.FoldSite(site)); err != nil {
			errs = append(errs, fmt.Errorf("enforce: the declaration in lower case (LenientRouting): %w", err))
		}
	}
	if !p.Usage.IsZero() {
		e.usage, e.enforceUsage = p.Usage, site.Usage.Enforce
	}
	if cfg.Verifier == nil {
		for _, a := range p.Agents {
			if a.Checked() {
				errs = append(errs, fmt.Errorf("enforce: agent policy %q is verified-only or graded, and Config.Verifier is nil", a.Name))
			}
		}
	}
	e.declared = map[string]int{}
	for i, a := range site.Agents {
		if a.Name != "*" {
			e.declared[strings.ToLower(a.Name)] = i
		}
	}
	var limErrs []error
	e.lim, limErrs = newLimiter(p, store, cfg.Key, cfg.ByAgent)
	if errs = append(errs, limErrs...); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return e, nil
}

// newDeclLines works out the lines of p that denials name.
func newDeclLines(p *policy.Policy) declLines {
	var l declLines
	site := p.Site()
	if link, err := problem.DescribedBy(resolve.Origin(site) + "/.well-known/agents.txt"); err == nil {
		l.link = []string{link}
	}
	for _, a := range site.Access.Allow {
		l.allow = append(l.allow, "Allow: "+a)
	}
	if p.Implicit {
		// draft-car 2.6's implicit rules name capability endpoints, by the
		// index of the pattern that admitted them.
		for _, r := range p.Rules.List() {
			if r.Allow {
				for len(l.allow) <= r.Index {
					l.allow = append(l.allow, "")
				}
				l.allow[r.Index] = "capability endpoint " + r.Pattern
			}
		}
	}
	for _, d := range site.Access.Disallow {
		l.deny = append(l.deny, "Disallow: "+d)
	}
	for i := range p.Capabilities {
		c := &p.Capabilities[i]
		l.challenges = append(l.challenges, challenge(site, c.Decl, &c.Auth))
		l.auth = append(l.auth, "Auth: "+string(resolve.AuthType(c.Auth)))
		var tools []string
		for _, t := range c.Tools {
			tools = append(tools, challenge(site, c.Decl, &t.Decl.Auth))
		}
		l.toolChallenges = append(l.toolChallenges, tools)
	}
	return l
}

// ruleText is the declaration line of a matched rule.
func (e *Enforcer) ruleText(r *policy.Rule) string {
	if e.p.Implicit && !r.Allow {
		return "no Allow/Disallow declared (draft-car 2.6)"
	}
	if r.Allow {
		if r.Index < len(e.lines.allow) {
			return e.lines.allow[r.Index]
		}
	} else if r.Index < len(e.lines.deny) {
		return e.lines.deny[r.Index]
	}
	return r.Pattern
}
