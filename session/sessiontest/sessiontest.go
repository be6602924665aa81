// Package sessiontest is the conformance suite every session.Store passes.
//
// The suite drives the store's clock: New receives the clock function the
// store must judge expiry by (session.WithClock). The clock starts at the
// real time, rounded down to the second, so that a store which also hands
// deadlines to a server (Redis PEXPIREAT) sets them in the future; it then
// moves only when the suite advances it, and nothing sleeps.
package sessiontest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

// ttl is the lifetime of the suite's sessions.
const ttl = 30 * time.Minute

// Run runs the suite, one subtest per property. newStore returns an empty
// store (or one whose keys no other call sees) on the clock now.
func Run(t *testing.T, newStore func(t *testing.T, now func() time.Time) session.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, st session.Store, c *testclock.Clock)
	}{
		{"CreateGet", testCreateGet},
		{"Duplicate", testDuplicate},
		{"Invalid", testInvalid},
		{"Expiry", testExpiry},
		{"Delete", testDelete},
		{"MaxPerAgent", testMaxPerAgent},
		{"NoCap", testNoCap},
		{"ReapBatches", testReapBatches},
		{"CanceledContext", testCanceled},
		{"ConcurrentCreateNeverExceedsMax", testConcurrentCreate},
		{"ConcurrentEndsOnce", testConcurrentEnd},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testclock.New(clock.Wall().UTC().Truncate(time.Second))
			tc.fn(t, newStore(t, c.Now), c)
		})
	}
}

var (
	clientA = netip.MustParsePrefix("192.0.2.1/32")
	clientB = netip.MustParsePrefix("2001:db8:1:2::/64")
)

// newSession returns a session of agent/client created now, and its hash.
func newSession(t *testing.T, c *testclock.Clock, agent string, client netip.Prefix) (*session.Session, session.Hash) {
	t.Helper()
	h := randomHash()
	now := c.Now()
	return &session.Session{
		ID:           fmt.Sprintf("id-%x", h[:8]),
		Agent:        agent,
		Client:       client,
		AgentName:    "ShopBot",
		AgentVersion: "2.1",
		Purpose:      "buy a mug",
		Capabilities: []string{"cart.add", "checkout"},
		CreatedAt:    now,
		ExpiresAt:    now.Add(ttl),
	}, h
}

// randomHash returns the hash of a token no other call sees.
func randomHash() session.Hash {
	var h session.Hash
	_, _ = rand.Read(h[:]) // crypto/rand never fails
	return h
}

func mustCreate(t *testing.T, st session.Store, h session.Hash, s *session.Session, max int) {
	t.Helper()
	if err := st.Create(context.Background(), h, s, max); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

// same compares the fields a store must keep (times by instant).
func same(t *testing.T, what string, got, want *session.Session) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: nil session", what)
	}
	if got.ID != want.ID || got.Agent != want.Agent || got.Client != want.Client ||
		got.AgentName != want.AgentName || got.AgentVersion != want.AgentVersion ||
		got.Purpose != want.Purpose || !slices.Equal(got.Capabilities, want.Capabilities) ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, *got, *want)
	}
}

func testCreateGet(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx := context.Background()
	for _, client := range []netip.Prefix{clientA, clientB, {}} {
		s, h := newSession(t, c, "shopbot", client)
		want := *s
		mustCreate(t, st, h, s, 0)
		got, err := st.Get(ctx, h)
		if err != nil {
			t.Fatalf("Get(%v): %v", client, err)
		}
		same(t, "Get", got, &want)
	}
	unknown := randomHash()
	if _, err := st.Get(ctx, unknown); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get(unknown) = %v, want ErrNotFound", err)
	}
	if got, err := st.Reap(ctx, c.Now(), 0); err != nil || len(got) != 0 {
		t.Fatalf("Reap before expiry = %d sessions, %v", len(got), err)
	}
}

func testDuplicate(t *testing.T, st session.Store, c *testclock.Clock) {
	s, h := newSession(t, c, "shopbot", clientA)
	mustCreate(t, st, h, s, 0)
	s2, _ := newSession(t, c, "other", clientB)
	if err := st.Create(context.Background(), h, s2, 0); !errors.Is(err, session.ErrDuplicate) {
		t.Fatalf("second Create under one hash = %v, want ErrDuplicate", err)
	}
	got, err := st.Get(context.Background(), h)
	if err != nil || got.ID != s.ID {
		t.Fatalf("the first session was replaced: %v, %v", got, err)
	}
}

