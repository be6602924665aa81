package enforce_test

import (
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/enforce/storetest"
)

// The memory store on a fake clock: counts exact, durations exact.
func TestMemoryStoreConformance(t *testing.T) {
	clock := enforce.NewFakeClock(time.Time{})
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) enforce.Store {
			s, err := enforce.NewMemoryStore(enforce.WithClock(clock.Now))
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
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) enforce.Store {
			s, err := enforce.NewMemoryStore()
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
