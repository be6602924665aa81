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

	"github.com/agentready/agentready/internal/logbuf"
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
	ms, err := ratelimit.NewMemoryStore()
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

type failoverFixture struct {
	primary *flakyStore
	f       *ratelimit.Failover
	log     *logbuf.Buffer
	events  *events
}

const (
	testTimeout    = 30 * time.Millisecond
	testMinBackoff = 40 * time.Millisecond
	testMaxBackoff = 160 * time.Millisecond
)

func newFailover(t *testing.T, p ratelimit.FailurePolicy, opts ...ratelimit.FailoverOption) *failoverFixture {
	t.Helper()
	fx := &failoverFixture{primary: newFlaky(t), log: &logbuf.Buffer{}, events: &events{}}
	opts = append([]ratelimit.FailoverOption{
		ratelimit.WithFailurePolicy(p),
		ratelimit.WithStoreTimeout(testTimeout),
		ratelimit.WithRetryBackoff(testMinBackoff, testMaxBackoff),
		ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(fx.log, nil))),
		ratelimit.WithOnStateChange(fx.events.add),
	}, opts...)
	f, err := ratelimit.NewFailover(fx.primary, opts...)
	if err != nil {
		t.Fatal(err)
	}
	fx.f = f
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
		policy ratelimit.FailurePolicy
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
			if errors.Is(err, ratelimit.ErrDegraded) || !errors.Is(err, ratelimit.ErrUnavailable) || !errors.As(err, &ue) {
				t.Fatalf("request %d: err = %v, want an UnavailableError", i, err)
			}
			if ue.RetryAfter < testMinBackoff || ue.RetryAfter > testMaxBackoff {
				t.Errorf("RetryAfter = %v, want the backoff", ue.RetryAfter)
			}
		}},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			fx := newFailover(t, tc.policy)
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
	fx := newFailover(t, ratelimit.FallbackMemory)
	limits := threeLimits(1000)
	res := make([]ratelimit.Result, 3)
	fx.primary.mode.Store(flakyFail)
	_ = fx.f.Allow(context.Background(), limits, res)
	fx.primary.mode.Store(flakyOK)
	// Within the backoff the primary is left alone.
	if err := fx.f.Allow(context.Background(), limits, res); !errors.Is(err, ratelimit.ErrDegraded) {
		t.Fatalf("within the backoff: %v, want degraded", err)
	}
	if n := fx.primary.calls.Load(); n != 1 {
		t.Fatalf("primary called %d times within the backoff, want 1", n)
	}
	time.Sleep(testMinBackoff + 10*time.Millisecond)
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
// a hung primary costs each probe the timeout, nobody else.
func TestFailoverBackoffAndTimeout(t *testing.T) {
	fx := newFailover(t, ratelimit.FailOpen)
	limits := threeLimits(10)
	fx.primary.mode.Store(flakyHang)
	var (
		wg      sync.WaitGroup
		slowest atomic.Int64
		stop    = time.Now().Add(600 * time.Millisecond)
	)
	for range 8 {
		wg.Go(func() {
			res := make([]ratelimit.Result, 3)
			for time.Now().Before(stop) {
				start := time.Now()
				err := fx.f.Allow(context.Background(), limits, res)
				took := time.Since(start)
				for {
					old := slowest.Load()
					if int64(took) <= old || slowest.CompareAndSwap(old, int64(took)) {
						break
					}
				}
				if !errors.Is(err, ratelimit.ErrDegraded) || !ratelimit.Allowed(res) {
					t.Errorf("hung primary, fail open: %v %+v", err, res)
					return
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	if d := time.Duration(slowest.Load()); d > testTimeout+100*time.Millisecond {
		t.Errorf("slowest request took %v, timeout %v", d, testTimeout)
	}
	// 8 requests in flight may all have waited the first timeout; then
	// probes at 40, 80, 160, 160... ms: about 5 in 600ms.
	if n := fx.primary.calls.Load(); n > 8+6 {
		t.Errorf("primary called %d times in 600ms, want at most %d: the backoff is not holding", n, 8+6)
	}
	if n := fx.log.Count("rate-limit store failed"); n != 1 {
		t.Errorf("%d failure log lines, want 1", n)
	}
}

// A primary that recovers and fails again soon resumes its backoff, so
// flapping does not log two lines per minimum backoff.
func TestFailoverFlapping(t *testing.T) {
	fx := newFailover(t, ratelimit.FailOpen)
	limits := threeLimits(1000)
	res := make([]ratelimit.Result, 3)
	var lastWait time.Duration
	for round := range 3 {
		fx.primary.mode.Store(flakyFail)
		_ = fx.f.Allow(context.Background(), limits, res) // opens the circuit
		fx.primary.mode.Store(flakyOK)
		start := time.Now()
		for fx.f.Degraded() {
			if time.Since(start) > 2*time.Second {
				t.Fatal("no recovery within 2s")
			}
			_ = fx.f.Allow(context.Background(), limits, res)
			time.Sleep(2 * time.Millisecond)
		}
		wait := time.Since(start)
		if round > 0 && wait < min(2*lastWait, testMaxBackoff)-10*time.Millisecond {
			t.Errorf("round %d: recovered after %v, the previous after %v: the backoff restarted", round, wait, lastWait)
		}
		lastWait = wait
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
	// Cancelled, not timed out: the primary is not told (see timeoutCtx),
	// so the call ends with the timeout, and reports the cancellation.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel)
	start := time.Now()
	if err := fx.f.Allow(ctx, threeLimits(3), res); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the call: %v", err)
	}
	if d := time.Since(start); d > testTimeout+100*time.Millisecond {
		t.Errorf("cancelled call took %v, timeout %v", d, testTimeout)
	}
	if fx.f.Degraded() || fx.log.Count("failed") != 0 {
		t.Errorf("the caller's errors opened the circuit: %s", fx.log.String())
	}
}

func TestNewFailoverErrors(t *testing.T) {
	_, err := ratelimit.NewFailover(nil,
		ratelimit.WithFailurePolicy(7),
		ratelimit.WithStoreTimeout(0),
		ratelimit.WithRetryBackoff(time.Second, time.Millisecond),
		ratelimit.WithFallbackStore(nil),
		ratelimit.WithFailoverLogger(nil),
		ratelimit.WithMaxConcurrent(-1),
		ratelimit.WithQueueTimeout(0),
	)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"nil primary", "WithFailurePolicy(7)", "WithStoreTimeout(0s)", "WithRetryBackoff(1s, 1ms)", "WithFallbackStore", "WithFailoverLogger", "WithMaxConcurrent(-1)", "WithQueueTimeout(0s)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not report %q:\n%v", want, err)
		}
	}
	for _, p := range []ratelimit.FailurePolicy{ratelimit.FallbackMemory, ratelimit.FailOpen, ratelimit.FailClosed, 9} {
		if p.String() == "" {
			t.Errorf("policy %d has no name", p)
		}
	}
}

// A healthy Failover is its primary: it passes the conformance suite.
func TestFailoverConformance(t *testing.T) {
	clock := ratelimit.NewFakeClock(time.Time{})
	ratelimittest.Run(t, ratelimittest.Harness{
		New: func(t *testing.T) ratelimit.Store {
			ms, err := ratelimit.NewMemoryStore(ratelimit.WithClock(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			f, err := ratelimit.NewFailover(ms)
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		Advance: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
	})
}

// pooledStore is a primary with a pool of conns connections, as a go-redis
// client has: a call waits for a connection inside its context's deadline,
// then holds it until the test releases it (without hold, for delay). It reports its pool size as MaxConcurrent.
type pooledStore struct {
	inner    ratelimit.Store
	conns    chan struct{}
	release  chan struct{} // nil: answer after delay
	delay    time.Duration // a round trip
	fail     atomic.Bool   // answer errRefused on release
	calls    atomic.Int64
	peeks    atomic.Int64
	inFlight atomic.Int64
	maxSeen  atomic.Int64
}

func newPooled(t *testing.T, conns int, hold bool) *pooledStore {
	t.Helper()
	ms, err := ratelimit.NewMemoryStore()
	if err != nil {
		t.Fatal(err)
	}
	s := &pooledStore{inner: ms, conns: make(chan struct{}, conns)}
	if hold {
		s.release = make(chan struct{})
	}
	return s
}

func (s *pooledStore) MaxConcurrent() int { return cap(s.conns) }

// Peek takes a connection as Allow does, without waiting for one.
func (s *pooledStore) Peek(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	select {
	case s.conns <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.conns }()
	s.peeks.Add(1)
	return s.inner.(ratelimit.Peeker).Peek(ctx, limits, res)
}

func (s *pooledStore) Allow(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	select {
	case s.conns <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err() // the pool wait timed out
	}
	defer func() { <-s.conns }()
	s.calls.Add(1)
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for m := s.maxSeen.Load(); n > m && !s.maxSeen.CompareAndSwap(m, n); m = s.maxSeen.Load() {
	}
	if s.release == nil {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		select {
		case <-s.release:
		case <-ctx.Done():
			return ctx.Err()
		}
		if s.fail.Load() {
			return errRefused
		}
	}
	return s.inner.Allow(ctx, limits, res)
}

// A burst larger than the primary's pool is queued before the pool, so
// the timeout bounds each call, not its wait: every request is answered by
// the primary, none by the policy. Without the queue (WithMaxConcurrent(0))
// the same burst times out in the pool and degrades.
func TestFailoverQueuesBeyondThePool(t *testing.T) {
	const conns, burst = 2, 200
	run := func(t *testing.T, opts ...ratelimit.FailoverOption) (*pooledStore, int) {
		p := newPooled(t, conns, false)
		p.delay = 2 * time.Millisecond
		f, err := ratelimit.NewFailover(p, append([]ratelimit.FailoverOption{
			ratelimit.WithStoreTimeout(100 * time.Millisecond), // the last of the burst waits 200ms in the pool
			ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))),
		}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var degraded atomic.Int64
		for i := range burst {
			wg.Go(func() {
				k := ratelimit.Key{Net: netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), 32)}
				res := make([]ratelimit.Result, 1)
				err := f.Allow(context.Background(), []ratelimit.Limit{{Name: "site", Key: k, Rate: 10, Period: time.Hour}}, res)
				if errors.Is(err, ratelimit.ErrDegraded) {
					degraded.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		return p, int(degraded.Load())
	}
	p, degraded := run(t)
	if degraded != 0 || p.calls.Load() != burst || p.maxSeen.Load() > conns {
		t.Errorf("queued: %d degraded, %d calls, %d in flight at most; want 0, %d, <= %d", degraded, p.calls.Load(), p.maxSeen.Load(), burst, conns)
	}
	if _, degraded := run(t, ratelimit.WithMaxConcurrent(0)); degraded == 0 {
		t.Errorf("without the queue, no request of a burst of %d on %d connections timed out: the test shows nothing", burst, conns)
	}
}

// A request that gets no turn within the queue timeout opens the circuit
// (the primary is not keeping up); and requests queued when the circuit
// opens are answered by the policy without calling the primary.
func TestFailoverQueueTimeoutAndOpenCircuit(t *testing.T) {
	p := newPooled(t, 1, true)
	fx := &events{}
	f, err := ratelimit.NewFailover(p,
		ratelimit.WithStoreTimeout(time.Hour),
		ratelimit.WithQueueTimeout(20*time.Millisecond),
		ratelimit.WithRetryBackoff(time.Hour, time.Hour),
		ratelimit.WithOnStateChange(fx.add),
		ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))),
	)
	if err != nil {
		t.Fatal(err)
	}
	limits := threeLimits(10)
	first := make(chan error)
	go func() { first <- f.Allow(context.Background(), limits, make([]ratelimit.Result, 3)) }()
	for p.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// The one connection is held: this request waits 20ms for a turn.
	err = f.Allow(context.Background(), limits, make([]ratelimit.Result, 3))
	var qe *ratelimit.QueueTimeoutError
	if !errors.Is(err, ratelimit.ErrDegraded) || !errors.As(err, &qe) || qe.InFlight != 1 {
		t.Fatalf("queued past the queue timeout: %v, want a degraded answer wrapping a QueueTimeoutError", err)
	}
	if down, _ := fx.downs(); !f.Degraded() || down != 1 {
		t.Errorf("circuit open %v after %d down events, want open after 1", f.Degraded(), down)
	}
	close(p.release)
	if err := <-first; err != nil {
		t.Errorf("the call in flight: %v", err)
	}
	if n := p.calls.Load(); n != 1 {
		t.Errorf("primary called %d times, want 1 (the open circuit answers the rest)", n)
	}
}

// A request queued when another one's failure opens the circuit does not
// call the primary when its turn comes.
func TestFailoverQueuedWhenCircuitOpens(t *testing.T) {
	p := newPooled(t, 1, true)
	p.fail.Store(true)
	f, err := ratelimit.NewFailover(p,
		ratelimit.WithStoreTimeout(time.Hour),
		ratelimit.WithRetryBackoff(time.Hour, time.Hour),
		ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))),
	)
	if err != nil {
		t.Fatal(err)
	}
	limits := threeLimits(10)
	errs := make(chan error, 2)
	go func() { errs <- f.Allow(context.Background(), limits, make([]ratelimit.Result, 3)) }()
	for p.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	go func() { errs <- f.Allow(context.Background(), limits, make([]ratelimit.Result, 3)) }()
	time.Sleep(10 * time.Millisecond) // the second request is queued
	close(p.release)
	for range 2 {
		if err := <-errs; !errors.Is(err, ratelimit.ErrDegraded) {
			t.Errorf("answer %v, want degraded", err)
		}
	}
	if n := p.calls.Load(); n != 1 {
		t.Errorf("primary called %d times, want 1", n)
	}
}

