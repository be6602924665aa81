package enforce

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// Header names. The RateLimit fields are those of
// draft-ietf-httpapi-ratelimit-headers-11 (May 2026), which replaced the
// RateLimit-Limit/-Remaining/-Reset trio of revisions up to -06 with two
// structured fields. net/http canonicalises them to "Ratelimit" and
// "Ratelimit-Policy"; field names are case-insensitive.
const (
	headerRateLimit       = "RateLimit"
	headerRateLimitPolicy = "RateLimit-Policy"
	headerRetryAfter      = "Retry-After"
)

// validPolicyName reports whether name can be sent as a policy name. The
// draft (section 3) makes the policy identifier an sf-string (RFC 8941
// section 3.3.3), which holds only printable ASCII, 0x20 to 0x7E; '"' and
// '\' are escaped when rendered. An empty name identifies nothing and is
// rejected too.
func validPolicyName(name string) error {
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

// policyHeader renders the RateLimit-Policy field value for limits, once,
// when the policy is compiled (draft section 3):
//
//	"agent";q=200;w=60, "site";q=1000;w=3600
//
// q is the quota, Limit.Rate (3.1.1); w is the window in whole seconds,
// rounded up and at least 1, since the draft has no sub-second windows
// (3.1.3). No partition key (pk, 3.1.4) is sent: it would echo the client's
// address. Every invalid name or rate is reported at once. No limits give
// "", which means the field is not sent (the draft's List is non-empty).
func policyHeader(limits []ratelimit.Limit) (string, error) {
	var errs []error
	var b []byte
	for i, l := range limits {
		if err := validPolicyName(l.Name); err != nil {
			errs = append(errs, fmt.Errorf("limits[%d]: %w", i, err))
		}
		if err := ratelimit.CheckLimits(limits[i:i+1], make([]ratelimit.Result, 1)); err != nil && l.Name != "" {
			errs = append(errs, fmt.Errorf("limits[%d]: %w", i, err))
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendSFString(b, l.Name)
		b = append(b, ";q="...)
		b = strconv.AppendInt(b, int64(l.Rate), 10)
		b = append(b, ";w="...)
		b = strconv.AppendInt(b, ceilSeconds(l.Period), 10)
	}
	if len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	return string(b), nil
}

// rateValues renders the RateLimit values of one set of limits (an agent
// policy and capability pair's), and shares each value with later
// responses that say the same (docs/design.md, "The RateLimit value").
//
// A value says nothing but each limit's r and t, and clients within their
// limits see few distinct pairs: a client whose buckets have refilled gets
// r = quota - 1 and t = one emission interval, whoever it is.
// BenchmarkRateLimitValueRepeats measures how often responses share a
// value; a shared value costs a fifth of a fresh one
// (BenchmarkRateLimitHeader).
//
// Sharing is safe for handlers that use http.Header's methods: Set and Del
// replace the slice, and Add appends to a slice of capacity 1, which
// copies it. A handler writing into the slice in place would change the
// value later responses send (and race with those being written), as it
// would for RateLimit-Policy and Link, which are shared too.
type rateValues struct {
	// parts is the text that depends only on the limits: before each
	// limit's r, its name as an sf-string (and the list separator), so
	// that a response appends only its numbers.
	parts []string
	table *rateTable // the Enforcer's, shared by every set of limits
	seed  uint64     // starts the hash, so that sets of limits spread over table
}

// rateTable holds the values an Enforcer rendered most recently, for every
// set of limits, each in the slot its set and numbers hash to. A value
// rendered for a slot replaces the one there when it is rendered a second
// time in a row for that slot (seen): values that do not repeat, a busy
// client's, are not kept and cost no more than a value of their own. Reads
// take no lock. The table is 16 KB, and the values it holds about 170 KB at
// most.
type rateTable struct {
	values [1 << rateSlotBits]atomic.Pointer[rateValue]
	seen   [1 << rateSlotBits]atomic.Uint64 // hash of the last value not kept
}

// rateSlotBits sizes the rateTable: with 1024 slots, 67% of values are
// shared even when clients load their limits from 1% to 200%; with 64,
// 48% (BenchmarkRateLimitValueRepeats).
const rateSlotBits = 10

// rateValue is one rendered value and what it was rendered from.
type rateValue struct {
	owner *rateValues
	n     int // limits
	nums  rateNums
	value [1]string // shared as value[:], whose capacity is 1
}

// rateNums are the r and t of each limit, in order; a request has at most
// three limits (Decision.Limits).
type rateNums [6]int64

// newRateValues renders the parts of limits, once, when the policy is
// compiled; their values are kept in table. id tells this set of limits
// from the table's others.
func newRateValues(table *rateTable, id uint64, limits []ratelimit.Limit) *rateValues {
	if len(limits) > len(rateNums{})/2 {
		panic("enforce: more limits than a RateLimit value holds") // New builds at most three
	}
	// The hash XORs the seed into the first limit's r: ids, which are
	// small and consecutive, are spread over all 64 bits first, or sets
	// 2 and 3 would give r=999 and r=998 one hash (and one slot, taken in
	// turn, never shared).
	c := &rateValues{parts: make([]string, len(limits)), table: table, seed: (id + 1) * 0xbf58476d1ce4e5b9}
	for i := range limits {
		var b []byte
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendSFString(b, limits[i].Name)
		c.parts[i] = string(append(b, ";r="...))
	}
	return c
}

// header returns the RateLimit field value for one request (draft section
// 4) as the []string an http.Header holds, one Service Limit Item per
// limit:
//
//	"agent";r=0;t=12, "site";r=41;t=1
//
// r is Result.Remaining (4.1.1); t is effectiveWindow in whole seconds,
// rounded up (4.1.2). limits and res are the request's, in the order
// newRateValues was given.
func (c *rateValues) header(limits []ratelimit.Limit, res []ratelimit.Result) []string {
	var nums rateNums
	n := c.numbers(&nums, limits, res)
	return c.value(&nums, n)
}

// numbers sets nums to what the value says for limits and res, and returns
// for how many limits.
func (c *rateValues) numbers(nums *rateNums, limits []ratelimit.Limit, res []ratelimit.Result) int {
	n := min(len(c.parts), len(limits), len(res))
	for i := range n {
		nums[2*i] = int64(max(res[i].Remaining, 0))
		nums[2*i+1] = ceilSeconds(effectiveWindow(limits[i].Rate, limits[i].Period, &res[i]))
	}
	return n
}

// value returns the value of the first n limits' numbers: the shared one,
// or one rendered now.
func (c *rateValues) value(nums *rateNums, n int) []string {
	h := c.hash(nums)
	i := h >> (64 - rateSlotBits)
	slot := &c.table.values[i]
	if v := slot.Load(); v != nil && v.owner == c && v.n == n && v.nums == *nums {
		return v.value[:]
	}
	var tmp [256]byte
	b := c.append(tmp[:0], nums, n)
	if seen := &c.table.seen[i]; seen.Load() != h {
		seen.Store(h)
		return []string{string(b)}
	}
	v := &rateValue{owner: c, n: n, nums: *nums}
	v.value[0] = string(b)
	slot.Store(v)
	return v.value[:]
}

// append appends the value of the first n limits' numbers to dst.
func (c *rateValues) append(dst []byte, nums *rateNums, n int) []byte {
	for i := range n {
		dst = append(dst, c.parts[i]...)
		dst = strconv.AppendInt(dst, nums[2*i], 10)
		dst = append(dst, ";t="...)
		dst = strconv.AppendInt(dst, nums[2*i+1], 10)
	}
	return dst
}

// hash hashes c's value of nums (multiplicatively); its top rateSlotBits
// bits pick the value's slot. A client choosing its numbers to collide with
// others' costs them their shared value, never a wrong one: a slot's set
// and numbers are compared in full.
func (c *rateValues) hash(nums *rateNums) uint64 {
	h := c.seed
	for _, x := range nums {
		h = (h ^ uint64(x)) * 0x9e3779b97f4a7c15
	}
	return h
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

// appendSFString appends s as an sf-string (RFC 8941 section 4.1.6).
func appendSFString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		clean = sfPlain[s[i]]
	}
	if clean { // the usual case: a validated name without quotes
		dst = append(dst, s...)
		return append(dst, '"')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20 || c > 0x7e:
			dst = append(dst, '?')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// sfPlain marks the bytes an sf-string holds unescaped (RFC 8941 section
// 3.3.3: printable ASCII but '"' and '\').
var sfPlain = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
