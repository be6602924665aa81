// Package ratelimit holds rate-limit buckets for agentready: the Store
// interface, an in-process store (NewMemoryStore), and NewFailover, which
// wraps a remote store (redisstore.NewLimitStore) with an explicit failure
// policy.
//
// A request is checked against every limit that applies to it (site-wide,
// its agent policy's, its capability's), each its own bucket identified by
// Limit.Name and Key, in one Store.Allow call: all must have a token, and a
// request denied by one limit consumes nothing from the others. The
// semantics are GCRA as github.com/go-redis/redis_rate implements it: a
// limit of N per period P allows a burst of N, then one request every P/N.
// Every Store passes the suite in ratelimit/ratelimittest.
package ratelimit
