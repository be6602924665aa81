package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// This file holds a failover store's turns (the calls to the primary in
// flight) and its circuit (open while the primary fails).

// enter waits for a turn to call the primary: nil once it has one (leave
// gives it back), the caller's context error, or a *queueTimeoutError.
func (f *failover) enter(ctx context.Context) error {
	if f.tryEnter() {
		return nil
	}
	t := time.NewTimer(f.cfg.QueueTimeout)
	defer t.Stop()
	select {
	case f.turns <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return &queueTimeoutError{wait: f.cfg.QueueTimeout, inFlight: cap(f.turns)}
	}
}

// tryEnter takes a turn if one is free, without waiting.
func (f *failover) tryEnter() bool {
	if f.turns == nil {
		return true
	}
	select {
	case f.turns <- struct{}{}:
		return true
	default:
		return false
	}
}

func (f *failover) leave() {
	if f.turns != nil {
		<-f.turns
	}
}

// queueTimeoutError is the failure of a request that did not get its turn
// to call the primary within the queue timeout: the primary is not
// keeping up.
type queueTimeoutError struct {
	wait     time.Duration // the queue timeout
	inFlight int           // the calls in flight it waited behind
}

func (e *queueTimeoutError) Error() string {
	return fmt.Sprintf("ratelimit: no turn to call the rate-limit store within %v (%d calls in flight)", e.wait, e.inFlight)
}

func (f *failover) now() int64 { return int64(clock.Since(f.start)) }

// probe reports whether this request is the one to probe the primary: the
// backoff has passed and no other request is probing. A probe that never
// reported back (its primary panicked) is given up after the timeout and
// the longest backoff, so the circuit cannot stay open for good.
func (f *failover) probe() bool {
	now := f.now()
	if now < f.nextProbe.Load() {
		return false
	}
	old := f.probing.Load()
	if old != 0 && now+1-old < int64(f.cfg.Timeout+f.cfg.MaxBackoff) {
		return false
	}
	return f.probing.CompareAndSwap(old, now+1)
}

// fail records a failure: it opens the circuit, or, for a failed probe,
// extends the backoff. A failure of a request that was in flight when
// another one opened the circuit changes nothing.
func (f *failover) fail(err error, probe bool) {
	f.mu.Lock()
	now := f.now()
	opened := !f.down.Load()
	switch {
	case opened:
		if f.upAt >= 0 && time.Duration(now-f.upAt) < f.cfg.MaxBackoff {
			// Failing again soon after recovering: resume the backoff.
			f.backoff = min(2*f.backoff, f.cfg.MaxBackoff)
		} else {
			f.backoff = f.cfg.MinBackoff
		}
		f.since = now
	case probe:
		f.backoff = min(2*f.backoff, f.cfg.MaxBackoff)
	default:
		f.mu.Unlock()
		return
	}
	f.outage.Store(&outage{
		degraded:    &degradedError{policy: f.cfg.Policy, err: err},
		unavailable: &UnavailableError{RetryAfter: f.backoff, Err: err},
	})
	f.nextProbe.Store(now + int64(f.backoff))
	f.down.Store(true)
	f.probing.Store(0)
	backoff := f.backoff
	f.mu.Unlock()
	if !opened {
		return
	}
	f.cfg.Logger.Error("agentready: rate-limit store failed; limits follow the failure policy until it recovers",
		"policy", f.cfg.Policy, "err", err, "retry_in", backoff)
	if f.cfg.OnStateChange != nil {
		f.cfg.OnStateChange(FailoverEvent{Down: true, Policy: f.cfg.Policy, Err: err})
	}
}

// recover closes the circuit after a successful probe.
func (f *failover) recover() {
	f.mu.Lock()
	now := f.now()
	outage := time.Duration(now - f.since)
	f.upAt = now
	f.down.Store(false)
	f.probing.Store(0)
	f.mu.Unlock()
	f.cfg.Logger.Info("agentready: rate-limit store recovered", "policy", f.cfg.Policy, "outage", outage)
	if f.cfg.OnStateChange != nil {
		f.cfg.OnStateChange(FailoverEvent{Down: false, Policy: f.cfg.Policy, Outage: outage})
	}
}
