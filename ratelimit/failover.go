package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

var _ Store = (*Failover)(nil)

// FailurePolicy is what a Failover does while its primary store (Redis)
// is failing: slow beyond the timeout, down, or answering errors.
type FailurePolicy uint8

// Failure policies.
const (
	// FallbackMemory counts requests in an in-memory store while the
	// primary fails: limits hold per replica (N replicas admit up to N
	// times a limit in total) instead of across the site. The default:
	// agents are still limited and the site stays up.
	FallbackMemory FailurePolicy = iota
	// FailOpen admits every request the limits would have checked: the
	// site stays up and is unlimited while the primary fails.
	FailOpen
	// FailClosed refuses every rate-limited request with 503 Service
	// Unavailable and a Retry-After of the circuit's backoff: nothing goes
	// uncounted, and the site is closed to agents while the primary fails.
	FailClosed
)

var policyNames = [...]string{"fallback-memory", "fail-open", "fail-closed"}

func (p FailurePolicy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler with String, so that a
// FailurePolicy logs by name in JSON (log/slog, encoding/json), not as a number.
func (p FailurePolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Defaults of a Failover.
const (
	// DefaultStoreTimeout bounds how long a request waits for the primary
	// once its call starts. A local Redis answers in well under a
	// millisecond; the margin is for a busy process, whose goroutines
	// wait for a CPU: at 50 ms, a burst of 300 requests over two replicas
	// on the 2-core development machine timed out and was counted per
	// replica (TestRedisColdBurst).
	DefaultStoreTimeout = 200 * time.Millisecond
	// defaultMinBackoff is how long a Failover leaves a failed primary
	// alone before it sends one request to probe it.
	defaultMinBackoff = 250 * time.Millisecond
	// defaultMaxBackoff caps the backoff, which doubles at each failed
	// probe: a long outage costs one probe every 5 s.
	defaultMaxBackoff = 5 * time.Second
	// defaultQueueTimeout bounds how long a request waits for one of the
	// primary's connections (see ConcurrencyLimited) before the failure
	// policy answers it.
	defaultQueueTimeout = time.Second
)

// ConcurrencyLimited is implemented by a primary store that can have only
// so many calls in flight at once: redisstore.LimitStore answers its
// client's connection pool size. A Failover over it lets that many calls
// run and queues the others (at most WithQueueTimeout), so that the store
// timeout bounds a call's round trip, not its wait behind the other
// requests of a burst: a burst on a healthy Redis is counted in Redis, not
// by the failure policy. Calls of other users of the same client still
// take connections from the pool; give the limit store a client of its
// own for the bound to be exact.
type ConcurrencyLimited interface {
	// MaxConcurrent returns how many calls may be in flight at once; 0
	// for no bound.
	MaxConcurrent() int
}

var (
	// ErrDegraded is wrapped by the error a Failover returns when its
	// results are valid but did not come from the primary: the fallback
	// store answered (FallbackMemory), or every limit was passed
	// (FailOpen). The enforcer serves the results and marks the
	// Decision Degraded.
	ErrDegraded = errors.New("ratelimit: rate-limit store degraded")
	// ErrUnavailable is wrapped by the error a FailClosed Failover
	// returns while its primary fails: there are no results, and the
	// enforcer answers 503.
	ErrUnavailable = errors.New("ratelimit: rate-limit store unavailable")
)

// degradedError is the error of a degraded answer; errors.Is(err,
// ErrDegraded) holds. One value is made per failed probe, not per request.
type degradedError struct {
	// Policy is the policy that answered.
	Policy FailurePolicy
	// Err is the primary's failure.
	Err error
}

func (e *degradedError) Error() string {
	return "ratelimit: rate-limit store degraded (" + e.Policy.String() + "): " + e.Err.Error()
}

// Is reports ErrDegraded.
func (e *degradedError) Is(target error) bool { return target == ErrDegraded }

func (e *degradedError) Unwrap() error { return e.Err }

// UnavailableError is the error of FailClosed while the primary fails;
// errors.Is(err, ErrUnavailable) holds.
type UnavailableError struct {
	// RetryAfter is the circuit's backoff: the primary is probed again
	// within that time. The enforcer sends it as Retry-After.
	RetryAfter time.Duration
	// Err is the primary's failure.
	Err error
}

func (e *UnavailableError) Error() string {
	return "ratelimit: rate-limit store unavailable (fail-closed): " + e.Err.Error()
}

// Is reports ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

func (e *UnavailableError) Unwrap() error { return e.Err }

// FailoverEvent is a change of a Failover's state, handed to the
// WithOnStateChange hook: the primary started failing, or recovered.
type FailoverEvent struct {
	// Down is true when the primary started failing, false when it
	// recovered.
	Down bool
	// Policy is the Failover's failure policy.
	Policy FailurePolicy
	// Err is the failure that opened the circuit (Down only).
	Err error
	// Outage is how long the primary failed (recovery only).
	Outage time.Duration
}

// Failover is a Store that bounds and survives the failures of another
// one, normally a redisstore.LimitStore:
//
//	redisStore, _ := redisstore.NewLimitStore(client)
//	store, _ := ratelimit.NewFailover(redisStore) // FallbackMemory, 200ms
//	m, _ := agentready.New(site, agentready.WithStore(store))
//
// Each call to the primary is given at most the timeout (WithStoreTimeout).
// A primary that is ConcurrencyLimited has at most that many calls in
// flight; a request waits for its turn at most the queue timeout
// (WithQueueTimeout), and the round trip's timeout starts with its turn.
// A call that fails or times out, or a turn that does not come within the
// queue timeout, opens the circuit: the failure policy
// answers at once, and the primary is left alone for a backoff; then one
// request probes it (with the same timeout) while the others keep being
// answered by the policy. A failed probe doubles the backoff, up to its
// maximum; a successful one closes the circuit and requests go to the
// primary again. A down Redis therefore costs the requests in flight when
// it failed, and one probe per backoff, the timeout; the requests queued
// behind them for a turn are answered by the policy as soon as the
// circuit opens.
//
// While the circuit is open, answers follow the FailurePolicy. The
// FallbackMemory and FailOpen answers carry results and an error wrapping
// ErrDegraded; FailClosed answers an error wrapping ErrUnavailable (503).
// Each transition, down and up, is logged once (slog: Error when the
// circuit opens, Info when it closes) and handed to the WithOnStateChange
// hook; the enforcer's decision hook sees Degraded and the error on every
// request in between. A primary that recovers and fails again within the
// maximum backoff resumes the backoff where it stopped, so a flapping Redis
// logs at most two lines per maximum backoff.
//
// Invalid limits and the caller's own cancelled context are errors of the
// call, not of the primary: they are returned as they are. The caller's
// deadline is passed on to the primary when it is sooner than the
// timeout; its cancellation is not (that would cost allocations on every
// call), so a request that goes away waits at most the timeout.
type Failover struct {
	primary, fallback Store
	policy            FailurePolicy
	timeout           time.Duration
	minBackoff        time.Duration
	maxBackoff        time.Duration
	log               *slog.Logger
	hook              func(FailoverEvent)
	start             time.Time     // monotonic base of the int64 times below
	slots             chan struct{} // calls in flight (ConcurrencyLimited); nil: no bound
	queueTimeout      time.Duration

	down      atomic.Bool
	probing   atomic.Int64 // when the probe in flight started (+1), 0 for none
	nextProbe atomic.Int64 // nanoseconds since start
	outage    atomic.Pointer[outage]

	mu      sync.Mutex // transitions
	backoff time.Duration
	since   int64 // when the circuit opened
	upAt    int64 // when it last closed, -1 never
}

// outage holds the errors answered while the circuit is open, made once
// per failed probe so that degraded requests allocate nothing.
type outage struct {
	degraded    *degradedError
	unavailable *UnavailableError
}

// FailoverOption configures a Failover.
type FailoverOption func(*failoverConfig)

type failoverConfig struct {
	policy             FailurePolicy
	timeout            time.Duration
	minBackoff, maxOff time.Duration
	fallback           Store
	maxConcurrent      int // -1: the primary's MaxConcurrent
	queueTimeout       time.Duration
	log                *slog.Logger
	hook               func(FailoverEvent)
	errs               []error
}

// WithFailurePolicy sets what happens while the primary fails (default
// FallbackMemory).
func WithFailurePolicy(p FailurePolicy) FailoverOption {
	return func(c *failoverConfig) {
		if p > FailClosed {
			c.errs = append(c.errs, fmt.Errorf("ratelimit: WithFailurePolicy(%d): unknown policy", p))
			return
		}
		c.policy = p
	}
}

// WithStoreTimeout bounds each call to the primary (default
// DefaultStoreTimeout); a request never waits longer for it. A context
// that already ends sooner is used as it is.
func WithStoreTimeout(d time.Duration) FailoverOption {
	return func(c *failoverConfig) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("ratelimit: WithStoreTimeout(%v): must be positive", d))
			return
		}
		c.timeout = d
	}
}

