package fields

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// appendRateLimit is the reference rendering the tests hold the production
// value (RateLimitField.Value) to: it appends the RateLimit field value for
// one request to dst and returns it (draft section 4), one Service Limit
// Item per limit:
//
//	"agent";r=0;t=12, "site";r=41;t=1
//
// r is Result.Remaining (4.1.1); t is effectiveWindow in whole seconds,
// rounded up (4.1.2). Appending into a reused buffer does not allocate.
// Names should have passed ValidPolicyName when the policy was compiled; a
// byte outside printable ASCII is written as '?' rather than corrupt the
// field.
func appendRateLimit(dst []byte, limits []ratelimit.Limit, res []ratelimit.Result) []byte {
	n := min(len(limits), len(res))
	for i := range n {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, SFString(limits[i].Name)...)
		dst = append(dst, ";r="...)
		dst = strconv.AppendInt(dst, int64(max(res[i].Remaining, 0)), 10)
		dst = append(dst, ";t="...)
		dst = strconv.AppendInt(dst, ceilSeconds(effectiveWindow(limits[i].Rate, limits[i].Period, &res[i])), 10)
	}
	return dst
}

// rateLimitHeader is the production value (RateLimitField.Value).
func rateLimitHeader(limits []ratelimit.Limit, res []ratelimit.Result) []string {
	return []string{NewRateLimitField(limits).Value(limits, res)}
}

