package audit

import (
	"context"
	"fmt"
	"slices"
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
	log      eventLog
	lastTS   [len(TimeLayout)]byte // the timestamp of the last event, zero before the first
	artifact *Artifact             // set once sealed
	expires  time.Time
}

// eventLog is a session's events as a MemoryStore keeps them, unlinked
// (record: 64 bytes of prev_hash fewer per event, the links recomputed
// when they are read back), in pages that are not copied as the log grows:
// a page holds 8 events, the next twice as many, up to 1024.
type eventLog struct {
	pages [][]record
	n     int
}

const (
	firstPage = 8
	maxPage   = 1024
)

func (l *eventLog) append(r record) {
	k := len(l.pages) - 1
	if k < 0 || len(l.pages[k]) == cap(l.pages[k]) {
		size := firstPage
		if k >= 0 {
			size = min(2*cap(l.pages[k]), maxPage)
		}
		l.pages = append(l.pages, make([]record, 0, size))
		k++
	}
	l.pages[k] = append(l.pages[k], r)
	l.n++
}

// at returns the record at seq, nil when out of range.
func (l *eventLog) at(seq int) *record {
	if seq < 0 || seq >= l.n {
		return nil
	}
	for _, pg := range l.pages {
		if seq < len(pg) {
			return &pg[seq]
		}
		seq -= len(pg)
	}
	return nil
}

// snapshot returns a copy of the log to read without the lock (a status
// may be bound in place after it is taken).
func (l *eventLog) snapshot() eventLog {
	c := eventLog{pages: make([][]record, len(l.pages)), n: l.n}
	for i, pg := range l.pages {
		c.pages[i] = slices.Clone(pg)
	}
	return c
}

// fingerprint is the log's fingerprint (see checkSeal).
func (l *eventLog) fingerprint() string {
	var b []byte
	i := 0
	for _, pg := range l.pages {
		for _, r := range pg {
			b = appendFingerprint(b, i, r)
			i++
		}
	}
	return string(b)
}

// events relinks and decodes the log's events.
func (l eventLog) events() ([]Event, error) {
	return relink(func(yield func(record) bool) {
		for _, pg := range l.pages {
			for _, r := range pg {
				if !yield(r) {
					return
				}
			}
		}
	}, l.n)
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
// the session's lock is taken; under it, Append only keeps the
// serialisation.
func (s *MemoryStore) Append(ctx context.Context, sessionID string, e Event) error {
	_, err := s.add(ctx, sessionID, &e, true)
	return err
}

// Begin implements Store.
func (s *MemoryStore) Begin(ctx context.Context, sessionID string, e Event) (int, error) {
	return s.add(ctx, sessionID, &e, false)
}

func (s *MemoryStore) add(ctx context.Context, sessionID string, e *Event, final bool) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if sessionID == "" {
		return 0, ErrSessionID
	}
	r, err := prepareUnlinked(e, s.redact, final)
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
	if string(r.ts[:]) < string(ss.lastTS[:]) { // TimeLayout is fixed-width UTC: string order is time order
		r.ts = ss.lastTS
	}
	ss.lastTS = r.ts
	ss.log.append(r)
	ss.expires = now.Add(s.retention)
	return ss.log.n - 1, nil
}

// Complete implements Store.
func (s *MemoryStore) Complete(ctx context.Context, sessionID string, seq, status int, amend *Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	head, err := prepareOutcome(sessionID, status, amend, s.redact)
	if err != nil {
		return err
	}
	sh := s.shard(sessionID)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := s.now()
	ss, err := sh.open(sessionID, now)
	if err != nil {
		return err
	}
	r := ss.log.at(seq)
	if r == nil || r.status != StatusUnrecorded {
		return fmt.Errorf("%w: session %q, event %d", ErrNotPending, sessionID, seq)
	}
	r.status = status
	if head != nil {
		r.head = head
	}
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
	var log eventLog
	switch {
	case ss == nil:
		sh.mu.Unlock()
		return []Event{}, nil
	case ss.artifact != nil:
		events := cloneEvents(ss.artifact.Events)
		sh.mu.Unlock()
		return events, nil
	default:
		log = ss.log.snapshot()
	}
	sh.mu.Unlock()
	events, err := log.events()
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
	fingerprint, err := checkSeal(sessionID, a)
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
	if len(a.Events) != ss.log.n || fingerprint != ss.log.fingerprint() {
		return fmt.Errorf("%w: session %q has %d events, the artifact covers %d (or their outcomes changed)", ErrStale, sessionID, ss.log.n, len(a.Events))
	}
	ss.artifact = a
	ss.log = eventLog{}
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
