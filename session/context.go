package session

import "context"

// contextKey is a type of its own so that no other package can build an
// equal key.
type contextKey struct{}

// NewContext returns a copy of ctx carrying s. The middleware puts the
// session of a session-bound request there; a handler's tests can do the
// same.
func NewContext(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, contextKey{}, s)
}

// FromContext returns the session the middleware found for the request
// whose context ctx is, so that a site's handlers can scope state (a cart)
// to it; false when there is none (or it is nil).
func FromContext(ctx context.Context) (*Session, bool) {
	s, ok := ctx.Value(contextKey{}).(*Session)
	return s, ok && s != nil
}
