package session

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// randomHash returns the hash of a token no other call sees.
func randomHash() Hash {
	var h Hash
	_, _ = crand.Read(h[:]) // crypto/rand never fails
	return h
}

// Memory is bounded: sessions leave the store when reaped or deleted, and
// the indexes empty with them.
func TestMemoryStoreBounded(t *testing.T) {
	clock := &testClock{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	st := NewMemoryStore(WithClock(clock.now))
	ctx := context.Background()
	const n = 1000
	for i := range n {
		s := &Session{ID: fmt.Sprint(i), Agent: fmt.Sprint("agent", i%7), Client: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 32),
			CreatedAt: clock.t, ExpiresAt: clock.t.Add(time.Duration(1+i%50) * time.Second)}
		h := randomHash()
		if err := st.Create(ctx, h, s, 3); err != nil {
			t.Fatal(err)
		}
	}
	checkMemoryInvariants(t, st)
	clock.t = clock.t.Add(time.Minute)
	got, err := st.Reap(ctx, clock.t, 0)
	if err != nil || len(got) != n {
		t.Fatalf("Reap = %d, %v", len(got), err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].ExpiresAt.Before(got[i-1].ExpiresAt) {
			t.Fatal("Reap is not soonest first")
		}
	}
	if len(st.byHash) != 0 || len(st.queue) != 0 || len(st.idents) != 0 {
		t.Fatalf("left: %d sessions, %d queued, %d identities", len(st.byHash), len(st.queue), len(st.idents))
	}
}

// A random mix of operations keeps the store's three indexes consistent.
func TestMemoryStoreInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	clock := &testClock{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	st := NewMemoryStore(WithClock(clock.now))
	ctx := context.Background()
	var hashes []Hash
	for range 5000 {
		switch op := rng.IntN(10); {
		case op < 5:
			h := randomHash()
			s := &Session{Agent: fmt.Sprint("a", rng.IntN(3)), CreatedAt: clock.t,
				ExpiresAt: clock.t.Add(time.Duration(1+rng.IntN(60)) * time.Second)}
			if err := st.Create(ctx, h, s, rng.IntN(4)); err == nil {
				hashes = append(hashes, h)
			}
		case op < 7 && len(hashes) > 0:
			_, _ = st.Delete(ctx, hashes[rng.IntN(len(hashes))])
		case op < 8:
			_, _ = st.Reap(ctx, clock.t, rng.IntN(4))
		default:
			clock.t = clock.t.Add(time.Duration(rng.IntN(5000)) * time.Millisecond)
		}
		checkMemoryInvariants(t, st)
	}
}

func checkMemoryInvariants(t *testing.T, st *MemoryStore) {
	t.Helper()
	st.mu.RLock()
	defer st.mu.RUnlock()
	if len(st.queue) != len(st.byHash) {
		t.Fatalf("%d queued, %d indexed", len(st.queue), len(st.byHash))
	}
	for i, e := range st.queue {
		if e.qi != i || st.byHash[e.hash] != e {
			t.Fatalf("queue entry %d inconsistent", i)
		}
		if p := (i - 1) / 2; i > 0 && st.queue.Less(i, p) {
			t.Fatalf("heap order broken at %d", i)
		}
		if e.set != nil && (e.set.entries[e.si] != e || st.idents[e.set.key] != e.set) {
			t.Fatal("identity set inconsistent")
		}
	}
	for k, set := range st.idents {
		if len(set.entries) == 0 || set.key != k {
			t.Fatalf("identity %v: %d entries", k, len(set.entries))
		}
		for _, e := range set.entries {
			if st.byHash[e.hash] != e || e.set != set {
				t.Fatal("identity set holds a removed entry")
			}
		}
	}
}
