// Package ratelimittest is the conformance suite every ratelimit.Store passes.
//
// A store is run with Run and a Harness saying how to make an empty store
// and how to move its clock. The in-memory store runs it on a fake clock,
// where counts and durations are exact. A store on a clock of its own
// (Redis TIME) runs it on real time: Advance sleeps, Period is short, and
// Tolerance covers the time that passes between calls; the suite measures
// how long each Advance really took, so overshooting sleeps on a loaded
// machine do not fail it.
//
// Stores validate their arguments with ratelimit.CheckLimits, so that invalid
// input yields the same errors everywhere (the suite checks them with
// errors.Is), and report RetryAfter 0 for allowed limits (redis_rate says
// -1).
package ratelimittest

import (
	"context"
	"math"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/ratelimit"
)

// Harness adapts a store to the suite.
type Harness struct {
	// New returns a store holding no buckets: a fresh store, or one whose
	// keys are namespaced per call (a Redis store uses a new key prefix).
	// Required.
	New func(t *testing.T) ratelimit.Store
	// Advance moves the store's clock forward by d: a fake clock's Advance for
	// an injected clock, time.Sleep for a store on real time. Required.
	Advance func(t *testing.T, d time.Duration)
	// Period is the period of the limits whose refill the suite waits for.
	// One test advances by at most two Periods, so a real-time harness
	// keeps it short (a second). Default one minute.
	Period time.Duration
	// Tolerance is how far reported durations (RetryAfter, Reset) may be
	// from the exact values, which covers the time that passes between
	// calls on a real clock (50ms suits a local Redis). It also tells the
	// suite the clock is real: with a non-zero Tolerance, counts under a
	// refilling limit may exceed the burst by the refill that elapsed.
	// Zero means a fake clock: counts are exact and durations agree within
	// a microsecond.
	Tolerance time.Duration
	// OneKeyPerCall says the store takes only limits of one Key in one
	// Allow call (a Redis Cluster: ErrInvalidLimit otherwise), as the
	// enforcer always calls it; the suite's many-limits case then keeps to
	// one client.
	OneKeyPerCall bool
}

// maxPeriod is the longest Limit.Period a store accepts (see
// ratelimit.ErrInvalidLimit).
const maxPeriod = 100 * 365 * 24 * time.Hour

// long is the period of limits the suite only counts: no refill worth a
// token happens during a test even on a real clock.
const long = time.Hour

// Run runs the suite, one subtest per property.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil || h.Advance == nil {
		t.Fatal("storetest: Harness.New and Harness.Advance are required")
	}
	if h.Period <= 0 {
		h.Period = time.Minute
	}
	s := &suite{h: h}
	for _, tc := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Burst", s.burst},
		{"RefillAfterPeriod", s.refillAfterPeriod},
		{"PartialRefill", s.partialRefill},
		{"FractionalRemaining", s.fractionalRemaining},
		{"RetryAfterIsHonest", s.retryAfterIsHonest},
		{"DenialConsumesNothing", s.denialConsumesNothing},
		{"ResetAndEffectiveWindow", s.reset},
		{"HighLimit", s.highLimit},
		{"HighLimitRefill", s.highLimitRefill},
		{"DistinctKeys", s.distinctKeys},
		{"AllOrNothing", s.allOrNothing},
		{"AllOrNothingThreeLimits", s.allOrNothingThree},
		{"ManyLimits", s.manyLimits},
		{"Cost", s.cost},
		{"Concurrent", s.concurrent},
		{"ConcurrentAllOrNothing", s.concurrentAllOrNothing},
		{"ContextCancelled", s.contextCancelled},
		{"InvalidInput", s.invalidInput},
		{"ResultsBeyondLimitsUntouched", s.resultsBeyondLimits},
		{"PeekConsumesNothing", s.peek},
	} {
		t.Run(tc.name, tc.fn)
	}
}

type suite struct {
	h    Harness
	mu   sync.Mutex
	born map[*testing.T]time.Time // when each test made its store, on the runtime's clock
}

// newStore is h.New, remembering when t made its store: on a real clock
// a bucket's durations count down from its first request, after that.
func (s *suite) newStore(t *testing.T) ratelimit.Store {
	s.mu.Lock()
	if s.born == nil {
		s.born = map[*testing.T]time.Time{}
	}
	s.born[t] = clock.Monotonic()
	s.mu.Unlock()
	return s.h.New(t)
}

