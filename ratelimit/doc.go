// Package ratelimit holds rate-limit buckets for agentready: the Store
// interface, an in-process store (NewMemoryStore), and NewFailover, which
// wraps a remote store (redisstore.NewLimitStore) with an explicit failure
// policy.
//
// A request is checked against every limit that applies to it (the
// site-wide limit, its agent policy's limit, its capability's limit), each
// its own bucket, in one Store.Allow call: all must have a token, and a
// request denied by one limit consumes nothing from the others. The
// semantics are GCRA as github.com/go-redis/redis_rate implements it: a
// limit of N per period P allows a burst of N, then one request every P/N.
// The memory store keeps buckets in process, bounded in memory; the Redis
// store keeps them on the Redis clock for several replicas, checking all of
// a request's limits in one script call. Both pass the suite in
// ratelimit/ratelimittest, which a Store from elsewhere runs too;
// CheckLimits is the argument check every Store makes.
//
// A bucket is identified by Limit.Name plus a Key, which is a netip.Prefix
// (the client's address, an IPv6 client's /64) and an optional string, so
// that nothing is formatted per request. Per-agent buckets of one client
// are told apart by Name ("agent:claude"); Key.ID is kept for partitions
// that come from the request (a credential).
package ratelimit
