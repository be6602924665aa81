package ratelimit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/ratelimit/ratelimittest"
)

// The memory store on a fake clock: counts exact, durations exact.
func TestMemoryStoreConformance(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ratelimittest.Run(t, ratelimittest.Harness{
		New: func(t *testing.T) ratelimit.Store {
			s, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Advance: func(_ *testing.T, d time.Duration) { clock.Advance(d) },
		Period:  time.Minute,
	})
}

// The memory store on the real clock, as a Redis store will run the suite:
// this keeps the suite's real-time mode honest.
func TestMemoryStoreConformanceRealClock(t *testing.T) {
	ratelimittest.Run(t, ratelimittest.Harness{
		New: func(t *testing.T) ratelimit.Store {
			s, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Advance:   func(_ *testing.T, d time.Duration) { time.Sleep(d) },
		Period:    500 * time.Millisecond,
		Tolerance: 50 * time.Millisecond,
	})
}

// One store holding many clients answers each exactly as a store holding
// that client alone: buckets never mix across keys, whatever the keys have
// in common (one network with several IDs, an ID with no network, IPv4 and
// IPv6) and however calls group them.
func TestMemoryStoreKeysNeverMix(t *testing.T) {
	clock := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	newStore := func() ratelimit.Peeker {
		s, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{MaxEntries: 1 << 20, Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var keys []ratelimit.Key
	for i := range 40 {
		v4 := netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), 32)
		v6 := netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, byte(i)}), 64)
		keys = append(keys, ratelimit.Key{Net: v4}, ratelimit.Key{Net: v6}, ratelimit.Key{Net: v4, ID: "claude"},
			ratelimit.Key{Net: v4, ID: fmt.Sprint("id", i%7)}, ratelimit.Key{ID: fmt.Sprint("token-", i)})
	}
	keys = append(keys, ratelimit.Key{})
	shared := newStore()
	alone := map[ratelimit.Key]ratelimit.Peeker{}
	names := []string{"site", "agent:claude", "capability:search"}
	rates := []int{3, 5, 2}
	rng := rand.New(rand.NewPCG(7, 11))
	ctx := context.Background()
	for step := range 20000 {
		k := keys[rng.IntN(len(keys))]
		n := 1 + rng.IntN(3)
		limits := make([]ratelimit.Limit, n)
		for i := range limits {
			limits[i] = ratelimit.Limit{Name: names[i], Key: k, Rate: rates[i], Period: time.Second}
		}
		ref := alone[k]
		if ref == nil {
			ref = newStore()
			alone[k] = ref
		}
		got, want := make([]ratelimit.Result, n), make([]ratelimit.Result, n)
		call := ratelimit.Peeker.Allow
		if rng.IntN(5) == 0 {
			call = ratelimit.Peeker.Peek
		}
		if err := call(shared, ctx, limits, got); err != nil {
			t.Fatal(err)
		}
		if err := call(ref, ctx, limits, want); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("step %d, key %v, limit %s: %+v, alone %+v", step, k, names[i], got[i], want[i])
			}
		}
		clock.Advance(time.Duration(rng.IntN(int(20 * time.Millisecond))))
	}
}
