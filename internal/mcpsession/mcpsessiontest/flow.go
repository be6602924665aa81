package mcpsessiontest

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/testclock"
)

// Identities of the flow's clients. alice opens the sessions; the others
// replay them.
var (
	alice        = mcpsession.Identity{Subject: "alice", Issuer: "https://as.example", Policy: "ClaudeBot", Grade: enforce.GradeClaimed, Client: netip.MustParseAddr("192.0.2.10")}
	aliceRoaming = mcpsession.Identity{Subject: "alice", Issuer: "https://as.example", Policy: "*", Grade: enforce.GradeAnonymous, Client: netip.MustParseAddr("198.51.100.1")}
	bob          = mcpsession.Identity{Subject: "bob", Issuer: "https://as.example", Policy: "ClaudeBot", Grade: enforce.GradeClaimed, Client: netip.MustParseAddr("192.0.2.10")}
	anon         = mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous, Client: netip.MustParseAddr("203.0.113.5")}
	anonNeighbor = mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous, Client: netip.MustParseAddr("203.0.113.200")}
	anonElse     = mcpsession.Identity{Policy: "*", Grade: enforce.GradeAnonymous, Client: netip.MustParseAddr("203.0.114.5")}
	anonAgent    = mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeClaimed, Client: netip.MustParseAddr("203.0.113.5")}
	gptProven    = mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeProven, Operator: "https://chatgpt.com", Method: "signature", Client: netip.MustParseAddr("20.0.0.1")}
)

// Replicas is two Sessions over two stores that share one backend (two
// replicas of a site on one Redis), or the same store twice (one process).
type Replicas [2]*mcpsession.Sessions

// RunFlow runs the binding flow's cases, one subtest each, on replicas
// whose stores newStores returns on the clock now (both on one backend);
// each store is wrapped to count its Binds.
func RunFlow(t *testing.T, newStores func(t *testing.T, now func() time.Time) [2]mcpsession.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, r Replicas, c *testclock.Clock, binds *atomic.Int64)
	}{
		{"OpenAndUse", testOpenAndUse},
		{"ReplayedByAnotherClient", testReplayed},
		{"AnonymousByNetwork", testAnonymous},
		{"NeverCreatedIsUnknown", testNeverCreated},
		{"DeleteByOwner", testDelete},
		{"ServerEnded", testServerEnded},
		{"ServerHandsOutAForeignSession", testForeignAnswer},
		{"Renewal", testRenewal},
		{"IdleExpiry", testIdleExpiry},
		{"HostileHeaders", testHostileHeaders},
		{"WhatDoesNotBind", testNoBind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testclock.New(clock.Wall().UTC().Truncate(time.Second))
			stores := newStores(t, c.Now)
			var binds atomic.Int64
			var r Replicas
			for i, st := range stores {
				s, err := mcpsession.New(counting{st, &binds}, ttl, c.Now)
				if err != nil {
					t.Fatal(err)
				}
				r[i] = s
			}
			tc.fn(t, r, c, &binds)
		})
	}
}

// counting is a Store that counts the Binds it is asked.
type counting struct {
	mcpsession.Store
	n *atomic.Int64
}

