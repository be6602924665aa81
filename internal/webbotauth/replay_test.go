package webbotauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestMemoryReplays(t *testing.T) {
	c := newClock(testNow)
	m := NewMemoryReplays(3).(*memoryReplays)
	ctx := context.Background()
	seen := func(key string, until time.Duration) (bool, error) {
		return m.Seen(ctx, key, c.Now(), c.Now().Add(until))
	}
	if s, err := seen("a", time.Minute); s || err != nil {
		t.Fatal(s, err)
	}
	if s, err := seen("a", time.Minute); !s || err != nil {
		t.Fatal("a not seen", err)
	}
	seen("b", 2*time.Minute)
	seen("c", 3*time.Minute)
	// Full of live entries: refuse rather than forget one.
	if _, err := seen("d", time.Minute); !errors.Is(err, ErrReplayCacheFull) {
		t.Fatalf("full cache: %v", err)
	}
	// a expires; d fits, a is forgotten.
	c.Add(time.Minute)
	if s, err := seen("d", time.Minute); s || err != nil {
		t.Fatal(s, err)
	}
	if s, err := seen("a", time.Minute); s || !errors.Is(err, ErrReplayCacheFull) {
		t.Fatal("expired a", s, err)
	}
	if s, _ := seen("b", time.Minute); !s {
		t.Fatal("b forgotten while live")
	}
	// Recording something already expired is a no-op.
	if s, err := seen("old", -time.Second); s || err != nil {
		t.Fatal(s, err)
	}
	c.Add(time.Hour)
	if s, err := seen("b", time.Minute); s || err != nil {
		t.Fatal(s, err)
	}
	if len(m.until) != 1 {
		t.Fatalf("%d entries left", len(m.until))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Seen(cctx, "x", c.Now(), c.Now().Add(time.Minute)); err == nil {
		t.Fatal("cancelled context ignored")
	}
}

// TestMemoryReplaysConcurrent: one of many concurrent uses of a nonce wins.
func TestMemoryReplaysConcurrent(t *testing.T) {
	m := NewMemoryReplays(0)
	now := testNow
	until := now.Add(time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	fresh := map[string]int{}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				key := fmt.Sprint(i)
				s, err := m.Seen(context.Background(), key, now, until)
				if err != nil {
					t.Error(err)
					return
				}
				if !s {
					mu.Lock()
					fresh[key]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for k, n := range fresh {
		if n != 1 {
			t.Fatalf("nonce %s fresh %d times", k, n)
		}
	}
	if len(fresh) != 500 {
		t.Fatalf("%d nonces", len(fresh))
	}
}
