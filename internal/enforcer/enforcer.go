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

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
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
	// ReportOnly decides and reports every request but denies none: a
	// request that would be denied is served, its decision (with
	// ReportOnly set) goes to OnDecision, and its response carries the
	// HeaderReportOnly header.
	ReportOnly bool
	// LiteralPathParameters declares that the application reads a ";" in
	// a path segment as data. Without it a segment's ";" parameter is
	// assumed stripped before routing, as servlet containers do, and the
	// path is decided on without its parameters too.
	LiteralPathParameters bool
	// DecisionField sets the Agentready-Decision field (HeaderDecision) of
	// every request passed to next to its decision, after removing any
	// copy the client sent.
	DecisionField bool
	// ProbePaths are exact request paths, and ProbeNets client networks
	// (CIDRs or addresses), served without enforcement.
	ProbePaths []string
	ProbeNets  []string
	// Hosts, when not empty, are the hosts (host or host:port) an agent's
	// request may name besides the address it arrived on (host.go);
	// another is answered 421. The site's own host is the caller's to
	// list.
	Hosts []string
	// Recorder, when set, serves the requests of v0.1.0 sessions once they
	// are decided; agentready wires its audit trail here.
	Recorder recorder
	// Shadow, when set, is called with every request and its decision,
	// before the decision is applied (agentready.WithShadow). It must not
	// read the body.
	Shadow func(r *http.Request, d enforce.Decision)
	// SignedRequests verifies the RFC 9421 signatures of requests to
	// capabilities that declare Auth: hmac (*verifier.RequestSignatures).
	// Without it, hmac needs Authenticate.
	SignedRequests signedRequests
	// Verifier checks claims to verified-only agent policies
	// (config.Verification); required when the policy has any.
	Verifier claimChecker
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

// signedRequests verifies a request's HTTP Message Signature and returns
// the key id that signed it; *verifier.RequestSignatures is one. record is
// false for Explain (and a shadow declaration), which must not use up the
// signature's nonce.
type signedRequests interface {
	Verify(r *http.Request, record bool) (keyID string, err error)
}

// Enforcer applies a compiled policy to requests: classify, access,
// capability scope, declared auth, rate limits. It is safe for concurrent
// use.
type Enforcer struct {
	p *policy.Policy
	// folded is the policy with its patterns and endpoints in lower case
	// (LenientRouting), nil otherwise; routes finds the capability of a
	// route pattern; querySensitive: a rule may decide a path and the path
	// with a query differently, so both are matched.
	folded         *policy.Policy
	routes         routeTable
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
	hosts    *hosts // nil: any Host
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
	uas      *uaCache
	ip       *clientip.Resolver
	verifier claimChecker
	declared map[string]int
	signed   signedRequests
	auth     enforce.Authenticator

	lim   limiter
	lines declLines
	rec   recorder
	// bound counts the route bindings made: while there are none, Wrap
	// puts no decision in the request context.
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
}