func (c counting) Bind(ctx context.Context, id, owner string, ttl time.Duration) error {
	c.n.Add(1)
	return c.Store.Bind(ctx, id, owner, ttl)
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// open makes who's initialize on s, answered with session id: the server
// created it.
func open(t *testing.T, s *mcpsession.Sessions, who mcpsession.Identity, id string) {
	t.Helper()
	ctx := context.Background()
	owner := mcpsession.Owner(who)
	p, err := s.Check(ctx, http.Header{}, owner)
	if err != nil || p.Verdict != mcpsession.None {
		t.Fatalf("Check of an initialize: %+v, %v", p, err)
	}
	if err := s.Answered(ctx, http.MethodPost, p, owner, http.StatusOK, header(mcpsession.Header, id)); err != nil {
		t.Fatalf("Answered to an initialize: %v", err)
	}
}

// check is who's request on s presenting session id.
func check(t *testing.T, s *mcpsession.Sessions, who mcpsession.Identity, id string) mcpsession.Presented {
	t.Helper()
	p, err := s.Check(context.Background(), header(mcpsession.Header, id), mcpsession.Owner(who))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return p
}

func want(t *testing.T, what string, p mcpsession.Presented, v mcpsession.Verdict) {
	t.Helper()
	if p.Verdict != v {
		t.Fatalf("%s: verdict %v, want %v", what, p.Verdict, v)
	}
	if v.Unknown() != (v != mcpsession.None && v != mcpsession.Owned) {
		t.Fatalf("%s: %v.Unknown() = %v", what, v, v.Unknown())
	}
}

func testOpenAndUse(t *testing.T, r Replicas, _ *testclock.Clock, _ *atomic.Int64) {
	open(t, r[0], alice, "sess-alice")
	want(t, "the owner on the replica that bound it", check(t, r[0], alice, "sess-alice"), mcpsession.Owned)
	want(t, "the owner on another replica", check(t, r[1], alice, "sess-alice"), mcpsession.Owned)
	want(t, "the owner's subject from elsewhere, as another agent", check(t, r[1], aliceRoaming, "sess-alice"), mcpsession.Owned)
	open(t, r[1], gptProven, "sess-gpt")
	want(t, "a proven agent from another address", check(t, r[0], mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeProven, Operator: "https://chatgpt.com", Method: "signature", Client: netip.MustParseAddr("52.1.1.1")}, "sess-gpt"), mcpsession.Owned)
}

// A session replayed by another subject, agent or network is unknown on
// every replica, exactly as a session never created.
func testReplayed(t *testing.T, r Replicas, _ *testclock.Clock, _ *atomic.Int64) {
	open(t, r[0], alice, "sess-alice")
	open(t, r[0], anon, "sess-anon")
	open(t, r[0], gptProven, "sess-gpt")
	for _, tc := range []struct {
		name string
		who  mcpsession.Identity
		id   string
	}{
		{"another subject", bob, "sess-alice"},
		{"no subject, same agent and address", mcpsession.Identity{Policy: alice.Policy, Grade: alice.Grade, Client: alice.Client}, "sess-alice"},
		{"another /24", anonElse, "sess-anon"},
		{"another agent, same address", anonAgent, "sess-anon"},
		{"a subject, same address", mcpsession.Identity{Subject: "mallory", Client: anon.Client}, "sess-anon"},
		{"the proven agent's name, unproven", mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeClaimed, Client: gptProven.Client}, "sess-gpt"},
		{"proven by another operator", mcpsession.Identity{Policy: "GPTBot", Grade: enforce.GradeProven, Operator: "https://evil.example", Method: "signature"}, "sess-gpt"},
	} {
		for i, s := range r {
			p := check(t, s, tc.who, tc.id)
			want(t, tc.name, p, mcpsession.Foreign)
			if !p.Verdict.Unknown() {
				t.Fatalf("%s on replica %d: not answered as unknown", tc.name, i)
			}
		}
	}
	// The owners still own them.
	want(t, "alice after the replays", check(t, r[1], alice, "sess-alice"), mcpsession.Owned)
	want(t, "anon after the replays", check(t, r[1], anon, "sess-anon"), mcpsession.Owned)
}

func testAnonymous(t *testing.T, r Replicas, _ *testclock.Clock, _ *atomic.Int64) {
	open(t, r[0], anon, "sess-anon")
	want(t, "a neighbour in the same /24", check(t, r[1], anonNeighbor, "sess-anon"), mcpsession.Owned)
	want(t, "another /24", check(t, r[1], anonElse, "sess-anon"), mcpsession.Foreign)
}

// A session id agentready never saw created (opened before it was
// deployed) is unknown to everyone, even the first to present it, and
// presenting it binds nothing.
func testNeverCreated(t *testing.T, r Replicas, _ *testclock.Clock, binds *atomic.Int64) {
	p := check(t, r[0], alice, "created-before-agentready")
	want(t, "first presentation", p, mcpsession.Unbound)
	// Served anyway (report-only mode), with the server echoing the id.
	if err := r[0].Answered(context.Background(), http.MethodPost, p, mcpsession.Owner(alice), http.StatusOK, header(mcpsession.Header, "created-before-agentready")); err != nil {
		t.Fatal(err)
	}
	want(t, "second presentation", check(t, r[1], alice, "created-before-agentready"), mcpsession.Unbound)
	if binds.Load() != 0 {
		t.Fatalf("%d Binds for a session never created", binds.Load())
	}
}

