package verify

import (
	"context"
	"crypto"
	"log/slog"
	"net/http"
	"net/netip"
	"time"
)

// Options configures how the middleware proves the claims of verified-only
// agent policies (agentready.WithVerification). The zero value is ready to
// use.
type Options struct {
	// Client fetches range lists and key directories. Default: a client
	// with a 10-second timeout that follows no redirect. A Client given
	// here should follow none either. Key directories are never fetched
	// from a private or link-local address, nor from a loopback one
	// without AllowHTTPLoopback, unless the Client's Transport dials its
	// own way (a DialContext of its own, or another RoundTripper).
	Client *http.Client
	// AllowHTTPLoopback allows plain-HTTP sources on a loopback host
	// (tests, demos); otherwise sources are fetched over HTTPS only.
	AllowHTTPLoopback bool
	// RangesMaxAge is how long a range list is relied on without a
	// successful refresh: past it, the list is stale and the claims it
	// would check fall back to the "*" policy. Default 7 days.
	RangesMaxAge time.Duration
	// RangesRefresh is how often the range lists are reloaded. Default 24
	// hours (Bing asks for daily refreshes).
	RangesRefresh time.Duration
	// Resolver answers reverse DNS checks. Default net.DefaultResolver.
	Resolver Resolver
	// DNSBudget is the longest a request waits for a reverse DNS lookup
	// that is not cached; a longer lookup finishes in the background for
	// the next request. Zero means the default, 100ms; a negative budget
	// means no wait at all: a client's first request is then served as
	// unverified, and the following ones from the cache.
	DNSBudget time.Duration
	// DNSTimeout bounds one lookup (PTR and forward). Default 2s.
	DNSTimeout time.Duration
	// DNSConcurrency bounds the lookups running at once. Default 16.
	DNSConcurrency int
	// DNSCacheSize bounds the cached answers. Default 10000.
	DNSCacheSize int
	// Authorities are the hosts (host[:port], as clients address the site)
	// a Web Bot Auth signature may name in @authority. A request's Host
	// outside them is not believed: anyone can send any Host, and
	// believing it would let a signature an agent made for another site be
	// replayed here. agentready.New sets the host of Site.URL; add the
	// others the site answers at (a staging host, a demo's address).
	Authorities []string
	// AllowNoNonce accepts Web Bot Auth signatures without a nonce. By
	// default a nonce is required: a signature without one can be
	// replayed, on any path, for its whole lifetime (the draft makes
	// nonce optional).
	AllowNoNonce bool
	// SignatureMaxLifetime caps a signature's expires - created. Default
	// 5 minutes. A longer-lived signature is refused for exceeding this
	// policy, a reason of its own, not as a forgery.
	SignatureMaxLifetime time.Duration
	// RequireDirectoryProof uses only the keys of a key directory at the
	// well-known URI that sign its response (possession proof,
	// draft-ietf-webbotauth-httpsig-protocol-01 appendix B.1). By default
	// the JWK Sets a policy trusts are used unsigned, as the draft allows
	// for keys the site fetches itself: a static host cannot sign.
	RequireDirectoryProof bool
	// Replays records signature nonces, so that a replayed signature is
	// refused within its lifetime. Default: in memory, per process; give
	// a shared one (redisstore.NewReplayCache) for replicas.
	Replays ReplayCache
	// Now is the clock of every timestamp and expiry verification
	// compares: signature windows, nonces (Replays), key directories,
	// range lists' load times, Signature Agent Cards and the reverse-DNS
	// cache. Default: agentready.WithClock's clock, else time.Now.
	// Refreshes and timeouts wait on the runtime's clock whatever it says
	// (docs/operations.md, "Clocks").
	Now func() time.Time
	// Logger receives source failures. Default slog.Default().
	Logger *slog.Logger
}

// ReplayCache records signature nonces so that a signature replayed within
// its lifetime is refused. The in-memory one is per process; replicas
// share one in Redis (redisstore).
type ReplayCache interface {
	// Seen records key until the given time and reports whether it was
	// recorded already and not expired. now is the verifier's clock
	// (Options.Now): a cache judges expiry by it, never by a clock of its
	// own, so that a verifier on a set clock keeps its replay protection.
	Seen(ctx context.Context, key string, now, until time.Time) (bool, error)
}

// Resolver is the DNS a ReverseDNS check asks; *net.Resolver is one.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// RequestKey is a key a site holds for a client that signs its requests
// with HTTP Message Signatures (RFC 9421), as capabilities declaring
// Auth: hmac ask.
type RequestKey struct {
	// Algorithm is the RFC 9421 algorithm (section 6.2.2): "hmac-sha256",
	// "ed25519", "ecdsa-p256-sha256", "ecdsa-p384-sha384" or
	// "rsa-pss-sha512". A signature is verified with this algorithm,
	// whatever its alg parameter says; one that names another fails.
	Algorithm string
	// Secret is the shared secret of hmac-sha256.
	Secret []byte
	// Public is the public key of the asymmetric algorithms.
	Public crypto.PublicKey
}

// RequestKeys returns the key of the signature's keyid, or an error (any
// error fails the request with 401).
type RequestKeys func(ctx context.Context, keyID string) (RequestKey, error)
