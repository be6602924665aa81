package ratelimit

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

var _ Peeker = (*MemoryStore)(nil)

const (
	// defaultMaxEntries is the default cap on the buckets a memory store
	// holds: about 26 MB (see MemoryConfig.MaxEntries).
	defaultMaxEntries = 1 << 17
	// maxShards bounds lock contention; a power of two.
	maxShards = 64
	// sample is how many groups of a full shard an insertion examines:
	// the idle ones among them are dropped, and if none is, the one that
	// owes the fewest tokens is evicted.
	sample = 8
	// maxNow bounds the store's clock reading, about 146 years either side
	// of its creation, so that now plus a period cannot overflow.
	maxNow = 1 << 62
)

// MemoryConfig configures NewMemoryStore. The zero value is the default.
type MemoryConfig struct {
	// MaxEntries caps the number of buckets held (default 131072, about
	// 26 MB). Size it above the number of buckets active within the
	// longest period: at the cap, buckets that still owe tokens may be
	// evicted.
	MaxEntries int
	// Now is the store's clock (default: the runtime's monotonic clock).
	Now func() time.Time
}

// MemoryStore is the in-process Store; it also implements Peeker. It is
// safe for concurrent use, and its memory is bounded by MaxEntries: at the
// cap it drops idle clients first, then the one closest to full, so a
// flood of new clients evicts its own buckets rather than the debt of a
// client being limited. New clients are never refused for want of room.
type MemoryStore struct {
	// Each bucket is a GCRA cell, the algorithm redis_rate runs in Redis: it
	// stores the theoretical arrival time (TAT) of the next request, and a
	// limit of N per P admits a request when TAT + P/N - P is not later than
	// now. Time is kept in integer nanoseconds with the emission interval P/N
	// held exactly as a fraction, so a burst of N per P is N, refill after P/N
	// is one token, and RetryAfter is the exact wait, with no float rounding
	// at any rate. golang.org/x/time/rate is the reference the tests compare
	// it with.
	//
	// The store is safe for concurrent use. Buckets are grouped by Key (one
	// client's site, agent and capability buckets form a group) in a map keyed
	// by a seeded hash of the Key, and the maps are split into shards behind a
	// mutex each, chosen by the same hash of the client's address, so that a
	// request's limits take one lock and one hash.
	// A call touching several shards locks them in ascending order and holds
	// them while it checks every limit and then consumes from all or none.
	//
	// Memory is bounded by MaxEntries, split evenly across the shards. When an
	// insertion finds its shard full, it examines a few of the shard's groups
	// (a random sample, in Go's map order) and drops those that are idle: all
	// their buckets are full again, so dropping them changes no answer. If
	// none is idle, it evicts the sampled group that owes the fewest tokens
	// (the one closest to full) and serves the new client from a bucket of its
	// own. Under a flood of new keys at the cap, the flood's own groups, one
	// request each, are the ones closest to full, so they evict each other: a
	// client that is being limited keeps its debt unless every group sampled
	// owes as much as it does, which costs an attacker as many requests per
	// key as the eviction would give back. New clients are never refused for
	// want of room.
	clock  func() time.Time // nil: the monotonic clock, by clock.Since
	epoch  time.Time        // bucket times are nanoseconds since epoch
	seed   maphash.Seed
	shards []shard
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(cfg MemoryConfig) (*MemoryStore, error) {
	if cfg.MaxEntries < 0 {
		return nil, fmt.Errorf("ratelimit: MemoryConfig.MaxEntries %d: must not be negative", cfg.MaxEntries)
	}
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = defaultMaxEntries
	}
	n := maxShards
	for n > 1 && n > cfg.MaxEntries {
		n >>= 1
	}
	s := &MemoryStore{clock: cfg.Now, seed: maphash.MakeSeed(), shards: make([]shard, n)}
	if s.clock == nil {
		s.epoch = clock.Monotonic()
	} else {
		s.epoch = s.clock()
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.capacity = cfg.MaxEntries / n
		if i < cfg.MaxEntries%n {
			sh.capacity++
		}
		sh.groups = make(map[uint64]*group)
	}
	return s, nil
}

type shard struct {
	mu       sync.Mutex
	groups   map[uint64]*group // by hashKey; keys that share a hash are chained
	n        int               // buckets held
	capacity int
	drops    int // groups dropped since groups was made
}

// group holds the buckets of one Key, told apart by Limit.Name. Names come
// from the compiled policy, not from requests, so a group stays small and
// is searched linearly.
type group struct {
	key     Key
	hash    uint64 // hashKey(key)
	next    *group // the next group whose key has the same hash
	buckets []bucket
}

