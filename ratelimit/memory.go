package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"strings"
	"sync"
	"time"
)

var _ Store = (*MemoryStore)(nil)

// defaultMaxEntries is the default cap on the number of buckets a
// MemoryStore holds. A client with one bucket costs its bucket, its group
// and their map entries: measured, 420 bytes of live heap a client at this
// cap (TestMemoryPerBucket). The default cap so bounds the store to some
// 53 MB however many distinct clients arrive.
const defaultMaxEntries = 1 << 17

const (
	// maxShards bounds lock contention; a power of two. 64 rather than 128:
	// the shards' locks and maps then stay in cache, and one call for each
	// of 1024 clients in turn took 9% less time on one core and 4% less on
	// two (bench/compare BenchmarkLimiter).
	maxShards = 64
	// sweepScan is how many least recently used groups each insertion
	// examines for idleness, so that idle buckets go away at the rate new
	// ones arrive, without a background goroutine.
	sweepScan = 4
	// sweepAge is how long a group must have gone unused before a sweep
	// drops it (at the cap, any idle group may go). A client that comes
	// back within it keeps its group: without it, the buckets of a client
	// whose requests stay within its rate are full again at each request,
	// and every request of a few hundred such clients in turn removed one
	// group and created another, 44% of the cost of a call
	// (bench/compare BenchmarkLimiter: 144 ns -> 80 ns).
	sweepAge = int64(time.Second)
	// promoteAge is how long a group stays where it is in the LRU list
	// after it moved to the front, however often it is used (see
	// shard.promote): eviction picks the least recently used group to
	// within this much.
	promoteAge = int64(100 * time.Millisecond)
	// evictScan is how far from the LRU end an insertion into a full shard
	// looks for an idle group before it evicts the least recently used.
	evictScan = 8
	// rebuildDrops: a shard's map is copied afresh after this many times
	// its capacity in dropped groups (see shard.rebuild).
	rebuildDrops = 4
	// maxNow bounds the store's clock reading, about 146 years either side
	// of its creation.
	maxNow = 1 << 62
	// stackLimits is how many limits one Allow call handles without
	// allocating. The pipeline uses three; the call zeroes its scratch
	// arrays for this many, and four rather than eight saved 3% of a
	// one-limit call (bench/compare BenchmarkLimiter).
	stackLimits = 4
)

// MemoryStore is the in-process Store.
//
// Each bucket is a GCRA cell, the algorithm redis_rate runs in Redis: it
// stores the theoretical arrival time (TAT) of the next request, and a limit
// of N per P admits a request when TAT + P/N - P is not later than now.
// Time is kept in integer nanoseconds with the emission interval P/N held
// exactly as a fraction, so a burst of N per P is N, refill after P/N is one
// token, and RetryAfter is the exact wait, with no float rounding at any
// rate. (golang.org/x/time/rate was the first engine. Checking a limit
// before consuming from it took two calls, each taking the limiter's own
// mutex, and float arithmetic the store had to mirror to stay all or
// nothing: about twenty times the cost per limit, for the same semantics.
// It remains the reference the tests compare against.)
//
// It is safe for concurrent use. Buckets are grouped by Key (one client's
// site, agent and capability buckets form one group) and groups live in
// shards chosen by a keyed hash of the client network, so the limits of one
// request take one lock and, when they share a Key, one map lookup. A call
// that touches several shards locks them in ascending order, so calls never
// deadlock, and holds them while it checks every limit and then consumes
// from all or none.
//
// Memory is bounded. A group whose buckets have all refilled carries no
// state, so later insertions into its shard sweep it away. The number of
// buckets is capped (WithMaxEntries): an insertion into a full shard evicts
// an idle group if it finds one near the least recently used end, and
// otherwise the least recently used group (to within promoteAge, 100 ms:
// a group moves to the front of the list at most that often). Evicting
// buckets that are not full forgives that client: it starts again with
// full bursts. Under a flood of distinct clients that is the price of a
// bounded store; size the cap above the number of buckets active within
// one period.
//
// Allow does not allocate when every bucket exists and the call has at most
// four limits; creating a bucket allocates unless it reuses an evicted one.
type MemoryStore struct {
	clock Clock
	epoch time.Time // times are nanoseconds since epoch (monotonic when the clock is)
	// monotonic is set when clock is time.Now: now is then time.Since(epoch).
	monotonic bool
	seed      maphash.Seed
	mask      uint64
	shards    []shard
}