// peek: a store that implements ratelimit.Peeker answers as Allow would,
// consuming nothing (a store that does not is skipped).
func (s *suite) peek(t *testing.T) {
	st := s.newStore(t)
	pk, ok := st.(ratelimit.Peeker)
	if !ok {
		t.Skip("the store does not implement ratelimit.Peeker")
	}
	ctx := context.Background()
	ls := []ratelimit.Limit{limit("site", clientA, 3, long), limit("agent:x", clientA, 5, long)}
	res := make([]ratelimit.Result, 2)
	for range 3 {
		if err := pk.Peek(ctx, ls, res); err != nil {
			t.Fatal(err)
		}
		if !res[0].Allowed || res[0].Remaining != 2 || !res[1].Allowed || res[1].Remaining != 4 {
			t.Fatalf("peek of fresh buckets: %+v", res)
		}
	}
	allow(t, st, ls...)
	allow(t, st, ls...)
	if err := pk.Peek(ctx, ls, res); err != nil || !res[0].Allowed || res[0].Remaining != 0 || res[1].Remaining != 2 {
		t.Fatalf("peek after two: %+v, %v", res, err)
	}
	allow(t, st, ls...)
	if err := pk.Peek(ctx, ls, res); err != nil || res[0].Allowed || res[0].RetryAfter <= 0 || !res[1].Allowed {
		t.Fatalf("peek of an empty bucket: %+v, %v", res, err)
	}
	// The peeks consumed nothing: exactly the burst was admitted.
	if got := allow(t, st, ls...); got[0].Allowed {
		t.Fatalf("a fourth request passed: %+v", got)
	}
}

var (
	clientA = ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.1/32")}
	clientB = ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.2/32")}
	client6 = ratelimit.Key{Net: netip.MustParsePrefix("2001:db8:1:2::/64")}
)

func limit(name string, key ratelimit.Key, n int, p time.Duration) ratelimit.Limit {
	return ratelimit.Limit{Name: name, Key: key, Rate: n, Period: p}
}

// allow runs one request and fails the test on an error.
func allow(t *testing.T, s ratelimit.Store, limits ...ratelimit.Limit) []ratelimit.Result {
	t.Helper()
	res := make([]ratelimit.Result, len(limits))
	if err := s.Allow(context.Background(), limits, res); err != nil {
		t.Fatalf("Allow: %v", err)
	}
	return res
}

func (s *suite) tol() time.Duration { return max(s.h.Tolerance, time.Microsecond) }

// near checks a reported duration against its exact value: within the
// tolerance on a fake clock; on a real one it may also be short of it by
// the time since the test made its store (a duration counts down while a
// loaded machine runs the test), never longer.
func (s *suite) near(t *testing.T, what string, got, want time.Duration) {
	t.Helper()
	lo := want - s.tol()
	if s.h.Tolerance > 0 {
		s.mu.Lock()
		born, ok := s.born[t]
		s.mu.Unlock()
		if ok {
			lo -= clock.Since(born)
		}
	}
	if got < lo || got > want+s.tol() {
		t.Errorf("%s = %v, want %v (at least %v on this clock, tolerance %v)", what, got, want, lo, s.tol())
	}
}

// expect checks one result's Allowed and Remaining.
func expect(t *testing.T, step string, r ratelimit.Result, allowed bool, remaining int) {
	t.Helper()
	if r.Allowed != allowed || r.Remaining != remaining {
		t.Errorf("%s: Allowed=%v Remaining=%d, want Allowed=%v Remaining=%d", step, r.Allowed, r.Remaining, allowed, remaining)
	}
	if allowed && r.RetryAfter != 0 {
		t.Errorf("%s: allowed with RetryAfter %v, want 0", step, r.RetryAfter)
	}
	if !allowed && r.RetryAfter <= 0 {
		t.Errorf("%s: denied with RetryAfter %v, want > 0", step, r.RetryAfter)
	}
}

// burst: N allowed, counting Remaining down, then denied with the time to
// the next token, not the window.
func (s *suite) burst(t *testing.T) {
	st := s.newStore(t)
	l := limit("burst", clientA, 5, long)
	for i := range 5 {
		r := allow(t, st, l)[0]
		expect(t, "request "+strconv.Itoa(i+1), r, true, 4-i)
		if r.Limit != 5 {
			t.Errorf("Limit = %d, want 5", r.Limit)
		}
	}
	for i := range 3 {
		r := allow(t, st, l)[0]
		expect(t, "denied request "+strconv.Itoa(i+1), r, false, 0)
		s.near(t, "RetryAfter", r.RetryAfter, long/5)
		s.near(t, "Reset", r.Reset, long)
	}
}

