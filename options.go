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
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/verify"
)

// An Option changes how a Middleware publishes or enforces the declaration.
// Options carry behaviour; the declaration itself is config.Site.
type Option func(*settings) error

// settings collects what the options say. Zero values are the defaults.
type settings struct {
	formats        config.Formats
	descriptorPath string
	maxAge         map[config.Document]time.Duration
	lastModified   time.Time

	store          ratelimit.Store
	clock          func() time.Time
	clientIP       *enforce.ClientIP
	key            enforce.KeyFunc
	byAgent        bool
	auth           enforce.Authenticator
	onDecision     func(enforce.Decision)
	classifierOpts []policy.ClassifierOption
	classify       func(r *http.Request) policy.Class
	logger         *slog.Logger

	implicit   ImplicitScope
	reportOnly bool
	lenient    bool
	probePaths []string
	probeNets  []string

	descriptorKey *ecdsa.PrivateKey
	shadow        *shadowSpec
	removed       func(method, path string) (string, time.Time, bool) // set by Reload
	verifier      *verify.Verifier                                    // set by Reload: the one still valid

	robots    robotsMode
	robotsOwn []byte

	verifyOpts  verify.Options
	requestKeys verify.RequestKeys

	sessionStore  session.Store
	auditStore    audit.Store
	auditKey      ed25519.PrivateKey
	auditRedactor audit.Redactor
}

// WithDialect selects the agents.txt grammar served at
// /.well-known/agents.txt: config.DialectIETFDraft (the default) or
// config.DialectV010. /.well-known/agents.json follows it (see
// WithAgentsJSON).
func WithDialect(d config.Dialect) Option {
	return func(s *settings) error {
		if d != config.DialectIETFDraft && d != config.DialectV010 {
			return fmt.Errorf("WithDialect: unknown dialect %v", d)
		}
		s.formats.Dialect = d
		return nil
	}
}

// WithAgentsJSON selects what /.well-known/agents.json holds: the companion
// of the served agents.txt grammar (config.AgentsJSONCompanion, the default)
// or the agent:// registry (config.AgentsJSONRegistry). Descriptors are
// served either way.
func WithAgentsJSON(m config.AgentsJSONMode) Option {
	return func(s *settings) error {
		if m != config.AgentsJSONCompanion && m != config.AgentsJSONRegistry {
			return fmt.Errorf("WithAgentsJSON: unknown mode %d", m)
		}
		s.formats.AgentsJSON = m
		return nil
	}
}

// WithoutDocuments stops publishing the given documents (and stops
// validating what only they require), e.g.
// WithoutDocuments(config.DocAWP|config.DocDescriptors).
func WithoutDocuments(d config.Document) Option {
	return func(s *settings) error {
		if d&^config.AllDocuments != 0 {
			return fmt.Errorf("WithoutDocuments: unknown document bits %#x", uint8(d&^config.AllDocuments))
		}
		s.formats.Disabled |= d
		return nil
	}
}

// WithDevelopment allows plain-http URLs in the declaration, for a site run
// on a development host. Without it, http is accepted only for localhost,
// 127.0.0.0/8 and [::1] (draft-car 2.1: HTTPS in production).
func WithDevelopment() Option {
	return func(s *settings) error {
		s.formats.AllowHTTP = true
		return nil
	}
}

// WithDescriptorPath sets the path template of agent:// descriptors; it must
// start with "/" and contain "{name}". Default "/agents/{name}/agent.json".
func WithDescriptorPath(tmpl string) Option {
	return func(s *settings) error {
		s.descriptorPath = tmpl
		return nil
	}
}

// WithMaxAge sets the Cache-Control max-age of the given documents. The
// defaults are each draft's: 300 s for agents.txt and agents.json (draft-car
// 5.1), 86400 s for agents.md (agents.md 1), 300 s for agent.json and
// descriptors.
func WithMaxAge(d config.Document, maxAge time.Duration) Option {
	return func(s *settings) error {
		if maxAge < 0 {
			return fmt.Errorf("WithMaxAge: negative max-age %v", maxAge)
		}
		if s.maxAge == nil {
			s.maxAge = map[config.Document]time.Duration{}
		}
		for bit := config.Document(1); bit <= config.DocDescriptors && bit != 0; bit <<= 1 {
			if d&bit != 0 {
				s.maxAge[bit] = maxAge.Truncate(time.Second)
			}
		}
		return nil
	}
}