// MemoryOption configures a MemoryStore.
type MemoryOption func(*memoryConfig)

type memoryConfig struct {
	clock      Clock
	maxEntries int
	errs       []error
}

// WithClock sets the store's clock (default time.Now). Tests pass
// (*FakeClock).Now.
func WithClock(c Clock) MemoryOption {
	return func(cfg *memoryConfig) {
		if c == nil {
			cfg.errs = append(cfg.errs, errors.New("ratelimit: WithClock: nil clock"))
			return
		}
		cfg.clock = c
	}
}

// WithMaxEntries caps the number of buckets (default defaultMaxEntries).
// The cap is split across shards and is exact: the store never holds more
// than n buckets, except while one call needs more new buckets in a shard
// than that shard may hold; the next insertion there restores the cap.
func WithMaxEntries(n int) MemoryOption {
	return func(cfg *memoryConfig) {
		if n < 1 {
			cfg.errs = append(cfg.errs, fmt.Errorf("ratelimit: WithMaxEntries(%d): must be at least 1", n))
			return
		}
		cfg.maxEntries = n
	}
}

// NewMemoryStore returns an empty MemoryStore. It reports every invalid
// option at once.
func NewMemoryStore(opts ...MemoryOption) (*MemoryStore, error) {
	cfg := memoryConfig{maxEntries: defaultMaxEntries}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if len(cfg.errs) > 0 {
		return nil, errors.Join(cfg.errs...)
	}
	monotonic := cfg.clock == nil
	if monotonic {
		cfg.clock = time.Now
	}
	n := maxShards
	for n > 1 && n > cfg.maxEntries {
		n >>= 1
	}
	s := &MemoryStore{
		clock:     cfg.clock,
		epoch:     cfg.clock(),
		monotonic: monotonic,
		seed:      maphash.MakeSeed(),
		mask:      uint64(n - 1),
		shards:    make([]shard, n),
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.capacity = cfg.maxEntries / n
		if i < cfg.maxEntries%n {
			sh.capacity++
		}
		sh.groups = make(map[uint64]*group)
	}
	return s, nil
}

// Len returns the number of buckets held, for tests and metrics.
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
// consumed, created or touched.
func (s *MemoryStore) Peek(ctx context.Context, limits []Limit, res []Result) error {
	return s.allow(ctx, limits, res, false)
}

