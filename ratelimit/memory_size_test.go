package ratelimit_test

import (
	"context"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/ratelimit"
)

// TestMemoryPerBucket holds the figure MemoryConfig.MaxEntries'
// documentation gives: at the default cap a client with one bucket costs
// about 200 bytes of live heap, so the cap bounds the store to about 26 MB.
func TestMemoryPerBucket(t *testing.T) {
	const n = 1 << 17
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{MaxEntries: n})
	if err != nil {
		t.Fatal(err)
	}
	ls := []ratelimit.Limit{{Name: "site", Rate: 60, Period: time.Minute}}
	res := make([]ratelimit.Result, 1)
	for i := range n {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		ls[0].Key = ratelimit.Key{Net: netip.PrefixFrom(a, 32)}
		if err := s.Allow(context.Background(), ls, res); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes a bucket", per)
	if per > 220 {
		t.Errorf("%d bytes a bucket, more than the documentation's 200 allows for", per)
	}
	runtime.KeepAlive(s)
}

// Live memory is flat in the number of distinct clients once the store is
// at its cap: the heap after 4M clients is within 10% of the heap after
// 1M (default cap, one bucket a client, a realistic limit so that no
// bucket is idle when the next client arrives): the maps reuse the slots
// of evicted groups. A fake clock moves 1 µs a client, so that no bucket
// held refills whatever the machine's speed.
func TestMemoryFlatInClients(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	ls := []ratelimit.Limit{{Name: "site", Rate: 60, Period: time.Minute}}
	res := make([]ratelimit.Result, 1)
	feed := func(from, to int) {
		for i := from; i < to; i++ {
			a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			if i>>24 != 0 {
				a = netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 12: byte(i >> 24), 13: byte(i >> 16), 14: byte(i >> 8), 15: byte(i)})
			}
			ls[0].Key = ratelimit.Key{Net: netip.PrefixFrom(a, a.BitLen())}
			if err := s.Allow(context.Background(), ls, res); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Microsecond)
		}
	}
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	const million = 1 << 20
	feed(0, million)
	at1 := live()
	feed(million, 4*million)
	at4 := live()
	t.Logf("live heap: %d MB after 1M clients, %d MB after 4M (%d buckets held)", at1>>20, at4>>20, s.Len())
	if d := float64(at4-at1) / float64(at1); d > 0.10 || d < -0.10 {
		t.Errorf("live heap %d after 1M clients, %d after 4M: %.0f%% apart, want within 10%%", at1, at4, 100*d)
	}
	runtime.KeepAlive(s)
}
