package session

import (
	"container/heap"
	"context"
	"net/netip"
	"sync"
	"time"
)

// MemoryStore is a Store in process memory, for a single instance.
//
// Get takes a read lock only. Expired sessions are invisible at once and
// leave memory when Reap claims them; the middleware reaps a few on every
// create and periodically, so the store holds the live sessions plus those
// expired since the last reap.
// Create also drops expired sessions from the identity it counts, so the
// max-sessions check costs O(max) whatever the backlog.
type MemoryStore struct {
	now func() time.Time

	mu     sync.RWMutex
	byHash map[Hash]*memEntry
	queue  expiryQueue // every stored session, soonest deadline first
	idents map[identity]*identSet
	seq    uint64
}

// identity is the key sessions are counted under.
type identity struct {
	agent  string
	client netip.Prefix
}

type memEntry struct {
	s    *Session
	hash Hash
	seq  uint64    // creation order: ties in the queue break by it
	qi   int       // index in queue
	set  *identSet // nil once dropped from its identity's set
	si   int       // index in set.entries
}

// identSet holds the sessions of one identity not known to have expired.
type identSet struct {
	key     identity
	entries []*memEntry
}

// NewMemoryStore returns an empty store. Only WithClock applies.
func NewMemoryStore(opts ...Option) *MemoryStore {
	o := applyOptions(opts)
	return &MemoryStore{
		now:    o.now,
		byHash: make(map[Hash]*memEntry),
		idents: make(map[identity]*identSet),
	}
}

// Create implements Store.
func (m *MemoryStore) Create(ctx context.Context, h Hash, s *Session, maxPerAgent int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkSession(s); err != nil {
		return err
	}
	now := m.now()
	key := identity{CountedAs(s.Agent), s.Client}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byHash[h]; ok {
		return ErrDuplicate
	}
	set := m.idents[key]
	if maxPerAgent > 0 && set != nil {
		if soonest, n := set.prune(now); n >= maxPerAgent {
			return &LimitError{Soonest: soonest}
		}
	}
	if set == nil {
		set = &identSet{key: key}
		m.idents[key] = set
	}
	m.seq++
	e := &memEntry{s: s, hash: h, seq: m.seq}
	m.byHash[h] = e
	heap.Push(&m.queue, e)
	set.add(e)
	return nil
}

// Get implements Store.
func (m *MemoryStore) Get(ctx context.Context, h Hash) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := m.now()
	m.mu.RLock()
	e := m.byHash[h]
	m.mu.RUnlock()
	if e == nil || !e.s.live(now) {
		return nil, ErrNotFound
	}
	return e.s, nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(ctx context.Context, h Hash) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.byHash[h]
	if e == nil || !e.s.live(now) {
		return nil, ErrNotFound
	}
	heap.Remove(&m.queue, e.qi)
	m.forget(e)
	return e.s, nil
}

// Reap implements Store.
func (m *MemoryStore) Reap(ctx context.Context, now time.Time, max int) ([]*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Session
	for len(m.queue) > 0 && (max <= 0 || len(out) < max) {
		e := m.queue[0]
		if e.s.live(now) {
			break
		}
		heap.Pop(&m.queue)
		m.forget(e)
		out = append(out, e.s)
	}
	return out, nil
}

// forget removes e from the hash index and its identity set (the caller
// has taken it out of the queue). Holds m.mu.
func (m *MemoryStore) forget(e *memEntry) {
	delete(m.byHash, e.hash)
	if set := e.set; set != nil {
		set.remove(e)
		if len(set.entries) == 0 {
			delete(m.idents, set.key)
		}
	}
}

func (s *identSet) add(e *memEntry) {
	e.set, e.si = s, len(s.entries)
	s.entries = append(s.entries, e)
}

// remove drops e in O(1), moving the last entry into its place.
func (s *identSet) remove(e *memEntry) {
	last := len(s.entries) - 1
	moved := s.entries[last]
	s.entries[e.si] = moved
	moved.si = e.si
	s.entries[last] = nil
	s.entries = s.entries[:last]
	e.set = nil
}

// prune drops the expired entries (they stay in the queue for Reap) and
// returns the soonest deadline of the live ones and their number.
func (s *identSet) prune(now time.Time) (soonest time.Time, n int) {
	for i := 0; i < len(s.entries); {
		e := s.entries[i]
		if !e.s.live(now) {
			s.remove(e) // moves another entry into i: look at i again
			continue
		}
		if n == 0 || e.s.ExpiresAt.Before(soonest) {
			soonest = e.s.ExpiresAt
		}
		n++
		i++
	}
	return soonest, n
}

// expiryQueue is a min-heap of entries by deadline, then creation order,
// so that Reap returns sessions in a deterministic order.
type expiryQueue []*memEntry

func (q expiryQueue) Len() int { return len(q) }

func (q expiryQueue) Less(i, j int) bool {
	a, b := q[i].s.ExpiresAt, q[j].s.ExpiresAt
	if a.Equal(b) {
		return q[i].seq < q[j].seq
	}
	return a.Before(b)
}

func (q expiryQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].qi, q[j].qi = i, j
}

func (q *expiryQueue) Push(x any) {
	e := x.(*memEntry)
	e.qi = len(*q)
	*q = append(*q, e)
}

func (q *expiryQueue) Pop() any {
	old := *q
	n := len(old) - 1
	e := old[n]
	old[n] = nil
	*q = old[:n]
	e.qi = -1
	return e
}