// WithLastModified sets the Last-Modified time of every document. Default:
// Site.GeneratedAt when set, else the time New was called. Set it (for
// example to your build time) so that replicas agree; ETags agree anyway,
// since they hash the bytes.
func WithLastModified(t time.Time) Option {
	return func(s *settings) error {
		s.lastModified = t
		return nil
	}
}

// Enforcement options.

// WithStore sets the rate-limit store. The default is an in-memory GCRA
// store, per process; redisstore.NewLimitStore wrapped in ratelimit.NewFailover
// makes limits hold across replicas, with an explicit failure policy.
func WithStore(s ratelimit.Store) Option {
	return func(st *settings) error {
		if s == nil {
			return errors.New("WithStore: nil store")
		}
		st.store = s
		return nil
	}
}

// WithClock sets the clock of the default in-memory stores (rate limits,
// sessions, audit logs), of session expiry and of audit timestamps, so tests
// can advance time instead of sleeping. Stores given with WithStore,
// WithSessionStore or WithAuditStore keep their own clocks.
func WithClock(now func() time.Time) Option {
	return func(st *settings) error {
		if now == nil {
			return errors.New("WithClock: nil clock")
		}
		st.clock = now
		return nil
	}
}

// WithTrustedProxies lists the proxies (CIDRs or addresses) whose
// X-Forwarded-For is believed, read right to left. By default no forwarding
// header is trusted and the client is RemoteAddr.
func WithTrustedProxies(cidrs ...string) Option {
	return func(st *settings) error {
		ip, err := enforce.NewClientIP(cidrs)
		if err != nil {
			return fmt.Errorf("WithTrustedProxies: %w", err)
		}
		st.clientIP = ip
		return nil
	}
}

// WithRateLimitKey counts rate limits per what key returns (an API key, a
// token subject) instead of per client address; when it returns false the
// client address is used.
func WithRateLimitKey(key enforce.KeyFunc) Option {
	return func(st *settings) error {
		st.key = key
		return nil
	}
}

// WithLimitByAgent counts every limit per agent policy only, shared by all
// of that agent's clients.
func WithLimitByAgent() Option {
	return func(st *settings) error {
		st.byAgent = true
		return nil
	}
}

// WithAuthenticator checks credentials of capabilities that declare auth.
// Without it, agentready enforces only that the declared credential is
// present (Authorization: Bearer for bearer-token and oauth2, the api-key
// header), not that it is valid: New logs once which capabilities are
// checked for presence only, and their decisions say so
// (Decision.PresenceOnly). A capability declaring hmac requires it: no
// RFC 9421 signature is verified without it, and New fails.
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

// WithAgentLists extends or replaces the lists of known AI agents and
// generic automation clients that classify a User-Agent as an agent
// (policy.WithExtraKnown, policy.WithExtraGeneric, policy.WithKnownList,
// policy.WithGenericList, policy.WithoutNames), or names product tokens
// that pass as browsers (policy.WithBrowserTokens: the site's own app).
func WithAgentLists(opts ...policy.ClassifierOption) Option {
	return func(st *settings) error {
		st.classifierOpts = append(st.classifierOpts, opts...)
		return nil
	}
}

// WithClassifier replaces User-Agent classification: f says whether a
// request comes from an agent and which declared policy applies
// (Class.Policy indexes Site.Agents when Class.Kind is policy.Declared). A
// request f calls a browser's is still an agent's (policy.Unknown, under
// "*") when it carries X-Agent-Session, Signature-Input or
// Signature-Agent, or two User-Agent headers.
func WithClassifier(f func(r *http.Request) policy.Class) Option {
	return func(st *settings) error {
		if f == nil {
			return errors.New("WithClassifier: nil classifier")
		}
		st.classify = f
		return nil
	}
}