// A primary that panics gives its turn back: the next request still gets
// one.
func TestFailoverTurnSurvivesPanic(t *testing.T) {
	p := newPooled(t, 1, false)
	f, err := ratelimit.NewFailover(&panicky{p}, ratelimit.WithQueueTimeout(50*time.Millisecond),
		ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))))
	if err != nil {
		t.Fatal(err)
	}
	limits := threeLimits(10)
	func() {
		defer func() { _ = recover() }()
		_ = f.Allow(context.Background(), limits, make([]ratelimit.Result, 3))
	}()
	if err := f.Allow(context.Background(), limits, make([]ratelimit.Result, 3)); err != nil {
		t.Errorf("after a panic: %v, want the primary's answer", err)
	}
}

// panicky panics on its first call.
type panicky struct{ *pooledStore }

func (p *panicky) Allow(ctx context.Context, limits []ratelimit.Limit, res []ratelimit.Result) error {
	if p.calls.Add(1) == 1 {
		panic("primary store bug")
	}
	return p.pooledStore.inner.Allow(ctx, limits, res)
}

// Explaining a request (Peek) while every turn is taken does not reach the
// primary, whose connections belong to the requests holding the turns: it
// answers from the fallback at once, and the circuit stays closed.
func TestFailoverPeekTakesNoBusyTurn(t *testing.T) {
	p := newPooled(t, 2, true)
	f, err := ratelimit.NewFailover(p, ratelimit.WithStoreTimeout(time.Second),
		ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))))
	if err != nil {
		t.Fatal(err)
	}
	limits := []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.1/32")}, Rate: 10, Period: time.Hour}}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := f.Allow(context.Background(), limits, make([]ratelimit.Result, 1)); err != nil {
				t.Error(err)
			}
		})
	}
	for p.inFlight.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	res := make([]ratelimit.Result, 1)
	if err := f.Peek(context.Background(), limits, res); err != nil || !res[0].Allowed {
		t.Errorf("Peek with every turn taken: %v, %+v", err, res[0])
	}
	if n := p.peeks.Load(); n != 0 || f.Degraded() {
		t.Errorf("the primary was peeked %d times with every turn taken; degraded %v", n, f.Degraded())
	}
	close(p.release)
	wg.Wait()
	if err := f.Peek(context.Background(), limits, res); err != nil || p.peeks.Load() != 1 {
		t.Errorf("Peek with turns free: %v, %d peeks of the primary", err, p.peeks.Load())
	}
}

// panickyPeek is a one-connection primary whose Peek panics.
type panickyPeek struct{ *pooledStore }

func (panickyPeek) Peek(context.Context, []ratelimit.Limit, []ratelimit.Result) error { panic("peek") }

// A primary panicking in Peek gives its turn back: the next Allow gets it
// at once instead of waiting out the queue and opening the circuit.
func TestFailoverPeekPanicGivesTurnBack(t *testing.T) {
	p := panickyPeek{newPooled(t, 1, false)}
	f, err := ratelimit.NewFailover(p, ratelimit.WithQueueTimeout(50*time.Millisecond),
		ratelimit.WithFailoverLogger(slog.New(slog.NewTextHandler(&logbuf.Buffer{}, nil))))
	if err != nil {
		t.Fatal(err)
	}
	limits := []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.1/32")}, Rate: 10, Period: time.Hour}}
	func() {
		defer func() { _ = recover() }()
		_ = f.Peek(context.Background(), limits, make([]ratelimit.Result, 1))
	}()
	if err := f.Allow(context.Background(), limits, make([]ratelimit.Result, 1)); err != nil || f.Degraded() {
		t.Errorf("Allow after a panicking Peek: %v, degraded %v", err, f.Degraded())
	}
}
