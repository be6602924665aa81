package agentready

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/oauthrs"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/verifier"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/verify"
)

// An Option changes how a Middleware publishes or enforces the declaration.
// Options carry behaviour; the declaration itself is config.Site.
type Option func(*settings) error

// settings collects what the options say. Zero values are the defaults.
type settings struct {
	docs    Documents
	clients Clients

	store          ratelimit.Store
	clock          func() time.Time // tests only (export_test.go)
	clientIP       *clientip.Resolver
	auth           enforce.Authenticator
	onDecision     func(enforce.Decision)
	report         *report.Report
	logger         *slog.Logger
	implicit       string
	reportOnly     bool
	lenient        bool
	literalParams  bool
	decisionHeader bool

	gateway  func(Gateway) (map[string]http.Handler, error) // WithGateway
	shadow   *shadowSpec
	removed  func(method, path string) (string, time.Time, bool) // set by Reload
	verifier *verifier.Verifier                                  // set by Reload: the one still valid

	verifyOpts  verify.Options
	requestKeys verify.RequestKeys

	sessionStore session.Store
	auditStore   audit.Store
	auditKey     ed25519.PrivateKey
	mcpSessions  *mcpsession.Sessions // set by Reload: the bindings carry on
	tokens       []*oauthrs.Verifier  // set by Reload: the JWT verifiers to reuse
}

// Documents says which discovery documents are published and how
// (WithDocuments). The zero value publishes every document in the
// draft-car dialect, with each draft's caching, and leaves /robots.txt to
// the site.
type Documents struct {
	// Dialect is the agents.txt grammar served at /.well-known/agents.txt:
	// config.DialectIETFDraft (the default) or config.DialectV010.
	// /.well-known/agents.json follows it (see AgentsJSON).
	Dialect config.Dialect
	// AgentsJSON is what /.well-known/agents.json holds: the companion of
	// the served agents.txt grammar (config.AgentsJSONCompanion, the
	// default) or the agent:// registry (config.AgentsJSONRegistry).
	// Descriptors are served either way.
	AgentsJSON config.AgentsJSONMode
	// Disabled are the documents not published (and what only they
	// require is not validated), e.g. config.DocAWP|config.DocDescriptors.
	Disabled config.Document
	// AllowHTTP accepts plain-http URLs in the declaration, for a site run
	// on a development host. Without it, http is accepted only for
	// localhost, 127.0.0.0/8 and [::1] (draft-car 2.1: HTTPS in
	// production).
	AllowHTTP bool

	// DescriptorPath is the path template of agent:// descriptors; it must
	// start with "/" and contain "{name}". Default
	// "/agents/{name}/agent.json".
	DescriptorPath string
	// DescriptorKey signs every agent:// descriptor response (P-256) for
	// conformance level 3 (agent-uri-03 10.3): an RFC 9421 signature, the
	// body's Content-Digest (RFC 9530) and the key in authentication.jwks.
	// It also signs the A2A v1.0 agent card (A2A 1.0 8.4).
	DescriptorKey *ecdsa.PrivateKey
	// A2AVersion is the version of the A2A agent card at
	// /.well-known/agent-card.json: "1.0" (the default, a2aproject/A2A
	// v1.0.1) or "0.3" (v0.3.0), for clients that have not moved to 1.0.
	A2AVersion string

	// MaxAge sets the Cache-Control max-age per document (a key may name
	// several). Defaults: 86400 s for agents.md (agents.md 1), 300 s for
	// the others (draft-car 5.1).
	MaxAge map[config.Document]time.Duration
	// LastModified is the Last-Modified time of every document. Default:
	// Site.GeneratedAt when set, else the time New was called.
	LastModified time.Time

	// RobotsTxt serves /robots.txt generated from the declaration (RFC
	// 9309): the Allow/Disallow rules agentready enforces, for "*" and
	// every declared agent, and the usage preferences (config.Usage).
	// Without it /robots.txt is left to the site.
	RobotsTxt bool
	// OwnRobotsTxt is the site's own robots.txt, served before the
	// generated groups; setting it implies RobotsTxt.
	OwnRobotsTxt []byte
}

