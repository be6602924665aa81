// Package enforce holds the types a site meets when agentready enforces its
// declaration: the Decision reported for each request (to the hook of
// agentready.WithOnDecision, by Middleware.Explain), its Outcome and Class,
// and the hooks a site may supply (Authenticator, KeyFunc). Rate-limit
// storage is package ratelimit.
//
// agentready's middleware decides each request once: it classifies the
// client (only a plausible browser passes untouched), refuses a target
// routers read differently (400), then checks path rules, capability
// scope, declared auth and rate limits, all of a request's limits in one
// store call. A denial is an RFC 9457 problem+json body naming the rule,
// with an honest Retry-After for a rate limit. docs/design.md ("Semantics
// that must be exactly right") has the details.
package enforce
