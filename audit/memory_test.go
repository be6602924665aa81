package audit_test

import (
	"context"
	"crypto/ed25519"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/audit/audittest"
	"github.com/agentready/agentready/internal/testing/auditdata"
)

func TestMemoryStoreConformance(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audit.Store {
		s, err := audit.NewMemoryStore(audit.MemoryConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// fakeClock is a settable clock for expiry tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestMemoryStoreRetention(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	s, err := audit.NewMemoryStore(audit.MemoryConfig{Now: clock.Now, Retention: 40 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := s.Append(ctx, "sealed", auditdata.Event(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append(ctx, "idle", auditdata.Event(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("sealed")); err != nil {
		t.Fatal(err)
	}

	clock.Advance(40*24*time.Hour - time.Millisecond)
	for _, id := range []string{"sealed", "idle"} {
		if _, st, _ := s.Artifact(ctx, id); st == audit.Unknown {
			t.Fatalf("%s expired before its retention", id)
		}
	}
	clock.Advance(time.Millisecond)
	for _, id := range []string{"sealed", "idle"} {
		if _, st, _ := s.Artifact(ctx, id); st != audit.Unknown {
			t.Fatalf("%s still %v after its retention", id, st)
		}
	}
	// Appending restarts an expired session's log rather than linking to
	// events nobody can see any more.
	if err := s.Append(ctx, "idle", auditdata.Event(5)); err != nil {
		t.Fatal(err)
	}
	ev, _ := s.Events(ctx, "idle")
	if len(ev) != 1 || ev[0].PrevHash != "" {
		t.Fatalf("after expiry: %d events, first prev_hash %q", len(ev), ev[0].PrevHash)
	}
}

func TestMemoryConfig(t *testing.T) {
	if _, err := audit.NewMemoryStore(audit.MemoryConfig{Retention: 24 * time.Hour}); err == nil || !strings.Contains(err.Error(), "at least 720h0m0s") {
		t.Fatalf("NewMemoryStore with a short retention: %v", err)
	}
}

func TestStoreCustomRedactor(t *testing.T) {
	ctx := context.Background()
	s, err := audit.NewMemoryStore(audit.MemoryConfig{Redactor: func(key string, v any) any {
		if key == "item_id" {
			return "hidden"
		}
		return v
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "s", auditdata.Event(1)); err != nil {
		t.Fatal(err)
	}
	ev, _ := s.Events(ctx, "s")
	p := ev[0].Params
	if p["item_id"] != "hidden" || p["payment"].(map[string]any)["card_number"] != "4111111111111111" {
		t.Fatalf("custom redactor not the only one applied: %v", p)
	}
}

// TestMemoryStoreLongLog: a log that spans many chunks, with an event
// larger than a chunk, reads back whole and in order, and seals.
func TestMemoryStoreLongLog(t *testing.T) {
	ctx := context.Background()
	s, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for i := range n {
		e := auditdata.Event(i)
		if i == 500 {
			e.Params["note"] = strings.Repeat("x", 100<<10)
		}
		if err := s.Append(ctx, "long", e); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := s.Events(ctx, "long")
	if err != nil || len(ev) != n {
		t.Fatalf("Events: %d events, %v", len(ev), err)
	}
	for i, e := range ev {
		if want := auditdata.Event(i).EventID; e.EventID != want {
			t.Fatalf("event %d is %s, want %s", i, e.EventID, want)
		}
	}
	if len(ev[500].Params["note"].(string)) != 100<<10 {
		t.Fatal("the large event lost its param")
	}
	a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("long"))
	if err != nil {
		t.Fatal(err)
	}
	if err := audit.Verify(a, auditdata.Key.Public().(ed25519.PublicKey)); err != nil {
		t.Fatal(err)
	}
}
