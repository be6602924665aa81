package session

import "context"

// contextKey is pointer-typed so that storing it in a context allocates
// nothing and no other package can build an equal key.
type contextKey struct{ name string }

var sessionKey = &contextKey{"agentready session"}

// NewContext returns a copy of ctx carrying s, so that a site's handlers
// can scope state (a cart) to the session the middleware found.
func NewContext(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey, s)
}

// FromContext returns the session NewContext stored in ctx; false when
// there is none (or it is nil).
func FromContext(ctx context.Context) (*Session, bool) {
	s, ok := ctx.Value(sessionKey).(*Session)
	return s, ok && s != nil
}
