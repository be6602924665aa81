package ratelimit_test

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/logbuf"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/ratelimit/ratelimittest"
)

// The circuit's logic, on a primary whose failures the test controls. The
// Redis outage itself (killed, paused, restarted redis-server) is tested
// end to end in the root package's redis_test.go.

// flakyStore is a MemoryStore that can be made to fail or to hang until
// its context ends, as a down or a stuck Redis does.
type flakyStore struct {
	inner ratelimit.Store
	mode  atomic.Int32 // flakyOK, flakyFail, flakyHang
	calls atomic.Int64
	// Of the calls made while hanging: how many came without a deadline
	// (they fail at once rather than hang the test for good), and the
	// longest time to its deadline one had when it came in. Time to a
	// deadline only shrinks on a loaded machine: it bounds the wait
	// without timing it.
	noDeadline atomic.Int64
	budget     atomic.Int64
}

const (
	flakyOK = iota
	flakyFail
	flakyHang
	flakyPanic
)

var errRefused = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")

func newFlaky(t *testing.T) *flakyStore {
	t.Helper()
	ms, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &flakyStore{inner: ms}
}

func (s *flakyStore) Allow(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	s.calls.Add(1)
	switch s.mode.Load() {
	case flakyFail:
		return errRefused
	case flakyHang:
		dl, ok := ctx.Deadline()
		if !ok {
			s.noDeadline.Add(1)
			return errors.New("flakyStore: a call to a hung primary without a deadline would hang for good")
		}
		for left := int64(time.Until(dl)); ; {
			old := s.budget.Load()
			if left <= old || s.budget.CompareAndSwap(old, left) {
				break
			}
		}
		<-ctx.Done()
		return ctx.Err()
	case flakyPanic:
		panic("primary store bug")
	}
	return s.inner.Allow(ctx, limits, res)
}

type events struct {
	mu sync.Mutex
	ev []ratelimit.FailoverEvent
}

func (e *events) add(ev ratelimit.FailoverEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ev = append(e.ev, ev)
}

func (e *events) downs() (down, up int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.ev {
		if ev.Down {
			down++
		} else {
			up++
		}
	}
	return down, up
}

// failoverStore is what NewFailover returns.
type failoverStore interface {
	ratelimit.Peeker
	Degraded() bool
}

// newFailoverStore is NewFailover for a test, quiet unless cfg has a
// logger.
func newFailoverStore(t *testing.T, primary ratelimit.Store, cfg ratelimit.FailoverConfig) failoverStore {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))
	}
	f, err := ratelimit.NewFailover(primary, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f.(failoverStore)
}

type failoverFixture struct {
	primary *flakyStore
	f       failoverStore
	log     *logbuf.Buffer
	events  *events
}

const (
	testTimeout    = 30 * time.Millisecond
	testMinBackoff = 40 * time.Millisecond
	testMaxBackoff = 160 * time.Millisecond
)

func newFailover(t *testing.T, p string) *failoverFixture {
	t.Helper()
	return newFailoverWith(t, p, testTimeout, testMinBackoff, testMaxBackoff)
}

// longBackoff is the backoff of a test that checks what happens within
// it: no machine is so loaded that it passes during the test.
const longBackoff = time.Hour

// newFailoverWith is newFailover with its own timeout and backoffs.
func newFailoverWith(t *testing.T, p string, timeout, minBackoff, maxBackoff time.Duration) *failoverFixture {
	t.Helper()
	fx := &failoverFixture{primary: newFlaky(t), log: &logbuf.Buffer{}, events: &events{}}
	fx.f = newFailoverStore(t, fx.primary, ratelimit.FailoverConfig{
		Policy:        p,
		Timeout:       timeout,
		MinBackoff:    minBackoff,
		MaxBackoff:    maxBackoff,
		Logger:        slog.New(slog.NewTextHandler(fx.log, nil)),
		OnStateChange: fx.events.add,
	})
	return fx
}

var failClient = ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.9/32")}

func threeLimits(rate int) []ratelimit.Limit {
	return []ratelimit.Limit{
		{Name: "site", Key: failClient, Rate: 100, Period: time.Hour},
		{Name: "agent:claude", Key: failClient, Rate: 50, Period: time.Hour},
		{Name: "capability:search", Key: ratelimit.Key{Net: failClient.Net, ID: "claude"}, Rate: rate, Period: time.Hour},
	}
}

func TestFailoverPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy string
		check  func(t *testing.T, i int, res []ratelimit.Result, err error)
	}{
		{ratelimit.FallbackMemory, func(t *testing.T, i int, res []ratelimit.Result, err error) {
			// Counted in the fallback store: 3 allowed, then denied.
			if !errors.Is(err, ratelimit.ErrDegraded) || !errors.Is(err, errRefused) {
				t.Fatalf("request %d: err = %v, want ErrDegraded wrapping the failure", i, err)
			}
			if ratelimit.Allowed(res) != (i < 3) {
				t.Errorf("request %d: allowed = %v, want %v (3 per hour in the fallback)", i, ratelimit.Allowed(res), i < 3)
			}
		}},
		{ratelimit.FailOpen, func(t *testing.T, i int, res []ratelimit.Result, err error) {
			if !errors.Is(err, ratelimit.ErrDegraded) || !errors.Is(err, errRefused) {
				t.Fatalf("request %d: err = %v, want ErrDegraded wrapping the failure", i, err)
			}
			if !ratelimit.Allowed(res) || res[2].Limit != 3 || res[2].Remaining != 2 || res[2].RetryAfter != 0 {
				t.Errorf("request %d: %+v, want every limit passed as a full bucket", i, res)
			}
		}},
		{ratelimit.FailClosed, func(t *testing.T, i int, res []ratelimit.Result, err error) {
			var ue *ratelimit.UnavailableError
			if errors.Is(err, ratelimit.ErrDegraded) || !errors.As(err, &ue) || !errors.Is(err, errRefused) {
				t.Fatalf("request %d: err = %v, want an UnavailableError", i, err)
			}
			if ue.RetryAfter != longBackoff {
				t.Errorf("RetryAfter = %v, want the backoff, %v", ue.RetryAfter, longBackoff)
			}
		}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			// Within a backoff no request probes, however long the calls
			// take.
			fx := newFailoverWith(t, tc.policy, testTimeout, longBackoff, longBackoff)
			limits := threeLimits(3)
			res := make([]ratelimit.Result, 3)
			if err := fx.f.Allow(context.Background(), limits, res); err != nil || !ratelimit.Allowed(res) || res[2].Remaining != 2 {
				t.Fatalf("healthy: %v %+v", err, res)
			}
			fx.primary.mode.Store(flakyFail)
			for i := range 6 {
				err := fx.f.Allow(context.Background(), limits, res)
				tc.check(t, i, res, err)
			}
			if !fx.f.Degraded() {
				t.Error("Degraded() = false during the outage")
			}
			// One call failed and opened the circuit; the next five were
			// answered without asking the primary.
			if n := fx.primary.calls.Load(); n != 2 {
				t.Errorf("primary called %d times, want 2 (healthy, then the failure)", n)
			}
			if n := fx.log.Count("rate-limit store failed"); n != 1 {
				t.Errorf("%d failure log lines, want 1:\n%s", n, fx.log.String())
			}
			if d, u := fx.events.downs(); d != 1 || u != 0 {
				t.Errorf("events: %d down, %d up; want 1, 0", d, u)
			}
		})
	}
}

// After the backoff one request probes; when the primary answers, the
// circuit closes and requests are counted there again.
func TestFailoverRecovers(t *testing.T) {
	limits := threeLimits(1000)
	res := make([]ratelimit.Result, 3)
	// Within the backoff the primary is left alone, even once it answers
	// again.
	fx := newFailoverWith(t, ratelimit.FallbackMemory, testTimeout, longBackoff, longBackoff)
	fx.primary.mode.Store(flakyFail)
	_ = fx.f.Allow(context.Background(), limits, res)
	fx.primary.mode.Store(flakyOK)
	for range 3 {
		if err := fx.f.Allow(context.Background(), limits, res); !errors.Is(err, ratelimit.ErrDegraded) {
			t.Fatalf("within the backoff: %v, want degraded", err)
		}
	}
	if n := fx.primary.calls.Load(); n != 1 {
		t.Fatalf("primary called %d times within the backoff, want 1", n)
	}
	// After it, the next request probes.
	fx = newFailover(t, ratelimit.FallbackMemory)
	fx.primary.mode.Store(flakyFail)
	_ = fx.f.Allow(context.Background(), limits, res)
	fx.primary.mode.Store(flakyOK)
	time.Sleep(testMinBackoff + 10*time.Millisecond) // a sleep overshoots, never falls short
	if err := fx.f.Allow(context.Background(), limits, res); err != nil {
		t.Fatalf("after the backoff: %v, want the primary's answer", err)
	}
	if fx.f.Degraded() {
		t.Error("still degraded after a successful probe")
	}
	// The primary counted the probe and nothing of the outage.
	if res[2].Remaining != 999 {
		t.Errorf("Remaining = %d, want 999 (the probe was its first request)", res[2].Remaining)
	}
	if err := fx.f.Allow(context.Background(), limits, res); err != nil || res[2].Remaining != 998 {
		t.Errorf("after recovery: %v Remaining %d, want 998", err, res[2].Remaining)
	}
	if d, u := fx.events.downs(); d != 1 || u != 1 {
		t.Errorf("events: %d down, %d up; want 1, 1", d, u)
	}
	if n := fx.log.Count("rate-limit store recovered"); n != 1 {
		t.Errorf("%d recovery log lines, want 1", n)
	}
	fx.events.mu.Lock()
	last := fx.events.ev[len(fx.events.ev)-1]
	fx.events.mu.Unlock()
	if last.Outage < testMinBackoff {
		t.Errorf("Outage = %v, want at least the backoff", last.Outage)
	}
}

