package mcpsession_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/mcpsession"
)

// failing is a Store whose backend is down.
type failing struct{ err error }

func (f failing) Bind(context.Context, string, string, time.Duration) error { return f.err }
func (f failing) Owner(context.Context, string) (string, time.Time, error) {
	return "", time.Time{}, f.err
}
func (f failing) Forget(context.Context, string) error { return f.err }

// A store that cannot answer never lets a session through: Check fails
// (the caller answers 503), and Answered reports it.
func TestStoreFailure(t *testing.T) {
	down := errors.New("connection refused")
	s, err := mcpsession.New(failing{down}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	owner := mcpsession.Owner(mcpsession.Identity{Subject: "alice"})
	p, err := s.Check(ctx, http.Header{mcpsession.Header: {"sess"}}, owner)
	if !errors.Is(err, down) || p.Verdict == mcpsession.Owned {
		t.Fatalf("Check on a failing store: %+v, %v", p, err)
	}
	// Without a session nothing is asked of the store.
	p, err = s.Check(ctx, http.Header{}, owner)
	if err != nil || p.Verdict != mcpsession.None {
		t.Fatalf("Check without a session: %+v, %v", p, err)
	}
	if err := s.Answered(ctx, http.MethodPost, p, owner, http.StatusOK, http.Header{mcpsession.Header: {"new"}}); !errors.Is(err, down) {
		t.Fatalf("Answered on a failing store: %v", err)
	}
}

func TestNew(t *testing.T) {
	m := mcpsession.NewMemory(mcpsession.MemoryConfig{})
	if _, err := mcpsession.New(nil, 0, nil); err == nil {
		t.Error("New(nil store): no error")
	}
	if _, err := mcpsession.New(m, time.Millisecond, nil); err == nil {
		t.Error("New with a 1ms lifetime: no error")
	}
	if _, err := mcpsession.New(m, -time.Hour, nil); err == nil {
		t.Error("New with a negative lifetime: no error")
	}
	if _, err := mcpsession.New(m, 0, nil); err != nil {
		t.Errorf("New with the default lifetime: %v", err)
	}
}

// FuzzCheck: whatever a client sends as Mcp-Session-Id, Check never
// panics, and passes it only when it is exactly the id bound to the
// request's owner.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"sess-alice", "sess-alice ", "SESS-ALICE", "", "\x00", "sess-alice\r\n", "sess-alice,sess-alice"} {
		f.Add(s, false)
	}
	f.Add("sess-alice", true)
	ctx := context.Background()
	m := mcpsession.NewMemory(mcpsession.MemoryConfig{})
	s, err := mcpsession.New(m, 0, nil)
	if err != nil {
		f.Fatal(err)
	}
	alice := mcpsession.Owner(mcpsession.Identity{Subject: "alice"})
	if err := m.Bind(ctx, "sess-alice", alice, time.Hour); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id string, twice bool) {
		h := http.Header{mcpsession.Header: {id}}
		if twice {
			h.Add(mcpsession.Header, id)
		}
		p, err := s.Check(ctx, h, alice)
		if err != nil {
			t.Fatal(err)
		}
		owned := p.Verdict == mcpsession.Owned
		if owned != (id == "sess-alice" && !twice) {
			t.Fatalf("Check(%q, twice %v) = %v", id, twice, p.Verdict)
		}
		if p.Verdict == mcpsession.None {
			t.Fatalf("Check(%q) = None for a header present", id)
		}
		if p.Verdict != mcpsession.Owned && !p.Verdict.Unknown() {
			t.Fatalf("Check(%q) = %v, neither owned nor unknown", id, p.Verdict)
		}
	})
}
