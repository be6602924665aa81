package ratelimit

import (
	"context"
	"net/netip"
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

func newBenchStore(b *testing.B) Store {
	s, err := NewMemoryStore(MemoryConfig{}) // the real clock, as in production
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

	// A new client every request: bucket creation and, past the cap,
	// sweeping and eviction.
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
