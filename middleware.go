package agentready

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/oauthrs"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/trail"
	"github.com/agentready/agentready/internal/verifier"
	"github.com/agentready/agentready/internal/webbotauth"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/verify"
)

// Middleware publishes a site's declaration in every agent-discovery format
// and enforces it. It is safe for concurrent use; Reload swaps the
// declaration it serves atomically.
type Middleware struct {
	cur atomic.Pointer[compiled]
	mu  sync.Mutex // serialises Reload and the registration of handlers
	st  settings   // the options, to compile a new declaration with
	// removals are the capabilities reloads removed (see Reload).
	removals []removal
	// routes are the handlers built by Handler and Capability: each
	// compiled declaration builds its own for each, so that every route
	// follows a Reload.
	routes []route
	// reloaded is closed, and replaced, by each Reload, for Run.
	reloaded chan struct{}
}

// route is one handler built by Handler (bind false) or Capability.
type route struct {
	next  http.Handler
	bind  bool
	capID string
	// authAll: AuthForEveryClient.
	authAll bool
}

// compiled is one declaration, compiled with the options: what a request
// is served by, swapped whole by Reload.
type compiled struct {
	docs   *publish.Handler
	policy *policy.Policy
	enf    *enforcer.Enforcer
	store  ratelimit.Store
	sess   *sessionLayer        // nil without v0.1.0 sessions
	ver    *verifier.Verifier   // nil without verified-only agent policies
	shadow *shadow              // nil without WithShadow
	mcp    *mcpsession.Sessions // nil without an MCP capability
	tokens []*oauthrs.Verifier  // by capability: the JWT verifiers, nil for none
	gw     gateways             // nil without a gateway capability
	// handlers are the routes' handlers, built for this declaration.
	handlers []http.Handler
}

// handler builds the handler of s for c.
func (c *compiled) handler(s *route) http.Handler {
	if s.bind {
		return c.enf.Capability(s.capID, s.authAll)(s.next)
	}
	next := c.gw.wrap(s.next)
	if c.sess != nil {
		return c.docs.Wrap(c.sess.wrap(c.enf, c.enf.Wrap(next)))
	}
	return c.docs.Wrap(c.enf.Wrap(next))
}

// New validates the declaration and the options, reports every problem at
// once (a *config.ValidationError, joined with any option errors), renders
// every document once and returns the Middleware.
func New(site config.Site, opts ...Option) (*Middleware, error) {
	var st settings
	var errs []error
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&st); err != nil {
			errs = append(errs, err)
		}
	}
	if st.verifyOpts.Replays == nil {
		// One nonce cache for the Middleware's life, for request
		// signatures and Web Bot Auth alike (their keys are apart): the
		// verifiers a Reload builds remember the nonces already used.
		st.verifyOpts.Replays = webbotauth.NewMemoryReplays(2 * 100000)
	}
	c, err := build(site, st, errs)
	if err != nil {
		return nil, err
	}
	m := &Middleware{st: st, reloaded: make(chan struct{})}
	m.cur.Store(c)
	return m, nil
}

// Reload swaps the declaration the Middleware serves for site, compiled
// with the options New was given, atomically: the documents, the rules and
// every route built by Handler and Capability follow at once. The stores
// stay, so unchanged limits, live sessions and audit logs carry on. A
// declaration with problems is refused with all of them, and the old one
// keeps serving.
func (m *Middleware) Reload(site config.Site) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.cur.Load()
	st := m.st
	st.store = old.store
	if old.mcp != nil {
		st.mcpSessions = old.mcp
	}
	st.tokens = old.tokens // reused where a capability's issuer and audience stay
	if old.sess != nil {
		st.sessionStore = old.sess.mgr.Store()
		if old.sess.audit != nil {
			st.auditStore = old.sess.audit
		}
	}
	// The sessions' clock: removals are compared with their creation.
	removals, lookup := removedRoutes(m.removals, old, &site, clock.Or(m.st.clock)())
	st.removed = lookup
	if old.ver != nil && sameVerification(old.policy.Site(), &site) {
		st.verifier = old.ver // loaded and running: the claims it checks are the same
	}
	c, err := build(site, st, nil)
	if err != nil {
		return err
	}
	m.removals = removals
	c.handlers = make([]http.Handler, len(m.routes))
	for i := range m.routes {
		c.handlers[i] = c.handler(&m.routes[i])
	}
	m.cur.Store(c)
	close(m.reloaded)
	m.reloaded = make(chan struct{})
	return nil
}

