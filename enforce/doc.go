// Package enforce holds the pieces agentready enforces a declaration with:
// the Enforcer and the Decisions it reports.
// agentready.New builds the Enforcer; a site uses this package for its
// types (Decision, Outcome, Authenticator, KeyFunc). Rate-limit storage is
// package ratelimit.
//
// Wrap decides each request once: it classifies the client (only a
// plausible browser passes untouched), refuses a target routers read
// differently (400), then checks path rules, capability scope, declared
// auth and rate limits, all of a request's limits in one store call. A
// denial is an RFC 9457 problem+json body naming the rule, with an honest
// Retry-After for a rate limit. docs/design.md ("Semantics that must be
// exactly right") has the details.
package enforce
