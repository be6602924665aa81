// Package audit is the agents.txt v0.1.0 audit trail: one hash-chained
// log of events per session, sealed at the session's end into an artifact
// signed with the site's Ed25519 key, which anyone can verify offline
// (Verify, VerifyJSON, agentready verify-audit).
//
// Each capability call of a session is an Event. A Store records it before
// the action runs (Store.Begin, response_status StatusUnrecorded) and binds
// its status once known (Store.Complete), so the trail never confirms what
// it does not hold and never misses an action. Params are redacted
// (DefaultRedactor) before hashing, and every store failure is returned so
// the middleware can fail the request closed. SealSession signs a session's
// log into an Artifact.
//
// docs/audit-format.md specifies the artifact: the canonical serialisation
// (RFC 8785), the hash chain, the root hash, the signature, the "$request"
// member and a worked example.
package audit