func testDelete(t *testing.T, r Replicas, _ *testclock.Clock, _ *atomic.Int64) {
	ctx := context.Background()
	open(t, r[0], alice, "sess-alice")
	// Another client's DELETE is unknown: the caller answers 404 and the
	// server never sees it, so the session lives on.
	want(t, "a DELETE by bob", check(t, r[1], bob, "sess-alice"), mcpsession.Foreign)
	// The server refuses to end sessions (405): the binding stays.
	p := check(t, r[1], alice, "sess-alice")
	if err := r[1].Answered(ctx, http.MethodDelete, p, mcpsession.Owner(alice), http.StatusMethodNotAllowed, http.Header{}); err != nil {
		t.Fatal(err)
	}
	want(t, "after a 405 DELETE", check(t, r[0], alice, "sess-alice"), mcpsession.Owned)
	p = check(t, r[1], alice, "sess-alice")
	want(t, "the owner's DELETE", p, mcpsession.Owned)
	if err := r[1].Answered(ctx, http.MethodDelete, p, mcpsession.Owner(alice), http.StatusNoContent, http.Header{}); err != nil {
		t.Fatal(err)
	}
	want(t, "after the DELETE, on the other replica", check(t, r[0], alice, "sess-alice"), mcpsession.Unbound)
}

func testServerEnded(t *testing.T, r Replicas, _ *testclock.Clock, _ *atomic.Int64) {
	open(t, r[0], alice, "sess-alice")
	p := check(t, r[0], alice, "sess-alice")
	if err := r[0].Answered(context.Background(), http.MethodPost, p, mcpsession.Owner(alice), http.StatusNotFound, http.Header{}); err != nil {
		t.Fatal(err)
	}
	want(t, "after the server's 404", check(t, r[1], alice, "sess-alice"), mcpsession.Unbound)
}

// A server answering with a session bound to someone else (a server bug,
// or one echoing an id it was sent) never rebinds it: ErrBound, and the
// caller does not deliver the answer.
func testForeignAnswer(t *testing.T, r Replicas, _ *testclock.Clock, _ *atomic.Int64) {
	ctx := context.Background()
	open(t, r[0], alice, "sess-alice")
	p, err := r[1].Check(ctx, http.Header{}, mcpsession.Owner(bob))
	if err != nil {
		t.Fatal(err)
	}
	err = r[1].Answered(ctx, http.MethodPost, p, mcpsession.Owner(bob), http.StatusOK, header(mcpsession.Header, "sess-alice"))
	if !errors.Is(err, mcpsession.ErrBound) {
		t.Fatalf("Answered with alice's session to bob: %v, want ErrBound", err)
	}
	want(t, "alice", check(t, r[0], alice, "sess-alice"), mcpsession.Owned)
	want(t, "bob", check(t, r[0], bob, "sess-alice"), mcpsession.Foreign)
	// An owned session the server answers with a new id: the new one is
	// the owner's too.
	p = check(t, r[0], alice, "sess-alice")
	if err := r[0].Answered(ctx, http.MethodPost, p, mcpsession.Owner(alice), http.StatusOK, header(mcpsession.Header, "sess-alice-2")); err != nil {
		t.Fatal(err)
	}
	want(t, "the new id", check(t, r[1], alice, "sess-alice-2"), mcpsession.Owned)
}

// A session in use is renewed once past half its lifetime, and only then:
// a store is not written on every request.
func testRenewal(t *testing.T, r Replicas, c *testclock.Clock, binds *atomic.Int64) {
	ctx := context.Background()
	owner := mcpsession.Owner(alice)
	open(t, r[0], alice, "sess-alice")
	use := func(s *mcpsession.Sessions) {
		t.Helper()
		p := check(t, s, alice, "sess-alice")
		want(t, "use", p, mcpsession.Owned)
		// The server echoes the id, as some do on every answer.
		if err := s.Answered(ctx, http.MethodPost, p, owner, http.StatusOK, header(mcpsession.Header, "sess-alice")); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		use(r[1])
	}
	c.Advance(ttl/2 - time.Second)
	use(r[0])
	if n := binds.Load(); n != 1 {
		t.Fatalf("%d Binds before half the lifetime, want 1 (the creation)", n)
	}
	c.Advance(2 * time.Second)
	use(r[1]) // renews
	use(r[0]) // renewed already
	if n := binds.Load(); n != 2 {
		t.Fatalf("%d Binds after half the lifetime, want 2", n)
	}
	c.Advance(ttl - time.Second) // past the first deadline, before the renewed one
	want(t, "a renewed session", check(t, r[0], alice, "sess-alice"), mcpsession.Owned)
}