// WithMaxConcurrent bounds the calls to the primary in flight at once (0:
// no bound), overriding the primary's own MaxConcurrent (see
// ConcurrencyLimited): the pool size of a client the Failover cannot ask,
// or less when other users share the pool.
func WithMaxConcurrent(n int) FailoverOption {
	return func(c *failoverConfig) {
		if n < 0 {
			c.errs = append(c.errs, fmt.Errorf("ratelimit: WithMaxConcurrent(%d): must not be negative", n))
			return
		}
		c.maxConcurrent = n
	}
}

// WithQueueTimeout bounds how long a request waits for its turn to call a
// ConcurrencyLimited primary (default defaultQueueTimeout); past it, the
// circuit opens, as for a failed call.
func WithQueueTimeout(d time.Duration) FailoverOption {
	return func(c *failoverConfig) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("ratelimit: WithQueueTimeout(%v): must be positive", d))
			return
		}
		c.queueTimeout = d
	}
}

// WithRetryBackoff sets how long a failed primary is left alone before
// the next probe: min after the first failure, doubling at each failed
// probe up to max (defaults defaultMinBackoff and defaultMaxBackoff).
func WithRetryBackoff(min, max time.Duration) FailoverOption {
	return func(c *failoverConfig) {
		if min <= 0 || max < min {
			c.errs = append(c.errs, fmt.Errorf("ratelimit: WithRetryBackoff(%v, %v): want 0 < min <= max", min, max))
			return
		}
		c.minBackoff, c.maxOff = min, max
	}
}