func TestValidPolicyName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"site", true},
		{"capability:product-search", true},
		{`quote " and \ backslash`, true},
		{" ~", true},
		{"", false},
		{"tab\there", false},
		{"line\nbreak", false},
		{"del\x7f", false},
		{"café", false},
	} {
		t.Run(strconv.Quote(tc.name), func(t *testing.T) {
			if err := ValidPolicyName(tc.name); (err == nil) != tc.ok {
				t.Errorf("ValidPolicyName = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestPolicyHeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits []ratelimit.Limit
		want   string
		errs   []string
	}{
		{"none", nil, "", nil},
		{"one", []ratelimit.Limit{{Name: "agent", Rate: 200, Period: time.Minute}}, `"agent";q=200;w=60`, nil},
		{"several, in order", []ratelimit.Limit{
			{Name: "site", Rate: 1000, Period: time.Hour},
			{Name: "agent", Rate: 200, Period: time.Minute},
			{Name: "capability:product-search", Rate: 10, Period: time.Second},
		}, `"site";q=1000;w=3600, "agent";q=200;w=60, "capability:product-search";q=10;w=1`, nil},
		{"day window", []ratelimit.Limit{{Name: "daily", Rate: 5, Period: 24 * time.Hour}}, `"daily";q=5;w=86400`, nil},
		{"sub-second window rounds up to 1", []ratelimit.Limit{{Name: "fast", Rate: 5, Period: 100 * time.Millisecond}}, `"fast";q=5;w=1`, nil},
		{"fractional seconds round up", []ratelimit.Limit{{Name: "odd", Rate: 5, Period: 1500 * time.Millisecond}}, `"odd";q=5;w=2`, nil},
		{"escaped name", []ratelimit.Limit{{Name: `a"b\c`, Rate: 1, Period: time.Second}}, `"a\"b\\c";q=1;w=1`, nil},
		{"every problem reported", []ratelimit.Limit{
			{Name: "", Rate: 1, Period: time.Second},
			{Name: "ok", Rate: 0, Period: time.Second},
			{Name: "bad\r\nInjected: 1", Rate: 1, Period: time.Second},
		}, "", []string{"limits[0]: enforce: empty", "limits[1]: ratelimit: invalid rate limit", "limits[2]", "not printable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PolicyHeader(tc.limits)
			if tc.errs != nil {
				if err == nil {
					t.Fatalf("no error, got %q", got)
				}
				for _, s := range tc.errs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("PolicyHeader = %s\nwant           %s", got, tc.want)
			}
		})
	}
}

func TestAppendRateLimit(t *testing.T) {
	agent := ratelimit.Limit{Name: "agent", Rate: 200, Period: time.Minute} // one token every 300ms
	site := ratelimit.Limit{Name: "site", Rate: 4, Period: time.Minute}     // one token every 15s
	for _, tc := range []struct {
		name   string
		limits []ratelimit.Limit
		res    []ratelimit.Result
		want   string
	}{
		{"none", nil, nil, ""},
		{"allowed, window to the next token",
			[]ratelimit.Limit{site},
			[]ratelimit.Result{{Allowed: true, Limit: 4, Remaining: 2, Reset: 30 * time.Second}},
			`"site";r=2;t=15`},
		{"allowed, fraction of a token accrued",
			[]ratelimit.Limit{site},
			[]ratelimit.Result{{Allowed: true, Limit: 4, Remaining: 1, Reset: 40 * time.Second}},
			`"site";r=1;t=10`},
		{"denied reports the wait for a token",
			[]ratelimit.Limit{agent, site},
			[]ratelimit.Result{
				{Allowed: false, Limit: 200, Remaining: 0, RetryAfter: 12 * time.Second, Reset: 72 * time.Second},
				{Allowed: true, Limit: 4, Remaining: 3, Reset: 15 * time.Second},
			},
			`"agent";r=0;t=12, "site";r=3;t=15`},
		{"sub-second window rounds up", []ratelimit.Limit{agent},
			[]ratelimit.Result{{Allowed: true, Limit: 200, Remaining: 199, Reset: 300 * time.Millisecond}},
			`"agent";r=199;t=1`},
		{"full bucket", []ratelimit.Limit{site}, []ratelimit.Result{{Allowed: true, Limit: 4, Remaining: 4}}, `"site";r=4;t=0`},
		{"fewer results than limits", []ratelimit.Limit{site, agent}, []ratelimit.Result{{Allowed: true, Limit: 4, Remaining: 4}}, `"site";r=4;t=0`},
		{"unvalidated name cannot break the field", []ratelimit.Limit{{Name: "a\r\nb\"", Rate: 1, Period: time.Second}},
			[]ratelimit.Result{{Allowed: true, Limit: 1, Remaining: 1}}, `"a??b\"";r=1;t=0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(appendRateLimit([]byte(nil), tc.limits, tc.res))
			if got != tc.want {
				t.Errorf("appendRateLimit = %s\nwant              %s", got, tc.want)
			}
		})
	}
}

func TestRateLimitHeader(t *testing.T) {
	limits := []ratelimit.Limit{
		{Name: "site", Rate: 1000, Period: time.Hour},
		{Name: "agent:claude", Rate: 200, Period: time.Minute},
		{Name: "capability:product-search", Rate: 10, Period: time.Second},
	}
	res := []ratelimit.Result{
		{Allowed: true, Limit: 1000, Remaining: 998, Reset: 7 * time.Second},
		{Allowed: true, Limit: 200, Remaining: 150, Reset: 15 * time.Second},
		{Allowed: false, Limit: 10, RetryAfter: 80 * time.Millisecond, Reset: time.Second},
	}
	want := string(appendRateLimit(nil, limits, res))
	got := rateLimitHeader(limits, res)
	if len(got) != 1 || got[0] != want {
		t.Errorf("rateLimitHeader = %q, want [%q]", got, want)
	}
	// Later headers do not disturb earlier ones.
	other := rateLimitHeader(limits[:1], res[:1])
	if got[0] != want || other[0] != `"site";r=998;t=4` {
		t.Errorf("values changed: %q, %q", got[0], other[0])
	}
	// Long values come out whole: three limits (a request's most) with
	// long names.
	long := make([]ratelimit.Limit, 3)
	for i := range long {
		long[i] = ratelimit.Limit{Name: strings.Repeat("x", 120), Rate: 1, Period: time.Second}
	}
	lres := make([]ratelimit.Result, len(long))
	if got := rateLimitHeader(long, lres)[0]; got != string(appendRateLimit(nil, long, lres)) {
		t.Errorf("long value %q", got)
	}
	if got := rateLimitHeader(nil, nil); len(got) != 1 || got[0] != "" {
		t.Errorf("empty: %q", got)
	}
	// Values of every length.
	for n := 1; n <= 260; n++ {
		l := []ratelimit.Limit{{Name: strings.Repeat("n", n), Rate: 1, Period: time.Second}}
		r := []ratelimit.Result{{Allowed: true, Limit: 1, Remaining: 1}}
		want := string(appendRateLimit(nil, l, r)) // n + 10 bytes
		if got := rateLimitHeader(l, r); len(got) != 1 || got[0] != want {
			t.Fatalf("name of %d bytes: %q", n, got)
		}
	}
}

func TestEffectiveWindow(t *testing.T) {
	l := ratelimit.Limit{Name: "x", Rate: 4, Period: time.Minute} // 15s per token
	for _, tc := range []struct {
		name string
		l    ratelimit.Limit
		r    ratelimit.Result
		want time.Duration
	}{
		{"one used", l, ratelimit.Result{Allowed: true, Remaining: 3, Reset: 15 * time.Second}, 15 * time.Second},
		{"all used", l, ratelimit.Result{Allowed: true, Remaining: 0, Reset: time.Minute}, 15 * time.Second},
		{"half a token accrued", l, ratelimit.Result{Allowed: true, Remaining: 1, Reset: 37500 * time.Millisecond}, 7500 * time.Millisecond},
		{"full", l, ratelimit.Result{Allowed: true, Remaining: 4}, 0},
		{"denied is RetryAfter", l, ratelimit.Result{RetryAfter: 3 * time.Second, Reset: 48 * time.Second}, 3 * time.Second},
		{"inconsistent result clamps to 0", l, ratelimit.Result{Allowed: true, Remaining: 0, Reset: time.Second}, 0},
		{"invalid limit", ratelimit.Limit{}, ratelimit.Result{Allowed: true, Reset: time.Second}, 0},
		{"huge values do not overflow", ratelimit.Limit{Rate: 1 << 40, Period: 24 * time.Hour},
			ratelimit.Result{Allowed: true, Remaining: 0, Reset: 24 * time.Hour}, 79}, // one interval, 86400e9/2^40 ns, rounded up
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := effectiveWindow(tc.l.Rate, tc.l.Period, &tc.r); got != tc.want {
				t.Errorf("EffectiveWindow = %v, want %v", got, tc.want)
			}
		})
	}
}

// Any name that passes ValidPolicyName survives the round trip through the
// RateLimit field as an sf-string, and the field has one item per limit.
func FuzzAppendRateLimit(f *testing.F) {
	f.Add("agent", "site", 3, int64(time.Second))
	f.Add(`q"uo\te`, ",;=", 0, int64(-1))
	f.Fuzz(func(t *testing.T, a, b string, remaining int, reset int64) {
		limits := []ratelimit.Limit{{Name: a, Rate: 10, Period: time.Minute}, {Name: b, Rate: 10, Period: time.Minute}}
		res := []ratelimit.Result{{Allowed: true, Limit: 10, Remaining: remaining, Reset: time.Duration(reset)}, {Limit: 10, RetryAfter: time.Duration(reset)}}
		out := string(appendRateLimit(nil, limits, res))
		items, ok := parseSFList(out)
		if !ok || len(items) != 2 {
			t.Fatalf("%q is not a two-item sf-list", out)
		}
		for i, name := range []string{a, b} {
			if ValidPolicyName(name) == nil && items[i] != name {
				t.Errorf("item %d = %q, want %q", i, items[i], name)
			}
		}
	})
}

// parseSFList parses a List of sf-string Items with r and t integer
// parameters, returning the strings (RFC 8941 sections 4.2.1, 4.2.5).
func parseSFList(s string) ([]string, bool) {
	var out []string
	for {
		if s == "" || s[0] != '"' {
			return nil, false
		}
		var b strings.Builder
		i := 1
		for ; i < len(s) && s[i] != '"'; i++ {
			c := s[i]
			if c == '\\' {
				i++
				if i == len(s) || (s[i] != '"' && s[i] != '\\') {
					return nil, false
				}
				c = s[i]
			} else if c < 0x20 || c > 0x7e {
				return nil, false
			}
			b.WriteByte(c)
		}
		if i == len(s) {
			return nil, false
		}
		out = append(out, b.String())
		s = s[i+1:]
		for _, p := range []string{";r=", ";t="} {
			if !strings.HasPrefix(s, p) {
				return nil, false
			}
			s = s[len(p):]
			n := 0
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			if n == 0 || n > 15 {
				return nil, false
			}
			s = s[n:]
		}
		if s == "" {
			return out, true
		}
		if !strings.HasPrefix(s, ", ") {
			return nil, false
		}
		s = s[2:]
	}
}

func TestRateLimitHeaderEscapes(t *testing.T) {
	limits := []ratelimit.Limit{
		{Name: "agent/claude", Rate: 200, Period: time.Minute},
		{Name: `odd"name`, Rate: 60, Period: time.Minute},
	}
	res := []ratelimit.Result{{Allowed: true, Limit: 200, Remaining: 199, Reset: 300 * time.Millisecond}, {Allowed: true, Limit: 60, Remaining: 12, Reset: 48 * time.Second}}
	want := `"agent/claude";r=199;t=1, "odd\"name";r=12;t=1`
	if got := rateLimitHeader(limits, res); got[0] != want || string(appendRateLimit(nil, limits, res)) != want {
		t.Errorf("got %q, reference %q, want %q", got[0], appendRateLimit(nil, limits, res), want)
	}
}
