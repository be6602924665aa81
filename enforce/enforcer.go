package enforce

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/ratelimit"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/sessionmgr"
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
	ClientIP *ClientIP
	// Key, when set, partitions buckets by what it returns (an API key, a
	// token subject) instead of the client address; when it returns false
	// the client address is used.
	Key KeyFunc
	// ByAgent counts every limit per agent policy only, across all clients.
	ByAgent bool
	// Authenticate checks credentials; without it only their presence is
	// enforced.
	Authenticate Authenticator
	// OnDecision receives every decision (log it, count it). It runs on the
	// request path: keep it fast and do not retain the Decision's Results.
	OnDecision func(Decision)
	// Classify, when set, replaces the policy's User-Agent classifier: it
	// says whether the request is an agent's and which declared policy
	// (Class.Policy, an index into Policy.Agents) applies.
	Classify func(r *http.Request) policy.Class
	// Logger receives configuration problems found while serving (a route
	// bound to an undeclared capability). Default slog.Default().
	Logger *slog.Logger
	// ImplicitAIOnly applies draft-car 2.6's implicit rules (a site that
	// declares no Allow or Disallow, Policy.Implicit) only to declared and
	// known agents; generic and unknown clients are then subject to no
	// path rule. Capability scope, auth and limits apply to all agents.
	ImplicitAIOnly bool
	// LenientRouting declares that the application, or the upstream behind
	// a proxy, may route a path ignoring ASCII case and a trailing slash
	// (Express's defaults, ASP.NET): the rules and capability endpoints
	// then hold on every such spelling (see readings.go).
	LenientRouting bool
	// ReportOnly decides and reports every request but denies none: a
	// request that would be denied is served, its decision (with
	// ReportOnly set) goes to OnDecision, and its response carries the
	// HeaderReportOnly header.
	ReportOnly bool
	// ProbePaths are exact request paths served to any client without
	// enforcement (health checks); ProbeNets are client networks (CIDRs or
	// addresses) whose requests are (load balancers, orchestrators); see
	// fromProbeNetwork for requests a proxy forwards.
	ProbePaths []string
	ProbeNets  []string
	// Sessions, when set, enforces v0.1.0 sessions: a session-required
	// capability answers 401 without a valid X-Agent-Session, and a valid
	// session is put in the request context (session.FromContext).
	Sessions *sessionmgr.Manager
	// Removed, when set, names the capability a reload removed (and when)
	// that a request (method, path) addressed: a request the current
	// declaration routes to no capability, carrying a session created
	// before the removal, is refused (DenyCapability), and the refusal
	// recorded in its audit trail.
	Removed func(method, path string) (id string, at time.Time, ok bool)
	// Shadow, when set, is called with every request and its decision,
	// before the decision is applied (agentready.WithShadow). It must not
	// read the body.
	Shadow func(r *http.Request, d Decision)
	// SignedRequests verifies the RFC 9421 signatures of requests to
	// capabilities that declare Auth: hmac (*verify.RequestSignatures).
	// Without it, hmac needs Authenticate.
	SignedRequests SignedRequests
	// Verifier checks claims to verified-only agent policies
	// (config.Verification); required when the policy has any.
	Verifier Verifier
	// Audit, when set with Sessions, records every request carrying a
	// valid session as one audit event; a request whose event cannot be
	// recorded fails closed with 503. The store's Redactor applies.
	// Events are timestamped by the Sessions clock (sessionmgr.Config.Now),
	// which also dates the sessions themselves.
	Audit audit.Store
}

// Verifier checks a request's claim to a verified-only agent policy;
// *verify.Verifier is one. client is the client address (trusted proxies
// honoured), authority the request's host as the server sees it; record
// is false for Explain, which must not use up a signature's nonce.
type Verifier interface {
	Verify(ctx context.Context, r *http.Request, client netip.Addr, authority, policy string, record bool) (verify.Identity, error)
}

// SignedRequests verifies a request's HTTP Message Signature and returns
// the key id that signed it; *verify.RequestSignatures is one. record is
// false for Explain (and a shadow declaration), which must not use up the
// signature's nonce.
type SignedRequests interface {
	Verify(r *http.Request, record bool) (keyID string, err error)
}

// KeyFunc returns the identity rate limits are counted under for a request.
type KeyFunc func(r *http.Request) (id string, ok bool)

