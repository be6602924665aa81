package ratelimittest

// This file holds the properties of calls rather than of buckets: many
// limits, concurrency, contexts and invalid input.

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// manyLimits: more limits in one call than a store keeps on its stack
// (eight in the memory store), across several clients, still all or
// nothing.
func (s *suite) manyLimits(t *testing.T) {
	st := s.h.New(t)
	var limits []ratelimit.Limit
	for i := range 12 {
		k := []ratelimit.Key{clientA, clientB, client6}[i%3]
		if s.h.OneKeyPerCall {
			k = clientA
		}
		limits = append(limits, limit("many-"+strconv.Itoa(i), k, 3, long))
	}
	limits[7].Rate = 1
	res := allow(t, st, limits...)
	for i := range limits {
		want := 2
		if i == 7 {
			want = 0
		}
		expect(t, "first request, limit "+strconv.Itoa(i), res[i], true, want)
	}
	res = allow(t, st, limits...)
	if ratelimit.Allowed(res) {
		t.Fatal("second request allowed past a limit of 1")
	}
	for i := range limits {
		if i == 7 {
			expect(t, "the limit of 1", res[i], false, 0)
		} else {
			expect(t, "limit "+strconv.Itoa(i)+" untouched", res[i], true, 2)
		}
	}
}

// concurrent: many goroutines on one bucket get exactly the burst.
func (s *suite) concurrent(t *testing.T) {
	st := s.h.New(t)
	const n, workers, each = 100, 16, 25
	l := limit("concurrent", clientA, n, long)
	var allowed atomic.Int64
	s.parallel(t, workers, each, func() error {
		res := make([]ratelimit.Result, 1)
		err := st.Allow(context.Background(), []ratelimit.Limit{l}, res)
		if err == nil && res[0].Allowed {
			allowed.Add(1)
		}
		return err
	})
	if got := allowed.Load(); got != n {
		t.Errorf("allowed %d of %d concurrent requests, want exactly %d", got, workers*each, n)
	}
}

// concurrentAllOrNothing: under contention, the wider limit is consumed only
// by the requests the narrower one allowed.
func (s *suite) concurrentAllOrNothing(t *testing.T) {
	st := s.h.New(t)
	const workers, each = 16, 25
	narrow := limit("narrow", clientA, 30, long)
	wide := limit("wide", clientA, 60, long)
	var allowed atomic.Int64
	s.parallel(t, workers, each, func() error {
		res := make([]ratelimit.Result, 2)
		err := st.Allow(context.Background(), []ratelimit.Limit{wide, narrow}, res)
		if err == nil && ratelimit.Allowed(res) {
			allowed.Add(1)
		}
		return err
	})
	if got := allowed.Load(); got != 30 {
		t.Errorf("allowed %d requests, want 30", got)
	}
	expect(t, "wide afterwards", allow(t, st, wide)[0], true, 60-30-1)
}

