// Package mcpsessiontest is the conformance suite every mcpsession.Store
// passes.
//
// The suite drives the store's clock: Run's newStore receives the clock
// function the store must judge expiry by. The clock starts at the real
// time, rounded down to the second, so that a store which also hands
// lifetimes to a server (Redis PX) sets them in the future; it then moves
// only when the suite advances it, and nothing sleeps.
package mcpsessiontest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/testclock"
)

// ttl is the lifetime of the suite's bindings.
const ttl = 30 * time.Minute

// Owners the suite binds, as mcpsession.Owner makes them.
var (
	ownerA = mcpsession.Owner(mcpsession.Identity{Subject: "alice", Issuer: "https://as.example"})
	ownerB = mcpsession.Owner(mcpsession.Identity{Subject: "bob", Issuer: "https://as.example"})
)

// Run runs the suite, one subtest per property. newStore returns an empty
// store (or one whose keys no other call sees) on the clock now.
func Run(t *testing.T, newStore func(t *testing.T, now func() time.Time) mcpsession.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, st mcpsession.Store, c *testclock.Clock)
	}{
		{"BindOwner", testBindOwner},
		{"NotFound", testNotFound},
		{"SameOwnerRenews", testRenew},
		{"OtherOwnerRefused", testOtherOwner},
		{"Expiry", testExpiry},
		{"Forget", testForget},
		{"HostileIDs", testHostileIDs},
		{"InvalidArguments", testInvalidArgs},
		{"CaseSensitive", testCaseSensitive},
		{"CanceledContext", testCanceled},
		{"ConcurrentBindOneWinner", testConcurrentBind},
		{"Many", testMany},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testclock.New(clock.Wall().UTC().Truncate(time.Second))
			tc.fn(t, newStore(t, c.Now), c)
		})
	}
}

func mustBind(t *testing.T, st mcpsession.Store, id, owner string) {
	t.Helper()
	if err := st.Bind(context.Background(), id, owner, ttl); err != nil {
		t.Fatalf("Bind(%q): %v", id, err)
	}
}

// wantOwner checks that id is bound to owner until expires.
func wantOwner(t *testing.T, st mcpsession.Store, id, owner string, expires time.Time) {
	t.Helper()
	got, exp, err := st.Owner(context.Background(), id)
	if err != nil {
		t.Fatalf("Owner(%q): %v", id, err)
	}
	if got != owner || !exp.Equal(expires) {
		t.Fatalf("Owner(%q) = %q until %v, want %q until %v", id, got, exp, owner, expires)
	}
}

func wantNotFound(t *testing.T, st mcpsession.Store, id string) {
	t.Helper()
	if got, _, err := st.Owner(context.Background(), id); !errors.Is(err, mcpsession.ErrNotFound) {
		t.Fatalf("Owner(%q) = %q, %v; want ErrNotFound", id, got, err)
	}
}

func testBindOwner(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	mustBind(t, st, "sess-1", ownerA)
	mustBind(t, st, "sess-2", ownerB)
	wantOwner(t, st, "sess-1", ownerA, c.Now().Add(ttl))
	wantOwner(t, st, "sess-2", ownerB, c.Now().Add(ttl))
}

func testNotFound(t *testing.T, st mcpsession.Store, _ *testclock.Clock) {
	wantNotFound(t, st, "never-bound")
	if err := st.Forget(context.Background(), "never-bound"); err != nil {
		t.Fatalf("Forget of an id never bound: %v", err)
	}
}

func testRenew(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	mustBind(t, st, "sess", ownerA)
	c.Advance(ttl - time.Minute)
	mustBind(t, st, "sess", ownerA)
	wantOwner(t, st, "sess", ownerA, c.Now().Add(ttl))
	c.Advance(ttl - time.Millisecond) // past the first deadline, before the new one
	wantOwner(t, st, "sess", ownerA, c.Now().Add(time.Millisecond))
}

func testOtherOwner(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	mustBind(t, st, "sess", ownerA)
	deadline := c.Now().Add(ttl)
	c.Advance(time.Minute)
	if err := st.Bind(context.Background(), "sess", ownerB, ttl); !errors.Is(err, mcpsession.ErrBound) {
		t.Fatalf("Bind by another owner: %v, want ErrBound", err)
	}
	wantOwner(t, st, "sess", ownerA, deadline) // unchanged, deadline included
}

func testExpiry(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	mustBind(t, st, "sess", ownerA)
	deadline := c.Now().Add(ttl)
	c.Advance(ttl - time.Millisecond)
	wantOwner(t, st, "sess", ownerA, deadline)
	c.Advance(time.Millisecond)
	wantNotFound(t, st, "sess")
	// An expired binding is nobody's: a new session of that id (a server
	// reusing ids) binds to whoever it is created for.
	mustBind(t, st, "sess", ownerB)
	wantOwner(t, st, "sess", ownerB, c.Now().Add(ttl))
}

func testForget(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	ctx := context.Background()
	mustBind(t, st, "sess", ownerA)
	mustBind(t, st, "other", ownerA)
	if err := st.Forget(ctx, "sess"); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, st, "sess")
	wantOwner(t, st, "other", ownerA, c.Now().Add(ttl))
	if err := st.Forget(ctx, "sess"); err != nil {
		t.Fatalf("second Forget: %v", err)
	}
	mustBind(t, st, "sess", ownerB)
	wantOwner(t, st, "sess", ownerB, c.Now().Add(ttl))
}

