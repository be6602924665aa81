// Package clock is the one place agentready's library code reads the time.
//
// Two clocks, for two jobs (docs/operations.md, "Clocks"):
//
//   - Timestamps and expiry comparisons (a signature's window, a nonce's
//     life, a cached key directory's freshness, a session's expiry, an
//     audit event's time, a rate limit's window) read a Func: the clock
//     agentready.WithClock or verify.Options.Now gives, else Wall.
//   - Waiting (timers, tickers, retry and refresh schedules, log
//     throttles, deadlines) reads Monotonic, which no setting replaces:
//     a pinned clock must never make a request wait forever or a refresh
//     never happen.
//
// TestClockReads (in the root package) fails when library code reads
// time.Now, time.Since or time.Until anywhere else.
package clock

import "time"

// A Func is a clock for timestamps and expiry comparisons.
type Func = func() time.Time

// Wall is the real wall clock, the default Func.
func Wall() time.Time { return time.Now() }

// Or returns now, or Wall when now is nil.
func Or(now Func) Func {
	if now == nil {
		return Wall
	}
	return now
}

// Monotonic is the runtime's clock, for measuring waits only: compare its
// readings with each other (Since), never with a Func's.
func Monotonic() time.Time { return time.Now() }

// Since is the time elapsed since t, a Monotonic reading.
func Since(t time.Time) time.Duration { return time.Since(t) }

// Until is the time left until t, a Monotonic reading.
func Until(t time.Time) time.Duration { return time.Until(t) }

// A Stamp is one instant read on both clocks: Wall by a Func, for what
// the set clock says, and Mono by Monotonic, for how long has passed.
type Stamp struct{ Wall, Mono time.Time }

// Read reads now and the monotonic clock.
func Read(now Func) Stamp { return Stamp{Wall: now(), Mono: Monotonic()} }

// IsZero reports whether s was never read.
func (s Stamp) IsZero() bool { return s.Mono.IsZero() }

// Sub is the time from earlier to s by whichever clock has moved further.
// A retry or refresh interval measured so passes on the runtime's clock
// even when a set clock stands still or goes back, and at once when a
// test advances the set clock past it.
func (s Stamp) Sub(earlier Stamp) time.Duration {
	return max(s.Wall.Sub(earlier.Wall), s.Mono.Sub(earlier.Mono))
}
