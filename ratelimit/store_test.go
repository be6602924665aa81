package ratelimit

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

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
}

func TestAllowed(t *testing.T) {
	res := []Result{{Allowed: true}, {RetryAfter: 3 * time.Second}, {RetryAfter: 7 * time.Second}}
	if Allowed(res) || !Allowed(res[:1]) || !Allowed(nil) {
		t.Error("Allowed")
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