// allow is Allow, and with consume false Peek: then a missing group or
// bucket counts as a full bucket and nothing is written.
func (s *MemoryStore) allow(ctx context.Context, limits []Limit, res []Result, consume bool) error {
	// The memory store never blocks, so a context can only be done on entry.
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := CheckLimits(limits, res); err != nil {
		return err
	}
	n := len(limits)
	if n == 0 {
		return nil
	}
	var (
		hashStack [stackLimits]uint64
		refStack  [stackLimits]ref
		debtStack [stackLimits]span
		snapStack [stackLimits]rateParams
		hashes    []uint64
		refs      []ref
		debts     []span
		snaps     []rateParams
	)
	if n <= stackLimits {
		hashes, refs, debts, snaps = hashStack[:n], refStack[:n], debtStack[:n], snapStack[:n]
	} else {
		hashes, refs, debts, snaps = make([]uint64, n), make([]ref, n), make([]span, n), make([]rateParams, n)
	}
	var set [(maxShards + 63) / 64]uint64
	for i := range limits {
		k := &limits[i].Key
		if i > 0 && *k == limits[i-1].Key {
			hashes[i] = hashes[i-1] // one client's limits: hash once
		} else {
			hashes[i] = s.hash(k)
		}
		si := s.shardOf(hashes[i])
		set[si>>6] |= 1 << (si & 63)
	}
	// The clock is read before any lock is taken: it is the slowest step of
	// a call (a vDSO read), and another core's call for the same client
	// waits for the lock meanwhile. Calls that race for a lock may then
	// apply their times out of order, by less than the wait; the buckets
	// handle a now earlier than the last one as a clock stepping back.
	now := s.now()
	// Fixed order: ascending shard index.
	for w, word := range set {
		for ; word != 0; word &= word - 1 {
			s.shards[w<<6|bits.TrailingZeros64(word)].mu.Lock()
		}
	}

	// Groups are marked busy, not to be evicted by this call's own
	// insertions, only once the call is about to insert: a call whose
	// buckets all exist, the usual case, then writes nothing to its groups.
	marked := false
	for i := range limits {
		l := &limits[i]
		sh := &s.shards[s.shardOf(hashes[i])]
		var g *group
		if i > 0 && l.Key == limits[i-1].Key {
			g = refs[i-1].g // the usual case: one lookup per request
		} else if g = sh.lookup(hashes[i], &l.Key); g == nil && consume {
			marked = marked || markBusy(refs[:i])
			g = sh.create(hashes[i], &l.Key, now)
			g.busy = true
		} else if marked {
			g.busy = true
		}
		j := -1
		if g != nil {
			j = g.find(l, now)
		}
		if j < 0 && consume {
			marked = marked || markBusy(refs[:i])
			g.busy = true
			j = sh.insert(g, l, now)
		}
		refs[i] = ref{g, j}
	}
	ok := true
	var fresh []bucket
	if !consume {
		fresh = make([]bucket, n) // Peek: the full buckets of missing ones
	}
	for i, r := range refs {
		var b *bucket
		if r.j >= 0 {
			b = &r.g.buckets[r.j]
		} else {
			b = &fresh[i]
			b.configure(&limits[i], now)
		}
		debts[i] = b.debt(now)
		if !b.fits(debts[i]) {
			ok = false
		}
	}
	for i, ref := range refs {
		var b *bucket
		if ref.j >= 0 {
			b = &ref.g.buckets[ref.j]
		} else {
			b = &fresh[i]
		}
		if ok {
			d := debts[i].add(b.interval, b.rate)
			if consume {
				b.tat, b.frac = now+d.ns, d.frac
			}
			debts[i] = d
		}
		// A copy, so that the results are worked out after the locks are
		// released: they depend only on the bucket's settings and debt.
		snaps[i] = b.rateParams
		if marked {
			ref.g.busy = false
		}
		if consume {
			ref.g.used = now
			s.shards[s.shardOf(hashes[i])].promote(ref.g, now)
		}
	}
	for w, word := range set {
		for ; word != 0; word &= word - 1 {
			s.shards[w<<6|bits.TrailingZeros64(word)].mu.Unlock()
		}
	}

	for i := range snaps {
		b, d, r := &snaps[i], debts[i], &res[i]
		*r = Result{Limit: int(b.rate)}
		switch {
		case ok || b.fits(d):
			// Allowed: d is the debt after this request when ok, and the
			// unchanged debt of a limit that had a token otherwise.
			r.Allowed = true
			r.Remaining = b.remaining(d)
		default:
			// Admitted when debt + interval <= period: wait for the excess.
			over := d.add(b.interval, b.rate)
			over.ns -= b.period
			r.RetryAfter = over.ceil()
		}
		r.Reset = d.ceil()
	}
	return nil
}

// now is the store's clock in nanoseconds since its epoch, clamped so that
// now plus a period (at most MaxPeriod) cannot overflow, whatever an
// injected clock returns.
func (s *MemoryStore) now() int64 {
	var since time.Duration
	if s.monotonic {
		// time.Since reads only the monotonic clock: on some hosts half
		// the cost of time.Now, which reads the wall clock too.
		since = time.Since(s.epoch)
	} else {
		since = s.clock().Sub(s.epoch)
	}
	return min(max(int64(since), -maxNow), maxNow)
}

