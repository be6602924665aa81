package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/redistest"
	"github.com/agentready/agentready/redisstore"
)

// TestReplayCache: a nonce is seen once across every client of one Redis,
// however many ask at once, and forgotten after its time.
func TestReplayCache(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	a, err := redisstore.NewReplayCache(srv.Client(t), redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := redisstore.NewReplayCache(srv.Client(t), redisstore.WithKeyPrefix(prefix)) // another replica
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	if seen, err := a.Seen(ctx, "key1|nonce1", until); seen || err != nil {
		t.Fatalf("first: %v %v", seen, err)
	}
	if seen, err := b.Seen(ctx, "key1|nonce1", until); !seen || err != nil {
		t.Fatalf("replayed to another replica: %v %v", seen, err)
	}
	if seen, _ := b.Seen(ctx, "key1|nonce2", until); seen {
		t.Error("another nonce was seen")
	}
	var first atomic.Int32
	var wg sync.WaitGroup
	for i := range 50 {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Go(func() {
			if seen, err := c.Seen(ctx, "key2|race", until); err == nil && !seen {
				first.Add(1)
			}
		})
	}
	wg.Wait()
	if first.Load() != 1 {
		t.Errorf("%d of 50 concurrent first uses passed, want 1", first.Load())
	}
	if seen, _ := a.Seen(ctx, "key3|short", time.Now().Add(50*time.Millisecond)); seen {
		t.Fatal("short: seen")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if seen, _ := a.Seen(ctx, "key3|short", time.Now().Add(time.Minute)); !seen {
			break // expired, recorded anew
		}
		if time.Now().After(deadline) {
			t.Fatal("a nonce outlived its expiry")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := redisstore.NewReplayCache(nil); err == nil {
		t.Error("nil client accepted")
	}
	if _, err := redisstore.NewReplayCache(srv.Client(t), redisstore.WithClock(time.Now)); err == nil {
		t.Error("WithClock accepted")
	}
}
