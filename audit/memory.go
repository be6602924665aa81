package audit

import (
	"context"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

var _ Store = (*memoryStore)(nil)

// memShards spreads sessions over independent locks, so that requests of
// different sessions seldom wait for each other.
const memShards = 64

// sweepEvery is how often a shard drops expired sessions; expiry is also
// checked on every read, so a late sweep only delays freeing memory.
const sweepEvery = time.Minute

// memoryStore is the Store NewMemoryStore returns.
type memoryStore struct {
	redactor  Redactor
	retention time.Duration
	now       func() time.Time
	seed      maphash.Seed
	shards    [memShards]memShard
}

type memShard struct {
	mu        sync.Mutex
	sessions  map[string]*memSession
	nextSweep time.Time
}

type memSession struct {
	// events are kept as Prepare returns them, unlinked: the links are
	// computed when they are read back (link), so that an append needs
	// no hash.
	events   []Event
	artifact *Artifact // set once sealed
	expires  time.Time
}

// NewMemoryStore returns an empty Store in process memory, for a single
// replica and for tests: its logs die with the process.
func NewMemoryStore(c MemoryConfig) (Store, error) {
	if c.Retention == 0 {
		c.Retention = MinRetention
	}
	if c.Retention < MinRetention {
		return nil, fmt.Errorf("audit: MemoryConfig.Retention %v: artifacts are retained at least %v", c.Retention, MinRetention)
	}
	if c.Redactor == nil {
		c.Redactor = DefaultRedactor
	}
	c.Now = clock.Or(c.Now)
	s := &memoryStore{redactor: c.Redactor, retention: c.Retention, now: c.Now, seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].sessions = make(map[string]*memSession)
	}
	return s, nil
}

func (s *memoryStore) shard(sessionID string) *memShard {
	return &s.shards[maphash.String(s.seed, sessionID)%memShards]
}

// session returns the live session, dropping it if expired. The shard's
// lock is held.
func (sh *memShard) session(id string, now time.Time) *memSession {
	ss := sh.sessions[id]
	if ss != nil && !now.Before(ss.expires) {
		delete(sh.sessions, id)
		return nil
	}
	return ss
}

// open returns the session's log, creating it if needed, or ErrSealed
// once it is sealed. The shard's lock is held.
func (sh *memShard) open(id string, now time.Time) (*memSession, error) {
	ss := sh.session(id, now)
	if ss == nil {
		ss = &memSession{}
		sh.sessions[id] = ss
	}
	if ss.artifact != nil {
		return nil, fmt.Errorf("%w: session %q", ErrSealed, id)
	}
	return ss, nil
}

func (sh *memShard) sweep(now time.Time) {
	if now.Before(sh.nextSweep) {
		return
	}
	sh.nextSweep = now.Add(sweepEvery)
	for id, ss := range sh.sessions {
		if !now.Before(ss.expires) {
			delete(sh.sessions, id)
		}
	}
}

// Append implements Store. The event is checked and redacted before the
// session's lock is taken.
func (s *memoryStore) Append(ctx context.Context, sessionID string, e Event) error {
	_, err := s.add(ctx, sessionID, e, true)
	return err
}

// Begin implements Store.
func (s *memoryStore) Begin(ctx context.Context, sessionID string, e Event) (int, error) {
	e.ResponseStatus = StatusUnrecorded
	return s.add(ctx, sessionID, e, false)
}

func (s *memoryStore) add(ctx context.Context, sessionID string, e Event, final bool) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if sessionID == "" {
		return 0, errSessionID
	}
	rec, err := prepare(e, s.redactor, final)
	if err != nil {
		return 0, err
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := s.now()
	sh.sweep(now)
	ss, err := sh.open(sessionID, now)
	if err != nil {
		return 0, err
	}
	if n := len(ss.events); n > 0 && rec.Timestamp < ss.events[n-1].Timestamp { // fixed-width UTC: string order is time order
		rec.Timestamp = ss.events[n-1].Timestamp
	}
	ss.events = append(ss.events, rec)
	ss.expires = now.Add(s.retention)
	return len(ss.events) - 1, nil
}

