package enforce_test

import (
	"context"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
)

// TestMemoryPerBucket holds the figure DefaultMaxEntries' documentation
// gives: at the default cap a client with one bucket costs about 480
// bytes of live heap, so the cap bounds the store to some 64 MB.
func TestMemoryPerBucket(t *testing.T) {
	const n = 1 << 17
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := enforce.NewMemoryStore(enforce.WithMaxEntries(n))
	if err != nil {
		t.Fatal(err)
	}
	ls := []enforce.Limit{{Name: "site", Rate: 60, Period: time.Minute}}
	res := make([]enforce.Result, 1)
	for i := range n {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		ls[0].Key = enforce.Key{Net: netip.PrefixFrom(a, 32)}
		if err := s.Allow(context.Background(), ls, res); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes a bucket", per)
	if per > 520 {
		t.Errorf("%d bytes a bucket, more than the documentation's 480 allows for", per)
	}
	runtime.KeepAlive(s)
}
