package sessionmgr

import (
	"errors"
	"fmt"
)

// EndReason says why a session ended.
type EndReason uint8

// The reasons a session ends.
const (
	// Deleted: the agent ended it with DELETE on the session endpoint.
	Deleted EndReason = iota + 1
	// Expired: its TTL passed.
	Expired
	// Handoff: a human_handoff capability (checkout) ended it.
	Handoff
)

// String returns "deleted", "expired" or "handoff".
func (r EndReason) String() string {
	switch r {
	case Deleted:
		return "deleted"
	case Expired:
		return "expired"
	case Handoff:
		return "handoff"
	}
	return fmt.Sprintf("EndReason(%d)", uint8(r))
}

// MarshalText implements encoding.TextMarshaler with String, so that an
// EndReason logs by name in JSON (log/slog, encoding/json), not as a number.
func (r EndReason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Errors of the endpoint and End, besides the store's and Lookup's
// (session.ErrNotFound, session.ErrForeign, session.ErrNoToken).
var (
	// ErrUnidentified: the Identify given to Handler could not tell who
	// is calling.
	ErrUnidentified = errors.New("session: caller's agent identity is unknown")
	// ErrNotRecorded: Config.BeforeEnd failed (the audit trail could not
	// record the end); the session is still live.
	ErrNotRecorded = errors.New("session: the end of the session could not be recorded; it is still live")
)
