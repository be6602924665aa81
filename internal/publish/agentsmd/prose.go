package agentsmd

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agentready/agentready/config"
)

// rateProse writes a rate the way agents.md examples do ("Respect 1
// request/second", "60 requests/minute"): docs/design.md collision 5 renders the
// one typed rate as prose here.
func rateProse(r config.Rate) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	return count(r.Requests, "request") + "/" + string(r.Window), nil
}

// durationProse writes a lifetime in the largest whole unit: "1 hour",
// "30 minutes", "90 seconds".
func durationProse(d time.Duration) (string, error) {
	if d < time.Second || d%time.Second != 0 {
		return "", fmt.Errorf("%v is not a positive whole number of seconds", d)
	}
	switch {
	case d%time.Hour == 0:
		return count(int(d/time.Hour), "hour"), nil
	case d%time.Minute == 0:
		return count(int(d/time.Minute), "minute"), nil
	}
	return count(int(d/time.Second), "second"), nil
}

// count is "1 <unit>" or "<n> <unit>s".
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