// markBusy marks the groups of refs busy and returns true.
func markBusy(refs []ref) bool {
	for _, r := range refs {
		r.g.busy = true
	}
	return true
}

// ref locates the bucket of one limit during a call: an index, because the
// group's bucket slice may grow while the call adds buckets.
type ref struct {
	g *group
	j int
}

// hash returns k's hash, computed once a call and used both to pick the
// shard (see shardOf) and as the shard's map key. Its low 32 bits hash the
// client network alone, so that the buckets of one client (site, agent and
// capability limits) share a shard; buckets shared by every client (no
// Net) spread by ID. The high bits mix in the ID. The hashes are keyed with
// a random seed (hash/maphash, the runtime's own map hash): a client
// choosing addresses or IDs cannot aim them at one shard, nor make keys
// collide but by chance, and keys that do collide still find their own
// groups (see shard.lookup).
//
// One hash into a map keyed by the uint64 replaced a hash for the shard
// and a map keyed by Key, which hashed the Key again and held 56-byte
// slots: one call for each of 1024 clients in turn, 104 -> 96 ns on one
// core, 82 -> 77 ns on two (bench/compare BenchmarkLimiter).
func (s *MemoryStore) hash(k *Key) uint64 {
	if !k.Net.IsValid() {
		return maphash.String(s.seed, k.ID)
	}
	h := maphash.Comparable(s.seed, k.Net)
	if k.ID != "" {
		h ^= maphash.String(s.seed, k.ID) &^ (1<<32 - 1)
	}
	return h
}

// shardOf is the shard of a key whose hash is h.
func (s *MemoryStore) shardOf(h uint64) uint32 {
	return uint32(h & s.mask)
}

// span is a non-negative duration held exactly: ns + frac/rate nanoseconds,
// 0 <= frac < rate, rate being the bucket's Limit.Rate.
type span struct {
	ns   int64
	frac uint64
}

func (a span) add(b span, rate uint64) span {
	f := a.frac + b.frac // both below rate <= 2^63: no overflow
	ns := a.ns + b.ns
	if f >= rate {
		f -= rate
		ns++
	}
	return span{ns, f}
}

// ceil rounds up to whole nanoseconds, so that a client waiting that long
// really finds what it was promised.
func (a span) ceil() time.Duration {
	if a.frac > 0 {
		return time.Duration(a.ns + 1)
	}
	return time.Duration(a.ns)
}

// group holds the buckets of one Key, told apart by Limit.Name. Names come
// from the compiled policy, not from requests, so a group stays small and
// is searched linearly; the shard's map is keyed by the Key's hash alone,
// which makes a request's site, agent and capability limits one map lookup.
type group struct {
	key  Key
	hash uint64 // of key, its shard's map key
	// collide links the groups of a shard whose keys share a hash: the
	// map holds the first.
	collide *group
	buckets []bucket
	busy    bool
	used    int64 // when a call last consumed from it
	moved   int64 // when it last moved to the front of the LRU list
	// prev and next link the shard's LRU list; prev is more recently used.
	prev, next *group
}

// idle reports whether every bucket of g is full: dropping g changes no
// answer.
func (g *group) idle(now int64) bool {
	if g.busy {
		return false
	}
	for i := range g.buckets {
		if !g.buckets[i].full(now) {
			return false
		}
	}
	return true
}

type bucket struct {
	name string
	// tat + frac/rate is the theoretical arrival time, in nanoseconds since
	// the store's epoch. At or before now the bucket is full.
	tat  int64
	frac uint64
	rateParams
}

// rateParams are a bucket's settings, apart so that Allow copies them,
// pointer-free, to work out its results after releasing the locks.
type rateParams struct {
	rate     uint64
	period   int64
	interval span // the emission interval period/rate
}

// configure (re)starts b as a full bucket for l.
func (b *bucket) configure(l *Limit, now int64) {
	b.rate, b.period = uint64(l.Rate), int64(l.Period)
	b.interval = span{b.period / int64(b.rate), uint64(b.period) % b.rate}
	b.tat, b.frac = now, 0
}

