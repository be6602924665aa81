package oauthrs

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/webbotauth"
)

// maxKeys bounds the usable keys of a JWK Set: an issuer publishes the
// few it signs with and is rotating to.
const maxKeys = 32

// RSA modulus sizes accepted: smaller is too weak for a token that
// grants access, larger only makes the verification an unauthenticated
// request triggers slower.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// keySet is the cached JWK Set of the issuer, and the state of its
// fetches. A request finds it fresh and waits for nothing; it waits for
// at most one refresh (metadata and JWK Set together, bounded by the
// fetch timeout) when there is no copy yet, or when its kid is unknown
// and no refresh was made for MinRefetch; concurrent requests join the
// one refresh under way.
type keySet struct {
	mu   sync.Mutex
	keys map[string][]jose.JSONWebKey // by kid; nil until a fetch succeeds
	n    int
	// jwksURI is the last good metadata's; discovered at metaFetched.
	jwksURI     string
	metaFetched clock.Stamp
	// fetched and attempt are read on both clocks (clock.Stamp.Sub), so
	// that a pinned clock never stops a refresh; freshUntil by
	// Options.Now.
	fetched    clock.Stamp
	attempt    clock.Stamp
	freshUntil time.Time
	lastErr    error
	inflight   *refresh
}

type refresh struct {
	done chan struct{}
	err  error
}

