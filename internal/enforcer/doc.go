// Package enforcer is agentready's per-request pipeline: it classifies the
// client (only a plausible browser passes untouched), refuses a target
// routers read differently (400), then checks path rules, capability
// scope, declared auth and rate limits, all of a request's limits in one
// store call, and reports an enforce.Decision. A denial is an RFC 9457
// problem+json body naming the rule, with an honest Retry-After for a rate
// limit. docs/design.md ("Semantics that must be exactly right") has the
// details; the root package builds the Enforcer from the options.
package enforcer
