package ratelimit

import (
	"math/bits"
	"time"
)

// span is a non-negative duration held exactly: ns + frac/rate nanoseconds,
// 0 <= frac < rate, rate being the bucket's Limit.Rate.
type span struct {
	ns   int64
	frac uint64
}

func (a span) add(b span, rate uint64) span {
	f := a.frac + b.frac // both below rate <= 2^63: no overflow
	ns := a.ns + b.ns
	if f >= rate {
		f -= rate
		ns++
	}
	return span{ns, f}
}

// times is a multiplied by c, with the same rate.
func (a span) times(c, rate uint64) span {
	hi, lo := bits.Mul64(a.frac, c)
	q, r := bits.Div64(hi, lo, rate) // hi < rate: a.frac < rate
	return span{a.ns*int64(c) + int64(q), r}
}

// ceil rounds up to whole nanoseconds, so that a client waiting that long
// really finds what it was promised.
func (a span) ceil() time.Duration {
	if a.frac > 0 {
		return time.Duration(a.ns + 1)
	}
	return time.Duration(a.ns)
}

// bucket is one GCRA cell.
type bucket struct {
	name string
	// tat + frac/rate is the theoretical arrival time, in nanoseconds since
	// the store's epoch. At or before now the bucket is full.
	tat      int64
	frac     uint64
	rate     uint64
	period   int64
	interval span // the emission interval period/rate
}

// configure (re)starts b as a full bucket for l.
func (b *bucket) configure(l *Limit, now int64) {
	b.rate, b.period = uint64(l.Rate), int64(l.Period)
	b.interval = span{b.period / int64(b.rate), uint64(b.period) % b.rate}
	b.tat, b.frac = now, 0
}

// reconfigure applies a changed Rate or Period to an existing bucket. The
// debt in time is kept, capped at the new period: the client waits what it
// would have waited, and no longer than a whole new window.
func (b *bucket) reconfigure(l *Limit, now int64) {
	d := b.debt(now)
	b.configure(l, now)
	if d.ns >= b.period {
		return // full debt: tat = now + period
	}
	b.tat = now + d.ns
	// frac was in units of the old rate; round it up to one of the new
	// rate so the debt never shrinks.
	if d.frac > 0 {
		b.frac = 1
	}
}

// debt is how far the TAT lies ahead of now: the time until the bucket is
// full. It is at most the period.
func (b *bucket) debt(now int64) span {
	if b.full(now) {
		return span{}
	}
	return span{b.tat - now, b.frac}
}

// full reports whether b has refilled completely.
func (b *bucket) full(now int64) bool {
	return b.tat < now || (b.tat == now && b.frac == 0)
}

// step is what a request of cost tokens adds to the debt: cost intervals.
func (b *bucket) step(cost int) span {
	if cost == 1 {
		return b.interval
	}
	return b.interval.times(uint64(cost), b.rate)
}

// fits reports whether one more request fits: debt plus its step is
// within the period (GCRA: new TAT minus the burst offset is not after now).
func (b *bucket) fits(d, step span) bool {
	s := d.add(step, b.rate)
	return s.ns < b.period || (s.ns == b.period && s.frac == 0)
}

// remaining is the number of whole requests that fit within debt d:
// floor((period - d) / interval) = floor(((period - d.ns) * rate - d.frac) / period).
func (b *bucket) remaining(d span) int {
	if d.ns > b.period || (d.ns == b.period && d.frac > 0) {
		return 0 // only after the clock stepped back
	}
	hi, lo := bits.Mul64(uint64(b.period-d.ns), b.rate)
	lo, borrow := bits.Sub64(lo, d.frac, 0)
	hi -= borrow
	// hi < period because rate < 2^64, as Div64 requires.
	q, _ := bits.Div64(hi, lo, uint64(b.period))
	return int(q)
}