// Probes that fail double the backoff; one request probes at a time, and
// a hung primary costs each probe the timeout, nobody else: every call
// to it carries a deadline no further than the timeout.
func TestFailoverBackoffAndTimeout(t *testing.T) {
	fx := newFailover(t, ratelimit.FailOpen)
	limits := threeLimits(10)
	fx.primary.mode.Store(flakyHang)
	var (
		wg   sync.WaitGroup
		stop = time.Now().Add(600 * time.Millisecond)
	)
	for range 8 {
		wg.Go(func() {
			res := make([]ratelimit.Result, 3)
			for time.Now().Before(stop) {
				err := fx.f.Allow(context.Background(), limits, res)
				if !errors.Is(err, ratelimit.ErrDegraded) || !ratelimit.Allowed(res) {
					t.Errorf("hung primary, fail open: %v %+v", err, res)
					return
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	if n := fx.primary.noDeadline.Load(); n != 0 {
		t.Errorf("%d calls reached the hung primary without a deadline", n)
	}
	if d := time.Duration(fx.primary.budget.Load()); d <= 0 || d > testTimeout {
		t.Errorf("a call reached the hung primary with %v to its deadline, want at most the timeout %v", d, testTimeout)
	}
	// 8 requests in flight may all have waited the first timeout; then
	// probes at 40, 80, 160, 160... ms: about 5 in 600ms. A loaded machine
	// probes less often, never more.
	if n := fx.primary.calls.Load(); n > 8+6 {
		t.Errorf("primary called %d times in 600ms, want at most %d: the backoff is not holding", n, 8+6)
	}
	if n := fx.log.Count("rate-limit store failed"); n != 1 {
		t.Errorf("%d failure log lines, want 1", n)
	}
}

// A primary that recovers and fails again soon resumes its backoff, so
// flapping does not log two lines per minimum backoff. The backoff is read
// where the circuit states it, fail-closed's Retry-After: 20, 40, then
// 80 ms, however long the machine took to probe. "Soon" is within the
// longest backoff, here far longer than any test takes.
func TestFailoverFlapping(t *testing.T) {
	const minBackoff = 20 * time.Millisecond
	fx := newFailoverWith(t, ratelimit.FailClosed, testTimeout, minBackoff, time.Hour)
	limits := threeLimits(1000)
	res := make([]ratelimit.Result, 3)
	for round, want := range []time.Duration{minBackoff, 2 * minBackoff, 4 * minBackoff} {
		fx.primary.mode.Store(flakyFail)
		err := fx.f.Allow(context.Background(), limits, res) // opens the circuit
		var ue *ratelimit.UnavailableError
		if !errors.As(err, &ue) {
			t.Fatalf("round %d: %v, want an UnavailableError", round, err)
		}
		if ue.RetryAfter != want {
			t.Errorf("round %d: backoff %v, want %v: the backoff restarted", round, ue.RetryAfter, want)
		}
		fx.primary.mode.Store(flakyOK)
		start := time.Now()
		for tries := 0; fx.f.Degraded(); tries++ {
			if tries == 10000 {
				t.Fatalf("round %d: still degraded after %d requests", round, tries)
			}
			_ = fx.f.Allow(context.Background(), limits, res)
			time.Sleep(2 * time.Millisecond)
		}
		if wait := time.Since(start); wait < want {
			t.Errorf("round %d: recovered after %v, within the backoff %v", round, wait, want)
		}
	}
	if n := fx.log.Count("rate-limit store failed"); n != 3 {
		t.Errorf("%d failure log lines, want 3", n)
	}
}

// A probe whose primary panicked (net/http recovers the request) does not
// leave the circuit open for good: another request probes later.
func TestFailoverProbePanics(t *testing.T) {
	fx := newFailover(t, ratelimit.FailOpen)
	limits := threeLimits(1000)
	res := make([]ratelimit.Result, 3)
	fx.primary.mode.Store(flakyFail)
	_ = fx.f.Allow(context.Background(), limits, res)
	fx.primary.mode.Store(flakyPanic)
	time.Sleep(testMinBackoff + 5*time.Millisecond)
	func() {
		defer func() { _ = recover() }()
		_ = fx.f.Allow(context.Background(), limits, res)
		t.Error("the probe did not reach the primary")
	}()
	fx.primary.mode.Store(flakyOK)
	deadline := time.Now().Add(2 * time.Second)
	for fx.f.Degraded() {
		if time.Now().After(deadline) {
			t.Fatal("still degraded 2s after the panicking probe")
		}
		_ = fx.f.Allow(context.Background(), limits, res)
		time.Sleep(5 * time.Millisecond)
	}
}

// The caller's own problems are not the primary's failures.
func TestFailoverCallerErrors(t *testing.T) {
	fx := newFailover(t, ratelimit.FailClosed)
	res := make([]ratelimit.Result, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := fx.f.Allow(ctx, threeLimits(3), res); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	bad := threeLimits(0)
	if err := fx.f.Allow(context.Background(), bad, res); !errors.Is(err, ratelimit.ErrInvalidLimit) {
		t.Errorf("invalid limit: %v", err)
	}
	// Cancelled while a hung primary is being asked.
	fx.primary.mode.Store(flakyHang)
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if err := fx.f.Allow(ctx, threeLimits(3), res); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline: %v", err)
	}
	if fx.f.Degraded() || fx.log.Count("failed") != 0 {
		t.Errorf("the caller's errors opened the circuit: %s", fx.log.String())
	}
	// Cancelled, not timed out: the call ends with the cancellation and
	// reports it (TestFailoverCancelReachesPrimary). The timeout is long,
	// so that a slow machine cannot let it pass before the cancellation.
	fx = newFailoverWith(t, ratelimit.FailClosed, time.Hour, testMinBackoff, testMaxBackoff)
	fx.primary.mode.Store(flakyHang)
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel)
	if err := fx.f.Allow(ctx, threeLimits(3), res); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the call: %v", err)
	}
	if fx.f.Degraded() || fx.log.Count("failed") != 0 {
		t.Errorf("the caller's errors opened the circuit: %s", fx.log.String())
	}
}

func TestNewFailoverErrors(t *testing.T) {
	_, err := ratelimit.NewFailover(nil, ratelimit.FailoverConfig{
		Policy:       "fail-sideways",
		Timeout:      -1,
		QueueTimeout: -time.Second,
		MinBackoff:   time.Second,
		MaxBackoff:   time.Millisecond,
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"nil primary", `Policy "fail-sideways"`, "Timeout -1ns", "QueueTimeout -1s", "MaxBackoff 1ms is below MinBackoff 1s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not report %q:\n%v", want, err)
		}
	}
}

// The caller's cancellation reaches the primary: a request that goes away
// ends its call at once, not after the timeout, and opens no circuit.
func TestFailoverCancelReachesPrimary(t *testing.T) {
	primary := newFlaky(t)
	primary.mode.Store(flakyHang)
	log := &logbuf.Buffer{}
	f := newFailoverStore(t, primary, ratelimit.FailoverConfig{Timeout: time.Hour, Logger: slog.New(slog.NewTextHandler(log, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	err := f.Allow(ctx, threeLimits(3), make([]ratelimit.Result, 3))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the call: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled call took %v: the primary did not see the cancellation", d)
	}
	if primary.calls.Load() != 1 || f.Degraded() || log.Count("failed") != 0 {
		t.Errorf("%d calls, degraded %v, log %q; want 1 call and a closed circuit", primary.calls.Load(), f.Degraded(), log.String())
	}
}

// A healthy Failover is its primary: it passes the conformance suite.
func TestFailoverConformance(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ratelimittest.Run(t, ratelimittest.Harness{
		New: func(t *testing.T) ratelimit.Store {
			ms, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			return newFailoverStore(t, ms, ratelimit.FailoverConfig{})
		},
		Advance: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
	})
}