// key returns the key a token with kid and alg is to be verified with,
// refreshing the set as keySet's comment says.
func (v *Verifier) key(ctx context.Context, kid string, alg jose.SignatureAlgorithm) (jose.JSONWebKey, *Error) {
	ks := &v.ks
	stamp := clock.Read(v.now)
	now := stamp.Wall
	ks.mu.Lock()
	_, found := ks.find(kid, alg)
	var call *refresh
	switch {
	case ks.keys == nil:
		if ks.inflight == nil && ks.lastErr != nil && stamp.Sub(ks.attempt) < v.retry {
			err := ks.lastErr
			ks.mu.Unlock()
			return jose.JSONWebKey{}, unavailableFrom("no key set yet, the last fetch failed (retried after "+v.retry.String()+")", err)
		}
		call = v.startRefresh(ctx, stamp)
	case !now.Before(ks.freshUntil):
		if ks.inflight != nil || stamp.Sub(ks.attempt) >= v.retry {
			call = v.startRefresh(ctx, stamp)
		}
		if found {
			call = nil // the stale copy serves while it refreshes
		}
	case !found && (ks.inflight != nil || stamp.Sub(ks.attempt) >= v.minRefetch):
		call = v.startRefresh(ctx, stamp)
	}
	ks.mu.Unlock()
	var fetchErr error
	if call != nil {
		select {
		case <-call.done:
			fetchErr = call.err
		case <-ctx.Done():
			fetchErr = ctx.Err()
		}
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.keys == nil {
		if fetchErr == nil {
			fetchErr = ks.lastErr
		}
		return jose.JSONWebKey{}, unavailableFrom("no key set yet", fetchErr)
	}
	if !now.Before(ks.freshUntil.Add(v.maxStale)) {
		return jose.JSONWebKey{}, unavailableFrom(fmt.Sprintf("the cached key set, stale since %s, could not be refreshed for %s",
			ks.freshUntil.Format(time.RFC3339), v.maxStale), ks.lastErr)
	}
	k, found := ks.find(kid, alg)
	switch {
	case found:
		return k, nil
	case fetchErr != nil:
		return jose.JSONWebKey{}, unavailableFrom(fmt.Sprintf("kid %q is not in the cached key set, and refreshing it failed", kid), fetchErr)
	case kid == "":
		return jose.JSONWebKey{}, invalid(CheckKey, fmt.Sprintf("no kid, and the key set holds no single key for %s", alg), nil)
	case len(ks.keys[kid]) > 0:
		return jose.JSONWebKey{}, invalid(CheckAlg, fmt.Sprintf("alg %s is not that of the key %q (RFC 8725 3.1)", alg, kid), nil)
	}
	return jose.JSONWebKey{}, invalid(CheckKey, fmt.Sprintf("kid %q is not in the issuer's key set", kid), nil)
}

// find looks kid up; ks.mu is held. A token without kid is verified with
// the one key of the set that fits its algorithm, if there is exactly
// one: trying several would multiply the cost of a forged token.
func (ks *keySet) find(kid string, alg jose.SignatureAlgorithm) (jose.JSONWebKey, bool) {
	if kid != "" {
		for _, k := range ks.keys[kid] {
			if fits(k, alg) {
				return k, true
			}
		}
		return jose.JSONWebKey{}, false
	}
	var only jose.JSONWebKey
	n := 0
	for _, list := range ks.keys {
		for _, k := range list {
			if fits(k, alg) {
				only, n = k, n+1
			}
		}
	}
	return only, n == 1
}

// startRefresh starts a refresh of the metadata (when it is older than
// MaxRefresh or absent) and the JWK Set, or joins the one under way;
// ks.mu is held. It runs on its own goroutine, bounded by the fetch
// timeout, so that a caller whose ctx ends does not abort it for others.
func (v *Verifier) startRefresh(ctx context.Context, now clock.Stamp) *refresh {
	ks := &v.ks
	if ks.inflight != nil {
		return ks.inflight
	}
	call := &refresh{done: make(chan struct{})}
	ks.inflight, ks.attempt = call, now
	jwksURI, metaAge := ks.jwksURI, now.Sub(ks.metaFetched)
	if ks.metaFetched.IsZero() {
		metaAge = v.maxRefresh
	}
	go func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), v.timeout)
		defer cancel()
		var err error
		var metaAt clock.Stamp
		if jwksURI == "" || metaAge >= v.maxRefresh {
			uri, derr := v.discover(fctx)
			switch {
			case derr == nil:
				jwksURI, metaAt = uri, clock.Read(v.now)
			case jwksURI == "":
				err = unavailable(CheckMetadata, "", derr)
			default:
				v.log.Warn("oauthrs: issuer metadata refresh failed; keeping its jwks_uri", "issuer", v.issuer, "err", derr)
			}
		}
		var keys map[string][]jose.JSONWebKey
		var n int
		if err == nil {
			keys, n, err = v.fetchKeys(fctx, jwksURI)
		}
		done := clock.Read(v.now)
		ks.mu.Lock()
		if !metaAt.IsZero() {
			ks.jwksURI, ks.metaFetched = jwksURI, metaAt
		}
		if err != nil {
			ks.lastErr = err
		} else {
			ks.keys, ks.n, ks.fetched, ks.freshUntil, ks.lastErr = keys, n, done, done.Wall.Add(v.refresh), nil
		}
		ks.inflight = nil
		ks.mu.Unlock()
		if err != nil {
			v.log.Warn("oauthrs: issuer key set fetch failed", "issuer", v.issuer, "err", err)
		}
		call.err = err
		close(call.done)
	}()
	return call
}

// fetchKeys GETs the JWK Set (RFC 7517 5) and keeps its usable keys:
// public signing keys of the types verify pins algorithms to. A key it
// cannot use (an encryption key, a symmetric one, a type go-jose does not
// know) is passed over rather than failing the set.
func (v *Verifier) fetchKeys(ctx context.Context, uri string) (map[string][]jose.JSONWebKey, int, error) {
	_, _, body, err := webbotauth.Get(ctx, v.client, uri, "application/jwk-set+json, application/json;q=0.9", v.maxBytes)
	if err != nil {
		return nil, 0, unavailable(CheckJWKS, "GET "+uri, err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, 0, unavailable(CheckJWKS, "GET "+uri+": not a JWK Set", err)
	}
	keys := make(map[string][]jose.JSONWebKey)
	n := 0
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !usable(k) {
			continue
		}
		if n++; n > maxKeys {
			return nil, 0, unavailable(CheckJWKS, fmt.Sprintf("GET %s: more than %d usable keys", uri, maxKeys), nil)
		}
		keys[k.KeyID] = append(keys[k.KeyID], k)
	}
	if n == 0 {
		return nil, 0, unavailable(CheckJWKS, "GET "+uri+": no usable signing key", nil)
	}
	return keys, n, nil
}

