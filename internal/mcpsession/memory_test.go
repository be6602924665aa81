package mcpsession_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/mcpsession/mcpsessiontest"
	"github.com/agentready/agentready/internal/testclock"
)

func TestMemoryConformance(t *testing.T) {
	mcpsessiontest.Run(t, func(t *testing.T, now func() time.Time) mcpsession.Store {
		return mcpsession.NewMemory(mcpsession.MemoryConfig{Now: now})
	})
}

// At its cap the store drops expired bindings first, then evicts the one
// whose deadline is soonest: the session idle longest, never the one just
// used, and never grows.
func TestMemoryBounded(t *testing.T) {
	ctx := context.Background()
	c := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := mcpsession.NewMemory(mcpsession.MemoryConfig{MaxEntries: 4, Now: c.Now})
	owner := mcpsession.Owner(mcpsession.Identity{Subject: "alice"})
	bind := func(id string) {
		t.Helper()
		if err := m.Bind(ctx, id, owner, time.Hour); err != nil {
			t.Fatalf("Bind(%s): %v", id, err)
		}
	}
	present := func(id string) bool {
		_, _, err := m.Owner(ctx, id)
		return err == nil
	}
	for i := range 4 {
		bind(fmt.Sprintf("s%d", i))
		c.Advance(time.Minute)
	}
	bind("s0") // used again: now the latest deadline
	bind("s4") // full: s1, the soonest deadline, goes
	if m.Len() != 4 {
		t.Fatalf("Len = %d, want 4", m.Len())
	}
	for id, want := range map[string]bool{"s0": true, "s1": false, "s2": true, "s3": true, "s4": true} {
		if present(id) != want {
			t.Errorf("%s present = %v, want %v", id, !want, want)
		}
	}
	// Expired bindings make room before any live one is evicted: at 62m30s
	// s2 (deadline 62m) has expired, s3 (63m) has not.
	c.Advance(58*time.Minute + 30*time.Second)
	bind("s5")
	if m.Len() != 4 || present("s2") || !present("s3") {
		t.Fatalf("after an expiry: Len %d, s2 %v, s3 %v; want 4, false, true", m.Len(), present("s2"), present("s3"))
	}
	for i := range 100 {
		bind(fmt.Sprintf("flood-%d", i))
	}
	if m.Len() != 4 {
		t.Fatalf("Len after a flood = %d, want 4", m.Len())
	}
	if present("s0") || !present("flood-99") {
		t.Error("at the cap, the oldest binding outlived a flood of newer ones")
	}
	// Forget frees a slot.
	if err := m.Forget(ctx, "flood-99"); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 {
		t.Fatalf("Len after Forget = %d, want 3", m.Len())
	}
	if _, _, err := m.Owner(ctx, "flood-99"); !errors.Is(err, mcpsession.ErrNotFound) {
		t.Fatalf("Owner after Forget: %v", err)
	}
}

// In one process both "replicas" are one store.
func TestMemoryFlow(t *testing.T) {
	mcpsessiontest.RunFlow(t, func(t *testing.T, now func() time.Time) [2]mcpsession.Store {
		m := mcpsession.NewMemory(mcpsession.MemoryConfig{Now: now})
		return [2]mcpsession.Store{m, m}
	})
}
