package ratelimit

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testclock"
	"golang.org/x/time/rate"
)

// newTestStore returns a memory store of cap buckets (0: the default) on
// a fake clock.
func newTestStore(t testing.TB, cap int) (*MemoryStore, *testclock.Clock) {
	t.Helper()
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := NewMemoryStore(MemoryConfig{MaxEntries: cap, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s, clock
}

// oneShard returns a store of a single shard holding n buckets.
func oneShard(t testing.TB, n int) (*MemoryStore, *testclock.Clock) {
	s, clock := newTestStore(t, 1)
	s.shards[0].capacity = n
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

func TestNewMemoryStoreConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    MemoryConfig
		shards int
	}{
		{"defaults", MemoryConfig{}, maxShards},
		{"small cap has fewer shards", MemoryConfig{MaxEntries: 10}, 8},
		{"cap of one", MemoryConfig{MaxEntries: 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewMemoryStore(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(s.shards); n != tc.shards {
				t.Errorf("%d shards, want %d", n, tc.shards)
			}
		})
	}
	if _, err := NewMemoryStore(MemoryConfig{MaxEntries: -1}); err == nil || !strings.Contains(err.Error(), "MaxEntries -1") {
		t.Errorf("negative cap: %v", err)
	}
}

// The cap is exact: shard capacities add up to it.
func TestMemoryCapacitySplit(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 127, 128, 129, 1000, defaultMaxEntries} {
		s, _ := newTestStore(t, n)
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

// At the cap, an insertion drops the idle groups it samples: after every
// bucket has refilled, a second wave of clients takes their place without
// evicting anyone who still owes, and the store stays at its cap. (One
// shard no larger than the sample, so that every insertion sees it all.)
func TestMemorySweepsIdleBuckets(t *testing.T) {
	const n = sample
	s, clock := oneShard(t, n)
	l := Limit{Name: "site", Rate: 1, Period: time.Second}
	for i := range n {
		l.Key = client(i)
		mustAllow(t, s, l)
	}
	clock.Advance(2 * time.Second) // every bucket is full again
	for i := range n {
		l.Key = client(n + i)
		if !mustAllow(t, s, l)[0].Allowed {
			t.Fatalf("client %d denied on its first request", n+i)
		}
		if got := s.Len(); got > n {
			t.Fatalf("Len = %d, over the cap %d", got, n)
		}
	}
	// The second wave is all there: only idle groups made room.
	for i := range n {
		l.Key = client(n + i)
		res := make([]Result, 1)
		if err := s.Peek(context.Background(), []Limit{l}, res); err != nil || res[0].Allowed {
			t.Fatalf("client %d of the second wave forgotten: %+v %v", n+i, res[0], err)
		}
	}
}

// A flood of distinct clients never grows the store past its cap, and the
// newest clients are still limited.
func TestMemoryCapUnderFlood(t *testing.T) {
	const capEntries = 256
	s, _ := newTestStore(t, capEntries)
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

// At the cap, an idle group goes before a group that still owes tokens,
// however recently either was used.
func TestMemoryEvictsIdleFirst(t *testing.T) {
	s, clock := oneShard(t, 3)
	busyOld := Limit{Name: "day", Key: client(1), Rate: 1, Period: 24 * time.Hour}
	idle := Limit{Name: "sec", Key: client(2), Rate: 1, Period: time.Second}
	busyNew := Limit{Name: "day", Key: client(3), Rate: 1, Period: 24 * time.Hour}
	mustAllow(t, s, busyOld)
	mustAllow(t, s, idle)
	mustAllow(t, s, busyNew)
	clock.Advance(2 * time.Second) // idle is full again
	mustAllow(t, s, Limit{Name: "day", Key: client(4), Rate: 1, Period: 24 * time.Hour})
	if got := s.Len(); got != 3 {
		t.Fatalf("Len = %d, want 3", got)
	}
	for _, l := range []Limit{busyOld, busyNew} {
		if r := mustAllow(t, s, l)[0]; r.Allowed {
			t.Errorf("%v was evicted although an idle group existed", l.Key)
		}
	}
}

// With no idle group, the group owing the fewest tokens goes: eviction
// forgives as little as the store can.
func TestMemoryEvictsLeastOwed(t *testing.T) {
	s, _ := oneShard(t, 3)
	owes := func(c, n int) Limit {
		l := Limit{Name: "site", Key: client(c), Rate: 10, Period: time.Hour}
		for range n {
			mustAllow(t, s, l)
		}
		return l
	}
	three, one, two := owes(1, 3), owes(2, 1), owes(3, 2)
	owes(4, 1) // evicts one of the three
	for _, tc := range []struct {
		l         Limit
		remaining int // after this Peek's request, had it been kept
	}{{three, 6}, {two, 7}} {
		res := make([]Result, 1)
		if err := s.Peek(context.Background(), []Limit{tc.l}, res); err != nil || res[0].Remaining != tc.remaining {
			t.Errorf("%v: %+v %v, want its debt kept (%d remaining)", tc.l.Key, res[0], err, tc.remaining)
		}
	}
	res := make([]Result, 1)
	if err := s.Peek(context.Background(), []Limit{one}, res); err != nil || res[0].Remaining != 9 {
		t.Errorf("the client owing one token: %+v %v, want it evicted (a full bucket)", res[0], err)
	}
}

// Evicting a group that still owes forgives its client (documented): with
// room for one group, a second client takes the first one's place.
func TestMemoryEvictionForgives(t *testing.T) {
	s, _ := newTestStore(t, 1)
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
	s, _ := newTestStore(t, 1)
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

// Many limits in one call, across shards, are all or nothing.
func TestMemoryManyLimits(t *testing.T) {
	s, _ := newTestStore(t, 0)
	limits := make([]Limit, 9)
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
	s, _ := newTestStore(t, 0)
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
	s, clock := newTestStore(t, 0)
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
	s, _ := newTestStore(t, 0)
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
		if n == 0 || period <= 0 || period > int64(maxPeriod) || step < 0 || step > period {
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
			mine := b.fits(d, b.interval)
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

// Keys whose hashes collide share one map slot and are told apart by Key:
// each finds its own group, whichever of them is dropped.
func TestMemoryHashCollisions(t *testing.T) {
	s, _ := newTestStore(t, 1)
	sh := &s.shards[0]
	const h = 42
	keys := []Key{client(1), client(2), {ID: "x"}, {Net: client(1).Net, ID: "x"}}
	groups := make([]*group, len(keys))
	for i := range keys {
		groups[i] = &group{key: keys[i], hash: h, next: sh.groups[h]}
		sh.groups[h] = groups[i]
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
	// its head, then the rest.
	for _, i := range []int{1, 3, 0, 2} {
		sh.drop(groups[i])
		dropped[i] = true
		check("after drop", dropped)
	}
	if len(sh.groups) != 0 {
		t.Errorf("%d map entries left, want none", len(sh.groups))
	}
}