func (s *suite) refillAfterPeriod(t *testing.T) {
	st := s.newStore(t)
	l := limit("refill", clientA, 3, s.h.Period)
	for range 3 {
		allow(t, st, l)
	}
	expect(t, "exhausted", allow(t, st, l)[0], false, 0)
	s.advance(t, s.h.Period) // overshooting only refills to the same full burst
	for i := range 3 {
		expect(t, "after a period, request "+strconv.Itoa(i+1), allow(t, st, l)[0], true, 2-i)
	}
	expect(t, "after the refilled burst", allow(t, st, l)[0], false, 0)
}

// partialRefill: one token comes back after Period/N, not after Period.
func (s *suite) partialRefill(t *testing.T) {
	st := s.newStore(t)
	e := s.h.Period / 4
	l := limit("partial", clientA, 4, s.h.Period)
	for range 4 {
		allow(t, st, l)
	}
	r := allow(t, st, l)[0]
	expect(t, "exhausted", r, false, 0)
	s.near(t, "RetryAfter", r.RetryAfter, e)
	el := s.advance(t, e+s.h.Tolerance)
	// One token per e: exactly one on a fake clock; on a real one as many
	// as the time that really passed brought.
	got, last := s.drain(t, st, l, 5)
	lo, hi := s.tokens(el, e, 4)
	if got < max(lo, 1) || got > hi {
		t.Errorf("after %v (Period/N = %v): %d allowed, want %d to %d", el, e, got, max(lo, 1), hi)
	}
	if s.h.Tolerance == 0 {
		s.near(t, "RetryAfter once the refilled token is spent", last.RetryAfter, e)
	} else if last.RetryAfter <= 0 || last.RetryAfter > e+s.tol() {
		t.Errorf("RetryAfter once the refilled tokens are spent = %v, want at most %v", last.RetryAfter, e)
	}
}

// fractionalRemaining: Remaining counts whole tokens only; the fraction
// shortens the next RetryAfter.
func (s *suite) fractionalRemaining(t *testing.T) {
	st := s.newStore(t)
	e := s.h.Period / 4
	l := limit("fraction", clientA, 4, s.h.Period)
	for range 4 {
		allow(t, st, l)
	}
	el := s.advance(t, e+e/2) // 1.5 tokens
	r := allow(t, st, l)[0]
	if s.h.Tolerance == 0 {
		expect(t, "with 1.5 tokens", r, true, 0)
		r = allow(t, st, l)[0]
		expect(t, "with 0.5 tokens", r, false, 0)
		s.near(t, "RetryAfter with half a token", r.RetryAfter, e/2)
		return
	}
	if !r.Allowed {
		t.Fatalf("denied after %v with a token every %v: %+v", el, e, r)
	}
	got, last := s.drain(t, st, l, 5)
	if lo, hi := s.tokens(el, e, 4); got+1 < lo || got+1 > hi {
		t.Errorf("after %v: %d allowed, want %d to %d", el, got+1, lo, hi)
	}
	if last.RetryAfter <= 0 || last.RetryAfter > e+s.tol() {
		t.Errorf("RetryAfter with a fraction of a token = %v, want below %v", last.RetryAfter, e)
	}
}

// retryAfterIsHonest: just before RetryAfter there is no token; at it there
// is one.
func (s *suite) retryAfterIsHonest(t *testing.T) {
	st := s.newStore(t)
	l := limit("honest", clientA, 2, s.h.Period)
	allow(t, st, l)
	allow(t, st, l)
	r := allow(t, st, l)[0]
	expect(t, "exhausted", r, false, 0)
	margin := max(2*s.h.Tolerance, s.h.Period/100)
	el := s.advance(t, r.RetryAfter-margin)
	if el+s.h.Tolerance < r.RetryAfter {
		expect(t, "just before RetryAfter", allow(t, st, l)[0], false, 0)
	} else {
		t.Logf("the clock overshot to %v of a %v wait; the early denial is not checked", el, r.RetryAfter)
	}
	if rest := r.RetryAfter - el + s.h.Tolerance; rest > 0 {
		s.advance(t, rest)
	}
	expect(t, "at RetryAfter", allow(t, st, l)[0], true, 0)
}

// advance moves the store's clock by d and returns how far it really
// moved: d on a fake clock; on a real one, the wall time the harness took,
// since sleeps overshoot on a loaded machine.
func (s *suite) advance(t *testing.T, d time.Duration) time.Duration {
	if s.h.Tolerance == 0 {
		s.h.Advance(t, d)
		return d
	}
	start := clock.Monotonic()
	s.h.Advance(t, d)
	return clock.Since(start)
}

