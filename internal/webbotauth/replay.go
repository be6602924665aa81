package webbotauth

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"
)

// ReplayCache remembers the nonces of verified signatures
// (RFC 9421 7.2.2; draft-ietf-webbotauth-httpsig-protocol-01 5.2.3, C.6).
// Verify records a nonce only after its signature verifies, under a key
// derived from the keyid and the nonce, until the signature's expires plus
// the skew. A store shared by several replicas gives replay protection
// across them; the check-and-record must then be atomic (SET NX in Redis).
type ReplayCache interface {
	// Seen records key until the given time and reports whether it was
	// recorded already (and not expired). now is the Verifier's clock
	// (Verifier.Now): the cache judges expiry by it, never by a clock of
	// its own.
	Seen(ctx context.Context, key string, now, until time.Time) (bool, error)
}

// ErrReplayCacheFull is returned by the memory ReplayCache when every entry
// is still live; Verify reports it as ErrUnavailable.
var ErrReplayCacheFull = errors.New("webbotauth: replay cache full")

// NewMemoryReplays returns an in-memory ReplayCache of at most maxEntries
// live entries (at least 1; 0 or less means 65536), for one process.
// Expired entries are dropped as new ones arrive, soonest-expiring first.
// When all maxEntries are live, Seen fails with ErrReplayCacheFull rather
// than forget a nonce that could still be replayed: signatures with a nonce
// then verify as ErrUnavailable ("cannot tell") until entries expire, at
// most MaxLifetime plus the skew later. Size it for the peak rate of
// nonce-bearing requests times that window. Time is the clock Seen is
// given.
func NewMemoryReplays(maxEntries int) ReplayCache {
	if maxEntries <= 0 {
		maxEntries = 1 << 16
	}
	return &memoryReplays{max: maxEntries, until: make(map[string]time.Time)}
}

type memoryReplays struct {
	mu    sync.Mutex
	max   int
	until map[string]time.Time // live keys and their expiry
	exp   expiryHeap           // every recorded (key, until); stale items are skipped
}

func (m *memoryReplays) Seen(ctx context.Context, key string, now, until time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire(now)
	if u, ok := m.until[key]; ok && u.After(now) {
		return true, nil
	}
	if !until.After(now) {
		// Already expired: nothing to remember, and Verify never asks.
		return false, nil
	}
	if len(m.until) >= m.max {
		return false, ErrReplayCacheFull
	}
	m.until[key] = until
	heap.Push(&m.exp, expiry{key: key, until: until})
	return false, nil
}

// expire drops the entries whose time has come.
func (m *memoryReplays) expire(now time.Time) {
	for len(m.exp) > 0 && !m.exp[0].until.After(now) {
		e := heap.Pop(&m.exp).(expiry)
		if u, ok := m.until[e.key]; ok && u.Equal(e.until) {
			delete(m.until, e.key)
		}
	}
	// A Go map never shrinks; rebuild it once it is mostly empty after a
	// burst, so a flood does not pin its peak memory.
	if len(m.until) == 0 && len(m.exp) == 0 && m.exp != nil && cap(m.exp) > 1024 {
		m.until = make(map[string]time.Time)
		m.exp = nil
	}
}

type expiry struct {
	key   string
	until time.Time
}

type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].until.Before(h[j].until) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	old[n-1] = expiry{} // release the key string
	*h = old[:n-1]
	return x
}
