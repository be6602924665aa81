// Package audittest is the conformance suite of audit.Store: every store
// (audit.NewMemoryStore's, redisstore.NewAuditStore's, any other) must
// pass Run, so that the middleware may use any of them interchangeably.
package audittest

import (
	"context"
	"crypto/ed25519"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/internal/testing/auditdata"
)

// Run runs the conformance suite. newStore returns an empty store that
// redacts with audit.DefaultRedactor; it is called once per subtest, and
// the stores it returns for one test must not share sessions with
// another's (use a fresh key prefix, for instance).
func Run(t *testing.T, newStore func(t *testing.T) audit.Store) {
	ctx := context.Background()

	t.Run("UnknownSession", func(t *testing.T) {
		s := newStore(t)
		a, st, err := s.Artifact(ctx, "nobody")
		if err != nil || st != audit.Unknown || a != nil {
			t.Fatalf("Artifact(unknown) = %v, %v, %v; want nil, unknown, nil", a, st, err)
		}
		ev, err := s.Events(ctx, "nobody")
		if err != nil || len(ev) != 0 {
			t.Fatalf("Events(unknown) = %v, %v; want none", ev, err)
		}
	})

	t.Run("AppendLinksAndRedacts", func(t *testing.T) {
		s := newStore(t)
		in := auditdata.Event(1)
		if err := s.Append(ctx, "s1", in); err != nil {
			t.Fatal(err)
		}
		if in.Params["payment"].(map[string]any)["card_number"] != "4111111111111111" {
			t.Fatal("Append modified the caller's params")
		}
		for i := 2; i <= 3; i++ {
			if err := s.Append(ctx, "s1", auditdata.Event(i)); err != nil {
				t.Fatal(err)
			}
		}
		ev := mustEvents(t, s, "s1", 3)
		prev := ""
		for i, e := range ev {
			if e.PrevHash != prev {
				t.Fatalf("event %d prev_hash = %q, want %q", i, e.PrevHash, prev)
			}
			prev = mustHash(t, e)
		}
		want := map[string]any{
			"item_id":  "item-1",
			"quantity": 1.0,
			"payment":  map[string]any{"card_number": audit.Redacted, "cvv": audit.Redacted, "brand": "visa"},
		}
		if !reflect.DeepEqual(ev[0].Params, want) {
			t.Fatalf("recorded params = %#v, want %#v", ev[0].Params, want)
		}
		if ev[0].EventID != "evt-1" || ev[2].EventID != "evt-3" {
			t.Fatalf("events out of order: %s, %s", ev[0].EventID, ev[2].EventID)
		}
		if _, st, err := s.Artifact(ctx, "s1"); err != nil || st != audit.Active {
			t.Fatalf("Artifact(active) state = %v, %v; want active", st, err)
		}
	})

	t.Run("QueryParams", func(t *testing.T) {
		s := newStore(t)
		in := auditdata.Event(1)
		in.Params = map[string]any{"quantity": 2, "item_id": "from the body"}
		in.Query = []audit.Param{{Name: "q", Value: "mug"}, {Name: "tag", Value: "a"}, {Name: "item_id", Value: "from the query"}, {Name: "tag", Value: "b"}, {Name: "api_key", Value: "k1"}, {Name: "api_key", Value: "k2"}}
		only := auditdata.Event(2)
		only.Params = nil
		only.Query = in.Query[:5]
		for _, e := range []audit.Event{in, only} {
			if err := s.Append(ctx, "s1", e); err != nil {
				t.Fatal(err)
			}
		}
		ev := mustEvents(t, s, "s1", 2)
		want := []map[string]any{
			{"q": "mug", "tag": []any{"a", "b"}, "item_id": "from the body", "quantity": 2.0, "api_key": audit.Redacted},
			{"q": "mug", "tag": []any{"a", "b"}, "item_id": "from the query", "api_key": audit.Redacted},
		}
		for i := range ev {
			if ev[i].Query != nil || !reflect.DeepEqual(ev[i].Params, want[i]) {
				t.Fatalf("event %d recorded params = %#v, query %v; want %#v", i, ev[i].Params, ev[i].Query, want[i])
			}
		}
		if ev[1].PrevHash != mustHash(t, ev[0]) {
			t.Fatal("events with query params do not chain")
		}
		a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := audit.Verify(a, auditdata.Key.Public().(ed25519.PublicKey)); err != nil {
			t.Fatalf("artifact of events with query params: %v", err)
		}
	})

	t.Run("ReturnedEventsAreCopies", func(t *testing.T) {
		s := newStore(t)
		mustAppend(t, s, "s1", 3)
		ev := mustEvents(t, s, "s1", 3)
		ev[0].Params["item_id"] = "changed"
		ev[1].EventID = "changed"
		if _, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1")); err != nil {
			t.Fatalf("seal after modifying returned events: %v", err)
		}
		if got := mustEvents(t, s, "s1", 3); got[0].Params["item_id"] != "item-0" {
			t.Fatalf("store shares maps with callers: %v", got[0].Params["item_id"])
		}
	})

	t.Run("SessionsAreIndependent", func(t *testing.T) {
		s := newStore(t)
		mustAppend(t, s, "a", 2)
		mustAppend(t, s, "b", 3)
		for id, n := range map[string]int{"a": 2, "b": 3} {
			if ev := mustEvents(t, s, id, n); ev[0].PrevHash != "" {
				t.Fatalf("session %s does not start a chain of its own", id)
			}
		}
	})

	t.Run("SealSession", func(t *testing.T) {
		s := newStore(t)
		mustAppend(t, s, "s1", 4)
		want := mustEvents(t, s, "s1", 4)
		a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := s.Artifact(ctx, "s1")
		if err != nil || st != audit.Sealed {
			t.Fatalf("Artifact(sealed) state = %v, %v; want sealed", st, err)
		}
		if !reflect.DeepEqual(got, a) {
			t.Fatalf("stored artifact differs from the sealed one:\n got %+v\nwant %+v", got, a)
		}
		if err := audit.Verify(got, auditdata.Key.Public().(ed25519.PublicKey)); err != nil {
			t.Fatalf("stored artifact does not verify: %v", err)
		}
		if !reflect.DeepEqual(got.Events, want) {
			t.Fatal("artifact events differ from the recorded events")
		}
		if ev := mustEvents(t, s, "s1", 4); !reflect.DeepEqual(ev, want) {
			t.Fatal("Events after sealing differ from the recorded events")
		}
		got.Events[0].Params["item_id"] = "changed"
		again, _, _ := s.Artifact(ctx, "s1")
		if err := audit.Verify(again, nil); err != nil {
			t.Fatalf("store shares the artifact's maps with callers: %v", err)
		}
	})

	t.Run("SealEmptySession", func(t *testing.T) {
		s := newStore(t)
		a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("empty"))
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Events) != 0 {
			t.Fatalf("events = %v", a.Events)
		}
		if _, st, err := s.Artifact(ctx, "empty"); err != nil || st != audit.Sealed {
			t.Fatalf("state = %v, %v; want sealed", st, err)
		}
	})

	t.Run("SealedTakesNothingMore", func(t *testing.T) {
		s := newStore(t)
		mustAppend(t, s, "s1", 2)
		a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "s1", auditdata.Event(9)); !errors.Is(err, audit.ErrSealed) {
			t.Fatalf("Append after seal: %v, want ErrSealed", err)
		}
		if err := s.Seal(ctx, "s1", a); !errors.Is(err, audit.ErrSealed) {
			t.Fatalf("Seal twice: %v, want ErrSealed", err)
		}
		if _, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1")); !errors.Is(err, audit.ErrSealed) {
			t.Fatalf("SealSession twice: %v, want ErrSealed", err)
		}
		mustEvents(t, s, "s1", 2)
	})

	t.Run("StaleSeal", func(t *testing.T) {
		s := newStore(t)
		mustAppend(t, s, "s1", 2)
		ev := mustEvents(t, s, "s1", 2)
		old, err := audit.Sign(ev, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "s1", auditdata.Event(7)); err != nil {
			t.Fatal(err)
		}
		if err := s.Seal(ctx, "s1", old); !errors.Is(err, audit.ErrStale) {
			t.Fatalf("Seal with an artifact missing the last event: %v, want ErrStale", err)
		}
		short, err := audit.Sign(ev[:1], auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Seal(ctx, "s1", short); !errors.Is(err, audit.ErrStale) {
			t.Fatalf("Seal with a prefix of the log: %v, want ErrStale", err)
		}
		if _, st, _ := s.Artifact(ctx, "s1"); st != audit.Active {
			t.Fatalf("a refused seal changed the state to %v", st)
		}
		a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1"))
		if err != nil || len(a.Events) != 3 {
			t.Fatalf("SealSession = %v events, %v; want 3", len(a.Events), err)
		}
	})

	t.Run("SealRefusesBadArtifacts", func(t *testing.T) {
		s := newStore(t)
		mustAppend(t, s, "s1", 2)
		ev := mustEvents(t, s, "s1", 2)
		a, err := audit.Sign(ev, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Seal(ctx, "s2", a); err == nil {
			t.Fatal("Seal accepted an artifact for another session")
		}
		tampered := *a
		tampered.Site = "https://evil.example"
		if err := s.Seal(ctx, "s1", &tampered); !errors.Is(err, audit.ErrSignature) {
			t.Fatalf("Seal of a tampered artifact: %v, want ErrSignature", err)
		}
		if err := s.Seal(ctx, "s1", nil); err == nil {
			t.Fatal("Seal accepted a nil artifact")
		}
		// A valid artifact of as many events, but not the recorded ones.
		e0 := ev[0]
		e0.EventID = "evt-forged"
		e1 := ev[1]
		e1.PrevHash = mustHash(t, e0)
		forged, err := audit.Sign([]audit.Event{e0, e1}, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Seal(ctx, "s1", forged); !errors.Is(err, audit.ErrStale) {
			t.Fatalf("Seal of an artifact of other events: %v, want ErrStale", err)
		}
		if _, st, _ := s.Artifact(ctx, "s1"); st != audit.Active {
			t.Fatalf("a refused seal changed the state to %v", st)
		}
	})

	t.Run("InvalidInput", func(t *testing.T) {
		s := newStore(t)
		bad := map[string]func(*audit.Event){
			"no event id":   func(e *audit.Event) { e.EventID = "" },
			"bad timestamp": func(e *audit.Event) { e.Timestamp = "2025-06-01T12:00:00Z" },
			"no capability": func(e *audit.Event) { e.Capability = "" },
			"no method":     func(e *audit.Event) { e.Method = "" },
			"bad decision":  func(e *audit.Event) { e.PolicyResult.Decision = "maybe" },
			"bad status":    func(e *audit.Event) { e.ResponseStatus = 0 },
			"NaN param":     func(e *audit.Event) { e.Params = map[string]any{"x": nan()} },
			"channel param": func(e *audit.Event) { e.Params = map[string]any{"x": make(chan int)} },
		}
		for name, mutate := range bad {
			e := auditdata.Event(1)
			mutate(&e)
			if err := s.Append(ctx, "s1", e); err == nil {
				t.Errorf("%s: Append accepted it", name)
			}
		}
		if err := s.Append(ctx, "", auditdata.Event(1)); !errors.Is(err, audit.ErrInvalidEvent) {
			t.Errorf("empty session id: %v, want ErrInvalidEvent", err)
		}
		if _, err := s.Events(ctx, ""); !errors.Is(err, audit.ErrInvalidEvent) {
			t.Errorf("Events empty session id: %v", err)
		}
		if _, _, err := s.Artifact(ctx, ""); !errors.Is(err, audit.ErrInvalidEvent) {
			t.Errorf("Artifact empty session id: %v", err)
		}
		if _, st, _ := s.Artifact(ctx, "s1"); st != audit.Unknown {
			t.Fatalf("refused events created the session (%v)", st)
		}
	})

	t.Run("CancelledContext", func(t *testing.T) {
		s := newStore(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Append(cctx, "s1", auditdata.Event(1)); err == nil {
			t.Fatal("Append with a cancelled context succeeded")
		}
		if _, err := s.Events(cctx, "s1"); err == nil {
			t.Fatal("Events with a cancelled context succeeded")
		}
		if _, _, err := s.Artifact(cctx, "s1"); err == nil {
			t.Fatal("Artifact with a cancelled context succeeded")
		}
	})

	t.Run("ConcurrentAppendsFormOneChain", func(t *testing.T) {
		const workers, each = 16, 25
		a := concurrently(t, newStore(t), workers, each, func(s audit.Store, w, i int) error {
			return s.Append(ctx, "busy", auditdata.Event(w*each+i))
		})
		seen := map[string]bool{}
		for _, e := range a.Events {
			seen[e.EventID] = true
		}
		if len(seen) != workers*each {
			t.Fatalf("%d distinct events, want %d", len(seen), workers*each)
		}
	})

	t.Run("BeginAndComplete", func(t *testing.T) {
		s := newStore(t)
		seq0, err := s.Begin(ctx, "s1", auditdata.Event(0))
		if err != nil || seq0 != 0 {
			t.Fatalf("Begin = %d, %v", seq0, err)
		}
		seq1, err := s.Begin(ctx, "s1", auditdata.Event(1))
		if err != nil || seq1 != 1 {
			t.Fatalf("Begin = %d, %v", seq1, err)
		}
		// Pending: recorded before the action, outcome not yet known.
		if ev := mustEvents(t, s, "s1", 2); ev[0].ResponseStatus != audit.StatusUnrecorded || ev[1].ResponseStatus != audit.StatusUnrecorded {
			t.Fatalf("pending statuses %d, %d", ev[0].ResponseStatus, ev[1].ResponseStatus)
		}
		amend := auditdata.Event(1)
		amend.Capability, amend.Timestamp = "checkout", "2030-01-01T00:00:00.000Z"
		amend.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: "Rate-Limit: 2/minute"}
		if err := s.Complete(ctx, "s1", seq1, 204, &amend); err != nil {
			t.Fatal(err)
		}
		if ev := mustEvents(t, s, "s1", 2); ev[1].Capability != "checkout" || ev[1].PolicyResult.Decision != audit.Deny ||
			ev[1].EventID != auditdata.Event(1).EventID || ev[1].Timestamp != auditdata.Event(1).Timestamp || ev[1].ResponseStatus != 204 {
			t.Fatalf("amended event %+v", ev[1])
		}
		if err := s.Complete(ctx, "s1", seq1, 200, nil); !errors.Is(err, audit.ErrInvalidEvent) {
			t.Fatalf("second Complete: %v, want ErrInvalidEvent", err)
		}
		if err := s.Append(ctx, "s1", auditdata.Event(2)); err != nil {
			t.Fatal(err)
		}
		for _, seq := range []int{2, 3, -1} { // final, beyond the log, negative
			if err := s.Complete(ctx, "s1", seq, 200, nil); !errors.Is(err, audit.ErrInvalidEvent) {
				t.Fatalf("Complete of event %d: %v, want ErrInvalidEvent", seq, err)
			}
		}
		if err := s.Complete(ctx, "s1", seq0, 42, nil); !errors.Is(err, audit.ErrInvalidEvent) {
			t.Fatalf("Complete with status 42: %v, want ErrInvalidEvent", err)
		}
		// Sealed with event 0's outcome unrecorded: a verifier sees an
		// action whose outcome is unknown, not a missing action.
		a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		got := []int{a.Events[0].ResponseStatus, a.Events[1].ResponseStatus, a.Events[2].ResponseStatus}
		if got[0] != audit.StatusUnrecorded || got[1] != 204 || got[2] != 201 {
			t.Fatalf("sealed statuses %v", got)
		}
		if err := audit.Verify(a, auditdata.Key.Public().(ed25519.PublicKey)); err != nil {
			t.Fatal(err)
		}
		if err := s.Complete(ctx, "s1", seq0, 200, nil); !errors.Is(err, audit.ErrSealed) {
			t.Fatalf("Complete after the seal: %v, want ErrSealed", err)
		}
		if _, err := s.Begin(ctx, "s1", auditdata.Event(3)); !errors.Is(err, audit.ErrSealed) {
			t.Fatalf("Begin after the seal: %v, want ErrSealed", err)
		}
	})

	t.Run("CompleteMakesSealStale", func(t *testing.T) {
		s := newStore(t)
		seq, err := s.Begin(ctx, "s1", auditdata.Event(0))
		if err != nil {
			t.Fatal(err)
		}
		ev := mustEvents(t, s, "s1", 1)
		a, err := audit.Sign(ev, auditdata.Key, auditdata.Meta("s1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Complete(ctx, "s1", seq, 200, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Seal(ctx, "s1", a); !errors.Is(err, audit.ErrStale) {
			t.Fatalf("Seal of events read before their outcome: %v, want ErrStale", err)
		}
	})

	t.Run("TimestampsNeverDecrease", func(t *testing.T) {
		s := newStore(t)
		for _, i := range []int{5, 3, 9, 1, 9, 12} {
			if err := s.Append(ctx, "s1", auditdata.Event(i)); err != nil {
				t.Fatal(err)
			}
		}
		ev := mustEvents(t, s, "s1", 6)
		want := []string{auditdata.Event(5).Timestamp, auditdata.Event(5).Timestamp, auditdata.Event(9).Timestamp, auditdata.Event(9).Timestamp, auditdata.Event(9).Timestamp, auditdata.Event(12).Timestamp}
		for i, e := range ev {
			if e.Timestamp != want[i] {
				t.Fatalf("event %d at %s, want %s", i, e.Timestamp, want[i])
			}
		}
	})

	t.Run("ConcurrentBeginsNeverFail", func(t *testing.T) {
		a := concurrently(t, newStore(t), 32, 20, func(s audit.Store, w, i int) error {
			// Timestamps out of order across workers, as requests that
			// start and append in different orders.
			seq, err := s.Begin(ctx, "busy", auditdata.Event((w*7919+i*104729)%1000))
			if err == nil {
				err = s.Complete(ctx, "busy", seq, 200+w%3, nil)
			}
			return err
		})
		for i, e := range a.Events {
			if e.ResponseStatus == audit.StatusUnrecorded {
				t.Fatalf("event %d has no outcome", i)
			}
			if i > 0 && e.Timestamp < a.Events[i-1].Timestamp {
				t.Fatalf("event %d at %s, before event %d at %s", i, e.Timestamp, i-1, a.Events[i-1].Timestamp)
			}
		}
	})
}

// concurrently runs record(w, i) for i < each in each of workers
// goroutines, all recording into session "busy" of s, then seals the
// session and checks that it holds every event.
func concurrently(t *testing.T, s audit.Store, workers, each int, record func(s audit.Store, w, i int) error) *audit.Artifact {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := record(s, w, i); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	a, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("busy"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Events) != workers*each {
		t.Fatalf("%d events recorded, want %d", len(a.Events), workers*each)
	}
	return a
}

func mustAppend(t *testing.T, s audit.Store, id string, n int) {
	t.Helper()
	for i := range n {
		if err := s.Append(context.Background(), id, auditdata.Event(i)); err != nil {
			t.Fatal(err)
		}
	}
}

func mustEvents(t *testing.T, s audit.Store, id string, n int) []audit.Event {
	t.Helper()
	ev, err := s.Events(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != n {
		t.Fatalf("Events(%s) has %d events, want %d", id, len(ev), n)
	}
	return ev
}

func mustHash(t *testing.T, e audit.Event) string {
	t.Helper()
	h, err := audit.EventHash(e)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func nan() float64 {
	var zero float64
	return zero / zero
}
