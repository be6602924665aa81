// Package session implements the sessions of agents.txt v0.1.0: an agent
// POSTs to the session endpoint (default /.well-known/agents/api/session),
// receives an opaque token, sends it in the X-Agent-Session header on every
// call to a capability that requires a session, and DELETEs the endpoint
// with the header to end it.
//
// The rules come from the v0.1.0 format (Session-TTL, Audit) and its
// companion session and interaction documents:
//
//   - The token is at least 32 characters from a CSPRNG (NewToken gives 43)
//     and is a secret: stores keep only its SHA-256 (Hash), never the token,
//     so a leaked store cannot be replayed. Tokens are never compared as
//     strings; a lookup hashes the presented token and finds the digest, so
//     its timing says nothing useful about any stored token.
//   - The public Session.ID, distinct from the token, names the session in
//     audit URLs (Audit-Endpoint's :session_id).
//   - The TTL is a hard deadline from creation, never extended by activity.
//   - A session is bound to the agent identity and client that created it;
//     the same token from another agent or client is ErrForeign.
//   - An agent identity (agent and client) may hold at most MaxSessions live
//     sessions (agents.json rate_limit.max_sessions); beyond that the create
//     call answers 429 with Retry-After.
//   - Every session ends exactly once, as Deleted, Expired or Handoff, and
//     Config.OnEnd hears of it, so the audit trail can be sealed. Expiry is
//     observed by Manager.Reap (called a little on every create, and by
//     Manager.Run periodically); stores hand each expired session to one
//     reaper only, also across replicas sharing a redisstore.SessionStore.
//   - Config.AfterCreate runs when a new session is stored, before its
//     token is handed out, and can refuse (the session is deleted, the
//     endpoint answers 503): the middleware records the creation in the
//     audit trail there, failing closed.
//   - Config.BeforeEnd runs before a DELETE or handoff ends a session and
//     can refuse (the session stays live, the endpoint answers 503): the
//     middleware records the DELETE in the audit trail there, failing
//     closed.
//
// A Manager serves the endpoint (Handler, with CORS for browser agents,
// given the middleware's Identify) and checks tokens for the enforcing
// middleware, which has identified the caller already (Lookup; LookupAt
// when it has read the Manager's clock already, Now). Sessions live in a
// Store: MemoryStore for one process, redisstore.SessionStore (package
// redisstore, which programs without Redis do not link) for replicas. Both
// pass the conformance suite in session/sessiontest.
//
//	m, err := session.New(session.Config{
//		TTL:          site.Session.TTL, // zero: 30 minutes
//		MaxSessions:  site.Session.MaxSessions,
//		Capabilities: []string{"cart.add", "checkout"},
//		AuditURL:     func(id string) string { return auditBase + id },
//		OnEnd:        sealAudit,
//	})
//	// identify: the middleware's agent identity and client key
//	mux.Handle(site.Session.Endpoint, m.Handler(identify)) // as declared
//	// per request to a session-required capability:
//	s, err := m.Lookup(r, agent, client) // 401 unless err == nil
//	r = r.WithContext(session.NewContext(r.Context(), s))
package session
