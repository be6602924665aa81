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
)

func TestMemoryStoreConformance(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audit.Store {
		s, err := audit.NewMemoryStore()
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
	s, err := audit.NewMemoryStore(audit.WithClock(clock.Now), audit.WithRetention(40*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := s.Append(ctx, "sealed", audittest.Event(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append(ctx, "idle", audittest.Event(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.SealSession(ctx, s, audittest.Key, audittest.Meta("sealed")); err != nil {
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
	if err := s.Append(ctx, "idle", audittest.Event(5)); err != nil {
		t.Fatal(err)
	}
	ev, _ := s.Events(ctx, "idle")
	if len(ev) != 1 || ev[0].PrevHash != "" {
		t.Fatalf("after expiry: %d events, first prev_hash %q", len(ev), ev[0].PrevHash)
	}
}

func TestStoreOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  audit.Option
		want string
	}{
		{"short retention", audit.WithRetention(24 * time.Hour), "at least 720h0m0s"},
		{"nil redactor", audit.WithRedactor(nil), "WithRedactor(nil)"},
		{"nil clock", audit.WithClock(nil), "WithClock(nil)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := audit.NewMemoryStore(tt.opt); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewMemoryStore: %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("all errors at once", func(t *testing.T) {
		_, err := audit.NewMemoryStore(audit.WithRedactor(nil), audit.WithClock(nil))
		if err == nil || !strings.Contains(err.Error(), "WithRedactor") || !strings.Contains(err.Error(), "WithClock") {
			t.Fatalf("NewMemoryStore: %v, want both errors", err)
		}
	})
}

func TestStoreCustomRedactor(t *testing.T) {
	ctx := context.Background()
	s, err := audit.NewMemoryStore(audit.WithRedactor(func(key string, v any) any {
		if key == "item_id" {
			return "hidden"
		}
		return v
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "s", audittest.Event(1)); err != nil {
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
	s, err := audit.NewMemoryStore()
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for i := range n {
		e := audittest.Event(i)
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
		if want := audittest.Event(i).EventID; e.EventID != want {
			t.Fatalf("event %d is %s, want %s", i, e.EventID, want)
		}
	}
	if len(ev[500].Params["note"].(string)) != 100<<10 {
		t.Fatal("the large event lost its param")
	}
	a, err := audit.SealSession(ctx, s, audittest.Key, audittest.Meta("long"))
	if err != nil {
		t.Fatal(err)
	}
	if err := audit.Verify(a, audittest.Key.Public().(ed25519.PublicKey)); err != nil {
		t.Fatal(err)
	}
}
