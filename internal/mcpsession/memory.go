package mcpsession

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

var _ Store = (*Memory)(nil)

// DefaultMaxEntries is the default cap on the bindings a Memory holds:
// about 15 MB at the cap (measured: 65536 bindings of 64-byte owners).
const DefaultMaxEntries = 1 << 16

// MemoryConfig configures NewMemory. The zero value is the default.
type MemoryConfig struct {
	// MaxEntries caps the bindings held (default DefaultMaxEntries).
	MaxEntries int
	// Now is the store's clock (default time.Now).
	Now func() time.Time
}

// Memory is the in-process Store, for a single instance. Its memory is
// bounded by MaxEntries: a Bind that finds it full drops the bindings
// already expired and, if none is, evicts the one whose deadline is
// soonest (the one idle longest, as every use renews a deadline). Evicting
// fails closed: the evicted session is unknown from then on, and its
// client opens a new one (MCP 2025-11-25 "Session Management", item 4),
// whereas refusing the new binding would leave the new session unusable
// all the same. Rate limits on the MCP endpoint bound how fast a client
// can open sessions to push others out.
//
// It is a map and a deadline heap rather than a library's LRU: the
// deadlines are per entry and judged by the injected clock, the same
// judge as the Redis store's, so that the one conformance suite drives
// both (hashicorp/golang-lru's expirable cache reads time.Now and has one
// TTL).
type Memory struct {
	now func() time.Time
	max int

	mu    sync.RWMutex
	byID  map[[sha256.Size]byte]*entry
	queue deadlines // every binding held, soonest deadline first
}

type entry struct {
	key      [sha256.Size]byte
	owner    string
	deadline time.Time
	qi       int // index in queue
}

// NewMemory returns an empty Memory.
func NewMemory(cfg MemoryConfig) *Memory {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	return &Memory{now: clock.Or(cfg.Now), max: cfg.MaxEntries, byID: make(map[[sha256.Size]byte]*entry)}
}

// Len returns the number of bindings held, expired ones not yet dropped
// included.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.byID)
}

// Bind implements Store.
func (m *Memory) Bind(ctx context.Context, id, owner string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := CheckBind(id, owner, ttl); err != nil {
		return err
	}
	k := HashID(id)
	now := m.now()
	deadline := now.Add(ttl)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.byID[k]; e != nil {
		if e.owner != owner && e.deadline.After(now) {
			return ErrBound
		}
		e.owner, e.deadline = owner, deadline
		heap.Fix(&m.queue, e.qi)
		return nil
	}
	m.expire(now)
	if len(m.byID) >= m.max {
		m.remove(m.queue[0])
	}
	e := &entry{key: k, owner: owner, deadline: deadline}
	m.byID[k] = e
	heap.Push(&m.queue, e)
	return nil
}

// Owner implements Store.
func (m *Memory) Owner(ctx context.Context, id string) (string, time.Time, error) {
	if err := ctx.Err(); err != nil {
		return "", time.Time{}, err
	}
	if !ValidID(id) {
		return "", time.Time{}, ErrInvalid
	}
	k := HashID(id)
	now := m.now()
	m.mu.RLock()
	defer m.mu.RUnlock()
	e := m.byID[k]
	if e == nil || !e.deadline.After(now) {
		return "", time.Time{}, ErrNotFound
	}
	return e.owner, e.deadline, nil
}

// Forget implements Store.
func (m *Memory) Forget(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !ValidID(id) {
		return ErrInvalid
	}
	k := HashID(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.byID[k]; e != nil {
		m.remove(e)
	}
	return nil
}

// expire drops the bindings whose deadline has come. Holds m.mu.
func (m *Memory) expire(now time.Time) {
	for len(m.queue) > 0 && !m.queue[0].deadline.After(now) {
		m.remove(m.queue[0])
	}
}

// remove drops e from the map and the heap. Holds m.mu.
func (m *Memory) remove(e *entry) {
	heap.Remove(&m.queue, e.qi)
	delete(m.byID, e.key)
}

// deadlines is a min-heap of entries by deadline.
type deadlines []*entry

func (q deadlines) Len() int           { return len(q) }
func (q deadlines) Less(i, j int) bool { return q[i].deadline.Before(q[j].deadline) }
func (q deadlines) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].qi, q[j].qi = i, j
}

func (q *deadlines) Push(x any) {
	e := x.(*entry)
	e.qi = len(*q)
	*q = append(*q, e)
}

func (q *deadlines) Pop() any {
	old := *q
	n := len(old) - 1
	e := old[n]
	old[n] = nil
	*q = old[:n]
	e.qi = -1
	return e
}
