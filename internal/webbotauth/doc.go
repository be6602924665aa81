// Package webbotauth verifies Web Bot Auth requests: HTTP Message
// Signatures (RFC 9421) by which an automated client proves that it holds a
// key published at the URL it names.
//
// # Specifications
//
// The protocol is draft-ietf-webbotauth-httpsig-protocol-01 (2026-10-29;
// read in its repository, github.com/webbotauth/draft-ietf-webbotauth-httpsig-protocol,
// commit 5a71ee1), "the draft" below; section numbers are its. It merged
// draft-meunier-web-bot-auth-architecture and
// draft-meunier-http-message-signatures-directory. Against the revision
// this package followed before (draft-meunier-webbotauth-httpsig-protocol,
// editor's copy of 2026-08-20), -01 makes every Signature-Agent value the
// URL of a JWK Set, removes the directory, jwks_uri and cimd types, and
// says a member that carries parameters is ignored.
//
// # What Verify checks
//
// A request is verified when one of its signatures passes every rule below.
// Each rule is a way to forge or replay an identity, and each is tested as
// an attacker would try it.
//
//   - Only signatures with tag="web-bot-auth" count (5.2; 5.4 on RFC 9421
//     3.2 step 4). Several may be sent (5.2.2); each is verified on its
//     own, against its own Signature-Agent member and key, at most 8, and
//     any valid one wins. A request without one is ErrNoSignature.
//   - created and expires are required (5.2): expires - created must be
//     positive (ErrExpired) and at most MaxLifetime (ErrLifetime; default 5
//     minutes, far below the 24 hours the draft allows: a signature is a
//     bearer credential until it expires, 5.2 and 6.9); created may not be
//     later than now + Skew and expires not earlier than now - Skew
//     (ErrExpired; default 30s). keyid is required.
//   - @authority or @target-uri must be covered (5.2), and they are
//     computed from the authority the caller passes (the server's own view,
//     so never r.Host unchecked), not from the request's Host: a signature
//     made for another site does not verify. The other covered components
//     are whatever Signature-Input lists, each resolved per RFC 9421 2.1
//     and 2.2, dictionary members (`;key=`) included; a component this
//     package cannot resolve refuses the signature (ErrMalformed) rather
//     than verify the wrong bytes. @target-uri and @scheme use https unless
//     the request arrived over plain HTTP in absolute form, since a
//     TLS-terminating proxy hides the scheme the client signed.
//   - A signed request must carry Signature-Agent (5.2.1, 4.3): without
//     it, or when the signature's own member carries parameters (which
//     5.2.1 says to ignore), the signature is ErrNoAgent, "unverified".
//     Each signature must cover its own member, keyed to its label, and is
//     bound to that member alone (5.2.1, 5.2.2, 6.6.1; ownAgent says how a
//     relabelled signature still finds it). The member is the https URL of
//     the agent's JWK Set; a bare origin resolves at the well-known URI
//     (agenturl.go says why).
//   - The key comes from the caller's KeyResolver, asked for the pair
//     (Signature-Agent URL, keyid) (5.4): the request only names a URL,
//     the resolver decides whether it is trusted (4.4, 6.7). Directories
//     is such a resolver; it never fetches a URL it was not configured
//     with. The key must be the one keyid names: its RFC 7638 thumbprint
//     (5.2), whatever the resolver returned.
//   - The algorithm comes from the key: an Ed25519 key verifies "ed25519",
//     an RSA key (2048 to 8192 bits) "rsa-pss-sha512" (RFC 9421 3.3.6,
//     3.3.1). An alg parameter naming anything else is ErrAlgorithm; HMAC
//     never verifies (6.4).
//   - A covered Content-Digest is checked against the body once the
//     signature verifies (ErrDigest; 5.2, RFC 9530).
//   - A nonce (optional, 5.2.3) is recorded in the ReplayCache, keyed on
//     keyid and nonce, until expires + Skew, once the signature verified; a
//     second use is ErrReplay. A signature without a nonce is accepted
//     again within its lifetime: the draft makes the nonce optional, and
//     reuse of one signature over a connection is anticipated (C.7), so
//     refusing a repeated Signature would refuse conformant agents. What
//     bounds such reuse is MaxLifetime and the covered components; a site
//     that wants one-time signatures requires a nonce (RequireNonce), and
//     asks for one with AcceptSignature (5.3).
//
// Verify never fetches anything itself, and reads no body but the one a
// verified signature's Content-Digest covers. Its errors wrap one sentinel
// each, which Reason names; ErrNoSignature, ErrNoAgent, ErrUntrusted and
// ErrUnavailable are the draft's "unverified" outcome (C.1), not failures.
//
// # Key directories
//
// Directories is the KeyResolver for the JWK Sets the site trusts, given
// as origins or as full URLs (5.5). A request's Signature-Agent only picks
// one of them, so no request can make the server fetch a URL (6.7). A JWK
// Set is fetched as given, bounded in size and time, never through a
// redirect (5.5, 6.7) nor from a private address (6.7); at the well-known
// URI it must be served as
// application/http-message-signatures-directory+json (5.5.1). It is used
// unsigned: a key the verifier resolved itself may be used "whether or not
// it has valid proof" (B.1), and static hosts cannot sign. Possession
// proofs a directory sends are checked and counted, and RequireProof uses
// only proven keys, as the previous revision required. It is cached per
// Cache-Control, clamped (C.4); a failed refresh keeps the last good copy
// (6.10); a directory never fetched and unreachable is ErrUnavailable,
// retried after a short negative-cache delay (C.5); Run refreshes ahead of
// expiry so that requests never wait.
//
// # Parsing
//
// Structured fields are parsed with github.com/dunglas/httpsfv. The
// signature base (RFC 9421 2.5) is assembled here; base.go explains why
// github.com/remitly-oss/httpsig-go cannot verify Web Bot Auth requests,
// and the tests check this implementation against it, against RFC 9421
// B.2.6, against the draft's test vectors and against published negative
// vectors. Every parser is fuzzed.
package webbotauth
