// Package audit is the agents.txt v0.1.0 audit trail: one hash-chained
// log of events per session, sealed at the session's end into an artifact
// signed with the site's Ed25519 key, which anyone can verify offline.
//
// # Recording
//
// Each capability call of a session becomes an Event (what was called,
// with which params, the policy decision and the status answered). The
// trail never confirms what it does not hold, and never misses an action:
//
//   - Record before acting. Everything that can make recording fail is
//     settled before the handler runs: the body is read, bounded and
//     normalised (the middleware refuses, with 400 or 413, a body over its
//     limits, and records the refusal), and the event is appended, durably
//     with the Redis store of package redisstore, by Store.Begin with response_status
//     StatusUnrecorded (0). A store failure there answers 503 before any
//     side effect.
//   - Bind the outcome. When the handler's status is decided, before any
//     byte of it reaches the agent, Store.Complete binds it to the event.
//     If that fails the agent gets 503, and the event stays in the trail
//     with response_status 0: an offline verifier tells a completed action
//     (an HTTP status) from one whose outcome could not be recorded (0).
//     What is known whole when it happens (a denial, a session's creation
//     or deletion) is appended at once (Store.Append).
//   - Order. A store keeps a session's events in the order they were
//     appended and raises a timestamp earlier than the one before it to
//     that one, so timestamps never decrease along the chain.
//   - No contention. Events are stored unlinked and linked (prev_hash)
//     when they are read back to be sealed, so an append is one operation
//     that depends on no earlier read (one script call on Redis): appends
//     to one session never fail because of each other, whatever the
//     server's durability settings.
//
// Append and Begin redact the params (DefaultRedactor hides passwords,
// tokens, card numbers and the like). Every failure is returned, so the
// middleware can fail the request closed rather than serve a call it could
// not log. At the session's end (expiry, DELETE, checkout) SealSession
// signs the log into an Artifact and stores it; the audit endpoint answers
// with it (State: 404 Unknown, 425 Active, 200 Sealed). Parameters may also be given as
// Event.Query, name/value pairs in the form of a URL query, which the
// stores record without building a map (the middleware passes a request's
// query that way).
//
// # What an event targeted
//
// An event's capability, method, query and body do not say what the
// call acted on when the path or a header names it (DELETE /orders/1001
// and DELETE /orders/2002 are one capability, one method). Event.Target
// records it, as the params member "$request" (TargetMember):
//
//	"$request":{"headers":{"X-Refund-Id":"r-9"},"path":"/orders/1001",
//	            "path_params":{"id":"1001"},"query":"q=mug%FF"}
//
// path is the request path as sent, escaped; query the query as sent;
// path_params each declared in: path param with its segment of path as
// sent; headers each declared in: header param present, a string, or an
// array of a repeated header's values. Members other than path are left
// out when empty. Where the extension lives: params is the only object of
// a v0.1.0 event whose members are free, and the event hash covers it
// whole, so "$request" is hashed, chained and signed like every param,
// and an artifact carrying it verifies with any v0.1.0 verifier, this
// package's older ones and agentready verify-audit included. A Params or
// Query member named "$request" beside a Target is refused (ErrInvalidEvent).
//
// Bytes, exactly: path, query and path_params are URL text, each byte
// that is not part of valid UTF-8 written %XX (upper-case hex), as a
// browser writes a URL: percent-decoding them gives the bytes a URL parser
// reads, so ?q=mug%FF and ?q=mug%FE are recorded apart (the members the
// query gives params keep U+FFFD for such bytes, as encoding/json does:
// "$request".query is the exact record). A header value that is not valid
// UTF-8 is recorded as {"pct": V}, V the value with '%' and every such
// byte written %XX; a recorded string is never an object, so the two
// cannot be confused, and percent-decoding V gives the bytes back.
//
// Redaction reaches the target too: path_params and headers are members
// like any other (DefaultRedactor hides "X-API-Key", "Authorization", a
// path param called "token"); a path segment whose path param is redacted
// is written "{name}" in path, and a query pair whose name is redacted is
// written name=[REDACTED] in query (pairs split at '&' and ';').
//
// The artifact is what the v0.1.0 notes describe: the same events with the
// same members. response_status 0 is one documented addition: the
// action was recorded before it ran and its outcome could not be; the
// params member "$request" (above) is the other.
//
// # Canonical serialisation
//
// What follows is everything a third party needs to verify an artifact
// with nothing but an RFC 8785 implementation, SHA-256 and Ed25519.
//
// All JSON is serialised by the JSON Canonicalization Scheme, RFC 8785
// (JCS): UTF-8, no insignificant whitespace, object members sorted by the
// UTF-16 code units of their names, strings escaped as ECMAScript
// JSON.stringify does, numbers as ECMAScript's Number.prototype.toString.
// A hash is the SHA-256 digest of such bytes, written as 64 lowercase hex
// digits. Timestamps are strings in RFC 3339, UTC, with milliseconds:
// 2025-06-01T12:00:05.250Z (FormatTime).
//
//  1. Event hash. The hash of an event is SHA-256 over the JCS
//     serialisation of the event object exactly as it appears in the
//     artifact, with its eight members event_id, timestamp, capability,
//     method, params, policy_result {decision, rule}, response_status and
//     prev_hash (CanonicalEvent, EventHash).
//  2. Chain. The prev_hash of the first event is ""; the prev_hash of
//     every other event is the hash of the event before it.
//  3. Root hash. root_hash is SHA-256 over the JCS serialisation of the
//     JSON array of the events' hashes, in order: ["<hash 0>","<hash 1>",…].
//     An artifact without events has the root hash of "[]".
//  4. Signature. signature is the standard base64 (RFC 4648 §4, padded) of
//     the Ed25519 signature (RFC 8032) over the JCS serialisation of the
//     artifact's members other than events, signature and public_key:
//     {"agent":{"name":…,"purpose":…,"version":…},"created_at":…,
//     "ended_at":…,"root_hash":…,"session_id":…,"site":…}.
//     The events are bound by the root hash, and the
//     session id, site, times and agent by the signature, so an artifact
//     can be neither edited nor re-labelled. public_key is the standard
//     base64 of the 32-byte Ed25519 public key.
//
// To verify: check every prev_hash (2), recompute the root hash (1, 3) and
// compare, verify the signature (4) with the site's published key
// (agents.json audit.public_key) and check that the artifact names that
// key. Verify and VerifyJSON do exactly this; the agentready command's
// verify-audit does it from a file or URL.
//
// A worked example, the first event of the package's test vector
// (TestWorkedExample, testdata/artifact.json):
//
//	{"capability":"search","event_id":"evt-1","method":"GET",
//	 "params":{"limit":10,"q":"blue mug"},"policy_result":{"decision":"allow",
//	 "rule":"capability:search"},"prev_hash":"","response_status":200,
//	 "timestamp":"2025-06-01T12:00:00.000Z"}
//
// serialises to those bytes without the line breaks and spaces after
// them, and hashes to
// 12d7f6d5066645188c83f6a6a28c78fbec270bb40a6236ed76129438844c1ef6, the
// prev_hash of the second event.
//
// Params are recorded in the JSON data model: objects, arrays, strings,
// numbers (IEEE 754 doubles, so integers beyond 2^53 lose precision: pass
// them as strings, as the middleware does for a number of a request body
// that a double cannot hold exactly), booleans and null. Stores convert what the caller
// passes (ints, structs, typed maps) to that model before hashing, the
// way a JSON round trip would, so an event hashes the same in memory and
// when read back from the artifact.
//
// The serialisation is json.Marshal of the event, its params redacted and
// in the JSON data model first, canonicalised by github.com/gowebpki/jcs,
// an RFC 8785 implementation.
package audit