// Enforcer applies a compiled policy to requests: classify, access,
// capability scope, declared auth, rate limits. It is safe for concurrent
// use.
type Enforcer struct {
	p       *policy.Policy
	store   ratelimit.Store
	ip      *ClientIP
	key     KeyFunc
	byAgent bool
	auth    Authenticator
	hook    func(Decision)
	classFn func(r *http.Request) policy.Class
	log     *slog.Logger

	implicitAI bool
	reportOnly bool
	probePaths map[string]bool
	probeNets  []netip.Prefix

	sessions *sessionmgr.Manager
	verifier Verifier
	signed   SignedRequests
	shadow   func(*http.Request, Decision)
	removed  func(method, path string) (string, time.Time, bool)
	// usage is the site's usage preferences when it states any: every
	// response gets their Content-Usage header; enforceUsage refuses the
	// crawlers they deny.
	usage        *policy.Usage
	enforceUsage bool
	// unverifiedLog is when an unavailable verification source was last
	// logged (unix nanoseconds): at most once a minute.
	unverifiedLog atomic.Int64
	audit         audit.Store
	// auditOwned: audit is one of the audit package's stores, which keep
	// nothing of an event but its serialisation; auditMem: the MemoryStore,
	// which looks at its context on entry only.
	auditOwned, auditMem bool

	link       []string // Link: <agents.txt>; rel="describedby"
	allowText  []string // "Allow: <pattern>" per Access.Allow index
	denyText   []string // "Disallow: <pattern>" per Access.Disallow index
	challenges []string // WWW-Authenticate per capability ("" when none)
	authText   []string // "Auth: bearer-token" per capability
	combos     []combo  // per (agent+1)*(capabilities+1) + capability+1
	capOnly    []combo  // per capability: its own limit alone (serveBound)
	bound      atomic.Int32
	// folded is the policy with its patterns and endpoints in lower case
	// (LenientRouting), nil otherwise; routes finds the capability of a
	// route pattern.
	folded *policy.Policy
	routes routeTable
	// querySensitive: a rule may decide a path and the path with a query
	// differently, so both are matched.
	querySensitive bool
	scratchPool    sync.Pool
}

// scratch holds the slices handed to a Store other than the MemoryStore,
// pooled so that the request path allocates nothing: slices passed through
// an interface escape. The MemoryStore is called directly, on the stack.
type scratch struct {
	limits  [3]ratelimit.Limit
	results [3]ratelimit.Result
}

// Header keys in canonical form, so that header maps are written directly.
var (
	keyRateLimit       = http.CanonicalHeaderKey(headerRateLimit)
	keyRateLimitPolicy = http.CanonicalHeaderKey(headerRateLimitPolicy)
	keyLink            = "Link"
)