// Len returns the number of buckets held.
func (s *MemoryStore) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.n
		sh.mu.Unlock()
	}
	return n
}

// Allow implements Store.
func (s *MemoryStore) Allow(ctx context.Context, limits []Limit, res []Result) error {
	return s.allow(ctx, limits, res, true)
}

// Peek implements Peeker: the results Allow would give now, nothing
// consumed or created.
func (s *MemoryStore) Peek(ctx context.Context, limits []Limit, res []Result) error {
	return s.allow(ctx, limits, res, false)
}

// ref locates the bucket of one limit during a call: an index, because the
// group's bucket slice may grow while the call adds buckets. A nil group
// (Peek of a missing bucket) stands for a full bucket.
type ref struct {
	sh *shard
	h  uint64 // hashKey of the limit's Key
	g  *group
	j  int
}

// allow is Allow, and with consume false Peek.
func (s *MemoryStore) allow(ctx context.Context, limits []Limit, res []Result, consume bool) error {
	// The memory store never blocks, so a context can only be done on entry.
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := CheckLimits(limits, res); err != nil {
		return err
	}
	if len(limits) == 0 {
		return nil
	}
	refs := make([]ref, 0, 4)
	locked := make([]int, 0, 4) // ascending: calls never deadlock
	for i := range limits {
		h := s.hashKey(&limits[i].Key)
		si := int(h % uint64(len(s.shards)))
		refs = append(refs, ref{sh: &s.shards[si], h: h})
		if j, found := slices.BinarySearch(locked, si); !found {
			locked = slices.Insert(locked, j, si)
		}
	}
	now := s.now()
	for _, si := range locked {
		s.shards[si].mu.Lock()
	}
	defer s.unlock(locked)
	s.update(limits, res, refs, now, consume)
	return nil
}

func (s *MemoryStore) unlock(locked []int) {
	for _, si := range locked {
		s.shards[si].mu.Unlock()
	}
}

// update finds or creates each limit's bucket, then consumes from all or
// none and writes the results. The shards of refs are locked.
func (s *MemoryStore) update(limits []Limit, res []Result, refs []ref, now int64, consume bool) {
	for i := range limits {
		l, r := &limits[i], &refs[i]
		if i > 0 && l.Key == limits[i-1].Key {
			r.g = refs[i-1].g // one client's limits: one map lookup
		} else {
			r.g = r.sh.lookup(r.h, &l.Key)
		}
		r.j = -1
		if r.g != nil {
			r.j = r.g.find(l, now)
		}
		if r.j < 0 && consume {
			r.sh.makeRoom(now, refs[:i], r.g)
			if r.g == nil {
				r.g = &group{key: l.Key, hash: r.h, next: r.sh.groups[r.h]}
				r.g.key.ID = strings.Clone(l.Key.ID) // never pin a request's memory
				r.sh.groups[r.h] = r.g
			}
			r.j = r.g.insert(l, now)
			r.sh.n++
		}
	}

	var spare bucket // Peek: the full bucket of a missing one
	at := func(i int) *bucket {
		if refs[i].j < 0 {
			spare.configure(&limits[i], now)
			return &spare
		}
		return &refs[i].g.buckets[refs[i].j]
	}
	ok := true
	for i := range refs {
		b := at(i)
		if !b.fits(b.debt(now), b.step(limits[i].cost())) {
			ok = false
		}
	}
	for i := range refs {
		b := at(i)
		d, step := b.debt(now), b.step(limits[i].cost())
		r := Result{Limit: int(b.rate)}
		switch {
		case ok:
			d = d.add(step, b.rate)
			if consume {
				b.tat, b.frac = now+d.ns, d.frac
			}
			r.Allowed, r.Remaining = true, b.remaining(d)
		case b.fits(d, step):
			// This limit had its tokens, another did not: nothing consumed.
			r.Allowed, r.Remaining = true, b.remaining(d)
		default:
			// Admitted when debt + step <= period: wait for the excess.
			over := d.add(step, b.rate)
			over.ns -= b.period
			r.RetryAfter = over.ceil()
		}
		r.Reset = d.ceil()
		res[i] = r
	}
}

// now is the store's clock in nanoseconds since its epoch, clamped so that
// now plus a period (at most maxPeriod) cannot overflow, whatever an
// injected clock returns.
func (s *MemoryStore) now() int64 {
	var d time.Duration
	if s.clock == nil {
		d = clock.Since(s.epoch)
	} else {
		d = s.clock().Sub(s.epoch)
	}
	return min(max(int64(d), -maxNow), maxNow)
}