// WithFallbackStore sets the store FallbackMemory counts in while the
// primary fails (default: a new MemoryStore). Its buckets are kept across
// outages.
func WithFallbackStore(s Store) FailoverOption {
	return func(c *failoverConfig) {
		if s == nil {
			c.errs = append(c.errs, errors.New("ratelimit: WithFallbackStore: nil store"))
			return
		}
		c.fallback = s
	}
}

// WithFailoverLogger sets the logger of the transition lines (default
// slog.Default()).
func WithFailoverLogger(l *slog.Logger) FailoverOption {
	return func(c *failoverConfig) {
		if l == nil {
			c.errs = append(c.errs, errors.New("ratelimit: WithFailoverLogger: nil logger"))
			return
		}
		c.log = l
	}
}

// WithOnStateChange sets a hook called once per transition (a metric, an
// alert), on the goroutine of the request that observed it.
func WithOnStateChange(fn func(FailoverEvent)) FailoverOption {
	return func(c *failoverConfig) { c.hook = fn }
}

// NewFailover wraps primary. It reports every invalid option at once.
func NewFailover(primary Store, opts ...FailoverOption) (*Failover, error) {
	cfg := failoverConfig{
		policy:        FallbackMemory,
		timeout:       DefaultStoreTimeout,
		minBackoff:    defaultMinBackoff,
		maxOff:        defaultMaxBackoff,
		maxConcurrent: -1,
		queueTimeout:  defaultQueueTimeout,
		log:           slog.Default(),
	}
	if primary == nil {
		cfg.errs = append(cfg.errs, errors.New("ratelimit: NewFailover: nil primary store"))
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if len(cfg.errs) > 0 {
		return nil, errors.Join(cfg.errs...)
	}
	if cfg.policy == FallbackMemory && cfg.fallback == nil {
		ms, err := NewMemoryStore()
		if err != nil {
			return nil, err
		}
		cfg.fallback = ms
	}
	if cl, ok := primary.(ConcurrencyLimited); ok && cfg.maxConcurrent < 0 {
		cfg.maxConcurrent = cl.MaxConcurrent()
	}
	var slots chan struct{}
	if cfg.maxConcurrent > 0 {
		slots = make(chan struct{}, cfg.maxConcurrent)
	}
	return &Failover{
		primary:      primary,
		slots:        slots,
		queueTimeout: cfg.queueTimeout,
		fallback:     cfg.fallback,
		policy:       cfg.policy,
		timeout:      cfg.timeout,
		minBackoff:   cfg.minBackoff,
		maxBackoff:   cfg.maxOff,
		log:          cfg.log,
		hook:         cfg.hook,
		start:        time.Now(),
		upAt:         -1,
	}, nil
}

// Policy returns the failure policy.
func (f *Failover) Policy() FailurePolicy { return f.policy }

// Degraded reports whether the circuit is open: the primary failed and
// has not answered a probe since.
func (f *Failover) Degraded() bool { return f.down.Load() }

// Allow implements Store: the primary's answer, or the failure policy's.
func (f *Failover) Allow(ctx context.Context, limits []Limit, res []Result) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := CheckLimits(limits, res); err != nil {
		return err
	}
	if !f.down.Load() {
		err := f.enter(ctx)
		if err == nil && f.down.Load() {
			// The circuit opened while this request waited for its turn.
			f.leave()
			return f.degrade(ctx, limits, res)
		}
		if err == nil {
			if err = f.callInTurn(ctx, limits, res); err == nil {
				return nil
			}
			if cerr := callerError(ctx, err); cerr != nil {
				return cerr
			}
			return f.degrade(ctx, limits, res) // callInTurn opened the circuit
		}
		if cerr := callerError(ctx, err); cerr != nil {
			return cerr
		}
		f.fail(err, false)
	} else if f.probe() {
		err := f.call(ctx, limits, res)
		if err == nil {
			f.recover()
			return nil
		}
		if cerr := callerError(ctx, err); cerr != nil {
			f.probing.Store(0) // says nothing about the primary
			return cerr
		}
		f.fail(err, true)
	}
	return f.degrade(ctx, limits, res)
}

