// Package webbotauth verifies Web Bot Auth requests: HTTP Message
// Signatures (RFC 9421) by which an automated client proves that it holds a
// key published in its operator's key directory.
//
// # Specifications
//
// The protocol is draft-meunier-webbotauth-httpsig-protocol, the merger of
// draft-meunier-web-bot-auth-architecture and
// draft-meunier-http-message-signatures-directory. Section numbers below
// are those of its editor's copy of 2026-08-20
// (github.com/thibmeu/http-message-signatures-directory, commit a28dfe8);
// "the draft" is that document. The Signature-Agent field moved from a bare
// sf-string to an SF Dictionary (RFC 9651) between revisions; both forms
// are accepted.
//
// # What Verify checks
//
// A request is verified when one of its signatures passes every rule below.
// Each rule is a way to forge or replay an identity, and each is tested as
// an attacker would try it.
//
//   - Only signatures with tag="web-bot-auth" count (5.2; 5.4 on RFC 9421
//     3.2 step 4).
//     Several may be sent (5.2.2); each is tried, at most 8, and any valid
//     one wins. A request without one is ErrNoSignature.
//   - created and expires are required (5.2): expires - created must be
//     positive and at most MaxLifetime (default 5 minutes, far below the
//     24 hours the draft allows: a signature is a bearer credential until it
//     expires, 5.2 and 6.9); created may not be later than now + Skew and
//     expires not earlier than now - Skew (default 30s). keyid is required.
//   - @authority or @target-uri must be covered (5.2), and they are
//     computed from the authority the caller passes (the server's own view,
//     so never r.Host unchecked), not from the request's Host: a signature
//     made for another site does not verify. The other covered components are whatever Signature-Input
//     lists, each resolved per RFC 9421 2.1 and 2.2, dictionary members
//     (`;key=`) included; a component this package cannot resolve refuses
//     the signature (ErrMalformed) rather than verify the wrong bytes.
//     @target-uri and @scheme use https unless the request arrived over
//     plain HTTP in absolute form, since a TLS-terminating proxy hides the
//     scheme the client signed.
//   - A Signature-Agent that is sent must be covered, as the whole field or
//     as the member `"signature-agent";key="..."`, and the signature is
//     bound to the member it covers (5.2.1, 5.2.2, 6.6.1); its type must be
//     "directory" (the default) and its value an origin (5.5). jwks_uri and
//     cimd members are not supported (ErrUntrusted).
//   - The key comes from the caller's KeyResolver, asked for the pair
//     (Signature-Agent origin, keyid) (5.4): the request only names a
//     directory, the resolver decides whether it is trusted (4.4, 6.7).
//     Directories is such a resolver; it never fetches an origin it was not
//     configured with. The key must be the one keyid names: its RFC 7638
//     thumbprint (5.2), whatever the resolver returned.
//   - The algorithm comes from the key: an Ed25519 key verifies "ed25519",
//     an RSA key (2048 to 8192 bits) "rsa-pss-sha512" (RFC 9421 3.3.6,
//     3.3.1). An alg parameter naming anything else is ErrAlgorithm; HMAC
//     never verifies (6.4).
//   - A nonce (optional, 5.2.3) is recorded in the ReplayCache, keyed on
//     keyid and nonce, until expires + Skew, once the signature verified; a
//     second use is ErrReplay. A signature without a nonce is accepted
//     again within its lifetime: the draft makes the nonce optional, and
//     reuse of one signature over a connection is anticipated (C.7), so
//     refusing a repeated Signature would refuse conformant agents. What
//     bounds such reuse is MaxLifetime and the covered components; a site
//     that wants one-time signatures requests a nonce (5.3).
//
// Verify never reads the request body, and never fetches anything itself.
// Its errors wrap one sentinel each; ErrUnavailable means "cannot tell"
// (the draft's "unverified" outcome, C.1), not a failure.
//
// # Key directories
//
// Directories is the KeyResolver for operators' key directories (5.5). The
// site lists the origins it trusts; a request's Signature-Agent only picks
// one of them, so no request can make the server fetch a URL (6.7). A
// directory is fetched from its well-known URI (8.1) with a bounded size
// and time and no redirects (5.5, 6.7), must be served as
// application/http-message-signatures-directory+json (5.5.1), and is used
// only for the keys that prove possession by signing the response with
// tag="http-message-signatures-directory" over @authority (B.1). It is
// cached per Cache-Control, clamped (C.4); a failed refresh keeps the last
// good copy (6.10); a directory never fetched and unreachable is
// ErrUnavailable, retried after a short negative-cache delay (C.5); Run
// refreshes ahead of expiry so that requests never wait.
//
// # Parsing
//
// Structured fields are parsed with github.com/dunglas/httpsfv. The
// signature base (RFC 9421 2.5) is assembled here; base.go explains why
// github.com/remitly-oss/httpsig-go cannot verify Web Bot Auth requests,
// and the tests check this implementation against it, against RFC 9421
// B.2.6 and against the draft's test vectors. Every parser is fuzzed.
package webbotauth