func testInvalid(t *testing.T, st session.Store, c *testclock.Clock) {
	_, h := newSession(t, c, "shopbot", clientA)
	if err := st.Create(context.Background(), h, nil, 0); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("Create(nil) = %v, want ErrInvalid", err)
	}
	if err := st.Create(context.Background(), h, &session.Session{ID: "x"}, 0); !errors.Is(err, session.ErrInvalid) {
		t.Errorf("Create(zero ExpiresAt) = %v, want ErrInvalid", err)
	}
}

func testExpiry(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx := context.Background()
	s, h := newSession(t, c, "shopbot", clientA)
	want := *s
	mustCreate(t, st, h, s, 0)

	c.Advance(ttl - time.Millisecond)
	if _, err := st.Get(ctx, h); err != nil {
		t.Fatalf("Get 1ms before the deadline: %v", err)
	}
	if got, _ := st.Reap(ctx, c.Now(), 0); len(got) != 0 {
		t.Fatalf("Reap 1ms before the deadline returned %d sessions", len(got))
	}
	c.Advance(time.Millisecond) // exactly at the deadline: expired
	if _, err := st.Get(ctx, h); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get at the deadline = %v, want ErrNotFound", err)
	}
	if _, err := st.Delete(ctx, h); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Delete of an expired session = %v, want ErrNotFound (Reap reports it)", err)
	}
	got, err := st.Reap(ctx, c.Now(), 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("Reap = %d sessions, %v; want 1", len(got), err)
	}
	same(t, "Reap", got[0], &want)
	if again, err := st.Reap(ctx, c.Now().Add(time.Hour), 0); err != nil || len(again) != 0 {
		t.Fatalf("second Reap = %d sessions, %v; want none", len(again), err)
	}
	if _, err := st.Get(ctx, h); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get after Reap = %v, want ErrNotFound", err)
	}
}

func testDelete(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx := context.Background()
	s, h := newSession(t, c, "shopbot", clientA)
	want := *s
	keep, kh := newSession(t, c, "shopbot", clientA)
	mustCreate(t, st, h, s, 0)
	mustCreate(t, st, kh, keep, 0)
	got, err := st.Delete(ctx, h)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}
	same(t, "Delete", got, &want)
	if _, err := st.Get(ctx, h); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get after Delete = %v, want ErrNotFound", err)
	}
	if _, err := st.Delete(ctx, h); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("second Delete = %v, want ErrNotFound", err)
	}
	if _, err := st.Get(ctx, kh); err != nil {
		t.Fatalf("the other session went too: %v", err)
	}
	// A deleted session has ended: Reap never reports it.
	reaped, err := st.Reap(ctx, c.Now().Add(2*ttl), 0)
	if err != nil || len(reaped) != 1 || reaped[0].ID != keep.ID {
		t.Fatalf("Reap after Delete = %v, %v; want only %s", ids(reaped), err, keep.ID)
	}
}

func testMaxPerAgent(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx := context.Background()
	const max = 2
	first, h1 := newSession(t, c, "shopbot", clientA)
	mustCreate(t, st, h1, first, max)
	c.Advance(time.Minute)
	second, h2 := newSession(t, c, "shopbot", clientA)
	mustCreate(t, st, h2, second, max)

	third, h3 := newSession(t, c, "shopbot", clientA)
	err := st.Create(ctx, h3, third, max)
	var le *session.LimitError
	if !errors.Is(err, session.ErrTooMany) || !errors.As(err, &le) {
		t.Fatalf("Create beyond max = %v, want a *LimitError", err)
	}
	if !le.Soonest.Equal(first.ExpiresAt) {
		t.Fatalf("Soonest = %v, want the first session's deadline %v", le.Soonest, first.ExpiresAt)
	}
	if _, err := st.Get(ctx, h3); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("the refused session was stored: %v", err)
	}
	// Other identities have slots of their own.
	for _, id := range []struct {
		agent  string
		client netip.Prefix
	}{{"otherbot", clientA}, {"shopbot", clientB}, {"shopbot", netip.Prefix{}}} {
		s, h := newSession(t, c, id.agent, id.client)
		if err := st.Create(ctx, h, s, max); err != nil {
			t.Fatalf("Create for %s %v: %v", id.agent, id.client, err)
		}
	}
	// Delete frees a slot at once.
	if _, err := st.Delete(ctx, h2); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, st, h3, third, max)
	// At the cap again; the first session's expiry frees a slot, even
	// before anything reaps it.
	fourth, h4 := newSession(t, c, "shopbot", clientA)
	if err := st.Create(ctx, h4, fourth, max); !errors.Is(err, session.ErrTooMany) {
		t.Fatalf("Create at the cap = %v, want ErrTooMany", err)
	}
	c.Advance(ttl - time.Minute)
	fourth, h4 = newSession(t, c, "shopbot", clientA)
	if err := st.Create(ctx, h4, fourth, max); err != nil {
		t.Fatalf("Create after the first session expired: %v", err)
	}
	if got, err := st.Reap(ctx, c.Now(), 0); err != nil || len(got) != 1 || got[0].ID != first.ID {
		t.Fatalf("Reap = %v, %v; want the first session", ids(got), err)
	}
}

