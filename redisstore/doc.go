// Package redisstore keeps agentready's state in Redis, so that the
// replicas of a site share it and it survives their restarts:
//
//   - NewLimitStore: the rate-limit buckets, a ratelimit.Store;
//     wrap it in ratelimit.NewFailover for a timeout and a failure policy.
//     All of one request's limits are checked in one script call, all or
//     nothing, on the Redis clock.
//   - NewSessionStore: v0.1.0 sessions, a session.Store; max_sessions
//     holds across replicas, and every session ends once. It also keeps
//     which client opened each MCP session (Mcp-Session-Id), so that
//     every replica answers anyone else as for a session it does not have.
//   - NewReplayCache: the nonces of signed requests, a verify.ReplayCache,
//     so that a signature is refused when replayed to another replica.
//   - NewAuditStore: the audit trail, an audit.Store; an
//     event is two script calls (Begin before the handler, Complete after)
//     that depend on nothing read before them, so concurrent events never
//     contend, whatever the durability settings.
//
// Each takes any redis.UniversalClient: a single node, Sentinel or a
// Cluster (their tests run against a three-master Cluster too). Options:
// WithKeyPrefix for all; WithClock for the session store; WithRedactor and
// WithRetention for the audit store.
//
// The package imports the core (ratelimit, session, audit, verify); the core never
// imports it, so a program that does not use Redis links no Redis client.
package redisstore
