package ratelimit

import (
	"sync/atomic"
	"time"
)

// Clock returns the current time. The default is time.Now; tests inject a
// FakeClock so that refill is exact and no test sleeps.
type Clock func() time.Time

// FakeClock is a manually advanced clock for tests. It is safe for
// concurrent use: Now may race with Advance from other goroutines.
type FakeClock struct {
	base time.Time
	off  atomic.Int64 // nanoseconds since base
}

// NewFakeClock returns a clock standing at start. A zero start means
// 2026-01-01T00:00:00Z, a fixed instant so that runs are reproducible.
func NewFakeClock(start time.Time) *FakeClock {
	if start.IsZero() {
		start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return &FakeClock{base: start}
}

// Now returns the clock's current time. Pass the method value fc.Now to
// WithClock.
func (c *FakeClock) Now() time.Time {
	return c.base.Add(time.Duration(c.off.Load()))
}

// Advance moves the clock forward by d (backward for negative d, which
// stores must tolerate).
func (c *FakeClock) Advance(d time.Duration) {
	c.off.Add(int64(d))
}
