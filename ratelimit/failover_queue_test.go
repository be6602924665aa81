package ratelimit_test

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

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
	// poolWaits counts the calls that found every connection taken and
	// waited in the pool.
	poolWaits atomic.Int64
}

func newPooled(t *testing.T, conns int, hold bool) *pooledStore {
	t.Helper()
	ms, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
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
	default:
		s.poolWaits.Add(1)
		select {
		case s.conns <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err() // the pool wait timed out
		}
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
// the timeout bounds each call, not its wait: no call waits in the pool,
// and every request is answered by the primary, none by the policy.
// Without the queue (MaxConcurrent -1) the same burst waits in the pool,
// and times out there. The queued burst has an hour for its timeouts, so
// that a loaded machine, slow to run each call, does not time one out:
// what shows the queue is that no call waited in the pool.
func TestFailoverQueuesBeyondThePool(t *testing.T) {
	const conns, burst = 2, 200
	run := func(t *testing.T, maxConcurrent int, timeout time.Duration) (*pooledStore, int) {
		p := newPooled(t, conns, false)
		p.delay = 2 * time.Millisecond
		f := newFailoverStore(t, p, ratelimit.FailoverConfig{
			Timeout:       timeout,
			QueueTimeout:  timeout,
			MaxConcurrent: maxConcurrent,
		})
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
	p, degraded := run(t, 0, time.Hour)
	if degraded != 0 || p.calls.Load() != burst || p.maxSeen.Load() > conns || p.poolWaits.Load() != 0 {
		t.Errorf("queued: %d degraded, %d calls, %d in flight at most, %d waited in the pool; want 0, %d, <= %d, 0",
			degraded, p.calls.Load(), p.maxSeen.Load(), p.poolWaits.Load(), burst, conns)
	}
	// The last of the burst waits 200 ms in the pool, at least: past the
	// 100 ms timeout.
	if p, degraded := run(t, -1, 100*time.Millisecond); degraded == 0 || p.poolWaits.Load() == 0 {
		t.Errorf("without the queue, %d calls of a burst of %d on %d connections waited in the pool and %d timed out: the test shows nothing",
			p.poolWaits.Load(), burst, conns, degraded)
	}
}

// A request that gets no turn within the queue timeout opens the circuit
// (the primary is not keeping up); and requests queued when the circuit
// opens are answered by the policy without calling the primary.
func TestFailoverQueueTimeoutAndOpenCircuit(t *testing.T) {
	p := newPooled(t, 1, true)
	fx := &events{}
	f := newFailoverStore(t, p, ratelimit.FailoverConfig{
		Timeout:       time.Hour,
		QueueTimeout:  20 * time.Millisecond,
		MinBackoff:    time.Hour,
		MaxBackoff:    time.Hour,
		OnStateChange: fx.add,
	})
	limits := threeLimits(10)
	first := make(chan error)
	go func() { first <- f.Allow(context.Background(), limits, make([]ratelimit.Result, 3)) }()
	for p.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// The one connection is held: this request waits 20ms for a turn.
	err := f.Allow(context.Background(), limits, make([]ratelimit.Result, 3))
	var qe *ratelimit.QueueTimeoutError
	if !errors.Is(err, ratelimit.ErrDegraded) || !errors.As(err, &qe) || qe.InFlight() != 1 {
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
	f := newFailoverStore(t, p, ratelimit.FailoverConfig{Timeout: time.Hour, MinBackoff: time.Hour, MaxBackoff: time.Hour})
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
	f := newFailoverStore(t, &panicky{p}, ratelimit.FailoverConfig{QueueTimeout: 50 * time.Millisecond})
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
	f := newFailoverStore(t, p, ratelimit.FailoverConfig{Timeout: time.Hour}) // the held calls never time out
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
	f := newFailoverStore(t, p, ratelimit.FailoverConfig{QueueTimeout: 50 * time.Millisecond})
	limits := []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{Net: netip.MustParsePrefix("192.0.2.1/32")}, Rate: 10, Period: time.Hour}}
	func() {
		defer func() { _ = recover() }()
		_ = f.Peek(context.Background(), limits, make([]ratelimit.Result, 1))
	}()
	if err := f.Allow(context.Background(), limits, make([]ratelimit.Result, 1)); err != nil || f.Degraded() {
		t.Errorf("Allow after a panicking Peek: %v, degraded %v", err, f.Degraded())
	}
}