// tokens is the range of whole tokens that el brings at one per e, capped
// at n: exact on a fake clock, widened by the tolerance on a real one.
func (s *suite) tokens(el, e time.Duration, n int) (lo, hi int) {
	lo = int(max(el-s.h.Tolerance, 0) / e)
	hi = int((el + s.h.Tolerance) / e)
	return min(lo, n), min(hi, n)
}

// drain sends requests until one is denied (at most most of them) and
// returns how many were allowed and the denial.
func (s *suite) drain(t *testing.T, st ratelimit.Store, l ratelimit.Limit, most int) (int, ratelimit.Result) {
	t.Helper()
	for i := range most {
		if r := allow(t, st, l)[0]; !r.Allowed {
			return i, r
		}
	}
	t.Fatalf("%d requests allowed in a row", most)
	return 0, ratelimit.Result{}
}

// denialConsumesNothing: hammering a denied limit does not push the next
// token further away (GCRA does not record denied requests).
func (s *suite) denialConsumesNothing(t *testing.T) {
	st := s.newStore(t)
	l := limit("hammer", clientA, 2, s.h.Period)
	allow(t, st, l)
	allow(t, st, l)
	first := allow(t, st, l)[0]
	for range 20 {
		r := allow(t, st, l)[0]
		expect(t, "hammering", r, false, 0)
		if r.RetryAfter > first.RetryAfter+s.tol() {
			t.Fatalf("RetryAfter grew from %v to %v while denied", first.RetryAfter, r.RetryAfter)
		}
	}
	s.advance(t, first.RetryAfter+s.h.Tolerance)
	expect(t, "after the first RetryAfter", allow(t, st, l)[0], true, 0)
}

// reset: Reset is the time until the bucket is full, so the RateLimit
// header's effective window (the time until Remaining grows, derived from
// Reset) is one emission interval here; RetryAfter is that interval when
// denied.
func (s *suite) reset(t *testing.T) {
	st := s.newStore(t)
	l := limit("reset", clientA, 4, long)
	e := long / 4
	r := allow(t, st, l)[0]
	expect(t, "first", r, true, 3)
	s.near(t, "Reset after one request", r.Reset, e)
	allow(t, st, l)
	allow(t, st, l)
	r = allow(t, st, l)[0]
	expect(t, "fourth", r, true, 0)
	s.near(t, "Reset after the burst", r.Reset, long)
	r = allow(t, st, l)[0]
	expect(t, "denied", r, false, 0)
	s.near(t, "RetryAfter when denied", r.RetryAfter, e)
}

// highLimit: large bursts are counted exactly.
func (s *suite) highLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		period time.Duration
	}{
		{"10000 per Period", 10000, s.h.Period},
		{"10000 per day", 10000, 24 * time.Hour},
		{"1 per day", 1, 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := s.newStore(t)
			l := limit("high", clientA, tc.n, tc.period)
			res := make([]ratelimit.Result, 1)
			start := clock.Monotonic()
			allowed := 0
			for range tc.n + 50 {
				if err := st.Allow(context.Background(), []ratelimit.Limit{l}, res); err != nil {
					t.Fatal(err)
				}
				if res[0].Allowed {
					allowed++
				}
			}
			most := tc.n + s.refill(clock.Since(start), tc.n, tc.period)
			if allowed < tc.n || allowed > most {
				t.Errorf("allowed %d of %d attempts, want %d (at most %d on this clock)", allowed, tc.n+50, tc.n, most)
			}
		})
	}
}

// highLimitRefill: a large burst, spent, comes back whole after the
// period, and is counted exactly again.
func (s *suite) highLimitRefill(t *testing.T) {
	st := s.newStore(t)
	const n = 5000
	l := limit("high-refill", clientA, n, s.h.Period)
	res := make([]ratelimit.Result, 1)
	round := func(step string) {
		t.Helper()
		start := clock.Monotonic()
		allowed := 0
		for range n + 50 {
			if err := st.Allow(context.Background(), []ratelimit.Limit{l}, res); err != nil {
				t.Fatal(err)
			}
			if res[0].Allowed {
				allowed++
			}
		}
		if most := n + s.refill(clock.Since(start), n, s.h.Period); allowed < n || allowed > most {
			t.Errorf("%s: allowed %d of %d, want %d (at most %d on this clock)", step, allowed, n+50, n, most)
		}
		if res[0].Allowed && s.h.Tolerance == 0 {
			t.Errorf("%s: the attempt after the burst was allowed", step)
		}
	}
	round("first burst")
	s.advance(t, s.h.Period+s.h.Tolerance)
	round("after a period")
}

