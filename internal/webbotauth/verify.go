package webbotauth

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// Defaults of Verifier.
const (
	DefaultMaxLifetime = 5 * time.Minute
	DefaultSkew        = 30 * time.Second
)

// Signature is a verified Web Bot Auth signature.
type Signature struct {
	Agent   string    // its Signature-Agent URL, in the form AgentURL returns
	KeyID   string    // the key's RFC 7638 thumbprint
	Label   string    // the signature's label in Signature-Input
	Created time.Time // the created parameter
	Expires time.Time // the expires parameter
	Nonce   string    // the nonce parameter, "" when absent
}

// KeyResolver returns the public key with keyID from the JWK Set at
// agentURL, a Signature-Agent URL in the form AgentURL returns (an origin
// for the key directory at the well-known URI, "https://agent.example",
// else the JWK Set's URL without its query). It returns ErrUntrusted for a
// URL the site does not trust, ErrUnknownKey for a key the set does not
// hold, or an error wrapping ErrUnavailable when the set cannot be
// fetched. An error wrapping none of the package's sentinels is treated as
// ErrUnavailable. Directories.Key is a KeyResolver.
//
// The resolver, not the request, decides which URLs are consulted: a
// request only names one (draft-ietf-webbotauth-httpsig-protocol-01 4.4,
// 6.7). Lookups are keyed on the (agentURL, keyID) pair, never on keyID
// alone (5.4).
type KeyResolver func(ctx context.Context, agentURL, keyID string) (crypto.PublicKey, error)

// Verifier verifies Web Bot Auth request signatures. Its zero value (with
// Keys set) uses the defaults; it is safe for concurrent use.
type Verifier struct {
	Keys        KeyResolver
	Now         func() time.Time // default time.Now
	MaxLifetime time.Duration    // longest expires - created accepted; 0: DefaultMaxLifetime
	Skew        time.Duration    // clock skew tolerated on created and expires; 0: DefaultSkew, negative: none
	Replays     ReplayCache      // nil: no replay check
	// RequireNonce refuses a signature without a nonce (ErrMalformed): the
	// draft makes nonce optional, but a signature without one can be
	// replayed, on any path, for its whole lifetime.
	RequireNonce bool
	// AllowHTTPLoopback accepts a Signature-Agent URL of scheme http when
	// its host is a loopback address or "localhost" (tests, local
	// development). Any other http URL is ErrMalformed: the draft requires
	// https (5.2.1).
	AllowHTTPLoopback bool
}

// Verify checks r's Web Bot Auth signature; authority is the request's
// authority as the server sees it, host[:port], which @authority and
// @target-uri are verified against (it is lowercased, and a default port
// removed, here). It must come from the server's configuration, or be a
// Host the server has checked against its own names: passing r.Host
// unchecked would accept a signature made for any site the client names. Errors wrap one of the package's sentinels (errors.Is),
// with a message naming what failed. Verify never reads the request body.
//
// Each signature tagged "web-bot-auth" is verified on its own, against its
// own Signature-Agent member and key (5.2.2), in Signature-Input order (at
// most 8); the first valid one is returned. When none is, the error is
// that of the first that failed a check, or else of the first that could
// not be checked (C.1: invalid outranks unverified), its message counting
// the others.
//
// When a valid signature covers Content-Digest and the request has a body,
// the body is checked against it (ErrDigest), and given back to r as sent:
// up to 1 MiB is read here; a longer body is checked as it is read, the
// read that reaches its end failing with ErrDigest on a mismatch. No body
// is read for a signature that does not verify.
func (v *Verifier) Verify(ctx context.Context, r *http.Request, authority string) (Signature, error) {
	if r == nil || r.URL == nil {
		return Signature{}, fmt.Errorf("%w: no request", ErrNoSignature)
	}
	cands, err := selectSignatures(r.Header, tagWebBotAuth, maxCandidates)
	if err != nil {
		return Signature{}, err
	}
	if v.Keys == nil {
		return Signature{}, fmt.Errorf("%w: the Verifier has no KeyResolver", ErrUnavailable)
	}
	view := newRequestView(r, "")
	auth, err := normalizeHostPort(authority, view.req.scheme)
	if err != nil || !safeValue(authority) {
		return Signature{}, fmt.Errorf("%w: invalid authority %q", ErrAuthority, authority)
	}
	view.req.authority = auth
	agents := parseSignatureAgent(r.Header.Values("Signature-Agent"))
	t := clock.Or(v.Now)()
	var first error
	var body bodyCheck
	for i := range cands {
		sig, err := v.verifyCandidate(ctx, r, view, &agents, &cands[i], t, &body)
		if err == nil {
			return sig, nil
		}
		if first == nil || unverified(first) && !unverified(err) {
			first = err
		}
	}
	if len(cands) > 1 {
		first = fmt.Errorf("%w (and %d more web-bot-auth signatures, none valid)", first, len(cands)-1)
	}
	return Signature{}, first
}

