package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is Requests per Window; the zero value is no limit.
type Rate struct {
	Requests int
	// Window is "second", "minute", "hour" or "day" (draft-car 2.5).
	Window string
}

// The rate-limit windows of draft-car 2.5.
const (
	second = "second"
	minute = "minute"
	hour   = "hour"
	day    = "day"
)

// PerSecond, PerMinute, PerHour and PerDay build a Rate.
func PerSecond(n int) Rate { return Rate{n, second} }

// PerMinute returns n requests per minute.
func PerMinute(n int) Rate { return Rate{n, minute} }

// PerHour returns n requests per hour.
func PerHour(n int) Rate { return Rate{n, hour} }

// PerDay returns n requests per day.
func PerDay(n int) Rate { return Rate{n, day} }

// IsZero reports whether no limit is declared.
func (r Rate) IsZero() bool { return r.Requests == 0 && r.Window == "" }

// windowDuration is the length of window w (0 for an unknown window).
func windowDuration(w string) time.Duration {
	switch w {
	case second:
		return time.Second
	case minute:
		return time.Minute
	case hour:
		return time.Hour
	case day:
		return 24 * time.Hour
	}
	return 0
}

// Period is the window's length; PerMinute(60).Period() is one minute.
func (r Rate) Period() time.Duration { return windowDuration(r.Window) }

// String renders the draft-car form "N/window" ("" for the zero Rate).
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return strconv.Itoa(r.Requests) + "/" + string(r.Window)
}

// Validate reports a problem with a non-zero rate.
func (r Rate) Validate() error {
	if r.IsZero() {
		return nil
	}
	if r.Requests <= 0 {
		return fmt.Errorf("requests must be positive, got %d", r.Requests)
	}
	if windowDuration(r.Window) == 0 {
		return fmt.Errorf("window %q is not one of second, minute, hour, day", r.Window)
	}
	return nil
}

// ParseRate parses "N/window" (draft-car 2.5), also "60/min", "10/s".
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	n, w, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want N/window", s)
	}
	req, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || req <= 0 {
		return Rate{}, fmt.Errorf("rate %q: %q is not a positive whole number", s, strings.TrimSpace(n))
	}
	var win string
	switch strings.ToLower(strings.TrimSpace(w)) {
	case "s", "sec", "second", "seconds":
		win = second
	case "m", "min", "minute", "minutes":
		win = minute
	case "h", "hr", "hour", "hours":
		win = hour
	case "d", "day", "days":
		win = day
	default:
		return Rate{}, fmt.Errorf("rate %q: window %q is not one of second, minute, hour, day", s, strings.TrimSpace(w))
	}
	return Rate{Requests: req, Window: win}, nil
}