// New returns an Enforcer for cfg, reporting every configuration problem.
func New(cfg Config) (*Enforcer, error) {
	if cfg.Policy == nil {
		return nil, errors.New("enforce: Config.Policy is nil")
	}
	p := cfg.Policy
	e := &Enforcer{p: p, store: cfg.Store, ip: cfg.ClientIP, key: cfg.Key, byAgent: cfg.ByAgent,
		auth: cfg.Authenticate, hook: cfg.OnDecision, classFn: cfg.Classify, log: cfg.Logger,
		sessions: cfg.Sessions, verifier: cfg.Verifier, signed: cfg.SignedRequests, shadow: cfg.Shadow, removed: cfg.Removed, implicitAI: cfg.ImplicitAIOnly && p.Implicit, reportOnly: cfg.ReportOnly}
	for _, path := range cfg.ProbePaths {
		if e.probePaths == nil {
			e.probePaths = map[string]bool{}
		}
		e.probePaths[path] = true
	}
	if cfg.Sessions != nil && cfg.Audit != nil {
		e.audit = cfg.Audit
		e.auditOwned = builtinAudit(cfg.Audit)
		_, e.auditMem = cfg.Audit.(*audit.MemoryStore)
	}
	for _, n := range cfg.ProbeNets {
		pfx, err := parseTrusted(n)
		if err != nil {
			return nil, fmt.Errorf("enforce: probe network %q: %w", n, err)
		}
		e.probeNets = append(e.probeNets, pfx)
	}
	e.scratchPool.New = func() any { return new(scratch) }
	var errs []error
	if e.store == nil {
		ms, err := ratelimit.NewMemoryStore()
		if err != nil {
			return nil, err
		}
		e.store = ms
	}
	if e.ip == nil {
		e.ip, _ = NewClientIP(nil)
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	site := p.Site()
	if link, err := problem.DescribedBy(resolve.Origin(site) + "/.well-known/agents.txt"); err == nil {
		e.link = []string{link}
	}
	for _, a := range site.Access.Allow {
		e.allowText = append(e.allowText, "Allow: "+a)
	}
	if p.Implicit {
		// draft-car 2.6's implicit rules name capability endpoints, by the
		// index of the pattern that admitted them.
		for _, r := range p.Rules.List() {
			if r.Allow {
				for len(e.allowText) <= r.Index {
					e.allowText = append(e.allowText, "")
				}
				e.allowText[r.Index] = "capability endpoint " + r.Pattern
			}
		}
	}
	for _, d := range site.Access.Disallow {
		e.denyText = append(e.denyText, "Disallow: "+d)
	}
	for i := range p.Capabilities {
		c := &p.Capabilities[i]
		e.challenges = append(e.challenges, challenge(site, &c.Auth))
		e.authText = append(e.authText, "Auth: "+string(resolve.AuthType(c.Auth)))
		if resolve.AuthType(c.Auth) == config.AuthHMAC && e.auth == nil && e.signed == nil {
			// Presence-only would take any Signature value for a valid one.
			errs = append(errs, fmt.Errorf("enforce: capability %q: Auth hmac asks for a signed request (RFC 9421): "+
				"give the signing keys (agentready.WithRequestSignatures), or check it yourself (agentready.WithAuthenticator), or declare another auth type", c.ID))
		}
	}
	e.routes = newRouteTable(p)
	e.querySensitive = querySensitive(p.Rules)
	if cfg.LenientRouting {
		var err error
		if e.folded, err = policy.Compile(foldSite(site)); err != nil {
			errs = append(errs, fmt.Errorf("enforce: the declaration in lower case (LenientRouting): %w", err))
		}
	}
	if !p.Usage.IsZero() {
		e.usage, e.enforceUsage = p.Usage, site.Usage.Enforce
	}
	if cfg.Verifier == nil {
		for _, a := range p.Agents {
			if a.Verified {
				errs = append(errs, fmt.Errorf("enforce: agent policy %q is verified-only, and Config.Verifier is nil", a.Name))
			}
		}
	}
	// RateLimit-Policy, and the fixed parts of RateLimit, for every
	// combination of agent policy and capability.
	nc := len(p.Capabilities) + 1
	e.combos = make([]combo, (len(p.Agents)+1)*nc)
	for ai := -1; ai < len(p.Agents); ai++ {
		for ci := -1; ci < len(p.Capabilities); ci++ {
			cb := &e.combos[(ai+1)*nc+ci+1]
			cb.n = declaredLimits(p, &cb.limits, ai, ci)
			if ai >= 0 {
				cb.agent = p.Agents[ai].Name
			}
			if cb.n == 0 {
				continue
			}
			v, err := policyHeader(cb.limits[:cb.n])
			if err != nil {
				errs = append(errs, err)
				continue
			}
			cb.policy, cb.rateLimit = []string{v}, newRateLimitField(cb.limits[:cb.n])
		}
	}
	e.capOnly = make([]combo, len(p.Capabilities))
	for ci, c := range p.Capabilities {
		if c.Limit.IsZero() {
			continue
		}
		l := []ratelimit.Limit{{Name: c.Limit.Name, Rate: c.Limit.Rate, Period: c.Limit.Period}}
		v, err := policyHeader(l)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e.capOnly[ci] = combo{policy: []string{v}, rateLimit: newRateLimitField(l)}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return e, nil
}

// combo is what is precomputed for one (agent policy, capability) pair.
type combo struct {
	policy    []string       // RateLimit-Policy value
	rateLimit rateLimitField // renders its RateLimit values
	// limits are the pair's limits (see declaredLimits), n of them, with
	// an empty Key for limits to fill per request.
	limits [3]ratelimit.Limit
	n      int
	agent  string // the agent policy's name, "" for none
}

// limits fills ls with the limits that apply to a request of agent policy
// ai and capability ci (-1 for none) and returns how many. All of them
// share one Key: the client's, partitioned by agent policy (two agents
// behind one address do not share buckets), or the agent policy alone with
// ByAgent. One Key means one bucket group in the store: one lookup in
// memory, one hash slot in Redis. The limits were worked out in New; a
// request only copies them and sets the Key.
func (e *Enforcer) limits(ls *[3]ratelimit.Limit, ai, ci int, client ratelimit.Key) int {
	cb := &e.combos[(ai+1)*(len(e.p.Capabilities)+1)+ci+1]
	k := client
	if e.byAgent {
		k = ratelimit.Key{ID: cb.agent}
	} else if k.ID == "" {
		k.ID = cb.agent
	}
	n := cb.n
	for i := range n {
		ls[i] = cb.limits[i]
		ls[i].Key = k
	}
	return n
}

// decide runs the pipeline for r. ci is the capability a route binding
// names (-1: route by endpoint); rf, when not nil, the router Wrap wraps,
// which says which route r reaches. consume=false (Explain) checks no limit.
// Everything it stores in d points into the policy or the request.
func (e *Enforcer) decide(r *http.Request, ci int, rf routeFinder, consume bool, d *Decision) {
	p := e.p
	d.Class = e.classify(r)
	if !d.Class.Agent() {
		d.Outcome = Pass
		return
	}
	if rule := e.probe(r); rule != "" {
		d.Outcome, d.Rule = Pass, rule
		return
	}
	ai := e.setAgent(d)
	d.Identity.Claimed = d.Class.Name
	if ai >= 0 && p.Agents[ai].Verified && d.Class.Kind == policy.Declared {
		var ok bool
		if ai, ok = e.verifyClaim(r, ai, consume, d); !ok {
			return
		}
	}

	ci, ok := e.access(r, ci, rf, d)
	if !ok {
		return
	}
	if ci >= 0 {
		c := &p.Capabilities[ci]
		d.Capability = c.ID
		d.cap1 = ci + 1
		if ai >= 0 && !p.Agents[ai].Permitted[ci] {
			d.Outcome, d.Rule = DenyCapability, p.Agents[ai].Rule
			return
		}
		// Declared auth (draft-car 2.5 Auth).
		if resolve.AuthRequired(c.Auth) && !e.checkAuth(r, ci, consume, d) {
			return
		}
	}

	e.rateLimit(r, ai, ci, consume, d)
}

// probe returns why r is an infrastructure probe that passes without
// enforcement (a probe path, a probe network), or "". A request presenting
// a session is an agent's action, to record, whoever sends it: never a
// probe.
func (e *Enforcer) probe(r *http.Request) string {
	if (e.probePaths == nil && e.probeNets == nil) || len(r.Header[session.HeaderSession]) != 0 {
		return ""
	}
	if e.probePaths[r.URL.Path] && r.URL.RawPath == "" {
		// The path as sent: a router that routes the raw path (chi) would
		// take "/health%7A" for another one.
		return RuleProbePath
	}
	if len(e.probeNets) > 0 && e.fromProbeNetwork(r) {
		return RuleProbeNetwork
	}
	return ""
}

// fromProbeNetwork reports whether r comes from a probe network. The
// client address is the one rate limits use, but a proxy's address does
// not pass for a client it forwards: when r carries a forwarding header,
// the address must be a client that X-Forwarded-For named, not the peer or
// a trusted proxy standing in for a client it did not name (no usable
// X-Forwarded-For, only Forwarded or X-Real-IP, an entry that does not
// parse, a proxy that is not trusted). A load balancer's own health check
// carries no forwarding header and passes.
func (e *Enforcer) fromProbeNetwork(r *http.Request) bool {
	addr := e.ip.Addr(r)
	in := false
	for _, n := range e.probeNets {
		if n.Contains(addr) {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	h := r.Header
	if len(h[headerXForwardedFor]) == 0 && len(h["Forwarded"]) == 0 && len(h["X-Real-Ip"]) == 0 {
		return true
	}
	peer, _ := parseHostPort(r.RemoteAddr)
	return addr != peer && !e.ip.Trusted(addr)
}

// Rules of a Pass for an infrastructure probe (Config.ProbePaths,
// Config.ProbeNets).
const (
	RuleProbePath    = "probe path"
	RuleProbeNetwork = "probe network"
)

// allow asks the store for d's limits. The MemoryStore is called directly
// so that d stays on the caller's stack; any other store gets pooled
// slices, since slices passed through an interface escape.
func (e *Enforcer) allow(r *http.Request, d *Decision) error {
	n := d.n
	if ms, ok := e.store.(*ratelimit.MemoryStore); ok {
		return ms.Allow(r.Context(), d.limits[:n], d.results[:n])
	}
	sc := e.scratchPool.Get().(*scratch)
	sc.limits = d.limits
	err := e.store.Allow(r.Context(), sc.limits[:n], sc.results[:n])
	d.results = sc.results
	e.scratchPool.Put(sc)
	if err != nil && errors.Is(err, ratelimit.ErrDegraded) {
		// A Failover's failure policy answered: the results are valid.
		d.Degraded, d.Err = true, err
		return nil
	}
	return err
}

func (e *Enforcer) classify(r *http.Request) policy.Class {
	// The header map is read directly: the keys are canonical already,
	// and Header.Get would canonicalise them again on every request.
	v := r.Header["User-Agent"]
	var c policy.Class
	if e.classFn != nil {
		c = e.classFn(r)
	} else {
		var ua string
		if len(v) > 0 {
			ua = v[0]
		}
		c = e.p.Classifier.Classify(ua)
	}
	if c.Kind == policy.Browser && (len(v) > 1 || agentHeaders(r.Header)) {
		// Two User-Agents, or a browser's that comes with an agent's
		// session or signature (ChatGPT's agent sends a Chrome User-Agent
		// and a Web Bot Auth signature): an agent, under "*".
		return policy.Class{Kind: policy.Unknown, Policy: -1}
	}
	return c
}

// agentHeaders reports whether h carries what only agents send: a v0.1.0
// session (X-Agent-Session), a Web Bot Auth Signature-Agent, or an RFC
// 9421 Signature-Input.
func agentHeaders(h http.Header) bool {
	return len(h[session.HeaderSession]) > 0 || len(h["Signature-Input"]) > 0 || len(h["Signature-Agent"]) > 0
}

// ruleText is the declaration line of a matched rule.
func (e *Enforcer) ruleText(r *policy.Rule) string {
	if e.p.Implicit && !r.Allow {
		return "no Allow/Disallow declared (draft-car 2.6)"
	}
	if r.Allow {
		if r.Index < len(e.allowText) {
			return e.allowText[r.Index]
		}
	} else if r.Index < len(e.denyText) {
		return e.denyText[r.Index]
	}
	return r.Pattern
}

// Explain returns the decision for r without serving it and without
// consuming any rate-limit token: Limits lists the limits that would apply
// and, when the store implements Peeker, Results what each would answer
// (an exhausted limit makes the decision DenyRate).
func (e *Enforcer) Explain(r *http.Request) Decision {
	var d Decision
	e.decide(r, e.boundCapability(r), nil, false, &d)
	d.Status = statusOf(d.Outcome)
	if e.sessions != nil && e.wantsSession(r, &d) {
		e.checkSession(r, &d, time.Time{})
	}
	return d
}

// Wrap enforces the policy on every request before next. /robots.txt is
// always served (docs/design.md: it is always allowed).
func (e *Enforcer) Wrap(next http.Handler) http.Handler {
	rf, _ := next.(routeFinder)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.usage != nil {
			e.setContentUsage(w, r)
		}
		if r.URL.Path == "/robots.txt" && r.URL.RawPath == "" {
			// As sent, not decoded: chi would route "/robots%2Etxt" as
			// another path.
			next.ServeHTTP(w, r)
			return
		}
		e.serve(w, r, next, -1, rf)
	})
}

// Capability binds a route to one declared capability: requests reaching
// next are checked against that capability's scope, auth and limit, whether
// or not they match its declared endpoint. Under Wrap, the checks Wrap made
// are not repeated. A route bound to an undeclared ID answers 500 and is
// logged once, when bound: a configuration error must not open the route.
func (e *Enforcer) Capability(id string, opts ...BindOption) func(http.Handler) http.Handler {
	ci, ok := e.p.CapabilityIndex(id)
	e.bound.Add(1)
	if !ok {
		e.log.Error("agentready: route bound to an undeclared capability; it answers 500", "capability", id)
	}
	var b binding
	for _, o := range opts {
		if o != nil {
			o(&b)
		}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !ok {
				_ = problem.Write(w, problem.Problem{Status: http.StatusInternalServerError,
					Detail: fmt.Sprintf("this route is bound to capability %q, which the site does not declare", id)})
				return
			}
			if b.authAll && resolve.AuthRequired(e.p.Capabilities[ci].Auth) {
				if d, denied := e.browserAuth(r, ci); denied {
					e.answer(w, r, next, &d)
					return
				}
			}
			st, _ := r.Context().Value(stateKey{}).(*state)
			switch {
			case st == nil || st.enf != e:
				// No Wrap in front (or one of a declaration a Reload has
				// replaced since): the binding runs the whole pipeline.
				e.serve(w, r, next, ci, nil)
			case st.capability == ci:
				next.ServeHTTP(w, r) // Wrap resolved the same capability and checked it
			default:
				e.serveBound(w, r, next, st, ci)
			}
		})
	}
}

