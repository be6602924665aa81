package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Store holds rate-limit buckets, with the semantics of the package
// documentation; every store passes the suite in ratelimit/ratelimittest.
type Store interface {
	// Allow consumes one token from every limit if and only if all of them
	// have one. res must have at least len(limits) elements; res[i] is
	// written for limits[i]. The request is allowed when every res[i].Allowed
	// is true (see Allowed). Allow returns ctx.Err() for a context that is
	// already done, and an error for invalid limits, without touching any
	// bucket; it never panics on bad input.
	Allow(ctx context.Context, limits []Limit, res []Result) error
}

// Peeker is a Store that can also say what Allow would answer now without
// consuming, creating or refreshing anything (for Explain). The stores of
// NewMemoryStore, NewFailover and redisstore.NewLimitStore implement it.
type Peeker interface {
	Store
	// Peek answers as Allow would now; it returns the same errors.
	Peek(ctx context.Context, limits []Limit, res []Result) error
}

// Limit is one bucket a request must draw a token from, identified by
// (Name, Key): Key says whose bucket it is, Name which of that client's
// limits.
type Limit struct {
	// Name is the policy name sent in the RateLimit headers: "site",
	// "agent:claude", "capability:product-search" (printable ASCII). Names
	// come from the compiled policy, never from the request.
	Name string
	// Key says whose bucket it is.
	Key Key
	// Rate is the number of requests per Period, which is also the burst.
	Rate int
	// Period is the window the Rate is declared over.
	Period time.Duration
	// Cost is the tokens a request takes, for expensive calls: 0 or 1
	// take one; at most Rate. Remaining counts tokens, not requests.
	Cost int
}

// cost is the tokens a request of l takes.
func (l *Limit) cost() int { return max(l.Cost, 1) }

// Key identifies whose bucket a Limit draws from: a network prefix plus an
// optional partition, so that no IP address is formatted per request. It is
// comparable.
type Key struct {
	// Net is the client's network: its address, an IPv6 client's /64. The
	// zero Prefix means the bucket is shared by every client.
	Net netip.Prefix
	// ID further partitions the bucket; "" for none.
	ID string
}

// Result is the outcome of one Limit in one Allow call. The field names
// follow redis_rate.
type Result struct {
	// Allowed reports whether this limit had a token. The request was
	// served (and tokens consumed) only if every limit had one.
	Allowed bool
	// Limit is the quota, Limit.Rate (RateLimit-Policy "q").
	Limit int
	// Remaining is the number of whole tokens left after this request: one
	// fewer than before when the request was allowed, unchanged when it was
	// denied, 0 for the limit that denied it (RateLimit "r").
	Remaining int
	// RetryAfter is, for a limit that had no token, the time until one
	// really exists; it is 0 when Allowed.
	RetryAfter time.Duration
	// Reset is the time until the bucket is full again if no request
	// arrives (redis_rate ResetAfter).
	Reset time.Duration
}

// maxPeriod is the longest Limit.Period a store accepts: a century, far
// beyond the day-long windows agent declarations use, and short enough that
// time arithmetic on it cannot overflow.
const maxPeriod = 100 * 365 * 24 * time.Hour

// ErrInvalidLimit is wrapped by the error of a Store call whose arguments
// are invalid: a Limit whose Rate or Period is not positive, whose Period
// exceeds a century or whose Name is empty, the same (Name, Key) twice
// (one request cannot draw two tokens from one bucket), fewer results than
// limits, or limits a store cannot check together (a Redis Cluster store
// given the limits of two clients).
var ErrInvalidLimit = errors.New("ratelimit: invalid rate limit")

// CheckLimits validates the arguments of Store.Allow. Stores call it before
// touching any bucket so that they all reject the same inputs the same way.
func CheckLimits(limits []Limit, res []Result) error {
	if len(res) < len(limits) {
		return fmt.Errorf("%w: %d results for %d limits", ErrInvalidLimit, len(res), len(limits))
	}
	for i := range limits {
		l := &limits[i]
		if !l.valid() {
			return fmt.Errorf("%w: %q: %d per %v at a cost of %d", ErrInvalidLimit, l.Name, l.Rate, l.Period, l.Cost)
		}
		if l.Name == "" {
			// A bucket needs its name (validPolicyName); the Redis store
			// keeps a key's deadline under the empty field.
			return fmt.Errorf("%w: a limit without a name", ErrInvalidLimit)
		}
		for j := range i {
			if limits[j].Name == l.Name && limits[j].Key == l.Key {
				return fmt.Errorf("%w: the bucket %q is listed twice", ErrInvalidLimit, l.Name)
			}
		}
	}
	return nil
}

func (l *Limit) valid() bool {
	return l.Rate > 0 && l.Period > 0 && l.Period <= maxPeriod && l.Cost >= 0 && l.Cost <= l.Rate
}

// Allowed reports whether a request with these results was served: every
// limit had a token.
func Allowed(res []Result) bool {
	for i := range res {
		if !res[i].Allowed {
			return false
		}
	}
	return true
}
