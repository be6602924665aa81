package session

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Session is one agent session. Sessions returned by a Store or by
// FromContext are shared between goroutines: treat them as read-only.
type Session struct {
	// ID is the public session identifier: random, URL-safe, used in audit
	// URLs (Audit-Endpoint's :session_id). It is NOT the token, which only
	// the agent holds.
	ID string
	// Agent is the agent identity the middleware classified the creator as
	// (a declared agent policy, or "*/<name>" for an agent under the default
	// policy or none: see CountedAs).
	Agent string
	// Client is the client key that created the session (the middleware's
	// client network: an IPv4 /32 or an IPv6 /64). The zero Prefix binds the
	// session to Agent alone.
	Client netip.Prefix
	// AgentName, AgentVersion and Purpose are what the agent said about
	// itself in the create body; unverified, for the audit trail.
	AgentName    string
	AgentVersion string
	Purpose      string
	// Capabilities are the session-required capability names, as announced
	// in the create response.
	Capabilities []string
	// CreatedAt is when the session was created; ExpiresAt is its hard
	// deadline, CreatedAt plus the TTL. The session is live while the clock
	// is before ExpiresAt.
	CreatedAt time.Time
	ExpiresAt time.Time
	// EndedAt is set on the copies of ended sessions the middleware hands
	// to the audit trail: ExpiresAt for an expired session, the time of
	// the DELETE or checkout otherwise. Zero for live sessions.
	EndedAt time.Time
}

// HeaderSession carries the session token on agent requests (v0.1.0
// interaction API).
const HeaderSession = "X-Agent-Session"

// Hash is the SHA-256 of a session token: what stores keep instead of the
// token, which only the agent holds. It cannot be turned back into the
// token.
type Hash [sha256.Size]byte

// CountedAs returns the agent identity a session of agent counts under
// for Config.MaxSessions, with its client: "*" for "*" and for every
// identity "*/<name>" (an agent under the site's default policy "*", or
// under none, whose name is whatever its User-Agent says: counted by
// name, a client would get a new allowance with every name it sends),
// agent itself otherwise (a declared agent policy: the declaration names
// a few, each with its own allowance). Sessions stay bound to the whole
// identity: only the count is shared.
func CountedAs(agent string) string {
	if agent == "*" || strings.HasPrefix(agent, "*/") {
		return "*"
	}
	return agent
}

// live reports whether s is live at now: the deadline is exclusive.
func (s *Session) live(now time.Time) bool { return now.Before(s.ExpiresAt) }

// Errors of a Store, and of the middleware's session check (a denied
// Decision's Err). Match them with errors.Is.
var (
	// ErrNotFound: no live session has this token (unknown, expired or
	// already ended). A Store never tells expired from unknown, so that
	// expiry cannot be probed and is only reported once, by Reap.
	ErrNotFound = errors.New("session: unknown or expired session")
	// ErrForeign: the token names a live session that another agent
	// identity or client created.
	ErrForeign = errors.New("session: session belongs to another agent or client")
	// ErrNoToken: the request carries no X-Agent-Session header.
	ErrNoToken = errors.New("session: missing " + HeaderSession + " header")
	// ErrTooMany: the agent identity already holds the maximum number of
	// live sessions. The error is a *LimitError saying when a slot frees.
	ErrTooMany = errors.New("session: too many live sessions for this agent")
	// ErrDuplicate: a session with this token hash exists already.
	ErrDuplicate = errors.New("session: token hash already in use")
	// ErrInvalid: a Store was given a session it cannot keep.
	ErrInvalid = errors.New("session: invalid session")
)

// LimitError is the ErrTooMany of Store.Create: Soonest is when the
// soonest of the identity's live sessions expires, so when a new one may be
// created at the latest.
type LimitError struct {
	Soonest time.Time
}

func (e *LimitError) Error() string {
	return ErrTooMany.Error() + " until " + e.Soonest.UTC().Format(time.RFC3339Nano)
}

// Is makes errors.Is(err, ErrTooMany) true.
func (e *LimitError) Is(target error) bool { return target == ErrTooMany }

// checkSession is the validation every Store applies in Create.
func checkSession(s *Session) error {
	if s == nil {
		return fmt.Errorf("%w: nil session", ErrInvalid)
	}
	if s.ExpiresAt.IsZero() {
		return fmt.Errorf("%w: zero ExpiresAt", ErrInvalid)
	}
	return nil
}
