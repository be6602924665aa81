// Package mcpsession binds an MCP session to whoever opened it, so that a
// session id presented by anyone else is answered as a session that does
// not exist.
//
// MCP 2025-11-25, Basic > Transports > Streamable HTTP, "Session
// Management": a server MAY assign a session id "by including it in an
// MCP-Session-Id header on the HTTP response containing the
// InitializeResult"; clients "MUST include it in the MCP-Session-Id header
// on all of their subsequent HTTP requests"; a server that terminated a
// session "MUST respond to requests containing that session ID with HTTP
// 404 Not Found", and a client that receives that 404 "MUST start a new
// session by sending a new InitializeRequest without a session ID
// attached". The spec's security best practices ("Session Hijacking") add
// that servers "SHOULD bind session IDs to user-specific information": a
// session id is a bearer secret the MCP server trusts, and an MCP server
// seldom checks who presents it. agentready does it in front of the
// server:
//
//   - the owner of a request is Owner(Identity): the verified token
//     subject where there is one; else the agent policy, grade and proven
//     identity; and, only when nothing about the client is proven, its /24
//     or /64 as well;
//   - Sessions.Answered, on the response to a POST that carries an
//     Mcp-Session-Id (the server created a session), binds that id to the
//     request's owner in a Store (Memory in process, redisstore's on Redis
//     across replicas) for an idle lifetime that each use by its owner
//     renews;
//   - Sessions.Check, on every request that carries an Mcp-Session-Id,
//     passes a session bound to the request's owner, and reports every
//     other one (never bound, expired, bound to someone else, malformed) as
//     unknown: the caller answers 404 as the server would for a session it
//     does not have, the same 404 whatever the reason, so that nobody
//     learns that a session id exists;
//   - a DELETE by the owner (the client ending its session), or a 404 of
//     the server itself, forgets the binding once the server has answered.
//
// A session id agentready never saw created (one opened before agentready
// was deployed, or held only in the memory of a process since restarted)
// is unknown too: bound to whoever presents it first, it would belong to
// whoever replays it first, which is the theft the binding prevents. The
// 404 costs an honest client one new initialize, which MCP requires it to
// send on a 404.
//
// Session ids are attacker-controlled: they are checked (ValidID: at most
// MaxIDLen bytes of visible ASCII, 0x21 to 0x7E, as the spec requires) and
// hashed (SHA-256) before they become keys, so that neither memory nor a
// store dump holds a live id, and owners are SHA-256 digests too, so that
// a dump names no subject or address.
//
// MCP 2026-07-28 removed protocol-level sessions (SEP-2567): its clients
// send no Mcp-Session-Id, and a request without one passes untouched.
package mcpsession