// removal is a reload's removal of capabilities: the declaration that had
// them, the IDs the new one keeps, and when.
type removal struct {
	pol  *policy.Policy
	keep map[string]bool
	at   time.Time
}

// maxSessionAge bounds how long a removal is remembered: sessions outlive
// one declaration, not this (the v0.1.0 Session-TTL is at most a few
// hours in practice).
const maxSessionAge = 24 * time.Hour

// removedRoutes adds to earlier the capabilities old declares and site
// does not, drops the removals older than maxSessionAge, and returns the
// list and its lookup (nil when empty).
func removedRoutes(earlier []removal, old *compiled, site *config.Site, now time.Time) ([]removal, func(method, path string) (string, time.Time, bool)) {
	keep := map[string]bool{}
	for _, c := range site.Capabilities {
		keep[c.ID] = true
	}
	var list []removal
	for _, r := range earlier {
		if now.Sub(r.at) < maxSessionAge {
			list = append(list, r)
		}
	}
	for _, c := range old.policy.Capabilities {
		if !keep[c.ID] {
			list = append(list, removal{pol: old.policy, keep: keep, at: now})
			break
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	return list, func(method, path string) (string, time.Time, bool) {
		for i := len(list) - 1; i >= 0; i-- {
			r := list[i]
			if ci := r.pol.Route(method, path); ci >= 0 && !r.keep[r.pol.Capabilities[ci].ID] {
				return r.pol.Capabilities[ci].ID, r.at, true
			}
		}
		return "", time.Time{}, false
	}
}

// register adds s and returns the handler that serves it by the current
// declaration: one atomic load per request.
func (m *Middleware) register(s route) http.Handler {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := len(m.routes)
	m.routes = append(m.routes, s)
	old := m.cur.Load()
	c := *old
	c.handlers = append(slices.Clip(old.handlers), c.handler(&m.routes[i]))
	m.cur.Store(&c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.cur.Load().handlers[i].ServeHTTP(w, r)
	})
}

// build is New once the options are applied; errs are the options'
// problems, reported with the declaration's.
func build(site config.Site, st settings, errs []error) (*compiled, error) {
	// The declaration's own choices apply unless an option made another:
	// Documents.Dialect naming DialectV010, WithImplicitAccess. An unknown
	// value is left to publish.Validate to report.
	if st.docs.Dialect == config.DialectIETFDraft && site.Dialect == config.DialectV010 {
		st.docs.Dialect = site.Dialect
	}
	if st.implicit == "" && (site.ImplicitAccess == ImplicitAllAgents || site.ImplicitAccess == ImplicitAIAgents) {
		st.implicit = site.ImplicitAccess
	}
	if err := prepareAudit(&site, &st); err != nil {
		errs = append(errs, err)
	}
	formats := st.docs.formats()
	if err := publish.Validate(&site, formats); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, checkEnforcement(&site, &st)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	docs, err := publish.Render(&site, publish.Options{
		Formats:        formats,
		DescriptorPath: st.docs.DescriptorPath,
		MaxAge:         st.docs.MaxAge,
		LastModified:   st.lastModified(&site),
		DescriptorKey:  st.docs.DescriptorKey,
		A2AVersion:     st.docs.A2AVersion,
	})
	if err != nil {
		return nil, err
	}
	pol, err := policy.Compile(&site, st.clients.classifier()...)
	if err != nil {
		return nil, err
	}
	if st.docs.RobotsTxt {
		robots, err := renderRobots(pol, docs, &st)
		if err != nil {
			return nil, err
		}
		docs = append(docs, robots)
	}
	h, err := publish.NewHandler(docs)
	if err != nil {
		return nil, err
	}
	warnContradictions(pol, &st)
	store := st.store
	if store == nil {
		if store, err = ratelimit.NewMemoryStore(ratelimit.MemoryConfig{Now: st.clock}); err != nil {
			return nil, err
		}
	}
	vo := st.verifyOpts
	if vo.Now == nil {
		vo.Now = st.clock
	}
	if vo.Logger == nil {
		vo.Logger = st.logger
	}
	if h := resolve.Host(&site); h != "" {
		vo.Authorities = append([]string{h}, vo.Authorities...)
	}
	ver := st.verifier
	if ver == nil {
		if ver, err = verifier.New(&site, vo); err != nil {
			return nil, err
		}
	}
	sess, err := newSessionLayer(&site, &st)
	if err != nil {
		return nil, err
	}
	if st.mcpSessions, err = mcpSessions(&site, &st); err != nil {
		return nil, err
	}
	if st.tokens, err = tokenVerifiers(&site, &st); err != nil {
		return nil, err
	}
	enf, sh, err := newEnforcer(&site, st, pol, store, ver, sess, vo)
	if err != nil {
		return nil, err
	}
	c := &compiled{docs: h, policy: pol, enf: enf, store: store, sess: sess, ver: ver, shadow: sh, mcp: st.mcpSessions, tokens: st.tokens}
	if c.gw, err = newGateways(&site, &st, c); err != nil {
		return nil, err
	}
	return c, nil
}

// newEnforcer builds the Enforcer of build's declaration with the
// options, and the shadow declaration it feeds (nil without WithShadow).
func newEnforcer(site *config.Site, st settings, pol *policy.Policy, store ratelimit.Store, ver *verifier.Verifier, sess *sessionLayer,
	vo verify.Options) (*enforcer.Enforcer, *shadow, error) {
	ecfg := enforcer.Config{
		Policy:                pol,
		Store:                 store,
		ClientIP:              st.clientIP,
		Key:                   st.clients.RateLimitKey,
		ByAgent:               st.clients.LimitByAgent,
		Authenticate:          st.auth,
		OnDecision:            st.decisionHook(), // WithOnDecision's and WithReport's
		Logger:                st.logger,
		ImplicitAIOnly:        st.implicit == ImplicitAIAgents,
		ReportOnly:            st.reportOnly,
		LenientRouting:        st.lenient,
		LiteralPathParameters: st.literalParams,
		DecisionField:         st.decisionHeader,
		ProbePaths:            st.clients.ProbePaths,
		ProbeNets:             st.clients.ProbeNets,
		MCPSessions:           st.mcpSessions,
		Tokens:                st.tokens,
	}
	if len(st.clients.Hosts) > 0 {
		ecfg.Hosts = append([]string{resolve.Host(site)}, st.clients.Hosts...)
	}
	var sh *shadow
	var err error
	if st.shadow != nil {
		// The candidate decides nothing: it feeds no report.
		cst := st
		cst.report = nil
		if sh, err = newShadow(cst, store, sess); err != nil {
			return nil, nil, err
		}
		ecfg.Shadow = sh.observe
	}
	if ver != nil {
		ecfg.Verifier = ver
	}
	if st.requestKeys != nil {
		rs, err := verifier.NewRequestSignatures(st.requestKeys, verifier.RequestOptions{Authorities: vo.Authorities, Replays: vo.Replays, Now: vo.Now})
		if err != nil {
			return nil, nil, err
		}
		ecfg.SignedRequests = rs
	}
	if sess != nil {
		if ecfg.Recorder, err = trail.New(trail.Config{Policy: pol, Sessions: sess.mgr, Audit: sess.audit,
			Removed: st.removed, Logger: st.logger}); err != nil {
			return nil, nil, err
		}
	}
	enf, err := enforcer.New(ecfg)
	return enf, sh, err
}

// checkEnforcement reports what the declaration and the options leave
// undecided, as problems of the declaration's fields (a declaration
// file's report places them at their lines): a site without Allow/Disallow
// rules that has not said to whom draft-car 2.6's capability-only default
// applies, and an hmac capability nothing can verify (enforcer.UnverifiedHMAC, which
// enforcer.New holds too; reported here, it comes with the other problems).
// It logs, once, the capabilities whose auth is checked for presence only.
func checkEnforcement(site *config.Site, st *settings) []error {
	var problems []*config.FieldError
	// A scope set but unknown is config.Validate's to report.
	if len(site.Access.Allow) == 0 && len(site.Access.Disallow) == 0 && st.implicit == "" && site.ImplicitAccess == "" {
		problems = append(problems, &config.FieldError{Field: "Access", Msg: "no allow or disallow rule is declared, so draft-car 2.6 permits agents only the capability endpoints; " +
			"say to whom that applies: implicit_access: all-agents (every automated client: search crawlers, link unfurlers, feed readers and webhooks too) " +
			"or implicit_access: ai-agents (declared and known agents only), in Go Site.ImplicitAccess or WithImplicitAccess(ImplicitAllAgents or ImplicitAIAgents); or declare access rules"})
	}
	var presence []string
	for i, c := range site.Capabilities {
		switch resolve.AuthType(c.Auth) {
		case config.AuthNone:
		case config.AuthHMAC:
			if enforcer.UnverifiedHMAC(c.Auth, st.auth != nil, st.requestKeys != nil) {
				problems = append(problems, &config.FieldError{Field: "Capabilities[" + strconv.Itoa(i) + "].Auth.Type", Msg: enforcer.HMACProblem})
			}
		default:
			if st.auth == nil && !c.Auth.JWT && c.Auth.Audience == "" {
				presence = append(presence, c.ID)
			}
		}
	}
	if len(presence) > 0 {
		st.log().Warn("agentready: declared auth is checked for the credential's presence only: the application behind must check the credential (WithAuthenticator checks it here)", "capabilities", presence)
	}
	if len(problems) > 0 {
		return []error{&config.ValidationError{Errors: problems}}
	}
	return nil
}

// MustNew is New that panics on error, for declarations fixed at compile
// time (the way regexp.MustCompile is used). Never call it while serving.
func MustNew(site config.Site, opts ...Option) *Middleware {
	m, err := New(site, opts...)
	if err != nil {
		panic("agentready: " + err.Error())
	}
	return m
}

// Handler serves the discovery documents, to everyone, and enforces the
// declaration on every other request before passing it to next; browsers
// pass untouched. With v0.1.0 sessions it also serves the session and
// audit endpoints. Call it once per handler, when the routes are set up:
// the Middleware keeps every handler it built, to rebuild it on Reload.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return m.register(route{next: next})
}