// usable reports whether k is a public signing key verify can pin an
// algorithm to. A symmetric key never is: an "oct" key in a public set
// would let anyone who read it mint HS256 tokens.
func usable(k jose.JSONWebKey) bool {
	if !k.Valid() || !k.IsPublic() || (k.Use != "" && k.Use != "sig") {
		return false
	}
	switch pub := k.Key.(type) {
	case *rsa.PublicKey:
		bits := pub.N.BitLen()
		return bits >= minRSABits && bits <= maxRSABits
	case *ecdsa.PublicKey:
		return pub.Curve == elliptic.P256() || pub.Curve == elliptic.P384() || pub.Curve == elliptic.P521()
	case ed25519.PublicKey:
		return true
	}
	return false
}

// fits reports whether k verifies alg: the algorithm is pinned to the
// key's type and curve (RFC 8725 3.1: "each key MUST be used with exactly
// one algorithm" family), and to the key's own alg when it names one.
func fits(k jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	if k.Algorithm != "" && k.Algorithm != string(alg) {
		return false
	}
	switch pub := k.Key.(type) {
	case *rsa.PublicKey:
		switch alg {
		case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512:
			return true
		}
	case *ecdsa.PublicKey:
		switch alg {
		case jose.ES256:
			return pub.Curve == elliptic.P256()
		case jose.ES384:
			return pub.Curve == elliptic.P384()
		case jose.ES512:
			return pub.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == jose.EdDSA
	}
	return false
}

// dueIn is how long from now Run should wait before refreshing (0 or
// less: now); ks.mu is held.
func (v *Verifier) dueIn(now clock.Stamp) time.Duration {
	ks := &v.ks
	if ks.attempt.IsZero() {
		return 0
	}
	retryIn := v.retry - now.Sub(ks.attempt)
	if ks.keys == nil {
		return retryIn
	}
	refreshIn := v.refresh - v.refresh/10 - now.Sub(ks.fetched)
	if ks.lastErr != nil && retryIn > refreshIn {
		return retryIn
	}
	return refreshIn
}

// Run refreshes the key set before it goes stale (at nine tenths of
// Refresh), fetching it at once when there is none and retrying a failure
// after up to 10s, until ctx is done: requests then find a fresh copy and
// wait for no fetch. Start it once, beside serving.
func (v *Verifier) Run(ctx context.Context) {
	for {
		now := clock.Read(v.now)
		v.ks.mu.Lock()
		wait := v.dueIn(now)
		if wait <= 0 || v.ks.inflight != nil {
			if v.ks.inflight == nil {
				v.startRefresh(ctx, now)
			}
			wait = v.retry
		}
		v.ks.mu.Unlock()
		t := time.NewTimer(max(wait, 10*time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Status is the state of a Verifier's key set, for logs and metrics.
type Status struct {
	Issuer      string
	JWKSURI     string    // from the last good metadata; "" before
	Keys        int       // usable keys cached
	LastFetch   time.Time // last successful refresh; zero if none
	LastAttempt time.Time // last refresh attempted; zero if none
	LastError   error     // of the last attempt; nil when it succeeded
	FreshUntil  time.Time // when the cached set goes stale
}

// Status reports the state of the key set.
func (v *Verifier) Status() Status {
	ks := &v.ks
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return Status{Issuer: v.issuer, JWKSURI: ks.jwksURI, Keys: ks.n, LastFetch: ks.fetched.Wall,
		LastAttempt: ks.attempt.Wall, LastError: ks.lastErr, FreshUntil: ks.freshUntil}
}
