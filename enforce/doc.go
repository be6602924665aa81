// Package enforce holds the pieces agentready enforces a declaration with:
// the Enforcer and the Decisions it reports, rate-limit stores and the
// Failover around a remote one, and client identity. agentready.New builds
// the Enforcer; a site uses this package for its types (Decision, Outcome,
// Store, Limit) and to choose a store.
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
// decision without serving or consuming anything. With Config.Sessions a
// session-required capability needs a valid X-Agent-Session, and with
// Config.Audit every request carrying one is recorded before its status
// reaches the agent (failing closed with 503 if it cannot be).
//
// # Rate limits
//
// A request is checked against every limit that applies to it (the
// site-wide limit, its agent policy's limit, its capability's limit), each
// its own bucket, in one Store.Allow call: all must have a token, and a
// request denied by one limit consumes nothing from the others. The
// semantics are GCRA as github.com/go-redis/redis_rate implements it: a
// limit of N per period P allows a burst of N, then one request every P/N.
// MemoryStore keeps buckets in process; redisstore.LimitStore keeps them on the Redis
// clock for several replicas, checking all of a request's limits in one
// script call. Both pass the suite in enforce/storetest. Failover wraps a
// remote store with an explicit failure policy (fall back to memory, fail
// open, fail closed), a timeout and automatic recovery.
//
// A bucket is identified by Limit.Name plus a Key, which is a netip.Prefix
// (the client's address, an IPv6 client's /64) and an optional string
// rather than one formatted string: nothing is formatted per request, so
// with a MemoryStore an allowed request allocates nothing in the store.
// Limits that share a Key cost the memory store one map lookup together,
// so per-agent buckets are told apart by Name ("agent:claude") and Key.ID
// is kept for partitions that come from the request (a credential). A
// store that needs string keys (Redis) renders them with Limit.AppendKey
// into a reused buffer. A Store from elsewhere is checked with the suite in
// enforce/storetest; CheckLimits is the argument check every Store makes.
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
// The runnable Example functions show the public pieces with their output.
package enforce