// hashKey returns the hash of k that picks its shard (its low bits) and
// keys the shard's map. The low 32 bits hash the client's address alone,
// so that the buckets of one client (whatever their IDs) share a shard;
// buckets shared by every client (no Net) spread by ID. The hash is keyed
// with a random seed: a client choosing addresses or IDs cannot aim them
// at one shard, nor make keys collide but by chance, and keys that do
// collide still find their own groups (shard.lookup).
func (s *MemoryStore) hashKey(k *Key) uint64 {
	if !k.Net.IsValid() {
		return maphash.String(s.seed, k.ID)
	}
	a := k.Net.Addr().As16()
	h := maphash.Bytes(s.seed, a[:])
	if k.ID != "" {
		h ^= maphash.String(s.seed, k.ID) &^ (1<<32 - 1)
	}
	return h
}

// lookup returns the group of k, whose hash is h, or nil.
func (sh *shard) lookup(h uint64, k *Key) *group {
	for g := sh.groups[h]; g != nil; g = g.next {
		if g.key == *k {
			return g
		}
	}
	return nil
}

// find returns the index of l's bucket in g, or -1, applying a changed
// Rate or Period to it.
func (g *group) find(l *Limit, now int64) int {
	for j := range g.buckets {
		if b := &g.buckets[j]; b.name == l.Name {
			if b.rate != uint64(l.Rate) || b.period != int64(l.Period) {
				b.reconfigure(l, now)
			}
			return j
		}
	}
	return -1
}

// insert adds a full bucket for l to g and returns its index.
func (g *group) insert(l *Limit, now int64) int {
	// Copy the name so that the store never pins a caller's memory.
	b := bucket{name: strings.Clone(l.Name)}
	b.configure(l, now)
	g.buckets = append(g.buckets, b)
	return len(g.buckets) - 1
}

// idle reports whether every bucket of g is full: dropping g changes no
// answer.
func (g *group) idle(now int64) bool {
	for i := range g.buckets {
		if !g.buckets[i].full(now) {
			return false
		}
	}
	return true
}

// owed is what evicting g would give its client back: the most tokens any
// of its buckets lacks.
func (g *group) owed(now int64) float64 {
	most := 0.0
	for i := range g.buckets {
		b := &g.buckets[i]
		most = max(most, float64(b.debt(now).ns)*float64(b.rate)/float64(b.period))
	}
	return most
}

// makeRoom runs before a bucket is added to a full shard: it drops the
// idle groups of a sample, and if none was idle the sampled group that
// owes the fewest tokens. Groups the call is using (refs, and g, which may
// be nil) are never dropped; if every sampled group is in use, the shard
// exceeds its capacity until a later insertion (only a call with more new
// buckets than a shard holds can cause that).
func (sh *shard) makeRoom(now int64, refs []ref, g *group) {
	if sh.n < sh.capacity {
		return
	}
	inUse := func(x *group) bool {
		return x == g || slices.ContainsFunc(refs, func(r ref) bool { return r.g == x })
	}
	var (
		victim *group
		least  float64
		seen   int
	)
	for _, first := range sh.groups { // Go randomises where iteration starts
		for x := first; x != nil; {
			next := x.next
			if seen++; seen > sample {
				break
			}
			switch {
			case inUse(x):
			case x.idle(now):
				sh.drop(x)
			default:
				if o := x.owed(now); victim == nil || o < least {
					victim, least = x, o
				}
			}
			x = next
		}
		if seen > sample {
			break
		}
	}
	if sh.n >= sh.capacity && victim != nil {
		sh.drop(victim)
	}
}

// drop removes g. A Go map does not give back all the slots of deleted
// entries, and one whose entries keep being replaced grows
// (TestMemoryFlatInClients): after dropping twice its capacity in groups,
// the shard copies its map into a new one, which holds the live groups
// only.
func (sh *shard) drop(g *group) {
	if first := sh.groups[g.hash]; first == g {
		if g.next == nil {
			delete(sh.groups, g.hash)
		} else {
			sh.groups[g.hash] = g.next
		}
	} else {
		for p := first; p != nil; p = p.next {
			if p.next == g {
				p.next = g.next
				break
			}
		}
	}
	g.next = nil
	sh.n -= len(g.buckets)
	if sh.drops++; sh.drops >= 2*max(sh.capacity, 64) {
		m := make(map[uint64]*group, len(sh.groups))
		for h, g := range sh.groups {
			m[h] = g
		}
		sh.groups, sh.drops = m, 0
	}
}
