package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

var _ Peeker = (*failover)(nil)

// The failure policies: what a store made by NewFailover does while its
// primary (Redis) is failing, slow beyond the timeout, down, or answering
// errors (FailoverConfig.Policy).
const (
	// FallbackMemory counts requests in an in-memory store while the
	// primary fails: limits hold per replica (N replicas admit up to N
	// times a limit in total) instead of across the site. The default:
	// agents are still limited and the site stays up.
	FallbackMemory = "fallback-memory"
	// FailOpen admits every request the limits would have checked: the
	// site stays up and is unlimited while the primary fails.
	FailOpen = "fail-open"
	// FailClosed refuses every rate-limited request with 503 Service
	// Unavailable and a Retry-After of the circuit's backoff: nothing goes
	// uncounted, and the site is closed to agents while the primary fails.
	FailClosed = "fail-closed"
)

// FailoverConfig configures NewFailover. The zero value is the default.
type FailoverConfig struct {
	// Policy is what happens while the primary fails: FallbackMemory (the
	// default), FailOpen or FailClosed.
	Policy string
	// Timeout bounds each call to the primary (default 200ms); a request
	// never waits longer for it.
	Timeout time.Duration
	// MaxConcurrent bounds the calls to the primary in flight at once.
	// Zero asks the primary (redisstore's answers its pool size); a
	// negative value means no bound.
	MaxConcurrent int
	// QueueTimeout bounds how long a request waits for its turn to call
	// the primary when MaxConcurrent calls are in flight (default 1s);
	// past it, the circuit opens, as for a failed call.
	QueueTimeout time.Duration
	// MinBackoff is how long a failed primary is left alone before one
	// request probes it (default 250ms); it doubles at each failed probe,
	// up to MaxBackoff (default 5s, or MinBackoff if longer): a long outage
	// costs one probe every MaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// Fallback is the store FallbackMemory counts in while the primary
	// fails (default NewMemoryStore's). Its buckets are kept across
	// outages.
	Fallback Store
	// Logger receives the transition lines (default slog.Default()).
	Logger *slog.Logger
	// OnStateChange, if set, is called once per transition (a metric, an
	// alert), on the goroutine of the request that observed it.
	OnStateChange func(FailoverEvent)
}

// FailoverEvent is a change of a failover store's state, handed to
// FailoverConfig.OnStateChange: the primary started failing, or recovered.
type FailoverEvent struct {
	// Down is true when the primary started failing, false when it
	// recovered.
	Down bool
	// Policy is the failure policy.
	Policy string
	// Err is the failure that opened the circuit (Down only).
	Err error
	// Outage is how long the primary failed (recovery only).
	Outage time.Duration
}

// ErrDegraded is wrapped by the error a failover store returns when its
// results are valid but did not come from the primary: the fallback store
// answered (FallbackMemory), or every limit was passed (FailOpen). The
// enforcer serves the results and marks the Decision Degraded.
var ErrDegraded = errors.New("ratelimit: rate-limit store degraded")

// UnavailableError is the error of a FailClosed failover store while its
// primary fails (errors.As finds it): there are no results, and the
// enforcer answers 503.
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

// Unwrap returns the primary's failure.
func (e *UnavailableError) Unwrap() error { return e.Err }

// degradedError is the error of a degraded answer; errors.Is(err,
// ErrDegraded) holds.
type degradedError struct {
	policy string
	err    error // the primary's failure
}

func (e *degradedError) Error() string {
	return "ratelimit: rate-limit store degraded (" + e.policy + "): " + e.err.Error()
}

func (e *degradedError) Unwrap() []error { return []error{ErrDegraded, e.err} }

// NewFailover returns a Store that bounds and survives the failures of
// primary, normally redisstore's:
//
//	redisStore, _ := redisstore.NewLimitStore(client)
//	store, _ := ratelimit.NewFailover(redisStore, ratelimit.FailoverConfig{}) // FallbackMemory, 200ms
//	m, _ := agentready.New(site, agentready.WithStore(store))
//
// A call that fails or outlasts the Timeout (or the QueueTimeout for its
// turn) opens the circuit: the failure policy answers at once, and one
// request probes the primary after each backoff until a probe succeeds.
// FallbackMemory and FailOpen answers carry results and an error wrapping
// ErrDegraded; FailClosed answers an *UnavailableError (503). Each
// transition is logged once and handed to OnStateChange. Invalid limits
// and the caller's cancelled context are returned as they are.
//
// The store returned implements Peeker and has a method Degraded() bool,
// true while the circuit is open. NewFailover reports every invalid
// setting at once.
func NewFailover(primary Store, cfg FailoverConfig) (Store, error) {
	var errs []error
	if primary == nil {
		errs = append(errs, errors.New("ratelimit: NewFailover: nil primary store"))
	}
	switch cfg.Policy {
	case "":
		cfg.Policy = FallbackMemory
	case FallbackMemory, FailOpen, FailClosed:
	default:
		errs = append(errs, fmt.Errorf("ratelimit: FailoverConfig.Policy %q: unknown policy", cfg.Policy))
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"Timeout", &cfg.Timeout, 200 * time.Millisecond},
		{"QueueTimeout", &cfg.QueueTimeout, time.Second},
		{"MinBackoff", &cfg.MinBackoff, 250 * time.Millisecond},
		{"MaxBackoff", &cfg.MaxBackoff, max(5*time.Second, cfg.MinBackoff)},
	} {
		if *d.v < 0 {
			errs = append(errs, fmt.Errorf("ratelimit: FailoverConfig.%s %v: must not be negative", d.name, *d.v))
		} else if *d.v == 0 {
			*d.v = d.def
		}
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		errs = append(errs, fmt.Errorf("ratelimit: FailoverConfig.MaxBackoff %v is below MinBackoff %v", cfg.MaxBackoff, cfg.MinBackoff))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.Policy == FallbackMemory && cfg.Fallback == nil {
		cfg.Fallback, _ = NewMemoryStore(MemoryConfig{})
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cl, ok := primary.(interface{ MaxConcurrent() int }); ok && cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = cl.MaxConcurrent()
	}
	f := &failover{cfg: cfg, primary: primary, start: clock.Monotonic(), upAt: -1}
	if cfg.MaxConcurrent > 0 {
		f.turns = make(chan struct{}, cfg.MaxConcurrent)
	}
	return f, nil
}