// ImplicitScope says which clients draft-car 2.6's capability-only default
// ("when no access control is declared, only paths referenced by
// capabilities are implicitly permitted") applies to, for a site that
// declares no Allow or Disallow rule (WithImplicitAccess).
type ImplicitScope uint8

const (
	// ImplicitAllAgents applies the default to every automated client:
	// AI agents, and also search-engine crawlers, link unfurlers, feed
	// readers, uptime monitors and webhooks, which then reach only the
	// capability endpoints (a search engine no longer sees the site's
	// pages).
	ImplicitAllAgents ImplicitScope = iota + 1
	// ImplicitAIAgents applies it only to declared agents and agents of
	// the known-agent list; other automated clients (generic HTTP
	// clients, unknown agents) are subject to no path rule, while
	// capability scope, auth and limits still apply to them.
	ImplicitAIAgents
)

func (s ImplicitScope) String() string {
	switch s {
	case ImplicitAllAgents:
		return "all-agents"
	case ImplicitAIAgents:
		return "ai-agents"
	}
	return "unset"
}

// MarshalText implements encoding.TextMarshaler with String, so that a
// ImplicitScope logs by name in JSON (log/slog, encoding/json), not as a number.
func (s ImplicitScope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// WithImplicitAccess says to whom the capability-only default of draft-car
// 2.6 applies when the site declares no Allow or Disallow rule. New fails
// for such a site without it, so that no class of clients is locked out
// silently. It changes nothing for a site that declares Access rules.
func WithImplicitAccess(s ImplicitScope) Option {
	return func(st *settings) error {
		if s != ImplicitAllAgents && s != ImplicitAIAgents {
			return fmt.Errorf("WithImplicitAccess: unknown scope %d", s)
		}
		st.implicit = s
		return nil
	}
}

// WithLenientRouting declares that the application, or the upstream
// behind agentready serve, may route a path ignoring ASCII case and a
// trailing slash, as Express (case-insensitive, non-strict routing) and
// ASP.NET do by default: the Allow/Disallow rules and the capability
// endpoints then hold on every such spelling ("/ADMIN/users" is decided
// as "/admin/users" too, "/api/search/" and "/API/Search" as
// "/api/search"). agentready serve uses it unless the upstream is
// declared strict. Without it, agentready already decides on a path with
// a trailing slash or a format extension removed (chi's StripSlashes and
// URLFormat); see the README section "Routers and the readings of a
// request".
func WithLenientRouting() Option {
	return func(st *settings) error {
		st.lenient = true
		return nil
	}
}

// WithReportOnly computes, logs and reports every decision to the
// decision hook (Decision.ReportOnly is set) but denies nothing: requests
// that would be refused are served, and their responses carry an
// Agentready-Report-Only header naming the decision that would have
// applied, as Content-Security-Policy-Report-Only does for CSP. Use it to
// watch real traffic under a new declaration or classifier before
// enforcing. Discovery documents are served as always; sessions and the
// audit trail, which are not enforcement, keep working.
func WithReportOnly() Option {
	return func(st *settings) error {
		st.reportOnly = true
		return nil
	}
}

// WithProbes lets infrastructure probes through without enforcement:
// requests to the given exact paths ("/healthz", "/readyz") from any
// client, and requests from the given networks (CIDRs or addresses: the
// load balancer's, the orchestrator's), whatever they ask for. A
// User-Agent alone never passes (anyone can send "kube-probe/1.30"). Pass
// nil for either list to leave it empty. The client address is the one
// rate limits use (WithTrustedProxies applies), but a proxy's address
// never passes for a client it forwards: a request with X-Forwarded-For,
// Forwarded or X-Real-IP passes by network only when X-Forwarded-For
// names a client in it that is not a trusted proxy.
func WithProbes(paths, cidrs []string) Option {
	return func(st *settings) error {
		for _, p := range paths {
			if p == "" || p[0] != '/' {
				return fmt.Errorf("WithProbes: path %q does not start with \"/\"", p)
			}
		}
		st.probePaths = append(st.probePaths, paths...)
		st.probeNets = append(st.probeNets, cidrs...)
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

// WithVerification configures how claims to verified-only agent policies
// (config.Verification) are checked: the HTTP client that fetches range
// lists and key directories, the DNS resolver and its budget, the replay
// cache shared by replicas. Without it the defaults of verify.Options
// apply. WithClock and WithLogger apply to it unless it sets its own.
func WithVerification(o verify.Options) Option {
	return func(st *settings) error {
		st.verifyOpts = o
		return nil
	}
}

// WithRequestSignatures verifies the requests to capabilities that declare
// Auth: hmac as HTTP Message Signatures (RFC 9421): keys returns the key
// of a signature's keyid (hmac-sha256, or an asymmetric algorithm). A
// signature must cover @method, @authority and @path (@query and
// content-digest when the request has them), carry created and keyid, and
// be at most five minutes old. It takes the place of WithAuthenticator for
// those capabilities.
//
// A signature must be made for the site's host (Site.URL, and any host in
// WithVerification's Authorities); a nonce, when it carries one, is
// refused a second time (in WithVerification's Replays, shared by
// replicas, or in memory).
func WithRequestSignatures(keys verify.RequestKeys) Option {
	return func(st *settings) error {
		if keys == nil {
			return errors.New("WithRequestSignatures: nil keys")
		}
		st.requestKeys = keys
		return nil
	}
}

// WithDescriptorSigning signs every agent:// descriptor response with key
// (P-256), for conformance level 3 (agent-uri-03 10.3): an HTTP Message
// Signature (RFC 9421, ecdsa-p256-sha256) over @status, content-type and
// content-digest, the body's Content-Digest (RFC 9530), and the public key
// in the descriptor's authentication.jwks. The response is the same for
// every request, so it is signed once, in New.
func WithDescriptorSigning(key *ecdsa.PrivateKey) Option {
	return func(st *settings) error {
		if key == nil {
			return errors.New("WithDescriptorSigning: nil key")
		}
		st.descriptorKey = key
		return nil
	}
}

// Session and audit options (agents.txt v0.1.0).

// WithSessionStore sets where sessions live. The default is a
// session.MemoryStore (per process, on WithClock's clock);
// redisstore.NewSessionStore shares sessions between replicas and keeps them
// across restarts.
func WithSessionStore(s session.Store) Option {
	return func(st *settings) error {
		if s == nil {
			return errors.New("WithSessionStore: nil store")
		}
		st.sessionStore = s
		return nil
	}
}

// WithAuditStore sets where audit logs and sealed artifacts live. The
// default is an audit.MemoryStore (per process, lost on restart);
// redisstore.NewAuditStore keeps them durably. A store given here applies its own
// redactor (audit.WithRedactor), not WithAuditRedactor's.
func WithAuditStore(s audit.Store) Option {
	return func(st *settings) error {
		if s == nil {
			return errors.New("WithAuditStore: nil store")
		}
		st.auditStore = s
		return nil
	}
}

// WithAuditKey sets the site's Ed25519 key that signs audit artifacts.
// Required when Site.Audit.Enabled; its public half is published as
// agents.json audit.public_key (filled in when Site.Audit.PublicKey is
// empty, checked against it otherwise).
func WithAuditKey(key ed25519.PrivateKey) Option {
	return func(st *settings) error {
		if len(key) != ed25519.PrivateKeySize {
			return fmt.Errorf("WithAuditKey: an Ed25519 private key has %d bytes, not %d", ed25519.PrivateKeySize, len(key))
		}
		st.auditKey = key
		return nil
	}
}

// WithAuditRedactor sets the rule that hides sensitive param values in the
// default audit store (default audit.DefaultRedactor: passwords, tokens,
// card numbers and the like).
func WithAuditRedactor(r audit.Redactor) Option {
	return func(st *settings) error {
		if r == nil {
			return errors.New("WithAuditRedactor: nil redactor")
		}
		st.auditRedactor = r
		return nil
	}
}
