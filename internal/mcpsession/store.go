package mcpsession

import (
	"context"
	"errors"
	"time"
)

// Store keeps the bindings of session ids to owners. Memory is the
// in-process one; redisstore's session store provides one on Redis
// (Provider). Every method refuses an id that fails ValidID with
// ErrInvalid before using it, and judges expiry by the store's own clock.
// The suite in mcpsessiontest is what every Store must pass.
type Store interface {
	// Bind binds id to owner for ttl from the store's now. An id live and
	// bound to owner already gets the new deadline; an id live and bound
	// to another owner is left as it is, and Bind fails with ErrBound, so
	// that nothing a server answers can hand a session to someone else.
	// An empty owner or a ttl under a millisecond is ErrInvalid.
	Bind(ctx context.Context, id, owner string, ttl time.Duration) error
	// Owner returns the owner of id and when its binding expires;
	// ErrNotFound when it has none (never bound, forgotten, expired, or
	// evicted from a full store).
	Owner(ctx context.Context, id string) (owner string, expires time.Time, err error)
	// Forget removes id's binding, if any: forgetting an id not bound is
	// not an error.
	Forget(ctx context.Context, id string) error
}

// Provider is implemented by a session store (the store given to
// agentready.WithSessions) that also keeps MCP session bindings:
// redisstore's, so that replicas sharing the v0.1.0 sessions share these.
type Provider interface {
	// MCPSessions returns the Store of MCP session bindings.
	MCPSessions() Store
}

// Errors of a Store.
var (
	// ErrNotFound: the id has no live binding.
	ErrNotFound = errors.New("mcpsession: no such session")
	// ErrBound: the id is bound to another owner.
	ErrBound = errors.New("mcpsession: the session is bound to another owner")
	// ErrInvalid: the id fails ValidID, the owner is empty or the ttl is
	// under a millisecond.
	ErrInvalid = errors.New("mcpsession: invalid session id, owner or lifetime")
)

// CheckBind returns ErrInvalid unless Bind's arguments are valid: stores
// call it first.
func CheckBind(id, owner string, ttl time.Duration) error {
	if !ValidID(id) || owner == "" || ttl < time.Millisecond {
		return ErrInvalid
	}
	return nil
}