func (s *suite) parallel(t *testing.T, workers, each int, fn func() error) {
	t.Helper()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	start := make(chan struct{})
	for range workers {
		wg.Go(func() {
			<-start
			for range each {
				if err := fn(); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if first != nil {
		t.Fatalf("Allow: %v", first)
	}
}

// contextCancelled: a done context is an error and takes no token.
func (s *suite) contextCancelled(t *testing.T) {
	st := s.h.New(t)
	l := limit("ctx", clientA, 3, long)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := make([]ratelimit.Result, 1)
	if err := st.Allow(ctx, []ratelimit.Limit{l}, res); !errors.Is(err, context.Canceled) {
		t.Fatalf("Allow with a cancelled context = %v, want context.Canceled", err)
	}
	dctx, dcancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer dcancel()
	if err := st.Allow(dctx, []ratelimit.Limit{l}, res); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Allow past the deadline = %v, want context.DeadlineExceeded", err)
	}
	expect(t, "after the cancelled calls", allow(t, st, l)[0], true, 2)
}

// invalidInput: bad arguments are errors, never panics, and touch nothing.
func (s *suite) invalidInput(t *testing.T) {
	st := s.h.New(t)
	good := limit("good", clientA, 2, long)
	for _, tc := range []struct {
		name   string
		limits []ratelimit.Limit
		nres   int
		want   error
	}{
		{"short results", []ratelimit.Limit{good, limit("other", clientA, 1, long)}, 1, ratelimit.ErrInvalidLimit},
		{"nil results", []ratelimit.Limit{good}, 0, ratelimit.ErrInvalidLimit},
		{"zero rate", []ratelimit.Limit{good, limit("zero", clientA, 0, long)}, 2, ratelimit.ErrInvalidLimit},
		{"negative rate", []ratelimit.Limit{good, limit("neg", clientA, -1, long)}, 2, ratelimit.ErrInvalidLimit},
		{"zero period", []ratelimit.Limit{good, limit("p0", clientA, 1, 0)}, 2, ratelimit.ErrInvalidLimit},
		{"negative period", []ratelimit.Limit{good, limit("p-", clientA, 1, -time.Second)}, 2, ratelimit.ErrInvalidLimit},
		{"period above a century", []ratelimit.Limit{good, limit("p+", clientA, 1, maxPeriod+1)}, 2, ratelimit.ErrInvalidLimit},
		{"duplicate bucket", []ratelimit.Limit{good, good}, 2, ratelimit.ErrInvalidLimit},
		{"empty name", []ratelimit.Limit{good, {Key: ratelimit.Key{ID: "shared"}, Rate: 3, Period: long}}, 2, ratelimit.ErrInvalidLimit},
		{"cost above the rate", []ratelimit.Limit{good, {Name: "c+", Key: clientA, Rate: 3, Period: long, Cost: 4}}, 2, ratelimit.ErrInvalidLimit},
		{"negative cost", []ratelimit.Limit{good, {Name: "c-", Key: clientA, Rate: 3, Period: long, Cost: -1}}, 2, ratelimit.ErrInvalidLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res []ratelimit.Result
			if tc.nres > 0 {
				res = make([]ratelimit.Result, tc.nres)
			}
			if err := st.Allow(context.Background(), tc.limits, res); !errors.Is(err, tc.want) {
				t.Errorf("Allow = %v, want %v", err, tc.want)
			}
		})
	}
	if err := st.Allow(context.Background(), nil, nil); err != nil {
		t.Errorf("Allow with no limits = %v, want nil", err)
	}
	expect(t, "good limit untouched by the rejected calls", allow(t, st, good)[0], true, 1)
}

func (s *suite) resultsBeyondLimits(t *testing.T) {
	st := s.h.New(t)
	sentinel := ratelimit.Result{Limit: -7, Remaining: -7}
	res := []ratelimit.Result{{}, sentinel}
	if err := st.Allow(context.Background(), []ratelimit.Limit{limit("one", clientA, 1, long)}, res); err != nil {
		t.Fatal(err)
	}
	if res[1] != sentinel {
		t.Errorf("res[1] = %+v, want it untouched", res[1])
	}
}

// cost: a request of Cost c takes c tokens (Remaining counts tokens), is
// refused once fewer than c remain, then waits for the c-th token, and a
// refusal of a costly limit beside a cheap one consumes neither.
func (s *suite) cost(t *testing.T) {
	st := s.newStore(t)
	l := limit("cost", clientA, 10, long)
	l.Cost = 4
	expect(t, "first call", allow(t, st, l)[0], true, 6)
	expect(t, "second call", allow(t, st, l)[0], true, 2)
	r := allow(t, st, l)[0]
	expect(t, "third call, 2 tokens left", r, false, 0)
	s.near(t, "RetryAfter", r.RetryAfter, 2*long/10) // two more tokens
	cheap := limit("cheap", clientA, 10, long)
	res := allow(t, st, cheap, l)
	expect(t, "cheap beside it, nothing consumed", res[0], true, 10)
	if res[1].Allowed {
		t.Error("the costly limit allowed with 2 tokens for a cost of 4")
	}
	expect(t, "cheap alone after", allow(t, st, cheap)[0], true, 9)
	one := limit("one", clientA, 3, long)
	one.Cost = 1
	expect(t, "Cost 1 is one token", allow(t, st, one)[0], true, 2)
}