// New returns an Enforcer for cfg, reporting every configuration problem.
func New(cfg Config) (*Enforcer, error) {
	if cfg.Policy == nil {
		return nil, errors.New("enforce: Config.Policy is nil")
	}
	p := cfg.Policy
	site := p.Site()
	e := &Enforcer{p: p, ip: cfg.ClientIP, auth: cfg.Authenticate, hook: cfg.OnDecision, classFn: cfg.Classify, log: cfg.Logger,
		rec: cfg.Recorder, verifier: cfg.Verifier, signed: cfg.SignedRequests, shadow: cfg.Shadow,
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
	hs, err := newHosts(cfg.Hosts)
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
	e.uas = newUACache()
	if e.log == nil {
		e.log = slog.Default()
	}
	e.lines = newDeclLines(p)
	for i := range p.Capabilities {
		c := &p.Capabilities[i]
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
		l.challenges = append(l.challenges, challenge(site, &c.Auth))
		l.auth = append(l.auth, "Auth: "+string(resolve.AuthType(c.Auth)))
	}
	return l
}

// decide runs the pipeline for r, classified as c. ci is the capability a
// route binding names (-1: route by endpoint); rf, when not nil, the
// router Wrap wraps, which says which route r reaches. consume=false
// (Explain) checks no limit. Everything it stores in d points into the
// policy or the request.
func (e *Enforcer) decide(r *http.Request, c policy.Class, ci int, rf routeFinder, consume bool, d *decision) {
	p := e.p
	d.setClass(c)
	if !d.class.Agent() {
		d.Outcome = enforce.Pass
		return
	}
	if rule := e.probe(r, d); rule != "" {
		d.Outcome, d.Rule = enforce.Pass, rule
		return
	}
	if e.previews[d.class.Name] && d.class.Kind == policy.Known && len(r.Header["User-Agent"]) == 1 && !agentHeaders(r.Header) {
		// Served as a browser is: any client may send a browser's
		// User-Agent, so this opens nothing that was closed. A second
		// User-Agent, a session or a signature makes a browser's
		// User-Agent an agent's (classify), and a preview's too.
		d.Outcome, d.Rule = enforce.Pass, enforce.RuleLinkPreview
		return
	}
	ai := e.setAgent(d)
	d.Identity.Claimed = d.class.Name
	ai, ok := e.grade(r, ai, consume, d)
	if !ok {
		return
	}
	if e.hosts != nil {
		if err := e.hosts.check(r); err != nil {
			d.Outcome, d.Err = enforce.DenyHost, err
			return
		}
	}

	ci, ok = e.access(r, ci, rf, d)
	if !ok {
		return
	}
	if ci >= 0 {
		c := &p.Capabilities[ci]
		d.Capability, d.capability = c.ID, refTo(ci)
		if ai >= 0 && !p.Agents[ai].Permitted[ci] {
			d.Outcome, d.Rule = enforce.DenyCapability, p.Agents[ai].Rule
			return
		}
		// Declared auth (draft-car 2.5 Auth).
		if resolve.AuthRequired(c.Auth) && !e.checkAuth(r, ci, consume, d) {
			return
		}
	}

	e.rateLimit(r, ai, ci, consume, d)
}

func (e *Enforcer) classify(r *http.Request) policy.Class {
	v := r.Header.Values("User-Agent")
	var c policy.Class
	if e.classFn != nil {
		c = e.classFn(r)
	} else {
		var ua string
		if len(v) > 0 {
			ua = v[0]
		}
		c = e.uas.classify(e.p.Classifier, ua)
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
		if r.Index < len(e.lines.allow) {
			return e.lines.allow[r.Index]
		}
	} else if r.Index < len(e.lines.deny) {
		return e.lines.deny[r.Index]
	}
	return r.Pattern
}

// Explain returns the decision for r without serving it and without
// consuming any rate-limit token: Limits lists the limits that would apply
// and, when the store implements Peeker, Results what each would answer
// (an exhausted limit makes the decision DenyRate).
func (e *Enforcer) Explain(r *http.Request) enforce.Decision {
	var d decision
	ci := -1
	if wd := e.wrapped(r); wd != nil {
		ci = wd.capability.index()
	}
	e.decide(r, e.classify(r), ci, nil, false, &d)
	d.Status = statusOf(&d.Decision)
	if e.recorded(r, &d) {
		agent, client := e.identityOf(r, &d)
		e.rec.Check(r, &d.Decision, agent, client)
	}
	return d.Decision
}

// Wrap enforces the policy on every request before next. /robots.txt is
// always served (docs/design.md: it is always allowed).
func (e *Enforcer) Wrap(next http.Handler) http.Handler {
	rf, _ := next.(routeFinder)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Whoever sends it: an upgrade to HTTP/2 that next took would
		// carry every later request on the connection past Wrap.
		// HTTP2-Settings means nothing without an Upgrade.
		if _, ok := r.Header["Upgrade"]; ok {
			httpsyntax.OnlyWebSocket(r.Header)
		}
		if e.usage != nil {
			e.setContentUsage(w, r)
		}
		if r.URL.Path == "/robots.txt" && r.URL.RawPath == "" && plainGet(r) {
			// As sent, not decoded: chi would route "/robots%2Etxt" as
			// another path. Another method or a query is decided as any
			// request: WordPress answers /robots.txt?rest_route=... from
			// its REST API.
			if e.decisionField {
				var d decision
				d.setClass(e.classify(r))
				if d.class.Agent() {
					e.setAgent(&d)
				}
				d.Outcome, d.Rule = enforce.Pass, ruleRobots
				e.handOn(r, &d.Decision)
			}
			next.ServeHTTP(w, r)
			return
		}
		e.serve(w, r, next, -1, rf)
	})
}

