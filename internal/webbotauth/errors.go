package webbotauth

import "errors"

// Errors of Verify and of a KeyResolver. Every error Verify returns wraps
// exactly one of them (errors.Is), with a message naming what failed.
//
// The draft keeps three outcomes apart (draft-ietf-webbotauth-httpsig-protocol-01
// C.1): verified; invalid (a check failed); unverified (the verifier cannot
// tell). ErrNoSignature, ErrNoAgent, ErrUntrusted and ErrUnavailable are
// "unverified": nothing was disproven, and a caller treats the request
// like an unsigned one, never as verified and never as proof of a bad
// signature. The others are "invalid".
var (
	// ErrNoSignature: the request offers no web-bot-auth signature (no
	// Signature-Input member with tag="web-bot-auth").
	ErrNoSignature = errors.New("webbotauth: no web-bot-auth signature")
	// ErrNoAgent: the signature names no key directory: the request has
	// no Signature-Agent, which a signed request must carry (5.2.1, 4.3),
	// or the signature's own member carries parameters, which a verifier
	// must ignore (5.2.1).
	ErrNoAgent = errors.New("webbotauth: no Signature-Agent for the signature")
	// ErrMalformed: Signature, Signature-Input or Signature-Agent do not
	// parse, a required parameter is missing or of the wrong type, a
	// covered component is absent or not supported, Signature-Agent is
	// sent but not covered, or its URL is not an https URL.
	ErrMalformed = errors.New("webbotauth: malformed signature")
	// ErrExpired: outside created/expires (with skew), or a lifetime that
	// is not positive.
	ErrExpired = errors.New("webbotauth: signature expired or not yet valid")
	// ErrLifetime: expires - created exceeds the verifier's MaxLifetime.
	// The signature may well be the agent's: the site's policy is stricter
	// than the agent (the draft recommends no more than 24 hours, 5.2, and
	// leaves the bound to the verifier's risk model, C.6), so this is not
	// a forgery and the agent can fix it by signing for less.
	ErrLifetime = errors.New("webbotauth: signature lifetime exceeds the site's policy")
	// ErrAuthority: neither @authority nor @target-uri is covered, or the
	// signature is not for this request's authority.
	ErrAuthority = errors.New("webbotauth: signature not bound to this authority")
	// ErrUntrusted: Signature-Agent names a key directory the site does not
	// trust (decided by the KeyResolver).
	ErrUntrusted = errors.New("webbotauth: untrusted signature agent")
	// ErrUnknownKey: the keyid is not in the directory.
	ErrUnknownKey = errors.New("webbotauth: unknown key")
	// ErrAlgorithm: the alg parameter disagrees with the key, or the key
	// type is not supported.
	ErrAlgorithm = errors.New("webbotauth: algorithm mismatch")
	// ErrBadSignature: the signature does not verify.
	ErrBadSignature = errors.New("webbotauth: bad signature")
	// ErrDigest: the signature covers Content-Digest, and the body does not
	// match it (RFC 9530; draft 5.2: Content-Digest is how a signature
	// covers the body).
	ErrDigest = errors.New("webbotauth: content does not match Content-Digest")
	// ErrReplay: the nonce was already seen within the signature's lifetime.
	ErrReplay = errors.New("webbotauth: replayed nonce")
	// ErrUnavailable: a source the verifier needs cannot answer (the key
	// directory is unreachable and was never fetched, the replay cache
	// failed): "cannot tell", not a failure.
	ErrUnavailable = errors.New("webbotauth: verification source unavailable")
)

// sentinels lists the errors above, for classifying a resolver's error.
var sentinels = []error{
	ErrNoSignature, ErrNoAgent, ErrMalformed, ErrExpired, ErrLifetime, ErrAuthority, ErrUntrusted,
	ErrUnknownKey, ErrAlgorithm, ErrBadSignature, ErrDigest, ErrReplay, ErrUnavailable,
}

// wrapsSentinel reports whether err wraps one of the package's sentinels.
func wrapsSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// Reasons: one short name per sentinel, stable, for decisions, logs and
// metric labels. Reason returns them.
const (
	ReasonNoSignature  = "no-signature"
	ReasonNoAgent      = "no-signature-agent"
	ReasonMalformed    = "malformed"
	ReasonExpired      = "expired"
	ReasonLifetime     = "lifetime-exceeds-policy"
	ReasonAuthority    = "wrong-authority"
	ReasonUntrusted    = "untrusted-agent"
	ReasonUnknownKey   = "unknown-key"
	ReasonAlgorithm    = "algorithm-mismatch"
	ReasonBadSignature = "bad-signature"
	ReasonDigest       = "content-digest-mismatch"
	ReasonReplay       = "replayed-nonce"
	ReasonUnavailable  = "unavailable"
)

var reasons = map[error]string{
	ErrNoSignature: ReasonNoSignature, ErrNoAgent: ReasonNoAgent, ErrMalformed: ReasonMalformed,
	ErrExpired: ReasonExpired, ErrLifetime: ReasonLifetime, ErrAuthority: ReasonAuthority,
	ErrUntrusted: ReasonUntrusted, ErrUnknownKey: ReasonUnknownKey, ErrAlgorithm: ReasonAlgorithm,
	ErrBadSignature: ReasonBadSignature, ErrDigest: ReasonDigest, ErrReplay: ReasonReplay,
	ErrUnavailable: ReasonUnavailable,
}

// Reason names the sentinel err wraps (one of the Reason constants); ""
// for nil or an error that wraps none.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return reasons[s]
		}
	}
	return ""
}

// unverified reports whether err is a "cannot tell" outcome (C.1), which
// another signature's definite failure outranks when Verify reports why
// none verified.
func unverified(err error) bool {
	return errors.Is(err, ErrNoAgent) || errors.Is(err, ErrUntrusted) || errors.Is(err, ErrUnavailable)
}