// Peek implements Peeker: the primary's answer while it is up and can
// peek, the fallback's otherwise (FallbackMemory), full buckets for
// FailOpen; it changes no circuit state, so explaining a request never
// trips or probes the primary. A store that cannot peek answers
// errNoPeek.
func (f *Failover) Peek(ctx context.Context, limits []Limit, res []Result) error {
	if err := CheckLimits(limits, res); err != nil {
		return err
	}
	// A peek takes a turn as a call does, but never waits for one: it must
	// not take a pool connection from a request that has its turn.
	if p, ok := f.primary.(Peeker); ok && !f.down.Load() && f.tryEnter() {
		if f.peekInTurn(ctx, p, limits, res) == nil {
			return nil
		}
	}
	switch f.policy {
	case FailOpen:
		fillOpen(limits, res)
		return nil
	case FailClosed:
		return errNoPeek
	}
	if p, ok := f.fallback.(Peeker); ok {
		return p.Peek(ctx, limits, res)
	}
	return errNoPeek
}

// errNoPeek: the store cannot say what Allow would answer (Explain then
// lists the limits without results).
var errNoPeek = errors.New("ratelimit: the store cannot peek")

// call runs the primary under the timeout (see timeoutCtx: the caller's
// cancellation is not passed on, its deadline is when sooner).
func (f *Failover) call(ctx context.Context, limits []Limit, res []Result) error {
	return f.bounded(ctx, f.primary.Allow, limits, res)
}

// bounded runs op, the primary's Allow or Peek, within the store timeout;
// a context that already ends sooner is used as it is.
func (f *Failover) bounded(ctx context.Context, op func(context.Context, []Limit, []Result) error, limits []Limit, res []Result) error {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= f.timeout {
		return op(ctx, limits, res)
	}
	tctx := withTimeout(ctx, f.timeout)
	err := op(tctx, limits, res)
	tctx.release()
	return err
}

// enter waits for a turn to call the primary: nil once it has one (leave
// gives it back), the caller's context error, or a *queueTimeoutError.
func (f *Failover) enter(ctx context.Context) error {
	if f.tryEnter() {
		return nil
	}
	t := time.NewTimer(f.queueTimeout) // only when queueing
	defer t.Stop()
	select {
	case f.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return &queueTimeoutError{Wait: f.queueTimeout, InFlight: cap(f.slots)}
	}
}

// callInTurn is call for a request that has a turn, which it gives back
// even if the primary panics. A failure of the primary opens the circuit
// before the turn is given back, so that a request queued for it sees the
// circuit open and does not call the failing primary again.
func (f *Failover) callInTurn(ctx context.Context, limits []Limit, res []Result) error {
	defer f.leave()
	err := f.call(ctx, limits, res)
	if err != nil && callerError(ctx, err) == nil {
		f.fail(err, false)
	}
	return err
}

