package enforce

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchLimits are the pipeline's three limits for one client, generous
// enough never to deny.
func benchLimits(key netip.Prefix) []Limit {
	return []Limit{
		{Name: "site", Key: Key{Net: key}, Rate: 1 << 30, Period: time.Second},
		{Name: "agent:claude", Key: Key{Net: key}, Rate: 1 << 30, Period: time.Second},
		{Name: "capability:product-search", Key: Key{Net: key}, Rate: 1 << 30, Period: time.Second},
	}
}

func clientPrefix(i uint32) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}), 32)
}

func newBenchStore(b *testing.B) *MemoryStore {
	s, err := NewMemoryStore() // the real clock, as in production
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkMemoryAllow(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, limits []Limit) {
		s := newBenchStore(b)
		res := make([]Result, len(limits))
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Allow(ctx, limits, res); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("1limit", func(b *testing.B) { run(b, benchLimits(clientPrefix(1))[:1]) })
	b.Run("3limits", func(b *testing.B) { run(b, benchLimits(clientPrefix(1))) })
	b.Run("denied", func(b *testing.B) {
		run(b, []Limit{{Name: "tight", Key: Key{Net: clientPrefix(1)}, Rate: 1, Period: time.Hour}})
	})

	parallel := func(b *testing.B, sameClient bool) {
		s := newBenchStore(b)
		var next atomic.Uint32
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			id := uint32(1)
			if !sameClient {
				id = next.Add(1)
			}
			limits := benchLimits(clientPrefix(id))
			res := make([]Result, len(limits))
			for pb.Next() {
				if err := s.Allow(ctx, limits, res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("3limits-parallel", func(b *testing.B) { parallel(b, false) })
	b.Run("3limits-parallel-sameclient", func(b *testing.B) { parallel(b, true) })

	// A new client every request: bucket creation, sweeping and, past the
	// cap, eviction with reuse of evicted buckets.
	b.Run("churn", func(b *testing.B) {
		s := newBenchStore(b)
		limits := []Limit{{Name: "site", Rate: 60, Period: time.Minute}}
		res := make([]Result, 1)
		var i uint32
		b.ReportAllocs()
		for b.Loop() {
			i++
			limits[0].Key.Net = clientPrefix(i)
			if err := s.Allow(ctx, limits, res); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The enforcement pieces one allowed agent request goes through: client
// address, key, three limits through the Store interface, both RateLimit
// fields set on the response. Scratch space comes from a sync.Pool because
// slices passed through an interface escape; the RateLimit value, the same
// every time, is shared.
func BenchmarkHotPath(b *testing.B) {
	ms := newBenchStore(b)
	var store Store = ms
	c, err := NewClientIP([]string{"10.0.0.0/8"})
	if err != nil {
		b.Fatal(err)
	}
	compiled := [3]Limit(benchLimits(netip.Prefix{}))
	policy, err := policyHeader(compiled[:])
	if err != nil {
		b.Fatal(err)
	}
	policyValue := []string{policy}
	values := newRateValues(new(rateTable), 0, compiled[:])
	rateLimitKey := http.CanonicalHeaderKey(headerRateLimit)
	policyKey := http.CanonicalHeaderKey(headerRateLimitPolicy)
	type scratch struct {
		limits [3]Limit
		res    [3]Result
	}
	pool := sync.Pool{New: func() any { return new(scratch) }}
	r := httptest.NewRequest(http.MethodGet, "/api/search", nil)
	r.RemoteAddr = "10.1.1.1:80"
	r.Header.Set("X-Forwarded-For", "198.51.100.1, 10.2.2.2")
	h := http.Header{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		sc := pool.Get().(*scratch)
		key := clientKey(c.Addr(r))
		sc.limits = compiled
		for i := range sc.limits {
			sc.limits[i].Key.Net = key
		}
		if err := store.Allow(ctx, sc.limits[:], sc.res[:]); err != nil {
			b.Fatal(err)
		}
		h[policyKey] = policyValue
		h[rateLimitKey] = values.header(sc.limits[:], sc.res[:])
		pool.Put(sc)
	}
}
