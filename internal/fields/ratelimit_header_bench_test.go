package fields

import (
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// BenchmarkRateLimitHeader renders the RateLimit value of a request with
// three limits, as every allowed agent request does.
func BenchmarkRateLimitHeader(b *testing.B) {
	limits := []ratelimit.Limit{
		{Name: "site", Rate: 1000, Period: time.Hour},
		{Name: "agent:claude", Rate: 200, Period: time.Minute},
		{Name: "capability:product-search", Rate: 10, Period: time.Second},
	}
	res := []ratelimit.Result{
		{Allowed: true, Limit: 1000, Remaining: 998, Reset: 7 * time.Second},
		{Allowed: true, Limit: 200, Remaining: 150, Reset: 15 * time.Second},
		{Allowed: true, Limit: 10, Remaining: 9, Reset: 100 * time.Millisecond},
	}
	f := NewRateLimitField(limits)
	b.ReportAllocs()
	for b.Loop() {
		_ = f.Value(limits, res)
	}
}
