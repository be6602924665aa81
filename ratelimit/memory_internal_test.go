package ratelimit

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func newTestStore(t testing.TB, opts ...MemoryOption) (*MemoryStore, *FakeClock) {
	t.Helper()
	clock := NewFakeClock(time.Time{})
	s, err := NewMemoryStore(append([]MemoryOption{WithClock(clock.Now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s, clock
}

func client(i int) Key {
	return Key{Net: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)}
}

func mustAllow(t testing.TB, s Store, limits ...Limit) []Result {
	t.Helper()
	res := make([]Result, len(limits))
	if err := s.Allow(context.Background(), limits, res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestNewMemoryStoreOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []MemoryOption
		errs   int
		shards int
	}{
		{"defaults", nil, 0, maxShards},
		{"nil option ignored", []MemoryOption{nil}, 0, maxShards},
		{"small cap has fewer shards", []MemoryOption{WithMaxEntries(10)}, 0, 8},
		{"cap of one", []MemoryOption{WithMaxEntries(1)}, 0, 1},
		{"zero cap", []MemoryOption{WithMaxEntries(0)}, 1, 0},
		{"nil clock and negative cap, both reported", []MemoryOption{WithClock(nil), WithMaxEntries(-1)}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewMemoryStore(tc.opts...)
			if tc.errs > 0 {
				if err == nil {
					t.Fatal("no error")
				}
				var joined interface{ Unwrap() []error }
				if !errors.As(err, &joined) || len(joined.Unwrap()) != tc.errs {
					t.Fatalf("error %q does not report %d problems", err, tc.errs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.shards) != tc.shards {
				t.Errorf("%d shards, want %d", len(s.shards), tc.shards)
			}
		})
	}
}

// The cap is exact: shard capacities add up to it.
func TestMemoryCapacitySplit(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 127, 128, 129, 1000, defaultMaxEntries} {
		s, _ := newTestStore(t, WithMaxEntries(n))
		sum := 0
		for i := range s.shards {
			if s.shards[i].capacity < 1 {
				t.Errorf("cap %d: shard %d has capacity %d", n, i, s.shards[i].capacity)
			}
			sum += s.shards[i].capacity
		}
		if sum != n {
			t.Errorf("cap %d: shard capacities add up to %d", n, sum)
		}
	}
}

// The hot path allocates nothing once buckets exist, allowed or denied.
func TestMemoryAllowAllocs(t *testing.T) {
	s, clock := newTestStore(t)
	key := client(1)
	three := []Limit{
		{Name: "site", Key: key, Rate: 1 << 30, Period: time.Second},
		{Name: "agent", Key: Key{Net: key.Net, ID: "claude"}, Rate: 1 << 30, Period: time.Second},
		{Name: "capability:product-search", Key: key, Rate: 1 << 30, Period: time.Second},
	}
	denied := []Limit{{Name: "tight", Key: key, Rate: 1, Period: time.Hour}}
	res := make([]Result, 3)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		limits []Limit
	}{
		{"one limit", three[:1]},
		{"three limits", three},
		{"denied", denied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Allow(ctx, tc.limits, res); err != nil { // create the buckets
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(1000, func() {
				clock.Advance(time.Microsecond)
				if err := s.Allow(ctx, tc.limits, res); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocs per Allow, want 0", allocs)
			}
		})
	}
}

// Idle (refilled) buckets are swept by later insertions.
func TestMemorySweepsIdleBuckets(t *testing.T) {
	s, clock := newTestStore(t)
	l := Limit{Name: "site", Rate: 1, Period: time.Second}
	const n = 2000
	for i := range n {
		l.Key = client(i)
		mustAllow(t, s, l)
	}
	if got := s.Len(); got != n {
		t.Fatalf("Len = %d after %d clients, want %d", got, n, n)
	}
	clock.Advance(2 * time.Second) // every bucket is full again
	for i := range n {
		l.Key = client(n + i)
		mustAllow(t, s, l)
	}
	// Each insertion examines up to sweepScan buckets of its shard; with
	// n new clients over maxShards shards nearly every old one is reached.
	if got := s.Len(); got > n+n/10 {
		t.Errorf("Len = %d after idle buckets should have been swept, want about %d", got, n)
	}
}

// A group used within sweepAge is not swept though its buckets are full:
// a client whose requests stay within its rate keeps its group, rather than
// having it removed and created again at each request.
func TestMemorySweepSparesRecentGroups(t *testing.T) {
	s, clock := newTestStore(t, WithMaxEntries(1))
	s.shards[0].capacity = 100
	l := func(i int) Limit { return Limit{Name: "site", Key: client(i), Rate: 1000, Period: time.Second} }
	mustAllow(t, s, l(1))
	clock.Advance(100 * time.Millisecond) // client 1's bucket is full again
	mustAllow(t, s, l(2))
	if got := s.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2: a group used %v ago was swept", got, 100*time.Millisecond)
	}
	clock.Advance(time.Duration(sweepAge))
	mustAllow(t, s, l(3))
	if got := s.Len(); got != 1 {
		t.Errorf("Len = %d, want 1: groups unused for %v were kept", got, time.Duration(sweepAge))
	}
}

// A flood of distinct clients never grows the store past its cap, and the
// newest clients are still limited.
func TestMemoryCapUnderFlood(t *testing.T) {
	const capEntries = 256
	s, _ := newTestStore(t, WithMaxEntries(capEntries))
	l := Limit{Name: "site", Rate: 1, Period: time.Hour}
	for i := range 20000 {
		l.Key = client(i)
		if r := mustAllow(t, s, l)[0]; !r.Allowed {
			t.Fatalf("client %d denied on its first request", i)
		}
		if i%1000 == 0 && s.Len() > capEntries {
			t.Fatalf("Len = %d, cap %d", s.Len(), capEntries)
		}
	}
	if got := s.Len(); got != capEntries {
		t.Errorf("Len = %d, want the cap %d", got, capEntries)
	}
	if r := mustAllow(t, s, l)[0]; r.Allowed {
		t.Error("the newest client was forgiven at once")
	}
}

// At the cap, an idle bucket goes before a bucket that still holds state.
func TestMemoryEvictsIdleBeforeLRU(t *testing.T) {
	s, clock := newTestStore(t, WithMaxEntries(1))
	s.shards[0].capacity = 3
	busyOld := Limit{Name: "day", Key: client(1), Rate: 1, Period: 24 * time.Hour}
	idle := Limit{Name: "sec", Key: client(2), Rate: 1, Period: time.Second}
	busyNew := Limit{Name: "day", Key: client(3), Rate: 1, Period: 24 * time.Hour}
	mustAllow(t, s, busyOld) // least recently used, not full for a day
	mustAllow(t, s, idle)
	mustAllow(t, s, busyNew)
	clock.Advance(2 * time.Second) // idle is full again
	mustAllow(t, s, Limit{Name: "day", Key: client(4), Rate: 1, Period: 24 * time.Hour})
	if got := s.Len(); got != 3 {
		t.Fatalf("Len = %d, want 3", got)
	}
	if r := mustAllow(t, s, busyOld)[0]; r.Allowed {
		t.Error("the least recently used bucket was evicted although an idle one existed")
	}
}

// Evicting a bucket that is not full forgives its client (documented).
func TestMemoryLRUEvictionForgives(t *testing.T) {
	s, _ := newTestStore(t, WithMaxEntries(1))
	a := Limit{Name: "site", Key: client(1), Rate: 1, Period: time.Hour}
	b := Limit{Name: "site", Key: client(2), Rate: 1, Period: time.Hour}
	mustAllow(t, s, a)
	if mustAllow(t, s, a)[0].Allowed {
		t.Fatal("a allowed twice")
	}
	mustAllow(t, s, b) // evicts a
	if got := s.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1", got)
	}
	if !mustAllow(t, s, a)[0].Allowed {
		t.Error("a was not forgiven after eviction")
	}
}

// A call needing more new buckets in one shard than it may hold still
// works; the excess is evicted by the next insertion.
func TestMemoryCallLargerThanShard(t *testing.T) {
	s, _ := newTestStore(t, WithMaxEntries(1))
	key := client(1)
	limits := []Limit{
		{Name: "a", Key: key, Rate: 2, Period: time.Hour},
		{Name: "b", Key: key, Rate: 3, Period: time.Hour},
		{Name: "c", Key: key, Rate: 4, Period: time.Hour},
	}
	res := mustAllow(t, s, limits...)
	for i, r := range res {
		if !r.Allowed || r.Remaining != limits[i].Rate-1 {
			t.Errorf("limit %d: %+v", i, r)
		}
	}
	if got := s.Len(); got != 3 {
		t.Errorf("Len = %d during the overflow, want 3", got)
	}
	mustAllow(t, s, Limit{Name: "d", Key: client(2), Rate: 1, Period: time.Hour})
	if got := s.Len(); got != 1 {
		t.Errorf("Len = %d after the next insertion, want back at the cap 1", got)
	}
}

// More than stackLimits limits in one call work (and may allocate).
func TestMemoryManyLimits(t *testing.T) {
	s, _ := newTestStore(t)
	limits := make([]Limit, 2*stackLimits+1)
	for i := range limits {
		limits[i] = Limit{Name: "l", Key: client(i), Rate: 2, Period: time.Hour}
	}
	limits[7].Rate = 1
	if res := mustAllow(t, s, limits...); !Allowed(res) {
		t.Fatal("first request denied")
	}
	res := mustAllow(t, s, limits...)
	if Allowed(res) || res[7].Allowed {
		t.Fatal("second request allowed past limit 7")
	}
	for i, r := range res {
		if i != 7 && (!r.Allowed || r.Remaining != 1) {
			t.Errorf("limit %d consumed by a denied request: %+v", i, r)
		}
	}
}

// A changed Rate applies to the existing bucket, keeping (capped) tokens.
func TestMemoryRateChange(t *testing.T) {
	s, _ := newTestStore(t)
	l := Limit{Name: "site", Key: client(1), Rate: 5, Period: time.Minute}
	mustAllow(t, s, l) // 4 left
	l.Rate = 2
	// The 12s debt is kept: 12s + 30s per request leaves no whole token.
	if r := mustAllow(t, s, l)[0]; !r.Allowed || r.Remaining != 0 || r.Limit != 2 || r.Reset != 42*time.Second {
		t.Errorf("after lowering the rate: %+v, want allowed, 0 of 2 left, full in 42s", r)
	}
	if r := mustAllow(t, s, l)[0]; r.Allowed || r.RetryAfter != 12*time.Second {
		t.Errorf("next request: %+v, want denied for 12s", r)
	}
}

// A clock that steps back never panics or grants a burst.
func TestMemoryClockBackwards(t *testing.T) {
	s, clock := newTestStore(t)
	l := Limit{Name: "site", Key: client(1), Rate: 2, Period: time.Minute}
	mustAllow(t, s, l)
	mustAllow(t, s, l)
	clock.Advance(-time.Hour)
	if r := mustAllow(t, s, l)[0]; r.Allowed {
		t.Errorf("allowed after the clock stepped back: %+v", r)
	}
	clock.Advance(time.Hour + 30*time.Second)
	if r := mustAllow(t, s, l)[0]; !r.Allowed {
		t.Errorf("denied after a refill: %+v", r)
	}
}

// A new bucket starts with exactly its burst, whatever its period.
func TestMemoryNewBucketIsFull(t *testing.T) {
	s, _ := newTestStore(t)
	for i, tc := range []struct {
		rate   int
		period time.Duration
	}{
		{1, time.Nanosecond}, {3, time.Second}, {7, time.Minute}, {10000, time.Second},
		{60, 24 * time.Hour}, {1, 100 * 365 * 24 * time.Hour}, {1 << 30, 100 * 365 * 24 * time.Hour},
	} {
		l := Limit{Name: "n", Key: client(i), Rate: tc.rate, Period: tc.period}
		if r := mustAllow(t, s, l)[0]; !r.Allowed || r.Remaining != tc.rate-1 {
			t.Errorf("%d per %v: first request %+v, want %d remaining", tc.rate, tc.period, r, tc.rate-1)
		}
	}
}

// The exact GCRA agrees with golang.org/x/time/rate, the token bucket of
// the standard library's orbit, except within a couple of nanoseconds of a
// token boundary, where the float arithmetic of rate.Limiter rounds.
func FuzzGCRAMatchesRateLimiter(f *testing.F) {
	f.Add(uint32(3), int64(time.Second), int64(333333333), uint8(40))
	f.Add(uint32(4), int64(time.Minute), int64(15*time.Second), uint8(50))
	f.Add(uint32(10000), int64(time.Second), int64(100*time.Microsecond), uint8(200))
	f.Add(uint32(7), int64(time.Hour), int64(1), uint8(90))
	f.Add(uint32(60), int64(time.Minute), int64(999*time.Millisecond), uint8(255))
	f.Fuzz(func(t *testing.T, n uint32, period, step int64, requests uint8) {
		if n == 0 || period <= 0 || period > int64(MaxPeriod) || step < 0 || step > period {
			return
		}
		l := Limit{Rate: int(n), Period: time.Duration(period)}
		var b bucket
		b.configure(&l, 0)
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		ref := rate.NewLimiter(rate.Limit(float64(n)/time.Duration(period).Seconds()), int(n))
		now := int64(0)
		for i := range int(requests) {
			d := b.debt(now)
			mine := b.fits(d)
			theirs := ref.AllowN(start.Add(time.Duration(now)), 1)
			if mine != theirs {
				over := d.add(b.interval, b.rate)
				over.ns -= b.period
				if over.ns < -2 || over.ns > 2 {
					t.Fatalf("request %d at %dns: GCRA %v, rate.Limiter %v, %v from a token boundary", i, now, mine, theirs, over)
				}
				return // the two have diverged by one token
			}
			if mine {
				d = d.add(b.interval, b.rate)
				b.tat, b.frac = now+d.ns, d.frac
			}
			now += step
		}
	})
}

// A group used again within promoteAge of moving to the front of the LRU
// list stays where it is; used later, it moves (shard.promote). Eviction
// takes the least recently used group to within promoteAge.
func TestMemoryLRUPromotion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reuse   time.Duration // when a, the oldest, is used again
		evicted int           // the client the next insertion evicts
	}{
		{"within promoteAge", time.Duration(promoteAge) / 2, 1},
		{"after promoteAge", time.Duration(promoteAge), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clock := newTestStore(t, WithMaxEntries(1))
			s.shards[0].capacity = 2
			limit := func(c int) Limit {
				return Limit{Name: "day", Key: client(c), Rate: 5, Period: 24 * time.Hour}
			}
			mustAllow(t, s, limit(1))
			mustAllow(t, s, limit(2))
			clock.Advance(tc.reuse)
			mustAllow(t, s, limit(1))
			mustAllow(t, s, limit(3)) // evicts one of 1 and 2
			if got := s.Len(); got != 2 {
				t.Fatalf("Len = %d, want 2", got)
			}
			for c := 1; c <= 2; c++ {
				// Peek answers as Allow would, so an evicted client's
				// bucket, full, has 4 left after this request; a kept one
				// has used two tokens more (client 1) or one (client 2).
				res := make([]Result, 1)
				if err := s.Peek(context.Background(), []Limit{limit(c)}, res); err != nil {
					t.Fatal(err)
				}
				r := res[0]
				if evicted := r.Remaining == 4; evicted != (c == tc.evicted) {
					t.Errorf("client %d: Remaining %d, evicted %v; want client %d evicted", c, r.Remaining, evicted, tc.evicted)
				}
			}
		})
	}
}

