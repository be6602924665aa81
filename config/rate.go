package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is one typed rate limit: Requests per Window. The zero value means no
// limit. It is rendered per format (docs/design.md collision 5): draft-car
// "60/minute", v0.1.0 requests per minute, AWP "60/minute", agents.md prose.
type Rate struct {
	Requests int
	Window   Window
}

// Window is a rate-limit window (draft-car 2.5).
type Window string

// Windows of draft-car 2.5.
const (
	Second Window = "second"
	Minute Window = "minute"
	Hour   Window = "hour"
	Day    Window = "day"
)

// PerSecond, PerMinute, PerHour and PerDay build a Rate.
func PerSecond(n int) Rate { return Rate{n, Second} }

// PerMinute returns n requests per minute.
func PerMinute(n int) Rate { return Rate{n, Minute} }

// PerHour returns n requests per hour.
func PerHour(n int) Rate { return Rate{n, Hour} }

// PerDay returns n requests per day.
func PerDay(n int) Rate { return Rate{n, Day} }

// IsZero reports whether no limit is declared.
func (r Rate) IsZero() bool { return r.Requests == 0 && r.Window == "" }

// Duration is the length of the window (0 for an unknown window).
func (w Window) Duration() time.Duration {
	switch w {
	case Second:
		return time.Second
	case Minute:
		return time.Minute
	case Hour:
		return time.Hour
	case Day:
		return 24 * time.Hour
	}
	return 0
}

// Period is the window's length; Rate{60, Minute}.Period() is one minute.
func (r Rate) Period() time.Duration { return r.Window.Duration() }

// String renders the draft-car form "N/window" ("" for the zero Rate).
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return strconv.Itoa(r.Requests) + "/" + string(r.Window)
}

// PerMinuteCeil is the rate expressed as whole requests per minute, rounded
// up, for formats that only know "N/minute" (v0.1.0). It is 0 for a zero or
// invalid Rate, at least 1 otherwise, and saturates at math.MaxInt.
func (r Rate) PerMinuteCeil() int {
	if r.Requests <= 0 {
		return 0
	}
	switch r.Window {
	case Second:
		if r.Requests > math.MaxInt/60 {
			return math.MaxInt
		}
		return r.Requests * 60
	case Minute:
		return r.Requests
	case Hour:
		return (r.Requests-1)/60 + 1
	case Day:
		return (r.Requests-1)/(24*60) + 1
	}
	return 0
}

// Validate reports a problem with a non-zero rate.
func (r Rate) Validate() error {
	if r.IsZero() {
		return nil
	}
	if r.Requests <= 0 {
		return fmt.Errorf("requests must be positive, got %d", r.Requests)
	}
	if r.Window.Duration() == 0 {
		return fmt.Errorf("window %q is not one of second, minute, hour, day", r.Window)
	}
	return nil
}

// ParseRate parses "N/window" (draft-car 2.5), accepting the plural and
// abbreviated windows real files use ("60/min", "10/s", "1000/hours").
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
	var win Window
	switch strings.ToLower(strings.TrimSpace(w)) {
	case "s", "sec", "second", "seconds":
		win = Second
	case "m", "min", "minute", "minutes":
		win = Minute
	case "h", "hr", "hour", "hours":
		win = Hour
	case "d", "day", "days":
		win = Day
	default:
		return Rate{}, fmt.Errorf("rate %q: window %q is not one of second, minute, hour, day", s, strings.TrimSpace(w))
	}
	return Rate{Requests: req, Window: win}, nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseRate, so that
// a declaration file says "rate_limit: 60/minute".
func (r *Rate) UnmarshalText(b []byte) error {
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
