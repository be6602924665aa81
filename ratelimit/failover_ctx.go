package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// timeoutCtx bounds one call to the primary store without allocating:
// context.WithTimeout makes a context, a timer, a channel and a closure
// per call (five allocations, more than the rest of a Redis round trip
// adds), so a Failover keeps these in a pool and rearms them.
//
// It is a context that ends at its deadline only: the caller's
// cancellation is not propagated, which a request gone away costs at
// most the timeout (and Failover checks the caller's context before and
// after). Values are the caller's, so tracing still sees its spans.
//
// Reuse is safe because a context returns to the pool only when its timer
// was stopped before firing: its channel is still open and nothing
// observed it ending. A context whose timer fired is dropped.
type timeoutCtx struct {
	parent   context.Context
	deadline time.Time
	timer    *time.Timer
	done     chan struct{}
	expired  atomic.Bool
}

var timeoutPool = sync.Pool{New: func() any {
	c := &timeoutCtx{done: make(chan struct{})}
	c.timer = time.AfterFunc(time.Hour, c.expire)
	c.timer.Stop()
	return c
}}

// withTimeout returns a context for parent that ends after d. Release it
// once the call returns.
func withTimeout(parent context.Context, d time.Duration) *timeoutCtx {
	c := timeoutPool.Get().(*timeoutCtx)
	c.parent = parent
	c.deadline = time.Now().Add(d)
	c.timer.Reset(d)
	return c
}

// release returns c to the pool, unless its timer fired.
func (c *timeoutCtx) release() {
	if !c.timer.Stop() {
		return // fired, or firing: its channel is closed, drop it
	}
	c.parent = nil
	timeoutPool.Put(c)
}

func (c *timeoutCtx) expire() {
	c.expired.Store(true)
	close(c.done)
}

func (c *timeoutCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *timeoutCtx) Done() <-chan struct{} { return c.done }

func (c *timeoutCtx) Err() error {
	if c.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *timeoutCtx) Value(key any) any { return c.parent.Value(key) }