// Keys whose hashes collide share one map slot and are told apart by Key:
// each finds its own group, whichever of them is dropped, before and after
// the map is rebuilt.
func TestMemoryHashCollisions(t *testing.T) {
	s, _ := newTestStore(t, WithMaxEntries(1))
	sh := &s.shards[0]
	const h = 42
	keys := []Key{client(1), client(2), {ID: "x"}, {Net: client(1).Net, ID: "x"}}
	groups := make([]*group, len(keys))
	for i := range keys {
		groups[i] = sh.create(h, &keys[i], 0)
	}
	check := func(when string, dropped map[int]bool) {
		t.Helper()
		for i := range keys {
			g := sh.lookup(h, &keys[i])
			switch {
			case dropped[i] && g != nil:
				t.Errorf("%s: key %d found after its group was dropped", when, i)
			case !dropped[i] && g != groups[i]:
				t.Errorf("%s: key %d found %p, want %p", when, i, g, groups[i])
			}
		}
		if other := (Key{ID: "y"}); sh.lookup(h, &other) != nil {
			t.Errorf("%s: a key never inserted found a group", when)
		}
	}
	check("all", nil)
	dropped := map[int]bool{}
	// The map holds the newest; drop from the middle of the chain, then
	// its head, then rebuild, then the last but one.
	for _, i := range []int{1, 3, -1, 0} {
		if i < 0 {
			sh.rebuild()
			check("rebuilt", dropped)
			continue
		}
		sh.drop(groups[i])
		sh.spare = nil // keep the dropped group out of later creates
		dropped[i] = true
		check("after drop", dropped)
	}
	if len(sh.groups) != 1 {
		t.Errorf("%d map entries, want the one left", len(sh.groups))
	}
}