// Run does the Middleware's background work until ctx is done, then
// returns ctx.Err(). Run it in a goroutine, once:
//
//	go m.Run(ctx)
//
// It loads and refreshes the sources of verified-only agent policies
// (until a source is loaded, its claims are served under "*"), and ends
// expired v0.1.0 sessions, which seals their audit trails.
func (m *Middleware) Run(ctx context.Context) error {
	running := map[runner]context.CancelFunc{}
	defer func() {
		for _, cancel := range running {
			cancel()
		}
	}()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		m.mu.Lock()
		c, reloaded := m.cur.Load(), m.reloaded
		m.mu.Unlock()
		m.runVerifiers(ctx, c, running)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-reloaded:
		case <-t.C:
			// The current declaration's sessions: a Reload brings a
			// new Manager on the same store.
			if s := c.sess; s != nil {
				if _, err := s.mgr.Reap(ctx); err != nil && ctx.Err() == nil {
					s.log.Error("agentready: ending expired sessions", "err", err)
				}
			}
		}
	}
}

// runner is what refreshes its sources in the background, Run returning
// once ctx is done: the claim verifier (which Load loads first) and the
// issuers' token verifiers.
type runner interface{ Run(ctx context.Context) }

// runners are c's runners: its claim verifier and its shadow's, and the
// token verifiers of its capabilities.
func (c *compiled) runners() []runner {
	var rs []runner
	for _, v := range []*verifier.Verifier{c.ver, c.shadowVerifier()} {
		if v != nil {
			rs = append(rs, v)
		}
	}
	for _, v := range c.tokens {
		if v != nil {
			rs = append(rs, v)
		}
	}
	return rs
}

