package ratelimit

import (
	"testing"
	"time"
)

// A flood of new keys at the cap: every new client is served from a bucket
// of its own and the store stays at its cap, while the live buckets that
// owe more than a flood key (a limited client, a bucket shared by every
// client) keep their debt: the flood's own groups, one request each, are
// the ones evicted.
func TestMemoryFloodKeepsLiveDebt(t *testing.T) {
	const capEntries = 4096
	s, clock := newTestStore(t, capEntries)
	limited := Limit{Name: "agent:claude", Key: client(1 << 20), Rate: 2, Period: time.Hour}
	shared := Limit{Name: "global", Rate: 5, Period: time.Hour} // Key{}: every client's
	for _, l := range []Limit{limited, shared} {
		for range l.Rate {
			mustAllow(t, s, l)
		}
		if r := mustAllow(t, s, l)[0]; r.Allowed {
			t.Fatalf("%s not limited before the flood: %+v", l.Name, r)
		}
	}
	flood := Limit{Name: "site", Rate: 60, Period: time.Minute}
	const keys = 50 * capEntries
	for i := range keys {
		flood.Key = client(i)
		if r := mustAllow(t, s, flood)[0]; !r.Allowed {
			t.Fatalf("flood key %d denied on its first request: %+v", i, r)
		}
		clock.Advance(time.Microsecond) // flood keys stay live: 1 s of debt each
		if i%4096 == 0 && s.Len() > capEntries {
			t.Fatalf("Len = %d after %d flood keys, cap %d", s.Len(), i, capEntries)
		}
	}
	if got := s.Len(); got != capEntries {
		t.Errorf("Len = %d after the flood, want the cap %d", got, capEntries)
	}
	elapsed := time.Duration(keys) * time.Microsecond
	for _, tc := range []struct {
		l    Limit
		wait time.Duration // until its next token, had the flood changed nothing
	}{
		{limited, 30*time.Minute - elapsed},
		{shared, 12*time.Minute - elapsed},
	} {
		r := mustAllow(t, s, tc.l)[0]
		if r.Allowed || r.RetryAfter != tc.wait {
			t.Errorf("%s after the flood: %+v, want still denied for %v", tc.l.Name, r, tc.wait)
		}
	}
	// The newest flood keys are still held, with their debt.
	flood.Key = client(keys - 1)
	if r := mustAllow(t, s, flood)[0]; !r.Allowed || r.Remaining != 58 {
		t.Errorf("the newest flood key: %+v, want its second request counted (58 left)", r)
	}
}