// serve decides and answers: pass, allow (with RateLimit headers) or deny.
// ci is the capability a lone route binding names, -1 under Wrap.
func (e *Enforcer) serve(w http.ResponseWriter, r *http.Request, next http.Handler, ci int, rf routeFinder) {
	c := e.classify(r)
	if !c.Agent() {
		// A browser: nothing else applies. Its Decision is built only
		// when something reads it.
		if e.hook == nil && e.shadow == nil && !e.decisionField && (ci >= 0 || e.bound.Load() == 0) {
			next.ServeHTTP(w, r)
			return
		}
		var d decision
		d.Outcome = enforce.Pass
		d.setClass(c)
		e.handOn(r, &d.Decision)
		if ci < 0 && e.bound.Load() > 0 {
			e.pass(w, r, next, onHeap(&d), ci) // a binding behind reads it
			return
		}
		e.tell(r, &d.Decision) // the hook's copy; d stays on the stack
		next.ServeHTTP(w, r)
		return
	}
	var d decision
	e.decide(r, c, ci, rf, true, &d)
	if d.Outcome == enforce.Pass { // a probe
		e.handOn(r, &d.Decision)
		e.pass(w, r, next, onHeap(&d), ci)
		return
	}
	d.Status = statusOf(&d.Decision)
	d.ReportOnly = e.reportOnly && d.Outcome != enforce.Allow
	if d.Outcome == enforce.Allow || d.ReportOnly {
		if d.normal != "" {
			// Forwarded as decided on: in its canonical form. The target
			// was read as sent until now, by a signature's @path among
			// others.
			r = withTarget(r, d.normal)
		}
		e.handOn(r, &d.Decision)
	}
	bound := (d.Outcome == enforce.Allow || d.ReportOnly) && ci < 0 && e.bound.Load() > 0
	recorded := e.recorded(r, &d)
	if bound || recorded {
		// The decision outlives this call: a Capability binding behind
		// reads it from the request's context, the recorder keeps it.
		hd := onHeap(&d)
		if bound {
			r = r.WithContext(context.WithValue(r.Context(), decisionKey{e}, hd))
		}
		if recorded {
			e.record(w, r, next, hd, e.shadow)
			return
		}
		e.finish(w, r, next, hd)
		return
	}
	e.finish(w, r, next, &d)
}

// handOn sets the decision field of r, a request passed on, to d, after
// removing any copy the client sent (Config.DecisionField). Under Wrap, a route binding behind narrows
// Wrap's decision and leaves the field as Wrap set it.
func (e *Enforcer) handOn(r *http.Request, d *enforce.Decision) {
	if e.decisionField {
		dropDecisionFields(r.Header, r.Trailer)
		setDecisionField(r.Header, d)
	}
}

// onHeap returns a copy of d that may outlive the request's stack.
func onHeap(d *decision) *decision {
	hd := new(decision)
	*hd = *d
	return hd
}

// finish reports d to a shadow and carries it out.
func (e *Enforcer) finish(w http.ResponseWriter, r *http.Request, next http.Handler, d *decision) {
	if e.shadow != nil {
		e.shadow(r, d.Decision) // once per request, as Wrap (or a lone binding) decided it
	}
	e.answer(w, r, next, d)
}

// pass reports d, a Pass, and serves next.
func (e *Enforcer) pass(w http.ResponseWriter, r *http.Request, next http.Handler, d *decision, ci int) {
	if ci < 0 && e.bound.Load() > 0 {
		// A Capability binding behind reads this decision.
		r = r.WithContext(context.WithValue(r.Context(), decisionKey{e}, d))
	}
	e.tell(r, &d.Decision)
	next.ServeHTTP(w, r)
}

// tell reports d, a Pass, to the decision hook and the shadow, each a copy.
func (e *Enforcer) tell(r *http.Request, d *enforce.Decision) {
	if e.hook != nil {
		d.Method, d.Path = r.Method, r.URL.Path
		e.hook(*d)
	}
	if e.shadow != nil {
		e.shadow(r, *d)
	}
}

// answer reports d to the decision hook and carries it out: next for Pass,
// and for Allow with the RateLimit headers; a problem response otherwise.
func (e *Enforcer) answer(w http.ResponseWriter, r *http.Request, next http.Handler, d *decision) {
	if e.hook != nil {
		d.Method, d.Path = r.Method, r.URL.Path
		if d.Outcome != enforce.Pass {
			e.clientAddr(r, d)
		}
		e.hook(d.Decision)
	}
	switch {
	case d.Outcome == enforce.Pass:
		next.ServeHTTP(w, r)
	case d.Outcome == enforce.Allow:
		e.setRateHeaders(w, d)
		next.ServeHTTP(w, r)
	case d.ReportOnly:
		setReportHeader(w, d)
		next.ServeHTTP(w, r)
	default:
		e.deny(w, r, d)
	}
}
