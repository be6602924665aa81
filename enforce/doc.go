// Package enforce holds the pieces agentready enforces a declaration with:
// the Enforcer and the Decisions it reports, and client identity.
// agentready.New builds the Enforcer; a site uses this package for its
// types (Decision, Outcome). Rate-limit storage is package ratelimit.
//
// # The Enforcer
//
// Enforcer applies a compiled policy (package policy) to requests. Wrap
// runs the whole pipeline before a handler: classify the client (only a
// plausible browser passes untouched; every other client is an agent),
// the request target (one that routers read differently is refused with
// 400, DenyTarget; the others are decided on every reading a router may
// route, see policy.CheckTarget), path rules, capability scope, declared
// auth, rate limits; a denial is problem+json naming the rule. With
// Config.ReportOnly nothing is denied: the decision is reported and named
// in the HeaderReportOnly response header. Capability binds
// a route to one capability, completing what Wrap decided or, alone, doing
// it all. LimitOnly applies the rate limits alone, for endpoints exempt
// from path rules (the v0.1.0 session endpoint). Explain returns the
// decision without serving or consuming anything.
//
// # One decision
//
// Wrap decides once and, when routes are bound, puts the Decision in the
// request context; a Capability binding behind reads it and checks only
// what Wrap could not know (the bound capability's scope, auth and own
// limit). A Config.Recorder, the layer above that records v0.1.0 sessions,
// is handed the Decision for each session-bound request: it checks the
// session, may refuse more (a session-required capability without one,
// a body it cannot record), records the request before its status
// reaches the agent, and never decides again. A binding tells it the
// capability it completed, so the event is that one's.
//
// # Responses
//
// An agent request that passes gets the RateLimit and RateLimit-Policy
// fields (draft-ietf-httpapi-ratelimit-headers); one refused gets an RFC
// 9457 problem+json body naming the rule, and for a rate limit an honest
// Retry-After: the time until a token really exists, not the length of the
// window. docs/design.md ("Semantics that must be exactly right") has the
// details.
//
// ClientIP never trusts forwarding headers unless the peer is a configured
// trusted proxy; then X-Forwarded-For is read from the right.
//
// A request is checked against every limit that applies to it (the
// site-wide limit, its agent policy's limit, its capability's limit), each
// its own bucket, in one ratelimit.Store call: all must have a token, and a
// request denied by one limit consumes nothing from the others.
//
// The runnable Example functions show the public pieces with their output.
package enforce
