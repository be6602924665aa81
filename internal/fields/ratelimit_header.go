// Package fields renders the HTTP fields agentready writes, in their
// structured-field syntax (RFC 9651): RateLimit and RateLimit-Policy, and
// the Agentready-Decision field of a request passed on.
package fields

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/ratelimit"
)

// Header names: the RateLimit fields of
// draft-ietf-httpapi-ratelimit-headers-11 (May 2026; it replaced the
// RateLimit-Limit/-Remaining/-Reset trio of revisions up to -06), in
// net/http's canonical form, so that setting them as map keys allocates
// no canonical key on every response.
const (
	RateLimit       = "Ratelimit"
	RateLimitPolicy = "Ratelimit-Policy"
	RetryAfter      = "Retry-After"
)

// ValidPolicyName reports whether name can be sent as a policy name. The
// draft (section 3) makes the policy identifier an sf-string (RFC 8941
// section 3.3.3), which holds only printable ASCII, 0x20 to 0x7E; '"' and
// '\' are escaped when rendered. An empty name identifies nothing and is
// rejected too.
func ValidPolicyName(name string) error {
	if name == "" {
		return errors.New("enforce: empty rate-limit policy name")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("enforce: rate-limit policy name %q: byte %#02x at %d is not printable ASCII (sf-string, RFC 8941 3.3.3)", name, c, i)
		}
	}
	return nil
}

// PolicyHeader renders the RateLimit-Policy field value for limits, once,
// when the policy is compiled (draft section 3):
//
//	"agent";q=200;w=60, "site";q=1000;w=3600
//
// q is the quota, Limit.Rate (3.1.1); w is the window in whole seconds,
// rounded up and at least 1, since the draft has no sub-second windows
// (3.1.3). No partition key (pk, 3.1.4) is sent: it would echo the client's
// address. Every invalid name or rate is reported at once. No limits give
// "", which means the field is not sent (the draft's List is non-empty).
func PolicyHeader(limits []ratelimit.Limit) (string, error) {
	var errs []error
	list := make(httpsfv.List, 0, len(limits))
	for i, l := range limits {
		if err := ValidPolicyName(l.Name); err != nil {
			errs = append(errs, fmt.Errorf("limits[%d]: %w", i, err))
			continue
		}
		if err := ratelimit.CheckLimits(limits[i:i+1], make([]ratelimit.Result, 1)); err != nil {
			errs = append(errs, fmt.Errorf("limits[%d]: %w", i, err))
			continue
		}
		item := httpsfv.NewItem(l.Name)
		item.Params.Add("q", int64(l.Rate))
		item.Params.Add("w", ceilSeconds(l.Period))
		list = append(list, item)
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	if len(list) == 0 {
		return "", nil
	}
	return httpsfv.Marshal(list)
}

// RateLimitField renders the RateLimit field of one set of limits (an agent
// policy and capability pair's). Its elements are what depends only on the
// limits, rendered when the policy is compiled: each limit's name as an
// sf-string, and ";r=".
type RateLimitField []string

// NewRateLimitField renders the parts of limits' RateLimit field that do
// not change from one request to the next.
func NewRateLimitField(limits []ratelimit.Limit) RateLimitField {
	f := make(RateLimitField, len(limits))
	for i, l := range limits {
		f[i] = SFString(l.Name) + ";r="
	}
	return f
}

// Value returns the RateLimit field value for one request (draft section
// 4), one Service Limit Item per limit:
//
//	"agent";r=0;t=12, "site";r=41;t=1
//
// r is Result.Remaining (4.1.1); t is effectiveWindow in whole seconds,
// rounded up (4.1.2). limits and res are the request's, in the order
// NewRateLimitField was given.
func (f RateLimitField) Value(limits []ratelimit.Limit, res []ratelimit.Result) string {
	var buf [256]byte // most values fit: one allocation, the string
	b := buf[:0]
	for i := range min(len(f), len(limits), len(res)) {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, f[i]...)
		b = strconv.AppendInt(b, int64(max(res[i].Remaining, 0)), 10)
		b = append(b, ";t="...)
		b = strconv.AppendInt(b, ceilSeconds(effectiveWindow(limits[i].Rate, limits[i].Period, &res[i])), 10)
	}
	return string(b)
}

// effectiveWindow is the draft's "effective window" (section 4.1.2) for a
// token bucket: "the time within which the client can use no more than the
// available quota", that is, the time until Remaining next grows by one.
// For a denied limit that is RetryAfter, so a Retry-After sent with the
// RateLimit field never points earlier than the end of the window, as
// section 6 asks. It is 0 for a full bucket.
//
// It is derived from the Result, whose Reset is the time until the bucket is
// full: the next token arrives Reset minus (Limit-Remaining-1) emission
// intervals of Period/Rate from now. Reset is not sent as t because a
// client may use more than r within it, as tokens keep arriving.
func effectiveWindow(rate int, period time.Duration, r *ratelimit.Result) time.Duration {
	if !r.Allowed {
		return max(r.RetryAfter, 0)
	}
	if rate <= 0 || period <= 0 || r.Remaining >= rate || r.Reset <= 0 {
		return 0
	}
	k := uint64(rate - max(r.Remaining, 0) - 1)
	// k*Period/Rate without overflow; k < Rate keeps the quotient below
	// Period and hi below Rate, as Div64 requires.
	hi, lo := bits.Mul64(k, uint64(period))
	q := lo / uint64(rate)
	if hi != 0 {
		q, _ = bits.Div64(hi, lo, uint64(rate))
	}
	w := r.Reset - time.Duration(q)
	if w < 0 {
		return 0
	}
	return w
}

// ceilSeconds rounds d up to whole seconds, at least 1 for a positive d and
// 0 otherwise.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}

// SFString renders s as an sf-string (RFC 9651 section 4.1.6) for a
// diagnostic field: bytes an sf-string cannot hold (controls, non-ASCII)
// become '?'.
func SFString(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	v, _ := httpsfv.Marshal(httpsfv.NewItem(string(b))) // cannot fail: printable ASCII
	return v
}
