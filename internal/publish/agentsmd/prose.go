package agentsmd

import (
	"strconv"
	"time"

	"github.com/agentready/agentready/config"
)

// rateProse writes a rate the way agents.md examples do ("Respect 1
// request/second", "60 requests/minute"): docs/design.md collision 5 renders the
// one typed rate as prose here. publish.Validate has checked the rate.
func rateProse(r config.Rate) string {
	return count(r.Requests, "request") + "/" + string(r.Window)
}

// durationProse writes a lifetime in the largest whole unit: "1 hour",
// "30 minutes", "90 seconds". publish.Validate holds a session TTL to whole
// seconds.
func durationProse(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return count(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return count(int(d/time.Minute), "minute")
	}
	return count(int(d/time.Second), "second")
}

// count is "1 <unit>" or "<n> <unit>s".
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