// newRequestView is what the signature base of r may cover. @target-uri and
// @scheme use "https" unless the request came over plain HTTP in absolute
// form: behind a TLS-terminating proxy r.TLS is nil although the client
// signed an https URI, and Web Bot Auth signers are expected to use https
// (draft-ietf-webbotauth-httpsig-protocol-01 6.1).
func newRequestView(r *http.Request, authority string) *messageView {
	scheme := "https"
	if r.TLS == nil && strings.EqualFold(r.URL.Scheme, "http") {
		scheme = "http"
	}
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet // as net/http reads an empty Method
	}
	return &messageView{req: requestView{
		method:    method,
		scheme:    scheme,
		authority: authority,
		path:      path,
		query:     r.URL.RawQuery,
		hasQuery:  r.URL.RawQuery != "" || r.URL.ForceQuery,
		header:    r.Header,
	}}
}

func (v *Verifier) lifetime() time.Duration {
	if v.MaxLifetime > 0 {
		return v.MaxLifetime
	}
	return DefaultMaxLifetime
}

func (v *Verifier) skew() time.Duration {
	switch {
	case v.Skew > 0:
		return v.Skew
	case v.Skew < 0:
		return 0
	}
	return DefaultSkew
}

// checkWindow applies the time rules to a signature's created and expires
// (both required: draft-ietf-webbotauth-httpsig-protocol-01 5.2). A
// lifetime over the site's bound is ErrLifetime, told apart from a
// signature out of its window (ErrExpired).
func checkWindow(label string, p sigParams, now time.Time, maxLife, skew time.Duration) error {
	if !p.hasCreated || !p.hasExpires {
		return fmt.Errorf("%w: %s: created and expires are required", ErrMalformed, label)
	}
	created, expires := time.Unix(p.created, 0), time.Unix(p.expires, 0)
	life := p.expires - p.created
	if life <= 0 {
		return fmt.Errorf("%w: %s: expires %d is not after created %d", ErrExpired, label, p.expires, p.created)
	}
	if life > int64(maxLife/time.Second) {
		return fmt.Errorf("%w: %s: lifetime %ds exceeds %s", ErrLifetime, label, life, maxLife)
	}
	if created.After(now.Add(skew)) {
		return fmt.Errorf("%w: %s: created %s is in the future (now %s, skew %s)", ErrExpired, label,
			created.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), skew)
	}
	if expires.Add(skew).Before(now) {
		return fmt.Errorf("%w: %s: expired at %s (now %s, skew %s)", ErrExpired, label,
			expires.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), skew)
	}
	return nil
}

