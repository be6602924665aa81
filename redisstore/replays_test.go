package redisstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/redisstore"
)

// TestReplayCache: a nonce is seen once across every client of one Redis,
// however many ask at once, and forgotten after its time.
func TestReplayCache(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	a, err := redisstore.NewReplayCache(redisClient(t, srv), redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := redisstore.NewReplayCache(redisClient(t, srv), redisstore.WithKeyPrefix(prefix)) // another replica
	ctx := context.Background()
	now := time.Now()
	until := now.Add(time.Minute)
	if seen, err := a.Seen(ctx, "key1|nonce1", now, until); seen || err != nil {
		t.Fatalf("first: %v %v", seen, err)
	}
	if seen, err := b.Seen(ctx, "key1|nonce1", now, until); !seen || err != nil {
		t.Fatalf("replayed to another replica: %v %v", seen, err)
	}
	if seen, _ := b.Seen(ctx, "key1|nonce2", now, until); seen {
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
			if seen, err := c.Seen(ctx, "key2|race", now, until); err == nil && !seen {
				first.Add(1)
			}
		})
	}
	wg.Wait()
	if first.Load() != 1 {
		t.Errorf("%d of 50 concurrent first uses passed, want 1", first.Load())
	}
	if seen, _ := a.Seen(ctx, "key3|short", now, now.Add(50*time.Millisecond)); seen {
		t.Fatal("short: seen")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if seen, _ := a.Seen(ctx, "key3|short", now, now.Add(time.Minute)); !seen {
			break // expired, recorded anew
		}
		if time.Now().After(deadline) {
			t.Fatal("a nonce outlived its expiry")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The verifier's clock, not Redis's, decides how long a nonce lives:
	// on a clock a year behind or ahead a replay is refused all the same
	// (an absolute expiry would have been in Redis's past, or a year off).
	for _, off := range []time.Duration{-365 * 24 * time.Hour, 365 * 24 * time.Hour} {
		at := time.Now().Add(off)
		key := "key4|" + off.String()
		if seen, err := a.Seen(ctx, key, at, at.Add(time.Minute)); seen || err != nil {
			t.Fatalf("clock %v: first: %v %v", off, seen, err)
		}
		if seen, err := b.Seen(ctx, key, at, at.Add(time.Minute)); !seen || err != nil {
			t.Fatalf("clock %v: replayed: %v %v", off, seen, err)
		}
		h := sha256.Sum256([]byte(key))
		ttl, err := redisClient(t, srv).PTTL(ctx, prefix+"nonce:"+hex.EncodeToString(h[:])).Result()
		if err != nil || ttl <= 50*time.Second || ttl > time.Minute {
			t.Fatalf("clock %v: the nonce lives %v in Redis (%v), want the minute its signature has left", off, ttl, err)
		}
	}
	if _, err := redisstore.NewReplayCache(nil); err == nil {
		t.Error("nil client accepted")
	}
	if _, err := redisstore.NewReplayCache(redisClient(t, srv), redisstore.WithClock(time.Now)); err == nil {
		t.Error("WithClock accepted")
	}
}