// HostileIDs are ids no server mints (MCP 2025-11-25 "Session Management":
// visible ASCII, 0x21 to 0x7E) or longer than MaxIDLen.
var HostileIDs = map[string]string{
	"empty":        "",
	"too long":     strings.Repeat("a", mcpsession.MaxIDLen+1),
	"huge":         strings.Repeat("a", 1<<20),
	"NUL":          "\x00",
	"inner NUL":    "abc\x00def",
	"space":        "abc def",
	"leading tab":  "\tabc",
	"CRLF":         "abc\r\nX-Injected: 1",
	"LF":           "abc\n",
	"DEL":          "abc\x7f",
	"UTF-8":        "séance",
	"invalid UTF8": "abc\xff\xfe",
	"key pattern":  "* ",
}

func testHostileIDs(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	ctx := context.Background()
	for name, id := range HostileIDs {
		if err := st.Bind(ctx, id, ownerA, ttl); !errors.Is(err, mcpsession.ErrInvalid) {
			t.Errorf("%s: Bind: %v, want ErrInvalid", name, err)
		}
		if _, _, err := st.Owner(ctx, id); !errors.Is(err, mcpsession.ErrInvalid) {
			t.Errorf("%s: Owner: %v, want ErrInvalid", name, err)
		}
		if err := st.Forget(ctx, id); !errors.Is(err, mcpsession.ErrInvalid) {
			t.Errorf("%s: Forget: %v, want ErrInvalid", name, err)
		}
	}
	// The edges of what a server may mint are ids like any other.
	var every strings.Builder
	for b := byte(0x21); b <= 0x7e; b++ {
		every.WriteByte(b)
	}
	for _, id := range []string{"a", strings.Repeat("~", mcpsession.MaxIDLen), every.String(), "*", "?", "[a]", "{tag}"} {
		mustBind(t, st, id, ownerA)
		wantOwner(t, st, id, ownerA, c.Now().Add(ttl))
	}
	// A glob-looking id is itself, not a pattern over others.
	wantNotFound(t, st, "b")
}

func testInvalidArgs(t *testing.T, st mcpsession.Store, _ *testclock.Clock) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		owner string
		ttl   time.Duration
	}{
		{"empty owner", "", ttl},
		{"zero ttl", ownerA, 0},
		{"negative ttl", ownerA, -time.Minute},
		{"sub-millisecond ttl", ownerA, time.Millisecond - 1},
	} {
		if err := st.Bind(ctx, "sess", tc.owner, tc.ttl); !errors.Is(err, mcpsession.ErrInvalid) {
			t.Errorf("%s: Bind: %v, want ErrInvalid", tc.name, err)
		}
	}
	wantNotFound(t, st, "sess")
}

func testCaseSensitive(t *testing.T, st mcpsession.Store, _ *testclock.Clock) {
	mustBind(t, st, "AbC-123", ownerA)
	wantNotFound(t, st, "abc-123")
	wantNotFound(t, st, "ABC-123")
}

func testCanceled(t *testing.T, st mcpsession.Store, _ *testclock.Clock) {
	mustBind(t, st, "sess", ownerA)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Bind(ctx, "other", ownerA, ttl); !errors.Is(err, context.Canceled) {
		t.Errorf("Bind: %v, want context.Canceled", err)
	}
	if _, _, err := st.Owner(ctx, "sess"); !errors.Is(err, context.Canceled) {
		t.Errorf("Owner: %v, want context.Canceled", err)
	}
	if err := st.Forget(ctx, "sess"); !errors.Is(err, context.Canceled) {
		t.Errorf("Forget: %v, want context.Canceled", err)
	}
	wantNotFound(t, st, "other")
}

// testConcurrentBind: many owners bind one id at once (a race of replicas
// for a session id): exactly one wins, and it owns the session.
func testConcurrentBind(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	const n = 16
	var (
		wg     sync.WaitGroup
		errs   [n]error
		owners [n]string
	)
	for i := range n {
		owners[i] = mcpsession.Owner(mcpsession.Identity{Subject: fmt.Sprintf("user-%d", i)})
		wg.Go(func() { errs[i] = st.Bind(context.Background(), "contested", owners[i], ttl) })
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("owners %d and %d both bound the session", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, mcpsession.ErrBound):
			t.Fatalf("owner %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no owner bound the session")
	}
	wantOwner(t, st, "contested", owners[winner], c.Now().Add(ttl))
}

func testMany(t *testing.T, st mcpsession.Store, c *testclock.Clock) {
	const n = 200
	for i := range n {
		owner := ownerA
		if i%2 == 1 {
			owner = ownerB
		}
		mustBind(t, st, fmt.Sprintf("s%03d", i), owner)
	}
	for i := range n {
		owner := ownerA
		if i%2 == 1 {
			owner = ownerB
		}
		wantOwner(t, st, fmt.Sprintf("s%03d", i), owner, c.Now().Add(ttl))
	}
}