func testIdleExpiry(t *testing.T, r Replicas, c *testclock.Clock, _ *atomic.Int64) {
	open(t, r[0], alice, "sess-alice")
	c.Advance(ttl - time.Millisecond)
	want(t, "just before the idle lifetime", check(t, r[1], alice, "sess-alice"), mcpsession.Owned)
	c.Advance(time.Millisecond)
	want(t, "at the idle lifetime", check(t, r[1], alice, "sess-alice"), mcpsession.Unbound)
	want(t, "someone else at the idle lifetime", check(t, r[1], bob, "sess-alice"), mcpsession.Unbound)
}

func testHostileHeaders(t *testing.T, r Replicas, _ *testclock.Clock, binds *atomic.Int64) {
	ctx := context.Background()
	owner := mcpsession.Owner(alice)
	open(t, r[0], alice, "sess-alice")
	bound := binds.Load()
	for name, id := range HostileIDs {
		p, err := r[0].Check(ctx, header(mcpsession.Header, id), owner)
		if err != nil || p.Verdict != mcpsession.Malformed || p.ID != "" {
			t.Errorf("%s: Check = %+v, %v; want Malformed", name, p, err)
		}
		p, _ = r[0].Check(ctx, http.Header{}, owner)
		if err := r[0].Answered(ctx, http.MethodPost, p, owner, http.StatusOK, header(mcpsession.Header, id)); !errors.Is(err, mcpsession.ErrInvalid) {
			t.Errorf("%s: a server answering with it: %v, want ErrInvalid", name, err)
		}
	}
	// Two fields, even the owner's id twice: the server behind may read
	// another one than agentready checked.
	for _, h := range []http.Header{
		header(mcpsession.Header, "sess-alice", mcpsession.Header, "sess-alice"),
		header(mcpsession.Header, "sess-alice", mcpsession.Header, "sess-bob"),
		{mcpsession.Header: {}}, // present but with no value: no id at all
	} {
		p, err := r[1].Check(ctx, h, owner)
		if len(h.Values(mcpsession.Header)) == 0 {
			if err != nil || p.Verdict != mcpsession.None {
				t.Errorf("%v: Check = %+v, %v; want None", h, p, err)
			}
			continue
		}
		if err != nil || p.Verdict != mcpsession.Malformed {
			t.Errorf("%v: Check = %+v, %v; want Malformed", h, p, err)
		}
	}
	if n := binds.Load(); n != bound {
		t.Fatalf("hostile ids made %d Binds", n-bound)
	}
}

// Only a 2xx answer to a POST binds a session.
func testNoBind(t *testing.T, r Replicas, _ *testclock.Clock, binds *atomic.Int64) {
	ctx := context.Background()
	owner := mcpsession.Owner(alice)
	for _, tc := range []struct {
		method string
		status int
	}{
		{http.MethodGet, http.StatusOK},
		{http.MethodDelete, http.StatusNoContent},
		{http.MethodPost, http.StatusBadRequest},
		{http.MethodPost, http.StatusInternalServerError},
		{http.MethodPost, http.StatusFound},
	} {
		p, _ := r[0].Check(ctx, http.Header{}, owner)
		if err := r[0].Answered(ctx, tc.method, p, owner, tc.status, header(mcpsession.Header, "sess-x")); err != nil {
			t.Fatal(err)
		}
		want(t, tc.method+" "+http.StatusText(tc.status), check(t, r[1], alice, "sess-x"), mcpsession.Unbound)
	}
	if binds.Load() != 0 {
		t.Fatalf("%d Binds", binds.Load())
	}
}
