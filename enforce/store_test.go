package enforce

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fixtures"
)

func TestNewLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  string
		rate    config.Rate
		want    Limit
		wantErr string
	}{
		{"per minute", "agent:claude", config.PerMinute(200), Limit{Name: "agent:claude", Rate: 200, Period: time.Minute}, ""},
		{"per day", "site", config.PerDay(5000), Limit{Name: "site", Rate: 5000, Period: 24 * time.Hour}, ""},
		{"zero rate", "site", config.Rate{}, Limit{}, "no rate declared"},
		{"bad window", "site", config.Rate{Requests: 5, Window: "fortnight"}, Limit{}, "fortnight"},
		{"negative requests", "site", config.Rate{Requests: -1, Window: config.Minute}, Limit{}, "positive"},
		{"bad name", "si\nte", config.PerMinute(1), Limit{}, "not printable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewLimit(tc.policy, tc.rate)
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
			var limits []Limit
			add := func(name string, r config.Rate) {
				if r.IsZero() {
					return
				}
				l, err := NewLimit(name, r)
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
			h, err := policyHeader(limits)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(h, ";q="); got != len(limits) {
				t.Errorf("%d items in %q, want %d", got, h, len(limits))
			}
		})
	}
}

func TestCheckLimitsErrors(t *testing.T) {
	a := Limit{Name: "a", Rate: 1, Period: time.Second}
	b := a
	b.Key.ID = "other"
	if err := CheckLimits([]Limit{a, b}, make([]Result, 2)); err != nil {
		t.Errorf("same name, different keys: %v", err)
	}
	err := CheckLimits([]Limit{a, b, a}, make([]Result, 3))
	if !errors.Is(err, ErrDuplicateLimit) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("duplicate: %v", err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = CheckLimits([]Limit{a, b}, make([]Result, 2)) }); n != 0 {
		t.Errorf("%v allocs for valid input", n)
	}
}

func TestAllowedAndMaxRetryAfter(t *testing.T) {
	res := []Result{{Allowed: true}, {RetryAfter: 3 * time.Second}, {RetryAfter: 7 * time.Second}}
	if Allowed(res) || !Allowed(res[:1]) || !Allowed(nil) {
		t.Error("Allowed")
	}
	if got := maxRetryAfter(res); got != 7*time.Second {
		t.Errorf("maxRetryAfter = %v", got)
	}
}

func TestAppendKey(t *testing.T) {
	for _, tc := range []struct {
		l    Limit
		want string
	}{
		{Limit{Name: "site", Key: Key{Net: netip.MustParsePrefix("203.0.113.7/32")}}, "site|203.0.113.7/32|"},
		{Limit{Name: "agent:claude", Key: Key{Net: netip.MustParsePrefix("2001:db8:1:2::/64"), ID: "k1"}}, "agent:claude|2001:db8:1:2::/64|k1"},
		{Limit{Name: "global"}, "global||"},
		{Limit{Name: `a|b\c`, Key: Key{ID: "x|y"}}, `a\|b\\c||x\|y`},
	} {
		if got := string(tc.l.AppendKey(nil)); got != tc.want {
			t.Errorf("AppendKey = %q, want %q", got, tc.want)
		}
	}
	// Escaping keeps distinct identities distinct.
	x := Limit{Name: "a|", Key: Key{ID: "b"}}
	y := Limit{Name: "a", Key: Key{ID: "|b"}}
	if string(x.AppendKey(nil)) == string(y.AppendKey(nil)) {
		t.Error("two buckets, one key")
	}
}

func TestFakeClock(t *testing.T) {
	c := NewFakeClock(time.Time{})
	start := c.Now()
	if !start.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("start %v", start)
	}
	c.Advance(90 * time.Second)
	c.Advance(-30 * time.Second)
	if got := c.Now().Sub(start); got != time.Minute {
		t.Errorf("advanced %v, want 1m", got)
	}
}
