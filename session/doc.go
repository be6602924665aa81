// Package session holds the sessions of agents.txt v0.1.0 and the stores
// that keep them. An agent POSTs to the session endpoint (default
// /.well-known/agents/api/session), receives an opaque token, sends it in
// the X-Agent-Session header on every call to a capability that requires a
// session, and DELETEs the endpoint with the header to end it. The
// middleware (agentready.New) serves the endpoint and checks the token; a
// site's handler reads the session of a request with FromContext:
//
//	mux.HandleFunc("POST /cart", func(w http.ResponseWriter, r *http.Request) {
//		s, ok := session.FromContext(r.Context())
//		if !ok { // the capability does not require a session
//			http.Error(w, "no session", http.StatusUnauthorized)
//			return
//		}
//		addToCart(s.ID, r) // the cart is scoped to the session
//	})
//
// The rules come from the v0.1.0 format (Session-TTL, Audit) and its
// companion session and interaction documents:
//
//   - The token is a secret: stores keep only its SHA-256 (Hash), never the
//     token, so a leaked store cannot be replayed. The public Session.ID,
//     distinct from the token, names the session in audit URLs.
//   - The TTL is a hard deadline from creation, never extended by activity.
//   - A session is bound to the agent identity and client that created it;
//     the same token from another agent or client is ErrForeign.
//   - An agent identity may hold at most Session.MaxSessions live sessions
//     (CountedAs says which identities share a count).
//   - Every session ends exactly once, deleted, expired or handed off, so
//     that its audit trail is sealed once.
//
// Sessions live in a Store: MemoryStore for one process,
// redisstore.NewSessionStore (package redisstore, which programs without
// Redis do not link) for replicas; give it to agentready.WithSessions.
// Both pass the conformance suite in session/sessiontest, as a Store of
// your own should.
package session
