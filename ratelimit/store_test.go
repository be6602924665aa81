package ratelimit

import (
	"errors"
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
	if !errors.Is(err, ErrInvalidLimit) || !strings.Contains(err.Error(), `"a" is listed twice`) {
		t.Errorf("duplicate: %v", err)
	}
}

func TestAllowed(t *testing.T) {
	res := []Result{{Allowed: true}, {RetryAfter: 3 * time.Second}, {RetryAfter: 7 * time.Second}}
	if Allowed(res) || !Allowed(res[:1]) || !Allowed(nil) {
		t.Error("Allowed")
	}
}
