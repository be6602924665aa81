package fields

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/ratelimit"
)

func TestNewLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  string
		rate    config.Rate
		want    ratelimit.Limit
		wantErr string
	}{
		{"per minute", "agent:claude", config.PerMinute(200), ratelimit.Limit{Name: "agent:claude", Rate: 200, Period: time.Minute}, ""},
		{"per day", "site", config.PerDay(5000), ratelimit.Limit{Name: "site", Rate: 5000, Period: 24 * time.Hour}, ""},
		{"zero rate", "site", config.Rate{}, ratelimit.Limit{}, "no rate declared"},
		{"bad window", "site", config.Rate{Requests: 5, Window: "fortnight"}, ratelimit.Limit{}, "fortnight"},
		{"negative requests", "site", config.PerMinute(-1), ratelimit.Limit{}, "positive"},
		{"bad name", "si\nte", config.PerMinute(1), ratelimit.Limit{}, "not printable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := newLimit(tc.policy, tc.rate)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("NewLimit = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// Every rate the specs' example sites declare compiles into a Limit and a
// RateLimit-Policy item.
func TestNewLimitFixtures(t *testing.T) {
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			var limits []ratelimit.Limit
			add := func(name string, r config.Rate) {
				if r.IsZero() {
					return
				}
				l, err := newLimit(name, r)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				limits = append(limits, l)
			}
			add("site", fx.Site.RateLimit)
			for _, a := range fx.Site.Agents {
				add("agent:"+a.Name, a.RateLimit)
			}
			for _, c := range fx.Site.Capabilities {
				add("capability:"+c.ID, c.RateLimit)
			}
			h, err := PolicyHeader(limits)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(h, ";q="); got != len(limits) {
				t.Errorf("%d items in %q, want %d", got, h, len(limits))
			}
		})
	}
}

// newLimit builds, for the tests, the Limit of a declared rate under a policy name, with an
// empty Key for the caller to fill per request. It reports an invalid name
// or rate; a zero rate (no limit declared) is an error too, since it cannot
// be enforced: callers skip it.
func newLimit(name string, r config.Rate) (ratelimit.Limit, error) {
	if err := ValidPolicyName(name); err != nil {
		return ratelimit.Limit{}, err
	}
	if r.IsZero() {
		return ratelimit.Limit{}, fmt.Errorf("%w: %q: no rate declared", ratelimit.ErrInvalidLimit, name)
	}
	if err := r.Validate(); err != nil {
		return ratelimit.Limit{}, fmt.Errorf("%w: %q: %v", ratelimit.ErrInvalidLimit, name, err)
	}
	return ratelimit.Limit{Name: name, Rate: r.Requests, Period: r.Period()}, nil
}