// BindOption changes what a Capability binding checks.
type BindOption func(*binding)

type binding struct {
	authAll bool
}

// AuthForEveryClient makes a Capability binding check the capability's
// declared auth for every client, browsers included: a browser without
// the credential (or whose credential the Authenticator rejects) gets 401
// problem+json. Without it, browsers pass untouched, as everywhere.
func AuthForEveryClient() BindOption {
	return func(b *binding) { b.authAll = true }
}

// browserAuth checks capability ci's declared auth for a request the
// pipeline would not check it for: a browser's, or an agent's that passes
// as a probe (the pipeline checks the other agents'). denied reports a
// DenyAuth decision in d.
func (e *Enforcer) browserAuth(r *http.Request, ci int) (d Decision, denied bool) {
	d.Class = e.classify(r)
	if d.Class.Agent() && e.probe(r) == "" {
		return d, false
	}
	d.Capability, d.cap1 = e.p.Capabilities[ci].ID, ci+1
	if e.checkAuth(r, ci, true, &d) {
		return d, false
	}
	d.Status = statusOf(d.Outcome)
	d.ReportOnly = e.reportOnly
	return d, true
}

// stateKey carries what Wrap decided to a Capability binding behind it.
type stateKey struct{}

type state struct {
	enf        *Enforcer // the Enforcer that decided: a binding of another (a reload between) decides anew
	agent      int       // agent policy index, -1 for none
	capability int       // capability Wrap resolved by endpoint, -1 for none
	client     ratelimit.Key
	// aw is set when Wrap records a session-bound request it could not
	// resolve to a capability: the binding names the capability in the
	// event and, by claimed (its index + 1), the capability whose human
	// handoff ends the session.
	aw      *auditWriter
	claimed int
}

