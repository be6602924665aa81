package audit

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"
)

// Store keeps sessions' audit logs durably. Every failure is returned,
// never dropped. An implementation records what Prepare returns, keeps
// events in append order with timestamps that never decrease, links them
// (EventHash) when it reads them back, and passes audittest.Run.
type Store interface {
	// Append validates e, whose ResponseStatus is an HTTP status, redacts
	// its params with the store's Redactor and records it as the
	// session's next event. A session comes into being (Active) with its
	// first event. It fails with ErrSealed once the session is sealed.
	Append(ctx context.Context, sessionID string, e Event) error
	// Begin is Append for an action about to run: e's ResponseStatus is
	// ignored and recorded as StatusUnrecorded. It returns the event's
	// position in the log, for Complete.
	Begin(ctx context.Context, sessionID string, e Event) (seq int, err error)
	// Complete binds the HTTP status of the event Begin recorded at seq.
	// amend, when not nil, replaces that event but its timestamp. It fails
	// with ErrInvalidEvent when no event awaits its outcome at seq, and
	// with ErrSealed once the session is sealed.
	Complete(ctx context.Context, sessionID string, seq, status int, amend *Event) error
	// Events returns the session's events in order, linked (those of its
	// artifact once sealed), or none for an unknown session.
	Events(ctx context.Context, sessionID string) ([]Event, error)
	// Seal stores a's artifact as the session's and seals the session. The
	// artifact must verify (with its own key), be for sessionID, and cover
	// exactly the events recorded, with their statuses: ErrStale when
	// events were appended or completed since they were read, ErrSealed
	// when already sealed. SealSession does the whole sequence.
	Seal(ctx context.Context, sessionID string, a *Artifact) error
	// Artifact returns the session's state, and its artifact when Sealed.
	// An unknown (or expired) session is Unknown with no error.
	Artifact(ctx context.Context, sessionID string) (*Artifact, State, error)
}

// State is where a session's audit log stands; the audit endpoint answers
// 404 for Unknown, 425 for Active and 200 with the artifact for Sealed.
type State uint8

// States.
const (
	Unknown State = iota
	Active
	Sealed
)

func (s State) String() string {
	switch s {
	case Unknown:
		return "unknown"
	case Active:
		return "active"
	case Sealed:
		return "sealed"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Store errors.
var (
	// ErrSealed: the session is sealed; its log takes no more events and
	// no second artifact.
	ErrSealed = errors.New("audit: session already sealed")
	// ErrStale: the artifact given to Seal does not cover the session's
	// events as recorded now (events were appended or completed since
	// they were read).
	ErrStale = errors.New("audit: artifact does not cover the session's recorded events")
	// ErrCorrupt: what the store holds is inconsistent (an event list and
	// its count disagree, a sealed session lost its artifact), e.g. after
	// a Redis eviction. Nothing is repaired silently.
	ErrCorrupt = errors.New("audit: stored audit log is inconsistent")
	// errSessionID: the session id is empty.
	errSessionID = fmt.Errorf("%w: empty session id", ErrInvalidEvent)
)

// MinRetention is the least time a store keeps a sealed artifact (and an
// idle active log): the v0.1.0 audit trail retains artifacts at least 30
// days. It is also the default.
const MinRetention = 30 * 24 * time.Hour

// MemoryConfig configures NewMemoryStore; its zero value is the default.
type MemoryConfig struct {
	// Redactor filters params before hashing (nil: DefaultRedactor).
	Redactor Redactor
	// Retention is how long a sealed artifact is kept after sealing, and
	// an active log after its last event: MinRetention when zero, and no
	// less.
	Retention time.Duration
	// Now is the clock sessions expire by (nil: time.Now).
	Now func() time.Time
}

// maxSealAttempts bounds SealSession's retries when events keep arriving.
const maxSealAttempts = 8

// SealSession ends a session's log: it reads the session's events from s,
// signs them with key (Sign), and seals the session with the artifact,
// starting over if an event was appended in between, so that no event is
// left out of the artifact. m.SessionID names the session.
func SealSession(ctx context.Context, s Store, key ed25519.PrivateKey, m Meta) (*Artifact, error) {
	if m.SessionID == "" {
		return nil, errSessionID
	}
	var err error
	for range maxSealAttempts {
		var events []Event
		if events, err = s.Events(ctx, m.SessionID); err != nil {
			return nil, err
		}
		var a *Artifact
		if a, err = Sign(events, key, m); err != nil {
			return nil, err
		}
		if err = s.Seal(ctx, m.SessionID, a); err == nil {
			return a, nil
		}
		if !errors.Is(err, ErrStale) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("audit: sealing session %q: events kept arriving for %d attempts: %w", m.SessionID, maxSealAttempts, err)
}

// checkSeal is the part of Store.Seal common to every store: the artifact
// must be for the session and verify with its own key. The store then
// checks that it covers exactly the events recorded, with their
// timestamps and statuses.
func checkSeal(sessionID string, a *Artifact) error {
	if sessionID == "" {
		return errSessionID
	}
	if a == nil {
		return fmt.Errorf("%w: nil artifact", ErrMalformed)
	}
	if a.SessionID != sessionID {
		return fmt.Errorf("%w: the artifact is for session %q, not %q", ErrInvalidEvent, a.SessionID, sessionID)
	}
	return Verify(a, nil)
}

// errNotPending: Complete was given an event that Begin did not record or
// that is complete already.
var errNotPending = fmt.Errorf("%w: no event awaiting its outcome there", ErrInvalidEvent)

// cloneArtifact deep-copies a, so a store never shares maps with callers.
func cloneArtifact(a *Artifact) *Artifact {
	c := *a
	if a.Events != nil {
		c.Events = cloneEvents(a.Events)
	}
	return &c
}