// reconfigure applies a changed Rate or Period to an existing bucket. The
// debt in time is kept, capped at the new period: the client waits what it
// would have waited, and no longer than a whole new window.
func (b *bucket) reconfigure(l *Limit, now int64) {
	d := b.debt(now)
	b.configure(l, now)
	if d.ns >= b.period {
		return // full debt: tat = now + period
	}
	b.tat = now + d.ns
	// frac was in units of the old rate; round it up to one of the new
	// rate so the debt never shrinks.
	if d.frac > 0 {
		b.frac = 1
	}
}

// debt is how far the TAT lies ahead of now: the time until the bucket is
// full. It is at most the period.
func (b *bucket) debt(now int64) span {
	if b.full(now) {
		return span{}
	}
	return span{b.tat - now, b.frac}
}

// fits reports whether one more request fits: debt plus one interval is
// within the period (GCRA: new TAT minus the burst offset is not after now).
func (b *rateParams) fits(d span) bool {
	s := d.add(b.interval, b.rate)
	return s.ns < b.period || (s.ns == b.period && s.frac == 0)
}

// remaining is the number of whole requests that fit within debt d:
// floor((period - d) / interval) = floor(((period - d.ns) * rate - d.frac) / period).
func (b *rateParams) remaining(d span) int {
	if d.ns > b.period || (d.ns == b.period && d.frac > 0) {
		return 0 // only after the clock stepped back
	}
	hi, lo := bits.Mul64(uint64(b.period-d.ns), b.rate)
	lo, borrow := bits.Sub64(lo, d.frac, 0)
	hi -= borrow
	if hi == 0 { // the usual case, and a cheaper division
		return int(lo / uint64(b.period))
	}
	// hi < period because rate < 2^64, as Div64 requires.
	q, _ := bits.Div64(hi, lo, uint64(b.period))
	return int(q)
}

// full reports whether b has refilled completely.
func (b *bucket) full(now int64) bool {
	return b.tat < now || (b.tat == now && b.frac == 0)
}

type shard struct {
	mu         sync.Mutex
	groups     map[uint64]*group // by Key hash; see group.collide
	head, tail *group            // most and least recently used
	n          int               // buckets held
	capacity   int
	spare      *group // last evicted group, reused by the next insertion
	drops      int    // groups dropped since groups was made
	_          [64]byte
}

// lookup returns the group for k, whose hash is h, or nil. The most
// recently used group is checked first: one client's requests in a row, the
// common pattern, then cost no map lookup. sh.mu is held.
func (sh *shard) lookup(h uint64, k *Key) *group {
	if g := sh.head; g != nil && g.hash == h && g.key == *k {
		return g
	}
	for g := sh.groups[h]; g != nil; g = g.collide {
		if g.key == *k {
			return g
		}
	}
	return nil
}