// runVerifiers loads and runs the runners of c that running does not hold
// yet, and stops those c no longer uses.
func (m *Middleware) runVerifiers(ctx context.Context, c *compiled, running map[runner]context.CancelFunc) {
	current := map[runner]bool{}
	for _, v := range c.runners() {
		if current[v] {
			continue
		}
		current[v] = true
		if running[v] != nil {
			continue
		}
		if l, ok := v.(interface{ Load(context.Context) error }); ok {
			// A source that cannot be loaded now is retried by Run on its
			// schedule; meanwhile its claims are served under "*".
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := l.Load(lctx); err != nil && ctx.Err() == nil {
				m.st.log().Warn("agentready: a verification source could not be loaded; its claims are served under \"*\" until it can", "err", err)
			}
			cancel()
		}
		vctx, stop := context.WithCancel(ctx)
		running[v] = stop
		go v.Run(vctx)
	}
	for v, stop := range running {
		if !current[v] {
			stop()
			delete(running, v)
		}
	}
}

// Capability binds one route to one declared capability:
//
//	r.With(m.Capability("product-search")).Get("/api/search", search)       // chi
//	mux.Handle("GET /api/search", m.Capability("product-search")(search))   // net/http
//
// Requests reaching the route are checked against that capability's agent
// scope, auth and rate limit even when the path is not its declared
// endpoint. Behind Handler it completes Handler's checks; on its own it runs
// the whole pipeline. A route bound to an undeclared capability answers 500
// rather than opening. Browsers pass untouched unless the binding is given
// AuthForEveryClient(). Bind each route once, at setup.
func (m *Middleware) Capability(id string, opts ...BindOption) func(http.Handler) http.Handler {
	var b binding
	for _, o := range opts {
		if o != nil {
			o(&b)
		}
	}
	return func(next http.Handler) http.Handler {
		return m.register(route{next: next, bind: true, capID: id, authAll: b.authAll})
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

// Explain returns what Handler would decide for r, without serving it and
// without consuming rate-limit tokens: Decision.Limits lists the limits
// that would be checked and, with a ratelimit.Peeker store,
// Decision.Results what each would answer. With v0.1.0 sessions it also
// looks the request's X-Agent-Session up.
func (m *Middleware) Explain(r *http.Request) enforce.Decision { return m.cur.Load().explain(r) }

func (c *compiled) explain(r *http.Request) enforce.Decision {
	if c.docs.Lookup(r.URL.Path) || r.URL.Path == "/robots.txt" {
		return enforce.Decision{Outcome: enforce.Allow, Rule: "discovery documents are always served"}
	}
	if c.sess != nil {
		if d, ok := c.sess.explain(c.enf, r); ok {
			return d
		}
	}
	return c.enf.Explain(r)
}

// ServesDocument reports whether the current declaration serves a
// document at path.
func (m *Middleware) ServesDocument(path string) bool { return m.cur.Load().docs.Lookup(path) }

// sameVerification reports whether two declarations ask for the same
// verification, so that a Reload keeps the loaded Verifier: the same
// checked policies (verified-only or graded), the same grading of
// undeclared agents, and the same site host, the authority Web Bot
// Auth signatures must be made for (New adds it to Options.Authorities).
func sameVerification(a, b *config.Site) bool {
	checked := func(s *config.Site) []any {
		v := []any{verifier.Undeclared(s)}
		for _, p := range s.Agents {
			if p.Verify.Required || p.Proven != nil {
				v = append(v, p.Name, p.Verify)
			}
		}
		return v
	}
	return resolve.Host(a) == resolve.Host(b) && reflect.DeepEqual(checked(a), checked(b))
}