// boundCapability is the capability index Wrap resolved for r, when this
// Enforcer's Wrap did; -1 otherwise. An index of another Enforcer (a
// shadow candidate explaining what the enforced one wrapped, a binding
// after a Reload) means nothing here: the decision then resolves the
// capability anew.
func (e *Enforcer) boundCapability(r *http.Request) int {
	if st, _ := r.Context().Value(stateKey{}).(*state); st != nil && st.enf == e {
		return st.capability
	}
	return -1
}

// serve decides and answers: pass, allow (with RateLimit headers) or deny.
func (e *Enforcer) serve(w http.ResponseWriter, r *http.Request, next http.Handler, ci int, rf routeFinder) {
	var d Decision
	e.decide(r, ci, rf, true, &d)
	if d.Outcome == Pass { // a browser: nothing else applies
		if e.hook != nil {
			e.hook(d)
		}
		if e.shadow != nil {
			e.shadow(r, d) // by value: a pointer would make d escape on every request
		}
		next.ServeHTTP(w, r)
		return
	}
	d.Status = statusOf(d.Outcome)
	d.ReportOnly = e.reportOnly && d.Outcome != Allow
	var st *state
	if (d.Outcome == Allow || d.ReportOnly) && ci < 0 && e.bound.Load() > 0 {
		// A Capability binding behind may need to know what was decided.
		st = &state{enf: e, agent: d.agent1 - 1, capability: d.cap1 - 1, client: d.client}
	}
	if e.sessions != nil && e.wantsSession(r, &d) {
		// The session joins the state in one copy of the request.
		e.serveSession(w, r, next, &d, d.cap1-1, st)
		return
	}
	if e.shadow != nil {
		e.shadow(r, d) // once per request, as Wrap (or a lone binding) decided it
	}
	if st != nil {
		r = r.WithContext(withState(r.Context(), st))
	}
	e.answer(w, r, next, &d)
}