// peekInTurn is the primary's Peek for a call that has a turn, which it
// gives back even if the primary panics.
func (f *Failover) peekInTurn(ctx context.Context, p Peeker, limits []Limit, res []Result) error {
	defer f.leave()
	return f.bounded(ctx, p.Peek, limits, res)
}

// tryEnter takes a turn if one is free, without waiting.
func (f *Failover) tryEnter() bool {
	if f.slots == nil {
		return true
	}
	select {
	case f.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

func (f *Failover) leave() {
	if f.slots != nil {
		<-f.slots
	}
}

// queueTimeoutError is the failure of a request that did not get its turn
// to call a ConcurrencyLimited primary within the queue timeout: the
// primary is not keeping up.
type queueTimeoutError struct {
	Wait     time.Duration // the queue timeout
	InFlight int           // the calls in flight it waited behind
}

func (e *queueTimeoutError) Error() string {
	return fmt.Sprintf("ratelimit: no turn to call the rate-limit store within %v (%d calls in flight)", e.Wait, e.InFlight)
}

// callerError returns the error to answer when a call failed through the
// caller's fault rather than the primary's: the caller's context ended
// (its error), or a limit is invalid. It returns nil for the primary's
// failures.
func callerError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if errors.Is(err, ErrInvalidLimit) || errors.Is(err, ErrShortResults) ||
		errors.Is(err, ErrDuplicateLimit) || errors.Is(err, ErrCrossSlot) {
		return err
	}
	return nil
}

func (f *Failover) now() int64 { return int64(time.Since(f.start)) }

// probe reports whether this request is the one to probe the primary: the
// backoff has passed and no other request is probing. A probe that never
// reported back (its primary panicked) is given up after the timeout and
// the longest backoff, so the circuit cannot stay open for good.
func (f *Failover) probe() bool {
	now := f.now()
	if now < f.nextProbe.Load() {
		return false
	}
	old := f.probing.Load()
	if old != 0 && now+1-old < int64(f.timeout+f.maxBackoff) {
		return false
	}
	return f.probing.CompareAndSwap(old, now+1)
}

// fail records a failure: it opens the circuit, or, for a failed probe,
// extends the backoff. A failure of a request that was in flight when
// another one opened the circuit changes nothing.
func (f *Failover) fail(err error, probe bool) {
	f.mu.Lock()
	now := f.now()
	opened := !f.down.Load()
	switch {
	case opened:
		if f.upAt >= 0 && time.Duration(now-f.upAt) < f.maxBackoff {
			// Failing again soon after recovering: resume the backoff.
			f.backoff = min(2*f.backoff, f.maxBackoff)
		} else {
			f.backoff = f.minBackoff
		}
		f.since = now
	case probe:
		f.backoff = min(2*f.backoff, f.maxBackoff)
	default:
		f.mu.Unlock()
		return
	}
	f.outage.Store(&outage{
		degraded:    &degradedError{Policy: f.policy, Err: err},
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
	f.log.Error("agentready: rate-limit store failed; limits follow the failure policy until it recovers",
		"policy", f.policy.String(), "err", err, "retry_in", backoff)
	if f.hook != nil {
		f.hook(FailoverEvent{Down: true, Policy: f.policy, Err: err})
	}
}

// recover closes the circuit after a successful probe.
func (f *Failover) recover() {
	f.mu.Lock()
	now := f.now()
	outage := time.Duration(now - f.since)
	f.upAt = now
	f.down.Store(false)
	f.probing.Store(0)
	f.mu.Unlock()
	f.log.Info("agentready: rate-limit store recovered", "policy", f.policy.String(), "outage", outage)
	if f.hook != nil {
		f.hook(FailoverEvent{Down: false, Policy: f.policy, Outage: outage})
	}
}

// fillOpen answers FailOpen's results: as if every request found a full
// bucket.
func fillOpen(limits []Limit, res []Result) {
	for i := range limits {
		l := &limits[i]
		res[i] = Result{Allowed: true, Limit: l.Rate, Remaining: l.Rate - 1, Reset: l.Period / time.Duration(l.Rate)}
	}
}

// degrade answers by the failure policy.
func (f *Failover) degrade(ctx context.Context, limits []Limit, res []Result) error {
	o := f.outage.Load()
	switch f.policy {
	case FailOpen:
		fillOpen(limits, res)
		return o.degraded
	case FailClosed:
		return o.unavailable
	}
	if err := f.fallback.Allow(ctx, limits, res); err != nil {
		return err
	}
	return o.degraded
}
