package webbotauth

import "errors"

// Errors of Verify and of a KeyResolver. Every error Verify returns wraps
// exactly one of them (errors.Is), with a message naming what failed.
//
// ErrUnavailable is the one outcome that is not a failure: the verifier
// could not tell (draft-meunier-webbotauth-httpsig-protocol C.1, the
// "unverified" outcome). A caller treats it like an unsigned request, never
// as verified and never as proof of a bad signature.
var (
	// ErrNoSignature: the request offers no web-bot-auth signature (no
	// Signature-Input member with tag="web-bot-auth").
	ErrNoSignature = errors.New("webbotauth: no web-bot-auth signature")
	// ErrMalformed: Signature, Signature-Input or Signature-Agent do not
	// parse, a required parameter is missing or of the wrong type, a
	// covered component is absent or not supported, or Signature-Agent is
	// sent but not covered.
	ErrMalformed = errors.New("webbotauth: malformed signature")
	// ErrExpired: outside created/expires (with skew), a lifetime that is
	// not positive, or one longer than the verifier's MaxLifetime.
	ErrExpired = errors.New("webbotauth: signature expired or not yet valid")
	// ErrAuthority: neither @authority nor @target-uri is covered, or the
	// signature is not for this request's authority.
	ErrAuthority = errors.New("webbotauth: signature not bound to this authority")
	// ErrUntrusted: Signature-Agent names a key directory the site does not
	// trust (decided by the KeyResolver), or a discovery type this package
	// does not support.
	ErrUntrusted = errors.New("webbotauth: untrusted signature agent")
	// ErrUnknownKey: the keyid is not in the directory.
	ErrUnknownKey = errors.New("webbotauth: unknown key")
	// ErrAlgorithm: the alg parameter disagrees with the key, or the key
	// type is not supported.
	ErrAlgorithm = errors.New("webbotauth: algorithm mismatch")
	// ErrBadSignature: the signature does not verify.
	ErrBadSignature = errors.New("webbotauth: bad signature")
	// ErrReplay: the nonce was already seen within the signature's lifetime.
	ErrReplay = errors.New("webbotauth: replayed nonce")
	// ErrUnavailable: a source the verifier needs cannot answer (the key
	// directory is unreachable and was never fetched, the replay cache
	// failed): "cannot tell", not a failure.
	ErrUnavailable = errors.New("webbotauth: verification source unavailable")
)

// sentinels lists the errors above, for classifying a resolver's error.
var sentinels = []error{
	ErrNoSignature, ErrMalformed, ErrExpired, ErrAuthority, ErrUntrusted,
	ErrUnknownKey, ErrAlgorithm, ErrBadSignature, ErrReplay, ErrUnavailable,
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