// create adds an empty group for k, whose hash is h and which has none, at
// the front of the LRU list. sh.mu is held.
func (sh *shard) create(h uint64, k *Key, now int64) *group {
	g := sh.spare
	sh.spare = nil
	if g == nil {
		g = &group{buckets: make([]bucket, 0, 4)}
	}
	g.buckets = g.buckets[:0]
	// Copy the ID so the map never pins a request's memory.
	if g.key.ID != k.ID {
		g.key.ID = strings.Clone(k.ID)
	}
	g.key.Net = k.Net
	g.hash, g.collide = h, sh.groups[h]
	sh.groups[h] = g
	sh.pushFront(g)
	g.moved = now
	return g
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

// insert adds a full bucket for l to g, which has none, and returns its
// index. g is busy.
func (sh *shard) insert(g *group, l *Limit, now int64) int {
	sh.makeRoom(now)
	j := len(g.buckets)
	if j < cap(g.buckets) {
		g.buckets = g.buckets[:j+1] // a reused group keeps its old names
	} else {
		g.buckets = append(g.buckets, bucket{})
	}
	b := &g.buckets[j]
	if b.name != l.Name {
		b.name = strings.Clone(l.Name)
	}
	b.configure(l, now)
	sh.n++
	return j
}

// makeRoom runs before a bucket is added. Groups whose buckets have all
// refilled carry no state: a few are swept from the LRU end on every
// insertion, so they go away at the rate new ones arrive, without a
// background goroutine. Then, at the cap, whole groups are evicted: an idle
// one near the LRU end if there is one, else the least recently used.
func (sh *shard) makeRoom(now int64) {
	g := sh.tail
	for range sweepScan {
		if g == nil {
			break
		}
		prev := g.prev
		if now-g.used >= sweepAge && g.idle(now) {
			sh.drop(g)
		}
		g = prev
	}
	for sh.n >= sh.capacity {
		if !sh.evict(now) {
			break // every candidate is in use by this call
		}
	}
}

// evict drops one group: an idle group near the LRU end if there is one,
// else the least recently used group that this call is not using. It
// reports false when every group it looked at is in use by this call.
func (sh *shard) evict(now int64) bool {
	var lru *group
	g := sh.tail
	for range evictScan {
		if g == nil {
			break
		}
		if g.idle(now) {
			sh.drop(g)
			return true
		}
		if lru == nil && !g.busy {
			lru = g
		}
		g = g.prev
	}
	if lru == nil {
		return false
	}
	sh.drop(lru) // forgives a client that had not refilled
	return true
}

func (sh *shard) drop(g *group) {
	switch first := sh.groups[g.hash]; {
	case first == g && g.collide == nil:
		delete(sh.groups, g.hash)
	case first == g:
		sh.groups[g.hash] = g.collide
	default:
		for p := first; p != nil; p = p.collide {
			if p.collide == g {
				p.collide = g.collide
				break
			}
		}
	}
	g.collide = nil
	if sh.drops++; sh.drops >= rebuildDrops*max(sh.capacity, 64) {
		sh.rebuild()
	}
	sh.unlink(g)
	sh.n -= len(g.buckets)
	sh.spare = g
}

// rebuild copies the shard's map into a new one. A Go map never shrinks,
// and one whose entries keep being replaced grows by the deleted slots it
// cannot reuse: at the default cap, 66 MB of live heap after a million
// distinct clients became 79 MB after two (TestMemoryFlatInClients).
// Copying the map after rebuildDrops times the shard's capacity in drops
// keeps it flat (53 MB). A copy holds the shard's lock about 50 µs at the
// default cap (2048 groups a shard); amortised over 8192 drops it does not
// show in BenchmarkMemoryAllow/churn (724 ns before, 709 after, measured
// with 1024 groups a shard), where copying every 1024 drops cost 12%.
func (sh *shard) rebuild() {
	m := make(map[uint64]*group, len(sh.groups))
	for k, g := range sh.groups {
		m[k] = g
	}
	sh.groups, sh.drops = m, 0
}

func (sh *shard) pushFront(g *group) {
	g.prev, g.next = nil, sh.head
	if sh.head != nil {
		sh.head.prev = g
	} else {
		sh.tail = g
	}
	sh.head = g
}

func (sh *shard) unlink(g *group) {
	if g.prev != nil {
		g.prev.next = g.next
	} else {
		sh.head = g.next
	}
	if g.next != nil {
		g.next.prev = g.prev
	} else {
		sh.tail = g.prev
	}
	g.prev, g.next = nil, nil
}

// promote moves g, just used, to the front of the LRU list, unless it is
// there already or moved there less than promoteAge ago (as memcached bumps
// an item at most once an ITEM_UPDATE_INTERVAL). The list is then ordered
// by use to within promoteAge, and a client calling more often than that
// relinks no neighbours, which are cache misses and, with several cores,
// cache lines passed between them. bench/compare BenchmarkLimiter, 1024
// clients in turn: serial 111 -> 109 ns, parallel 138 -> 83 ns.
func (sh *shard) promote(g *group, now int64) {
	if sh.head == g || (now-g.moved < promoteAge && now >= g.moved) {
		return
	}
	g.moved = now
	sh.unlink(g)
	sh.pushFront(g)
}