// verifyCandidate applies every rule to one signature, cheapest first: the
// key is resolved only for a well-formed, current signature bound to this
// authority, and the nonce is recorded only once the signature verifies (so
// that forged signatures cannot burn a legitimate agent's nonces).
func (v *Verifier) verifyCandidate(ctx context.Context, r *http.Request, view *messageView, agents *agentField, c *candidate, now time.Time, body *bodyCheck) (Signature, error) {
	if c.err != nil {
		return Signature{}, c.err
	}
	p, err := readParams(c)
	if err != nil {
		return Signature{}, err
	}
	if p.keyID == "" {
		return Signature{}, fmt.Errorf("%w: %s: keyid is required", ErrMalformed, c.label)
	}
	if v.RequireNonce && p.nonce == "" {
		return Signature{}, fmt.Errorf("%w: %s: a nonce is required (a signature without one could be replayed)", ErrMalformed, c.label)
	}
	skew := v.skew()
	if err := checkWindow(c.label, p, now, v.lifetime(), skew); err != nil {
		return Signature{}, err
	}
	if !c.covers("@authority") && !c.covers("@target-uri") {
		return Signature{}, fmt.Errorf("%w: %s covers neither @authority nor @target-uri", ErrAuthority, c.label)
	}
	member, err := c.ownAgent(agents)
	if err != nil {
		return Signature{}, err
	}
	agentURL, err := v.agentURL(member.uri)
	if err != nil {
		return Signature{}, fmt.Errorf("%w: %s: Signature-Agent %q: %v", ErrMalformed, c.label, member.uri, err)
	}
	base, err := signatureBase(c.input, view)
	if err != nil {
		return Signature{}, fmt.Errorf("%w: %s: %v", ErrMalformed, c.label, err)
	}
	pub, err := v.Keys(ctx, agentURL, p.keyID)
	if err != nil {
		if !wrapsSentinel(err) {
			err = fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return Signature{}, fmt.Errorf("webbotauth: %s: key %q of %q: %w", c.label, p.keyID, agentURL, err)
	}
	if pub == nil {
		return Signature{}, fmt.Errorf("%w: %s: key %q of %q", ErrUnknownKey, c.label, p.keyID, agentURL)
	}
	if err := checkKey(c.label, p, pub); err != nil {
		return Signature{}, err
	}
	if !verifyBytes(pub, base, c.sig) {
		if h, err := normalizeHostPort(r.Host, view.req.scheme); r.Host != "" && (err != nil || h != view.req.authority) {
			return Signature{}, fmt.Errorf("%w: %s does not verify for authority %q, and the request names %q", ErrAuthority, c.label, view.req.authority, r.Host)
		}
		return Signature{}, fmt.Errorf("%w: %s (key %q of %q)", ErrBadSignature, c.label, p.keyID, agentURL)
	}
	if c.coversField("content-digest") {
		if err := body.check(r); err != nil {
			return Signature{}, fmt.Errorf("%w: %s: %v", ErrDigest, c.label, err)
		}
	}
	if p.nonce != "" && v.Replays != nil {
		seen, err := v.Replays.Seen(ctx, replayKey(p.keyID, p.nonce), now, time.Unix(p.expires, 0).Add(skew))
		if err != nil {
			return Signature{}, fmt.Errorf("%w: %s: replay cache: %w", ErrUnavailable, c.label, err)
		}
		if seen {
			return Signature{}, fmt.Errorf("%w: %s: nonce of key %q already used", ErrReplay, c.label, p.keyID)
		}
	}
	return Signature{
		Agent:   agentURL,
		KeyID:   p.keyID,
		Label:   c.label,
		Created: time.Unix(p.created, 0),
		Expires: time.Unix(p.expires, 0),
		Nonce:   p.nonce,
	}, nil
}

// agentURL returns the canonical form of a Signature-Agent member's URL
// (AgentURL), which must be https (5.2.1), or http to a loopback host when
// AllowHTTPLoopback is set.
func (v *Verifier) agentURL(raw string) (string, error) {
	u, err := parseAgentURL(raw)
	if err != nil {
		return "", err
	}
	if u.scheme == "http" && !(v.AllowHTTPLoopback && IsLoopback(u.host)) {
		return "", fmt.Errorf("scheme http: a JWK Set URL is https (5.2.1)")
	}
	return u.canonical(), nil
}

// checkKey applies the key rules: the algorithm comes from the key, an alg
// parameter that names another is refused, and the key must be the one the
// keyid names (its thumbprint), whatever the resolver returned.
func checkKey(label string, p sigParams, pub crypto.PublicKey) error {
	alg, err := keyAlgorithm(pub)
	if err != nil {
		return fmt.Errorf("%w (signature %s)", err, label)
	}
	if p.alg != "" && p.alg != alg {
		return fmt.Errorf("%w: %s: alg %q but the key is %s", ErrAlgorithm, label, p.alg, alg)
	}
	tp, err := Thumbprint(pub)
	if err != nil || tp != p.keyID {
		return fmt.Errorf("%w: %s: the resolved key's thumbprint is not keyid %q", ErrUnknownKey, label, p.keyID)
	}
	return nil
}

// verifyBytes verifies sig over base with the key's algorithm (a key that
// passed keyAlgorithm): Ed25519 (RFC 9421 3.3.6) or RSASSA-PSS with SHA-512
// and a 64-byte salt (3.3.1).
func verifyBytes(pub crypto.PublicKey, base, sig []byte) bool {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		return len(k) == ed25519.PublicKeySize && ed25519.Verify(k, base, sig)
	case *rsa.PublicKey:
		h := sha512.Sum512(base)
		return rsa.VerifyPSS(k, crypto.SHA512, h[:], sig, &rsa.PSSOptions{SaltLength: 64, Hash: crypto.SHA512}) == nil
	}
	return false
}

// replayKey is the ReplayCache key of a nonce: a hash of keyid and nonce,
// so that entries are of fixed size whatever the nonce, and one agent's
// nonces never collide with another's.
func replayKey(keyID, nonce string) string {
	h := sha256.New()
	h.Write([]byte(keyID))
	h.Write([]byte{0})
	h.Write([]byte(nonce))
	return "wba-nonce:" + b64url.EncodeToString(h.Sum(nil))
}