// refill is how many tokens a real clock may have added during elapsed.
func (s *suite) refill(elapsed time.Duration, n int, p time.Duration) int {
	if s.h.Tolerance == 0 {
		return 0
	}
	return int(math.Ceil(float64(elapsed+s.h.Tolerance) * float64(n) / float64(p)))
}

// distinctKeys: name, network and ID each select their own bucket.
func (s *suite) distinctKeys(t *testing.T) {
	st := s.newStore(t)
	limits := []ratelimit.Limit{
		limit("a", clientA, 1, long),
		limit("b", clientA, 1, long), // same client, other policy
		limit("a", clientB, 1, long), // other IPv4 client
		limit("a", client6, 1, long), // IPv6 /64
		limit("a", ratelimit.Key{Net: clientA.Net, ID: "agent-x"}, 1, long),
		limit("a", ratelimit.Key{Net: clientA.Net, ID: "agent-y"}, 1, long),
		limit("a", ratelimit.Key{}, 1, long), // shared by every client
		limit("a", ratelimit.Key{ID: "agent-x"}, 1, long),
	}
	for i, l := range limits {
		expect(t, "first use of bucket "+strconv.Itoa(i), allow(t, st, l)[0], true, 0)
	}
	for i, l := range limits {
		expect(t, "second use of bucket "+strconv.Itoa(i), allow(t, st, l)[0], false, 0)
	}
}

// allOrNothing: a request denied by one limit takes no token from another.
func (s *suite) allOrNothing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		small, wide int // index of each in the call
	}{
		{"denying limit first", 0, 1},
		{"denying limit last", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := s.newStore(t)
			limits := make([]ratelimit.Limit, 2)
			limits[tc.small] = limit("small", clientA, 2, long)
			limits[tc.wide] = limit("wide", clientA, 5, long)
			for i := range 2 {
				res := allow(t, st, limits...)
				expect(t, "small "+strconv.Itoa(i), res[tc.small], true, 1-i)
				expect(t, "wide "+strconv.Itoa(i), res[tc.wide], true, 4-i)
			}
			for i := range 3 {
				res := allow(t, st, limits...)
				if ratelimit.Allowed(res) {
					t.Fatalf("request %d allowed past the small limit", i+3)
				}
				expect(t, "small when denied", res[tc.small], false, 0)
				expect(t, "wide when denied", res[tc.wide], true, 3)
				s.near(t, "RetryAfter of the small limit", res[tc.small].RetryAfter, long/2)
			}
			r := allow(t, st, limits[tc.wide])[0]
			expect(t, "wide alone afterwards", r, true, 2)
		})
	}
}

// allOrNothingThree: the enforcer's shape, site and agent limits on the
// client's network and a capability limit on the network and agent; a
// request denied by any one of them, in any position, takes nothing from
// the other two.
func (s *suite) allOrNothingThree(t *testing.T) {
	capKey := ratelimit.Key{Net: clientA.Net, ID: "agent-x"}
	for deny := range 3 {
		t.Run("denying limit at "+strconv.Itoa(deny), func(t *testing.T) {
			st := s.newStore(t)
			limits := []ratelimit.Limit{
				limit("site", clientA, 6, long),
				limit("agent:x", clientA, 6, long),
				limit("capability:y", capKey, 6, long),
			}
			limits[deny].Rate = 2
			for i := range 2 {
				res := allow(t, st, limits...)
				for j := range 3 {
					want := 5 - i
					if j == deny {
						want = 1 - i
					}
					expect(t, "request "+strconv.Itoa(i+1)+" limit "+strconv.Itoa(j), res[j], true, want)
				}
			}
			for range 3 {
				res := allow(t, st, limits...)
				for j := range 3 {
					if j == deny {
						expect(t, "denying limit", res[j], false, 0)
						s.near(t, "RetryAfter", res[j].RetryAfter, long/2)
					} else {
						expect(t, "other limit", res[j], true, 4)
					}
				}
			}
			for j := range 3 {
				if j != deny {
					expect(t, "limit "+strconv.Itoa(j)+" alone afterwards", allow(t, st, limits[j])[0], true, 3)
				}
			}
		})
	}
}