// Complete implements Store.
func (s *memoryStore) Complete(ctx context.Context, sessionID string, seq, status int, amend *Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if sessionID == "" {
		return errSessionID
	}
	if !validStatus(status) {
		return fmt.Errorf("%w: response_status %d is not an HTTP status", ErrInvalidEvent, status)
	}
	var rec *Event
	if amend != nil {
		e := *amend
		e.ResponseStatus = status
		p, err := prepare(e, s.redactor, true)
		if err != nil {
			return err
		}
		rec = &p
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := s.now()
	ss, err := sh.open(sessionID, now)
	if err != nil {
		return err
	}
	if seq < 0 || seq >= len(ss.events) || ss.events[seq].ResponseStatus != StatusUnrecorded {
		return fmt.Errorf("%w: session %q, event %d", errNotPending, sessionID, seq)
	}
	if rec != nil {
		rec.Timestamp = ss.events[seq].Timestamp // as Begin recorded it
		ss.events[seq] = *rec
	}
	ss.events[seq].ResponseStatus = status
	ss.expires = now.Add(s.retention)
	return nil
}

// Events implements Store.
func (s *memoryStore) Events(ctx context.Context, sessionID string) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sessionID == "" {
		return nil, errSessionID
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	ss := sh.session(sessionID, s.now())
	var events []Event
	sealed := ss != nil && ss.artifact != nil
	switch {
	case ss == nil:
		sh.mu.Unlock()
		return []Event{}, nil
	case sealed:
		events = ss.artifact.Events
	default:
		// A status may be bound in place once the lock is released; the
		// events themselves (their params) are never changed.
		events = slices.Clone(ss.events)
	}
	sh.mu.Unlock()
	events = cloneEvents(events)
	if !sealed {
		if err := link(events); err != nil {
			return nil, fmt.Errorf("%w: session %q: %v", ErrCorrupt, sessionID, err) // unreachable: prepare checked them
		}
	}
	return events, nil
}

// link sets the prev_hash of each event to the hash of the event before
// it, "" for the first.
func link(events []Event) error {
	prev := ""
	for i := range events {
		events[i].PrevHash = prev
		b, err := canonicalEvent(&events[i])
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		prev = hashHex(b)
	}
	return nil
}

// Seal implements Store.
func (s *memoryStore) Seal(ctx context.Context, sessionID string, a *Artifact) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkSeal(sessionID, a); err != nil {
		return err
	}
	a = cloneArtifact(a)
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := s.now()
	ss, err := sh.open(sessionID, now)
	if err != nil {
		return err
	}
	if !sameEvents(ss.events, a.Events) {
		return fmt.Errorf("%w: session %q has %d events, the artifact covers %d (or their outcomes changed)", ErrStale, sessionID, len(ss.events), len(a.Events))
	}
	ss.artifact = a
	ss.events = nil
	ss.expires = now.Add(s.retention)
	return nil
}

// sameEvents reports whether an artifact's events are those of a log,
// which holds them as Prepare returned them, unlinked: the same events
// with the same timestamps and statuses.
func sameEvents(log, sealed []Event) bool {
	if len(log) != len(sealed) {
		return false
	}
	for i, e := range sealed {
		e.PrevHash = ""
		if !reflect.DeepEqual(log[i], e) {
			return false
		}
	}
	return true
}

// Artifact implements Store.
func (s *memoryStore) Artifact(ctx context.Context, sessionID string) (*Artifact, State, error) {
	if err := ctx.Err(); err != nil {
		return nil, Unknown, err
	}
	if sessionID == "" {
		return nil, Unknown, errSessionID
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ss := sh.session(sessionID, s.now())
	switch {
	case ss == nil:
		return nil, Unknown, nil
	case ss.artifact == nil:
		return nil, Active, nil
	}
	return cloneArtifact(ss.artifact), Sealed, nil
}