type failover struct {
	cfg     FailoverConfig
	primary Store
	start   time.Time     // monotonic base of the int64 times below
	turns   chan struct{} // calls in flight; nil: no bound

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
// per failed probe rather than per request.
type outage struct {
	degraded    *degradedError
	unavailable *UnavailableError
}

// Degraded reports whether the circuit is open: the primary failed and
// has not answered a probe since.
func (f *failover) Degraded() bool { return f.down.Load() }

// Allow implements Store: the primary's answer, or the failure policy's.
func (f *failover) Allow(ctx context.Context, limits []Limit, res []Result) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := CheckLimits(limits, res); err != nil {
		return err
	}
	if f.down.Load() {
		if !f.probe() {
			return f.degrade(ctx, limits, res)
		}
		err := f.call(ctx, f.primary.Allow, limits, res)
		if err == nil {
			f.recover()
			return nil
		}
		if cerr := callerError(ctx, err); cerr != nil {
			f.probing.Store(0) // says nothing about the primary
			return cerr
		}
		f.fail(err, true)
		return f.degrade(ctx, limits, res)
	}
	if err := f.enter(ctx); err != nil {
		if cerr := callerError(ctx, err); cerr != nil {
			return cerr
		}
		f.fail(err, false)
		return f.degrade(ctx, limits, res)
	}
	if f.down.Load() {
		// The circuit opened while this request waited for its turn.
		f.leave()
		return f.degrade(ctx, limits, res)
	}
	err := f.callInTurn(ctx, limits, res)
	if err == nil {
		return nil
	}
	if cerr := callerError(ctx, err); cerr != nil {
		return cerr
	}
	return f.degrade(ctx, limits, res) // callInTurn opened the circuit
}

// Peek implements Peeker: the primary's answer while it is up and can
// peek, the fallback's otherwise (FallbackMemory), full buckets for
// FailOpen; it changes no circuit state, so explaining a request never
// trips or probes the primary. A store that cannot peek answers
// errNoPeek.
func (f *failover) Peek(ctx context.Context, limits []Limit, res []Result) error {
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
	switch f.cfg.Policy {
	case FailOpen:
		fillOpen(limits, res)
		return nil
	case FailClosed:
		return errNoPeek
	}
	if p, ok := f.cfg.Fallback.(Peeker); ok {
		return p.Peek(ctx, limits, res)
	}
	return errNoPeek
}

// errNoPeek: the store cannot say what Allow would answer (Explain then
// lists the limits without results).
var errNoPeek = errors.New("ratelimit: the store cannot peek")

// call runs op, the primary's Allow or Peek, within the timeout and the
// caller's context.
func (f *failover) call(ctx context.Context, op func(context.Context, []Limit, []Result) error, limits []Limit, res []Result) error {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	return op(ctx, limits, res)
}

// callInTurn is call for a request that has a turn, which it gives back
// even if the primary panics. A failure of the primary opens the circuit
// before the turn is given back, so that a request queued for it sees the
// circuit open and does not call the failing primary again.
func (f *failover) callInTurn(ctx context.Context, limits []Limit, res []Result) error {
	defer f.leave()
	err := f.call(ctx, f.primary.Allow, limits, res)
	if err != nil && callerError(ctx, err) == nil {
		f.fail(err, false)
	}
	return err
}

// peekInTurn is the primary's Peek for a call that has a turn, which it
// gives back even if the primary panics.
func (f *failover) peekInTurn(ctx context.Context, p Peeker, limits []Limit, res []Result) error {
	defer f.leave()
	return f.call(ctx, p.Peek, limits, res)
}

// callerError returns the error to answer when a call failed through the
// caller's fault rather than the primary's: the caller's context ended
// (its error), or the limits are invalid. It returns nil for the
// primary's failures.
func callerError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if errors.Is(err, ErrInvalidLimit) {
		return err
	}
	return nil
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
func (f *failover) degrade(ctx context.Context, limits []Limit, res []Result) error {
	o := f.outage.Load()
	switch f.cfg.Policy {
	case FailOpen:
		fillOpen(limits, res)
		return o.degraded
	case FailClosed:
		return o.unavailable
	}
	if err := f.cfg.Fallback.Allow(ctx, limits, res); err != nil {
		return err
	}
	return o.degraded
}