// answer reports d to the decision hook and carries it out: next for Pass,
// and for Allow with the RateLimit headers; a problem response otherwise.
func (e *Enforcer) answer(w http.ResponseWriter, r *http.Request, next http.Handler, d *Decision) {
	if e.hook != nil {
		e.hook(*d)
	}
	switch {
	case d.Outcome == Pass:
		next.ServeHTTP(w, r)
	case d.Outcome == Allow:
		e.setRateHeaders(w, d)
		next.ServeHTTP(w, r)
	case d.ReportOnly:
		setReportHeader(w, d)
		next.ServeHTTP(w, r)
	default:
		e.deny(w, r, d)
	}
}

// HeaderReportOnly names, on a response served in report-only mode, the
// decision that would have applied: the outcome, then the status and the
// rule as structured-field parameters (RFC 9651), as in
// `deny-path;status=403;rule="Disallow: /admin/*"`.
const HeaderReportOnly = "Agentready-Report-Only"

// setReportHeader adds HeaderReportOnly for d, a denial not applied.
func setReportHeader(w http.ResponseWriter, d *Decision) {
	v := d.Outcome.String() + ";status=" + strconv.Itoa(d.Status)
	rule := d.Rule
	if rule == "" && d.Err != nil {
		rule = d.Err.Error()
	}
	if rule != "" {
		v += ";rule=" + sfString(rule)
	}
	w.Header()[HeaderReportOnly] = []string{v}
}

