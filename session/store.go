package session

import (
	"context"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// Store keeps sessions under their token hash. Implementations are safe
// for concurrent use and pass session/sessiontest.Run. A session is live
// while the store's clock is before its ExpiresAt; an expired session is
// invisible to Get and Delete at once, and stays in the store until Reap
// claims it.
//
// Every session leaves a store exactly once: by Delete or by Reap, never
// both, never twice (also across processes sharing a Redis store), so the
// audit trail of each session is sealed once.
type Store interface {
	// Create stores s under h. The store takes ownership of s. With
	// maxPerAgent > 0 it refuses, with a *LimitError (ErrTooMany), when
	// the identity (CountedAs(s.Agent), s.Client) already holds
	// maxPerAgent live sessions: every agent under the default policy
	// shares one count per client. The check and the insert are atomic.
	// 0 means no cap.
	// ErrDuplicate when h is in use; ErrInvalid for a nil session or a
	// zero ExpiresAt.
	Create(ctx context.Context, h Hash, s *Session, maxPerAgent int) error
	// Get returns the live session stored under h; ErrNotFound when there
	// is none or it has expired. The TTL is never extended.
	Get(ctx context.Context, h Hash) (*Session, error)
	// Delete removes the live session stored under h and returns it;
	// ErrNotFound when there is none or it has expired (an expired session
	// is Reap's to report).
	Delete(ctx context.Context, h Hash) (*Session, error)
	// Reap removes and returns up to max sessions whose ExpiresAt is not
	// after now, soonest first; max <= 0 means all of them. A session is
	// returned by one Reap call only.
	Reap(ctx context.Context, now time.Time, max int) ([]*Session, error)
}

var _ Store = (*MemoryStore)(nil)

// Option configures a store.
type Option func(*storeOptions)

type storeOptions struct {
	now func() time.Time
}

// WithClock sets the clock a store judges expiry by (default time.Now),
// for tests that move time themselves.
func WithClock(now func() time.Time) Option {
	return func(o *storeOptions) {
		if now != nil {
			o.now = now
		}
	}
}

func applyOptions(opts []Option) storeOptions {
	o := storeOptions{now: clock.Wall}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
