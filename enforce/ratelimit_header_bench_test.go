package enforce

import (
	"testing"
	"time"
)

// headerBenchInput is a typical allowed request's three limits and results.
func headerBenchInput() ([]Limit, []Result) {
	limits := benchLimits(clientPrefix(1))
	limits[0].Rate, limits[0].Period = 1000, time.Hour
	limits[1].Rate, limits[1].Period = 200, time.Minute
	limits[2].Rate, limits[2].Period = 10, time.Second
	res := []Result{
		{Allowed: true, Limit: 1000, Remaining: 998, Reset: 7 * time.Second},
		{Allowed: true, Limit: 200, Remaining: 150, Reset: 15 * time.Second},
		{Allowed: true, Limit: 10, Remaining: 9, Reset: 100 * time.Millisecond},
	}
	return limits, res
}

// BenchmarkRateLimitHeader renders the value of three limits, its parts
// rendered beforehand as when the policy is compiled.
func BenchmarkRateLimitHeader(b *testing.B) {
	limits, res := headerBenchInput()
	parts := rateLimitParts(limits)
	var sink []string
	b.ReportAllocs()
	for b.Loop() {
		sink = rateLimitHeaderParts(parts, limits, res)
	}
	_ = sink
}
