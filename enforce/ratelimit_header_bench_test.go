package enforce

import (
	"container/heap"
	"context"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// BenchmarkRateLimitHeader renders the pipeline's value: two limits,
// ten-digit counts (a limit of 2^30 a second) and small ones.
// step=format appends it to a reused buffer; step=fresh is a response
// whose numbers were not rendered recently (the formatting, a string and
// the slice that holds it); step=shared is one whose numbers were (a hash
// and a comparison).
//
//	go test -run '^$' -bench RateLimitHeader -benchmem -count 6 ./enforce
func BenchmarkRateLimitHeader(b *testing.B) {
	limits := []ratelimit.Limit{
		{Name: "agent:claude", Rate: 1 << 30, Period: time.Second},
		{Name: "capability:product-search", Rate: 60, Period: time.Minute},
	}
	res := []ratelimit.Result{{Allowed: true, Limit: 1 << 30, Remaining: 1<<30 - 12345, Reset: 12345},
		{Allowed: true, Limit: 60, Remaining: 41, Reset: 19 * time.Second}}
	c := newRateValues(new(rateTable), 0, limits)
	var nums rateNums
	n := c.numbers(&nums, limits, res)
	b.Run("step=format", func(b *testing.B) {
		buf := make([]byte, 0, 256)
		b.ReportAllocs()
		for b.Loop() {
			buf = c.append(buf[:0], &nums, n)
		}
	})
	b.Run("step=fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res[0].Remaining-- // numbers not seen before
			headerSink = c.header(limits, res)
		}
	})
	res[0].Remaining = 1<<30 - 12345
	b.Run("step=shared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			headerSink = c.header(limits, res)
		}
	})
}

// headerSink keeps a benchmark's value on the heap, as an http.Header does.
var headerSink []string

// BenchmarkRateLimitValueRepeats measures how often responses share a
// rendered RateLimit value (rateValues): it serves a simulated population
// of 1000 clients (Poisson arrivals on a fake clock, limits of 200 a
// minute and 1000 an hour) through the memory store and reports shared-%,
// the share of responses whose value was found in its slot. Each client
// sends at a load drawn uniformly from the case's range, as a share of its
// hourly limit; above 100% it is refused part of the time. ns/op includes
// the simulation's own bookkeeping.
//
//	go test -run '^$' -bench RateLimitValueRepeats ./enforce
func BenchmarkRateLimitValueRepeats(b *testing.B) {
	for _, c := range []struct {
		name   string
		lo, hi float64
	}{{"load=1-2%", 0.01, 0.02}, {"load=1-50%", 0.01, 0.5}, {"load=1-200%", 0.01, 2}} {
		b.Run(c.name, func(b *testing.B) {
			clock := ratelimit.NewFakeClock(time.Time{})
			store, err := ratelimit.NewMemoryStore(ratelimit.WithClock(clock.Now))
			if err != nil {
				b.Fatal(err)
			}
			limits := []ratelimit.Limit{
				{Name: "agent:claude", Rate: 200, Period: time.Minute},
				{Name: "site", Rate: 1000, Period: time.Hour},
			}
			values := newRateValues(new(rateTable), 0, limits)
			rng := rand.New(rand.NewPCG(1, 2))
			const clients = 1000
			gap := make([]float64, clients) // mean seconds between requests
			arrivals := make(arrivalHeap, clients)
			for i := range clients {
				gap[i] = 3600 / (1000 * (c.lo + (c.hi-c.lo)*rng.Float64()))
				arrivals[i] = arrival{at: rng.ExpFloat64() * gap[i], client: i}
			}
			heap.Init(&arrivals)
			var now float64
			res := make([]ratelimit.Result, len(limits))
			serve := func() bool {
				a := &arrivals[0]
				clock.Advance(time.Duration((a.at - now) * float64(time.Second)))
				now = a.at
				for i := range limits {
					limits[i].Key.Net = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(a.client >> 8), byte(a.client)}), 32)
				}
				if err := store.Allow(context.Background(), limits, res); err != nil {
					b.Fatal(err)
				}
				var nums rateNums
				n := values.numbers(&nums, limits, res)
				v := values.table.values[values.slot(&nums)].Load()
				shared := v != nil && v.owner == values && v.n == n && v.nums == nums
				values.value(&nums, n)
				a.at += rng.ExpFloat64() * gap[a.client]
				heap.Fix(&arrivals, 0)
				return shared
			}
			for range 100 * clients { // past the first request of every client
				serve()
			}
			shared := 0
			for b.Loop() {
				if serve() {
					shared++
				}
			}
			b.ReportMetric(100*float64(shared)/float64(b.N), "shared-%")
		})
	}
}

type arrival struct {
	at     float64 // seconds
	client int
}

// arrivalHeap orders clients by their next request (container/heap).
type arrivalHeap []arrival

func (h arrivalHeap) Len() int           { return len(h) }
func (h arrivalHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h arrivalHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *arrivalHeap) Push(x any)        { *h = append(*h, x.(arrival)) }
func (h *arrivalHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