// withState returns ctx telling a Capability binding behind Wrap what Wrap
// decided, st; ctx itself when st is nil.
func withState(ctx context.Context, st *state) context.Context {
	if st == nil {
		return ctx
	}
	return context.WithValue(ctx, stateKey{}, st)
}

// serveBound finishes, for a bound capability, a request Wrap let through
// without resolving that capability: scope, auth and the capability's own
// limit (Wrap already counted the site and agent limits).
func (e *Enforcer) serveBound(w http.ResponseWriter, r *http.Request, next http.Handler, st *state, ci int) {
	p := e.p
	c := &p.Capabilities[ci]
	d := Decision{Outcome: Allow, Capability: c.ID}
	d.Class = e.classify(r)
	if st.agent >= 0 {
		d.Agent = p.Agents[st.agent].Name
	}
	switch {
	case st.agent >= 0 && !p.Agents[st.agent].Permitted[ci]:
		d.Outcome, d.Rule = DenyCapability, p.Agents[st.agent].Rule
	case resolve.AuthRequired(c.Auth):
		e.checkAuth(r, ci, true, &d)
	}
	if d.Outcome == Allow && !c.Limit.IsZero() {
		var ls [3]ratelimit.Limit
		n := e.limits(&ls, st.agent, ci, st.client)
		d.n = 1
		d.limits[0] = ls[n-1] // the capability's own limit: Wrap counted the others
		d.Limits[0] = c.Limit.Name
		cb := &e.capOnly[ci]
		d.header, d.rateLimit = cb.policy, cb.rateLimit
		if err := e.allow(r, &d); err != nil {
			d.Outcome, d.Err = StoreError, err
		} else if !d.results[0].Allowed {
			d.Outcome, d.Limit, d.RetryAfter = DenyRate, c.Limit.Name, d.results[0].RetryAfter
			d.Rule = "Rate-Limit: " + c.Limit.Decl
		}
	}
	d.Status = statusOf(d.Outcome)
	if st.aw != nil && (d.Outcome == Allow || e.reportOnly) && st.aw.bodyLen > resolve.BodyLimit(c.Decl) {
		// Wrap read the body of this recorded request with the limit of
		// the capability it knew of (none: the default); this one's own
		// limit is lower, and holds here as at its endpoint: for every
		// request that would be served, report-only ones too.
		d.Outcome, d.Status, d.Err = DenyBody, http.StatusRequestEntityTooLarge, errBodyTooLarge
		d.Rule = ruleBodyLimits
	}
	// As at the endpoint, a body over the limit is refused in report-only
	// mode too.
	d.ReportOnly = e.reportOnly && d.Outcome != Allow && d.Outcome != DenyBody
	d.cap1 = ci + 1
	if st.aw != nil {
		// Wrap is recording this session-bound request: the event is this
		// capability's, with this decision.
		st.claimed = ci + 1
		st.aw.bind(&d)
	}
	if e.sessions != nil && e.wantsSession(r, &d) {
		if _, ok := session.FromContext(r.Context()); !ok { // else Wrap records it
			e.serveSession(w, r, next, &d, ci, nil) // r holds Wrap's state already
			return
		}
	}
	e.answer(w, r, next, &d)
}

// setRateHeaders adds RateLimit-Policy and RateLimit to an allowed response.
func (e *Enforcer) setRateHeaders(w http.ResponseWriter, d *Decision) {
	if d.n == 0 || d.header == nil {
		return
	}
	h := w.Header()
	h[keyRateLimitPolicy] = d.header
	h[keyRateLimit] = []string{d.rateLimit.value(d.limits[:d.n], d.results[:d.n])} // set with d.header
}