func testNoCap(t *testing.T, st session.Store, c *testclock.Clock) {
	for i := range 50 {
		s, h := newSession(t, c, "shopbot", clientA)
		if err := st.Create(context.Background(), h, s, 0); err != nil {
			t.Fatalf("Create #%d without a cap: %v", i, err)
		}
	}
}

func testReapBatches(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx := context.Background()
	var want []string
	for range 5 {
		s, h := newSession(t, c, "shopbot", clientA)
		mustCreate(t, st, h, s, 0)
		want = append(want, s.ID)
		c.Advance(time.Second)
	}
	late, lh := newSession(t, c, "shopbot", clientA)
	late.ExpiresAt = late.CreatedAt.Add(3 * ttl)
	mustCreate(t, st, lh, late, 0)

	c.Advance(ttl)
	var got []string
	for _, n := range []int{2, 2, 2} {
		ss, err := st.Reap(ctx, c.Now(), n)
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) > n {
			t.Fatalf("Reap(max %d) returned %d", n, len(ss))
		}
		got = append(got, ids(ss)...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("reaped %v, want %v, soonest first", got, want)
	}
	if _, err := st.Get(ctx, lh); err != nil {
		t.Fatalf("a live session was reaped: %v", err)
	}
}

func testCanceled(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, h := newSession(t, c, "shopbot", clientA)
	if err := st.Create(ctx, h, s, 0); err == nil {
		t.Error("Create with a canceled context succeeded")
	}
	if _, err := st.Get(ctx, h); err == nil {
		t.Error("Get with a canceled context succeeded")
	}
	if _, err := st.Delete(ctx, h); err == nil {
		t.Error("Delete with a canceled context succeeded")
	}
	if _, err := st.Reap(ctx, c.Now(), 0); err == nil {
		t.Error("Reap with a canceled context succeeded")
	}
}

func testConcurrentCreate(t *testing.T, st session.Store, c *testclock.Clock) {
	const (
		workers = 32
		max     = 3
	)
	var (
		wg       sync.WaitGroup
		ok, full atomic.Int32
		errs     = make(chan error, workers)
	)
	for range workers {
		s, h := newSession(t, c, "shopbot", clientA)
		wg.Go(func() {
			switch err := st.Create(context.Background(), h, s, max); {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, session.ErrTooMany):
				full.Add(1)
			default:
				errs <- err
			}
			// Readers race with the writers.
			_, _ = st.Get(context.Background(), h)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if ok.Load() != max || full.Load() != workers-max {
		t.Fatalf("%d created, %d refused; want %d and %d", ok.Load(), full.Load(), max, workers-max)
	}
}

func testConcurrentEnd(t *testing.T, st session.Store, c *testclock.Clock) {
	ctx := context.Background()
	const n = 20
	hashes := make([]session.Hash, n)
	for i := range hashes {
		s, h := newSession(t, c, "shopbot", clientA)
		mustCreate(t, st, h, s, 0)
		hashes[i] = h
	}
	var (
		wg      sync.WaitGroup
		deleted atomic.Int32
	)
	for _, h := range hashes {
		for range 3 {
			wg.Go(func() {
				if _, err := st.Delete(ctx, h); err == nil {
					deleted.Add(1)
				} else if !errors.Is(err, session.ErrNotFound) {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	if deleted.Load() != n {
		t.Fatalf("%d deletes succeeded for %d sessions", deleted.Load(), n)
	}
	// Now race Delete against Reap at the deadline's edge: each session
	// ends exactly once.
	for i := range hashes {
		s, h := newSession(t, c, "shopbot", clientA)
		mustCreate(t, st, h, s, 0)
		hashes[i] = h
	}
	var reaped atomic.Int32
	deleted.Store(0)
	for _, h := range hashes {
		wg.Go(func() {
			if _, err := st.Delete(ctx, h); err == nil {
				deleted.Add(1)
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			ss, err := st.Reap(ctx, c.Now().Add(ttl), 3)
			if err != nil {
				t.Error(err)
			}
			reaped.Add(int32(len(ss)))
		})
	}
	wg.Wait()
	rest, err := st.Reap(ctx, c.Now().Add(ttl), 0)
	if err != nil {
		t.Fatal(err)
	}
	if total := deleted.Load() + reaped.Load() + int32(len(rest)); total != n {
		t.Fatalf("%d deleted + %d reaped + %d left = %d ends for %d sessions", deleted.Load(), reaped.Load(), len(rest), total, n)
	}
}

func ids(ss []*session.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}