// WithDocuments says which discovery documents are published and how; see
// Documents. A second WithDocuments replaces the first.
func WithDocuments(d Documents) Option {
	return func(s *settings) error {
		var errs []error
		if d.Dialect != config.DialectIETFDraft && d.Dialect != config.DialectV010 {
			errs = append(errs, fmt.Errorf("Documents.Dialect: unknown dialect %v", d.Dialect))
		}
		if d.AgentsJSON != config.AgentsJSONCompanion && d.AgentsJSON != config.AgentsJSONRegistry {
			errs = append(errs, fmt.Errorf("Documents.AgentsJSON: unknown mode %d", d.AgentsJSON))
		}
		if d.A2AVersion != "" && d.A2AVersion != "1.0" && d.A2AVersion != "0.3" {
			errs = append(errs, fmt.Errorf(`Documents.A2AVersion: %q is neither "1.0" nor "0.3"`, d.A2AVersion))
		}
		if d.Disabled&^config.AllDocuments != 0 {
			errs = append(errs, fmt.Errorf("Documents.Disabled: unknown document bits %#x", uint8(d.Disabled&^config.AllDocuments)))
		}
		maxAge := map[config.Document]time.Duration{}
		for doc, age := range d.MaxAge {
			if age < 0 {
				errs = append(errs, fmt.Errorf("Documents.MaxAge: negative max-age %v", age))
			}
			if doc&^config.AllDocuments != 0 {
				errs = append(errs, fmt.Errorf("Documents.MaxAge: unknown document bits %#x", uint8(doc&^config.AllDocuments)))
			}
			// One entry per document, for the renderer's lookup.
			for bit := config.Document(1); bit != 0 && bit <= config.AllDocuments; bit <<= 1 {
				if doc&bit != 0 {
					maxAge[bit] = age.Truncate(time.Second)
				}
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		d.MaxAge = maxAge
		if d.OwnRobotsTxt != nil {
			d.RobotsTxt, d.OwnRobotsTxt = true, append([]byte(nil), d.OwnRobotsTxt...)
		}
		s.docs = d
		return nil
	}
}

// formats is what the options say is published, which decides what
// config.Validate requires.
func (d *Documents) formats() config.Formats {
	return config.Formats{Dialect: d.Dialect, AgentsJSON: d.AgentsJSON, Disabled: d.Disabled, AllowHTTP: d.AllowHTTP}
}

// WithStore sets the rate-limit store. The default is an in-memory GCRA
// store, per process; redisstore.NewLimitStore wrapped in
// ratelimit.NewFailover makes limits hold across replicas, with an
// explicit failure policy.
func WithStore(s ratelimit.Store) Option {
	return func(st *settings) error {
		if s == nil {
			return errors.New("WithStore: nil store")
		}
		st.store = s
		return nil
	}
}

// WithClock sets the one clock the Middleware's timestamps and expiries
// come from, for tests and simulations: the default in-memory stores
// (rate-limit windows, sessions and their expiry, audit logs and their
// timestamps, the signature nonces), verification (signature windows,
// key directories, IP range lists, Signature Agent Cards, the reverse-DNS
// cache; verify.Options.Now, when set, is verification's instead), the
// documents' default Last-Modified and a reload's record of removed
// capabilities. A test advances it rather than sleep.
//
// What waits stays on the runtime's clock whatever this one says:
// timeouts, the rate-limit failover's queue and circuit, the reverse-DNS
// budget, and the schedules that refresh key directories, range lists and
// cards (a refresh interval passes when either clock has moved past it),
// so that a clock that stands still never makes a request wait forever or
// a refresh never happen.
//
// Stores and reports built outside New take the same clock through their
// own options: ratelimit.MemoryConfig.Now, session.WithClock,
// audit.MemoryConfig.Now, redisstore.WithClock (sessions) and
// report.Options.Now. Redis counts rate limits on its own clock (TIME):
// no clock set here moves them. docs/operations.md ("Clocks") lists every
// component and the clock it follows.
func WithClock(now func() time.Time) Option {
	return func(st *settings) error {
		if now == nil {
			return errors.New("WithClock: nil clock")
		}
		st.clock = now
		return nil
	}
}

// WithAuthenticator checks credentials of capabilities that declare auth.
// Without it, agentready enforces only that the declared credential is
// present (Decision.PresenceOnly). A capability declaring hmac requires it
// or WithRequestSignatures, or New fails.
func WithAuthenticator(a enforce.Authenticator) Option {
	return func(st *settings) error {
		st.auth = a
		return nil
	}
}

// WithOnDecision receives every enforcement decision, for logging and
// metrics. It runs on the request path.
func WithOnDecision(f func(enforce.Decision)) Option {
	return func(st *settings) error {
		st.onDecision = f
		return nil
	}
}

// WithReport feeds r, the live report of agents (docs/operations.md), from the
// Middleware: every enforcement decision (beside WithOnDecision's hook,
// which still hears each one), every v0.1.0 session created and every
// audit artifact sealed. A shadow declaration (WithShadow) never feeds it:
// it decides nothing. Reload keeps r, so the report spans declarations.
// Serve r (an http.Handler) where the site chooses, behind its own access
// control: it names the agents that come and what they were refused.
func WithReport(r *report.Report) Option {
	return func(st *settings) error {
		if r == nil {
			return errors.New("WithReport: nil report")
		}
		st.report = r
		return nil
	}
}

// decisionHook is the enforcer's OnDecision: WithOnDecision's hook and the
// report's Observe, each called when given.
func (st *settings) decisionHook() func(enforce.Decision) {
	hook, rep := st.onDecision, st.report
	switch {
	case rep == nil:
		return hook
	case hook == nil:
		return rep.Observe
	}
	return func(d enforce.Decision) { hook(d); rep.Observe(d) }
}

// Clients says who a client is (WithClients). Every client that is not
// positively a browser is an agent; nothing here lets a client through by
// its User-Agent except Browsers, which the site chooses for its own apps.
type Clients struct {
	// TrustedProxies are the proxies (CIDRs or addresses) whose
	// X-Forwarded-For is believed, read right to left. By default no
	// forwarding header is trusted and the client is RemoteAddr. A list
	// whose union covers more than 2^24 globally routable IPv4 addresses,
	// or a globally routable IPv6 prefix shorter than /16, lets every
	// client write its own address, and New refuses it without
	// TrustAllProxies (loopback, RFC 1918, 100.64.0.0/10, link-local and
	// fc00::/7 addresses do not count).
	TrustedProxies []string
	// TrustAllProxies says that TrustedProxies is meant to cover that
	// much of the internet: every client there may name its own address.
	TrustAllProxies bool

	// RateLimitKey counts rate limits per what it returns (an API key, a
	// token subject) instead of per client address; when it returns false
	// the client address is used.
	RateLimitKey enforce.KeyFunc
	// LimitByAgent counts every limit per agent policy only, shared by all
	// of that agent's clients.
	LimitByAgent bool

	// Browsers are product tokens that pass as a browser: the site's own
	// app ("ShopApp" for "ShopApp/3.2 (iPhone; iOS 18.1)").
	Browsers []string
	// Agents are product tokens added to the known AI agents; Generic
	// are added to the generic automation clients (HTTP libraries,
	// command-line tools); Without are removed from both built-in lists.
	Agents, Generic, Without []string

	// ProbePaths are exact paths ("/healthz") that any client reaches
	// without enforcement. ProbeNets are networks (CIDRs or addresses: the
	// load balancer's) whose requests pass without enforcement; a proxy's
	// address never passes for a client it forwards.
	ProbePaths, ProbeNets []string

	// Hosts, when set, are the hosts (host or host:port) an agent's
	// request may name in Host (HTTP/2's :authority) besides the site
	// URL's: compared without case, a trailing dot or the port 80 or 443.
	// The address the request arrived on is admitted too and, on a
	// loopback address, localhost, 127.0.0.1 and [::1] on any port. An
	// agent naming any other host is answered 421 Misdirected Request
	// (enforce.DenyHost): behind a virtual host or a proxy its request
	// would reach a site this declaration does not speak for. Unset, Host
	// is not checked (agentready serve always checks it).
	Hosts []string
}

// WithClients says who a client is; see Clients. A second WithClients
// replaces the first.
func WithClients(c Clients) Option {
	return func(st *settings) error {
		var errs []error
		ip, err := clientip.New(c.TrustedProxies)
		if err != nil {
			errs = append(errs, fmt.Errorf("Clients.TrustedProxies: %w", err))
		} else if why := clientip.Broad(c.TrustedProxies); why != "" && !c.TrustAllProxies {
			errs = append(errs, fmt.Errorf("Clients.TrustedProxies: the proxies %s: every client there could write its own address in X-Forwarded-For; set Clients.TrustAllProxies if that is meant", why))
		}
		if err := enforcer.CheckHosts(c.Hosts); err != nil {
			errs = append(errs, fmt.Errorf("Clients.Hosts: %w", err))
		}
		for _, p := range c.ProbePaths {
			if p == "" || p[0] != '/' {
				errs = append(errs, fmt.Errorf("Clients.ProbePaths: path %q does not start with \"/\"", p))
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		st.clients, st.clientIP = c, ip
		return nil
	}
}

// The scopes of WithImplicitAccess: which clients draft-car 2.6's
// capability-only default applies to.
const (
	// ImplicitAllAgents applies the default to every automated client,
	// search-engine crawlers and webhooks included.
	ImplicitAllAgents = "all-agents"
	// ImplicitAIAgents applies it only to declared and known agents;
	// other clients get no path rule, but scope, auth and limits.
	ImplicitAIAgents = "ai-agents"
)

// WithImplicitAccess says to whom the capability-only default of draft-car
// 2.6 applies when the site declares no Allow or Disallow rule; New fails
// for such a site without it.
func WithImplicitAccess(scope string) Option {
	return func(st *settings) error {
		if scope != ImplicitAllAgents && scope != ImplicitAIAgents {
			return fmt.Errorf("WithImplicitAccess: unknown scope %q (want ImplicitAllAgents or ImplicitAIAgents)", scope)
		}
		st.implicit = scope
		return nil
	}
}

// WithLenientRouting declares that the application may route a path
// ignoring ASCII case and a trailing slash (Express's and ASP.NET's
// defaults): the rules then hold on every such spelling ("/ADMIN/users" is
// decided as "/admin/users"). See docs/enforcement.md, "Routers and the
// readings of a request".
func WithLenientRouting() Option {
	return func(st *settings) error {
		st.lenient = true
		return nil
	}
}

// WithLiteralPathParameters declares that the application reads a ";" in
// a path segment as data. By default agentready assumes, as servlet
// containers (Tomcat, Jetty, Spring) do, that a segment's ";" parameter
// is removed before routing, and decides "/admin;x/users" as
// "/admin/users" too and "/cart;jsessionid=A1" as "/cart". See
// docs/enforcement.md, "One canonical target".
func WithLiteralPathParameters() Option {
	return func(st *settings) error {
		st.literalParams = true
		return nil
	}
}

// WithDecisionHeader hands each request's decision to the handler behind
// the middleware, and to whatever that handler forwards the request to:
// the Agentready-Decision field (enforce.HeaderDecision) of every request
// passed on is set to it, after any copy the client sent is removed.
// agentready serve always sets it. See docs/enforcement.md, "The decision,
// handed on".
func WithDecisionHeader() Option {
	return func(st *settings) error {
		st.decisionHeader = true
		return nil
	}
}

// WithReportOnly decides and reports every request (Decision.ReportOnly)
// but denies nothing: a request that would be refused is served with an
// Agentready-Report-Only header naming the decision. Sessions and the
// audit trail keep working.
func WithReportOnly() Option {
	return func(st *settings) error {
		st.reportOnly = true
		return nil
	}
}

// WithLogger sets the logger for configuration and store problems found
// while serving. Default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(st *settings) error {
		st.logger = l
		return nil
	}
}

// log is the logger the options name, or slog.Default().
func (st *settings) log() *slog.Logger {
	if st.logger == nil {
		return slog.Default()
	}
	return st.logger
}

// WithVerification configures how claims to verified-only agent policies
// (config.Verification) are checked. Without it the defaults of
// verify.Options apply.
func WithVerification(o verify.Options) Option {
	return func(st *settings) error {
		st.verifyOpts = o
		return nil
	}
}

// WithRequestSignatures verifies the requests to capabilities that declare
// Auth: hmac as HTTP Message Signatures (RFC 9421); keys returns the key
// of a signature's keyid. A signature must cover @method, @authority and
// @path (@query and content-digest when the request has them), carry
// created and keyid, be at most five minutes old and be made for the
// site's host; a nonce is refused a second time.
func WithRequestSignatures(keys verify.RequestKeys) Option {
	return func(st *settings) error {
		if keys == nil {
			return errors.New("WithRequestSignatures: nil keys")
		}
		st.requestKeys = keys
		return nil
	}
}

// WithSessions sets where the v0.1.0 sessions live. The default is a
// session.MemoryStore (per process); redisstore.NewSessionStore shares
// sessions between replicas and keeps them across restarts. The store
// redisstore.NewSessionStore returns also keeps the bindings of MCP
// sessions to who opened them (docs/mcp.md); otherwise they live in
// memory, per process.
func WithSessions(s session.Store) Option {
	return func(st *settings) error {
		if s == nil {
			return errors.New("WithSessions: nil store")
		}
		st.sessionStore = s
		return nil
	}
}

// WithAudit sets the Ed25519 key that signs the v0.1.0 audit artifacts
// (required when Site.Audit.Enabled; its public half is published as
// agents.json audit.public_key) and the audit store: nil is an
// audit.NewMemoryStore's, redisstore.NewAuditStore keeps logs durably.
func WithAudit(key ed25519.PrivateKey, store audit.Store) Option {
	return func(st *settings) error {
		if len(key) != ed25519.PrivateKeySize {
			return fmt.Errorf("WithAudit: an Ed25519 private key has %d bytes, not %d", ed25519.PrivateKeySize, len(key))
		}
		st.auditKey, st.auditStore = key, store
		return nil
	}
}

// classifier is what c says to policy.Compile.
func (c *Clients) classifier() []policy.ClassifierOption {
	return []policy.ClassifierOption{policy.WithBrowserTokens(c.Browsers...), policy.WithExtraKnown(c.Agents...),
		policy.WithExtraGeneric(c.Generic...), policy.WithoutNames(c.Without...)}
}
