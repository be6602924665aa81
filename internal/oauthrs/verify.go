package oauthrs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/webbotauth"
)

// Defaults of Options.
const (
	DefaultFetchTimeout = 5 * time.Second
	DefaultRefresh      = 10 * time.Minute
	DefaultMinRefetch   = time.Minute
	DefaultMaxRefresh   = 24 * time.Hour
	DefaultMaxStale     = 24 * time.Hour
	DefaultLeeway       = 30 * time.Second
	// DefaultMaxBytes bounds the metadata and the JWK Set: a set with a
	// few keys and their x5c chains fits in well under 64 KiB.
	DefaultMaxBytes = 64 << 10
	// MaxTokenBytes bounds the token Verify parses: an access token is a
	// few KiB; more is refused before any decoding.
	MaxTokenBytes = 32 << 10
)

// maxRetryDelay bounds how long a failed refresh is remembered before a
// request may try again (shortened to MinRefetch when that is smaller).
const maxRetryDelay = 10 * time.Second

// Options configures a Verifier. Zero values take the defaults.
type Options struct {
	// Client fetches the metadata and the JWK Set. It is copied, never
	// follows a redirect, and its connections to the issuer's and the
	// JWK Set's hosts refuse private, loopback and link-local addresses
	// (as key directory fetches do) when its Transport is an
	// *http.Transport dialling the default way. Default: a client
	// without timeout of its own; each refresh is bounded by FetchTimeout.
	Client *http.Client
	// AllowHTTPLoopback admits plain http issuer and jwks_uri URLs to a
	// loopback host, and loopback addresses (tests, local development).
	AllowHTTPLoopback bool
	// Now is the clock of exp, nbf, iat and of the cache's freshness;
	// default the wall clock.
	Now clock.Func
	// Leeway is the clock skew allowed on exp, nbf and iat (default 30s).
	Leeway time.Duration
	// FetchTimeout bounds one refresh, metadata and JWK Set together:
	// the longest a request ever waits (default 5s).
	FetchTimeout time.Duration
	// Refresh is how long a fetched key set is fresh (default 10 min);
	// Run refreshes it before. A stale set still verifies, while a
	// refresh is attempted, for MaxStale at most.
	Refresh time.Duration
	// MinRefetch is the least interval between refreshes that a token
	// with an unknown kid triggers (default 1 min), so that a flood of
	// made-up kids makes one fetch per interval, not one per request.
	MinRefetch time.Duration
	// MaxRefresh is how long the issuer's metadata (its jwks_uri) is kept
	// before it is fetched again (default 24h).
	MaxRefresh time.Duration
	// MaxStale bounds how long a stale key set verifies while refreshes
	// fail (default 24h): a key the issuer withdrew, perhaps because it
	// leaked, is trusted no longer than this.
	MaxStale time.Duration
	// MaxBytes bounds the metadata and the JWK Set (default 64 KiB).
	MaxBytes int64
	// RequireAccessTokenType refuses a token whose typ is not "at+jwt"
	// (RFC 9068 4). By default typ may also be absent or "JWT", as many
	// issuers send; any other typ (an ID token's, a logout token's) is
	// refused either way.
	RequireAccessTokenType bool
	// Logger receives failed refreshes; default slog.Default().
	Logger *slog.Logger
}

// Verifier verifies JWT access tokens from one authorization server for
// one audience. It is safe for concurrent use.
type Verifier struct {
	issuer, audience  string
	client            *http.Client
	allowHTTPLoopback bool
	now               clock.Func
	leeway, timeout   time.Duration
	refresh, retry    time.Duration
	minRefetch        time.Duration
	maxRefresh        time.Duration
	maxStale          time.Duration
	maxBytes          int64
	strictType        bool
	log               *slog.Logger

	hostsMu sync.Mutex
	hosts   map[string]bool // the hosts fetched from, whose dials are guarded
	ks      keySet
}

// Claims is what a verified token says of its holder.
type Claims struct {
	Subject  string    // sub; "" when absent
	ClientID string    // client_id (RFC 9068 2.2); "" when absent
	Scopes   []string  // scope (RFC 9068 2.2.3) and scp, each once
	Expiry   time.Time // exp
	ID       string    // jti; "" when absent
}

