// Package enforce holds the pieces agentready enforces a declaration with:
// rate-limit stores, client identity, the RateLimit response headers and
// RFC 9457 problem responses.
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
// and an optional string rather than one formatted string. The caller
// compiles the limits once and, per request, copies them into scratch
// space and sets Key.Net = ClientKey(addr): nothing is formatted, so with a
// MemoryStore an allowed request allocates nothing. Slices passed through
// the Store interface escape to the heap, so the scratch space (limits and
// results) belongs in a sync.Pool, not in stack arrays; BenchmarkHotPath
// shows the pattern. Limits that
// share a Key cost the memory store one map lookup together, so per-agent
// buckets are best told apart by Name ("agent:claude") and Key.ID is kept
// for partitions that come from the request (a credential). A store that
// needs string keys (Redis) renders them with Limit.AppendKey into a
// reused buffer. The same Limit slice carries the names the RateLimit
// headers print.
//
// # Client identity
//
// ClientIP never trusts forwarding headers unless the peer is a configured
// trusted proxy; then X-Forwarded-For is read from the right. ClientKey
// groups IPv6 clients by /64.
//
// # Headers and problems
//
// PolicyHeader renders RateLimit-Policy once per policy; RateLimitHeader
// renders RateLimit per request in one allocation, header slice included
// (AppendRateLimit appends it to a buffer instead); RetryAfterSeconds
// gives an honest Retry-After: the time until a token really exists, not
// the length of the window. WriteProblem writes application/problem+json.
//
// # Example
//
//	store, err := enforce.NewMemoryStore()
//	if err != nil { ... }
//	site, _ := enforce.NewLimit("site", config.PerMinute(600))
//	agent, _ := enforce.NewLimit("agent:claude", config.PerMinute(60))
//	policy, _ := enforce.PolicyHeader([]enforce.Limit{site, agent})
//	ips, _ := enforce.NewClientIP([]string{"10.0.0.0/8"})
//
//	type scratch struct {
//		limits [2]enforce.Limit
//		res    [2]enforce.Result
//	}
//	var pool = sync.Pool{New: func() any { return new(scratch) }}
//	policyValue := []string{policy} // shared, never modified
//	rateLimitKey := http.CanonicalHeaderKey(enforce.HeaderRateLimit)
//	policyKey := http.CanonicalHeaderKey(enforce.HeaderRateLimitPolicy)
//
//	// per request:
//	sc := pool.Get().(*scratch)
//	defer pool.Put(sc)
//	key := enforce.ClientKey(ips.Addr(r))
//	sc.limits = [2]enforce.Limit{site, agent}
//	sc.limits[0].Key.Net, sc.limits[1].Key.Net = key, key
//	if err := store.Allow(r.Context(), sc.limits[:], sc.res[:]); err != nil { ... }
//	h := w.Header()
//	h[policyKey] = policyValue
//	h[rateLimitKey] = enforce.RateLimitHeader(sc.limits[:], sc.res[:]) // the one allocation
//	if !enforce.Allowed(sc.res[:]) {
//		h.Set(enforce.HeaderRetryAfter,
//			strconv.Itoa(enforce.RetryAfterSeconds(enforce.MaxRetryAfter(sc.res[:]))))
//		enforce.WriteProblem(w, enforce.Problem{Type: enforce.ProblemQuotaExceeded, Status: 429, ...})
//	}
//
// The runnable Example functions show each piece with its output.
package enforce