// deny answers a denied request with application/problem+json (RFC 9457)
// whose detail names the declared rule, and a Link to agents.txt.
func (e *Enforcer) deny(w http.ResponseWriter, r *http.Request, d *Decision) {
	h := w.Header()
	if e.link != nil {
		h[keyLink] = e.link
	}
	prob := problem.Problem{Status: d.Status, Extra: map[string]any{}}
	if d.Agent != "" {
		prob.Extra["agent"] = d.Agent
	}
	if d.Identity.Claimed != "" {
		prob.Extra["identity"] = map[string]string{"claimed": d.Identity.Claimed, "verified": d.Identity.Method.String()}
	}
	if d.Capability != "" {
		prob.Extra["capability"] = d.Capability
	}
	if d.Rule != "" {
		prob.Extra["rule"] = d.Rule
	}
	switch d.Outcome {
	case DenyPath:
		if strings.HasPrefix(d.Rule, "paths longer") {
			prob.Detail = d.Rule
		} else if e.p.Implicit {
			prob.Detail = fmt.Sprintf("%s is not a declared capability endpoint; with no Allow/Disallow rules declared, agents may use only capability endpoints (draft-car 2.6)", r.URL.Path)
		} else {
			prob.Detail = fmt.Sprintf("%q in agents.txt closes %s to agents", d.Rule, r.URL.Path)
		}
	case DenyCapability:
		prob.Detail = fmt.Sprintf("agent policy %q does not permit capability %q (%s)", d.Agent, d.Capability, d.Rule)
		if d.cap1 == 0 {
			prob.Detail = d.Rule + "; the session was created before"
		}
	case DenyPreference:
		prob.Detail = fmt.Sprintf("the site's usage preference %q refuses %s agents this path", d.Rule, d.Class.Purpose)
	case DenyIdentity:
		prob.Detail = fmt.Sprintf("agent policy %q is verified-only and the request did not prove its claim: %v", d.Identity.Claimed, d.Err)
	case DenyAuth:
		ci, _ := e.p.CapabilityIndex(d.Capability)
		c := &e.p.Capabilities[ci]
		if ch := e.challenges[ci]; ch != "" {
			h["Www-Authenticate"] = []string{ch}
		}
		if d.Err != nil {
			prob.Detail = fmt.Sprintf("capability %q rejected the credential: %v", d.Capability, d.Err)
		} else {
			prob.Detail = fmt.Sprintf("capability %q declares %q: %s", d.Capability, d.Rule, credentialHint(&c.Auth))
		}
		if c.Auth.TokenEndpoint != "" {
			prob.Extra["token_endpoint"] = c.Auth.TokenEndpoint
			prob.Detail += "; tokens from " + c.Auth.TokenEndpoint
		}
		if c.Auth.DocsURL != "" {
			prob.Extra["auth_docs"] = c.Auth.DocsURL
		}
	case DenyRate:
		secs := problem.RetryAfterSeconds(d.RetryAfter)
		h[headerRetryAfter] = []string{strconv.Itoa(secs)}
		e.setRateHeaders(w, d)
		prob.Type = problem.QuotaExceeded
		prob.Title = "Quota Exceeded"
		prob.Extra["limit"] = d.Limit
		prob.Detail = fmt.Sprintf("rate limit %q (%s) is exhausted; retry in %d s", d.Limit, strings.TrimPrefix(d.Rule, "Rate-Limit: "), secs)
	case DenyTarget:
		prob.Detail = fmt.Sprintf("the request target %q is refused: %v; agents must send a request that every router reads the same way", r.RequestURI, d.Err)
	case DenyBody:
		prob.Detail = fmt.Sprintf("%v; this call is recorded in the session's audit trail, which reads and records a body before the action runs", d.Err)
	case StoreError:
		retry := 1
		var ue *ratelimit.UnavailableError
		if errors.As(d.Err, &ue) {
			// A Failover failing closed: it logged the outage once, and
			// knows when it probes the store again.
			retry = problem.RetryAfterSeconds(ue.RetryAfter)
		} else {
			e.log.Error("agentready: rate-limit store failed", "err", d.Err)
		}
		h[headerRetryAfter] = []string{strconv.Itoa(retry)}
		prob.Detail = "the rate-limit store is unavailable"
	}
	if err := problem.Write(w, prob); err != nil {
		e.log.Debug("agentready: writing problem response", "err", err)
	}
}

// rateDecl is the declared form of a limit, by its name.
func rateDecl(p *policy.Policy, name string) string {
	if p.SiteLimit.Name == name {
		return p.SiteLimit.Decl
	}
	for i := range p.Agents {
		if p.Agents[i].Limit.Name == name {
			return p.Agents[i].Limit.Decl
		}
	}
	for i := range p.Capabilities {
		if p.Capabilities[i].Limit.Name == name {
			return p.Capabilities[i].Limit.Decl
		}
	}
	return ""
}

func credentialHint(a *config.Auth) string {
	switch resolve.AuthType(*a) {
	case config.AuthBearerToken, config.AuthOAuth2:
		return "send an Authorization: Bearer token"
	case config.AuthAPIKey:
		return "send the key in the " + resolve.Header(*a) + " header"
	case config.AuthHMAC:
		return "sign the request (Signature, RFC 9421) or send an Authorization header"
	}
	return ""
}
