// Package testclock is a manually advanced clock for tests: it moves only
// when a test advances it, so nothing sleeps.
package testclock

import (
	"sync/atomic"
	"time"
)

// Clock is a manually advanced clock, safe for concurrent use.
type Clock struct {
	base time.Time
	off  atomic.Int64 // nanoseconds since base
}

// New returns a clock standing at start.
func New(start time.Time) *Clock { return &Clock{base: start} }

// Now returns the clock's time; pass the method value c.Now as a clock.
func (c *Clock) Now() time.Time { return c.base.Add(time.Duration(c.off.Load())) }

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) { c.off.Add(int64(d)) }
