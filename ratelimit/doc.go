// Package ratelimit holds rate-limit buckets for agentready: the Store
// interface, the in-process MemoryStore, and Failover, which wraps a remote
// store (redisstore.LimitStore) with an explicit failure policy.
//
// A request is checked against every limit that applies to it (the
// site-wide limit, its agent policy's limit, its capability's limit), each
// its own bucket, in one Store.Allow call: all must have a token, and a
// request denied by one limit consumes nothing from the others. The
// semantics are GCRA as github.com/go-redis/redis_rate implements it: a
// limit of N per period P allows a burst of N, then one request every P/N.
// MemoryStore keeps buckets in process; redisstore.LimitStore keeps them on the Redis
// clock for several replicas, checking all of a request's limits in one
// script call. Both pass the suite in ratelimit/ratelimittest. Failover wraps a
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
// ratelimit/ratelimittest; CheckLimits is the argument check every Store makes.
package ratelimit