// NewVerifier returns a Verifier of tokens issued by issuer (its exact
// issuer identifier, RFC 8414 2) for audience: the audience the
// capability declares, else its resource identifier (RFC 8707 2, MCP
// 2025-11-25 "Token Audience Binding and Validation"). Nothing is fetched
// until Verify or Run.
func NewVerifier(issuer, audience string, opts Options) (*Verifier, error) {
	if err := checkIssuer(issuer, opts.AllowHTTPLoopback); err != nil {
		return nil, err
	}
	if audience == "" {
		return nil, errors.New("oauthrs: an audience is required (RFC 8707: the resource, when none is declared)")
	}
	if opts.Leeway < 0 || opts.FetchTimeout < 0 || opts.Refresh < 0 || opts.MinRefetch < 0 ||
		opts.MaxRefresh < 0 || opts.MaxStale < 0 || opts.MaxBytes < 0 {
		return nil, errors.New("oauthrs: Options: a negative duration or size")
	}
	v := &Verifier{
		issuer:            issuer,
		audience:          audience,
		allowHTTPLoopback: opts.AllowHTTPLoopback,
		now:               clock.Or(opts.Now),
		leeway:            or(opts.Leeway, DefaultLeeway),
		timeout:           or(opts.FetchTimeout, DefaultFetchTimeout),
		refresh:           or(opts.Refresh, DefaultRefresh),
		minRefetch:        or(opts.MinRefetch, DefaultMinRefetch),
		maxRefresh:        or(opts.MaxRefresh, DefaultMaxRefresh),
		maxStale:          or(opts.MaxStale, DefaultMaxStale),
		maxBytes:          or(opts.MaxBytes, DefaultMaxBytes),
		strictType:        opts.RequireAccessTokenType,
		log:               opts.Logger,
		hosts:             map[string]bool{},
	}
	if v.log == nil {
		v.log = slog.Default()
	}
	v.retry = min(maxRetryDelay, v.minRefetch)
	var c http.Client
	if opts.Client != nil {
		c = *opts.Client
	}
	// Never follow a redirect: the 3xx itself is returned, and refused for
	// not being a 200.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	v.client = &c
	u, _ := url.Parse(issuer)
	v.guard(u.Hostname())
	webbotauth.GuardDial(v.client, v.guarded, opts.AllowHTTPLoopback)
	return v, nil
}

func or[T int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// guard adds host to those whose dials are checked.
func (v *Verifier) guard(host string) {
	v.hostsMu.Lock()
	v.hosts[strings.ToLower(host)] = true
	v.hostsMu.Unlock()
}

func (v *Verifier) guarded(host string) bool {
	v.hostsMu.Lock()
	defer v.hostsMu.Unlock()
	return v.hosts[host]
}

// Issuer is the issuer identifier tokens are verified against.
func (v *Verifier) Issuer() string { return v.issuer }

// Audience is the audience tokens must carry.
func (v *Verifier) Audience() string { return v.audience }

// asymmetric are the algorithms a token may be signed with: never
// "none", never HMAC, whose key a resource server would have to share
// (RFC 8725 3.1, 3.2); each is then pinned to its key's type (fits).
var asymmetric = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// Verify checks token (the credential of "Authorization: Bearer", RFC
// 6750 2.1) and that it carries every scope of required, and returns its
// claims. A failure is an *Error: InvalidToken (401), InsufficientScope
// (403), or Unavailable (503) when the issuer's keys cannot be had, which
// fails closed. The checks (RFC 9068 4, RFC 8725 3): a compact JWS of an
// asymmetric algorithm pinned to its key's type; typ, when present, an
// access token's; a key of the issuer's JWK Set; the signature; iss the
// issuer exactly; aud holding the audience; exp present and not past, nbf
// and iat not in the future, each within the leeway; then the scopes.
func (v *Verifier) Verify(ctx context.Context, token string, required []string) (Claims, error) {
	if len(token) > MaxTokenBytes || strings.Count(token, ".") != 2 {
		return Claims{}, invalid(CheckFormat, fmt.Sprintf("not a compact JWS of at most %d bytes", MaxTokenBytes), nil)
	}
	alg, ok := headerAlg(token)
	if !ok {
		return Claims{}, invalid(CheckFormat, "the protected header is not base64url JSON", nil)
	}
	if !allowed(alg) {
		return Claims{}, invalid(CheckAlg, fmt.Sprintf("alg %q is not an asymmetric signature algorithm", alg), nil)
	}
	sig, err := parse(token)
	if err != nil {
		return Claims{}, invalid(CheckFormat, "", err)
	}
	h := sig.Signatures[0].Header
	if terr := v.checkType(h); terr != nil {
		return Claims{}, terr
	}
	key, kerr := v.key(ctx, h.KeyID, jose.SignatureAlgorithm(h.Algorithm))
	if kerr != nil {
		return Claims{}, kerr
	}
	payload, err := sig.Verify(key.Key)
	if err != nil {
		return Claims{}, invalid(CheckSignature, fmt.Sprintf("kid %q", h.KeyID), err)
	}
	var c tokenClaims
	if err := josejson.Unmarshal(payload, &c); err != nil {
		return Claims{}, invalid(CheckClaims, "", err)
	}
	return v.checkClaims(&c, required)
}
