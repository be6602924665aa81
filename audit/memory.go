package audit

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"
)

var _ Store = (*MemoryStore)(nil)

// memShards spreads sessions over independent locks, so that requests of
// different sessions seldom wait for each other.
const memShards = 64

// sweepEvery is how often a shard drops expired sessions; expiry is also
// checked on every read, so a late sweep only delays freeing memory.
const sweepEvery = time.Minute

// MemoryStore is a Store in process memory: for a single replica, for
// tests, and as the model the Redis store follows. Its logs die with the
// process. It is safe for concurrent use.
type MemoryStore struct {
	redact    redaction
	retention time.Duration
	clock     func() time.Time // nil: the system's, read by way of epoch
	epoch     time.Time
	shards    [memShards]memShard
}

type memShard struct {
	mu        sync.Mutex
	sessions  map[string]*memSession
	nextSweep time.Time
}

type memSession struct {
	// events are the canonical serialisations: pointer-free, so a large
	// log costs the garbage collector nothing to scan.
	events   [][]byte
	last     [2 * sha256.Size]byte // hex hash of the last event, if any
	linked   bool                  // whether last is set (there are events)
	artifact *Artifact             // set once sealed
	expires  time.Time
}

// lastHash is the hex hash of the last event, empty before the first.
func (ss *memSession) lastHash() []byte {
	if !ss.linked {
		return nil
	}
	return ss.last[:]
}

// NewMemoryStore returns an empty MemoryStore. It honours WithRedactor,
// WithRetention and WithClock.
func NewMemoryStore(opts ...Option) (*MemoryStore, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &MemoryStore{redact: redactWith(o.redactor), retention: o.retention, clock: o.now, epoch: time.Now()}
	for i := range s.shards {
		s.shards[i].sessions = make(map[string]*memSession)
	}
	return s, nil
}

// now reads the store's clock. The system clock is read by way of the
// monotonic time since the store's epoch: time.Since reads only the
// monotonic clock, on some hosts half the cost of time.Now, and retention
// is a duration, which a step of the wall clock should not change.
func (s *MemoryStore) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return s.epoch.Add(time.Since(s.epoch))
}

func (s *MemoryStore) shard(sessionID string) *memShard {
	return &s.shards[stripeHash(sessionID)%memShards]
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

// Append implements Store. The event is redacted and serialised before
// the session's lock is taken; under it, Append only links (one SHA-256).
func (s *MemoryStore) Append(ctx context.Context, sessionID string, e Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if sessionID == "" {
		return ErrSessionID
	}
	p, err := prepareCompact(&e, s.redact)
	if err != nil {
		return err
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := s.now()
	sh.sweep(now)
	ss, err := sh.open(sessionID, now)
	if err != nil {
		return err
	}
	canonical := p.linkHex(ss.lastHash(), &ss.last)
	ss.events = append(ss.events, canonical)
	ss.linked = true
	ss.expires = now.Add(s.retention)
	return nil
}

// Events implements Store.
func (s *MemoryStore) Events(ctx context.Context, sessionID string) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if sessionID == "" {
		return nil, ErrSessionID
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	ss := sh.session(sessionID, s.now())
	var raw [][]byte
	switch {
	case ss == nil:
		sh.mu.Unlock()
		return []Event{}, nil
	case ss.artifact != nil:
		events := cloneEvents(ss.artifact.Events)
		sh.mu.Unlock()
		return events, nil
	default:
		raw = ss.events[:len(ss.events):len(ss.events)] // appends reallocate, never overwrite
	}
	sh.mu.Unlock()
	events, err := decodeEvents(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: session %q: %v", ErrCorrupt, sessionID, err) // unreachable: the store wrote them
	}
	return events, nil
}

// Seal implements Store.
func (s *MemoryStore) Seal(ctx context.Context, sessionID string, a *Artifact) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	last, err := checkSeal(sessionID, a)
	if err != nil {
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
	if len(a.Events) != len(ss.events) || last != string(ss.lastHash()) {
		return fmt.Errorf("%w: session %q has %d events, the artifact covers %d", ErrStale, sessionID, len(ss.events), len(a.Events))
	}
	ss.artifact = a
	ss.events = nil
	ss.expires = now.Add(s.retention)
	return nil
}

// Artifact implements Store.
func (s *MemoryStore) Artifact(ctx context.Context, sessionID string) (*Artifact, State, error) {
	if err := ctx.Err(); err != nil {
		return nil, Unknown, err
	}
	if sessionID == "" {
		return nil, Unknown, ErrSessionID
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
