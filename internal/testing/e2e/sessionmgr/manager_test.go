package sessionmgr_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

func TestExpiryIsAHardDeadline(t *testing.T) {
	e := newEnv(t, nil, nil, func(c *sessionmgr.Config) { c.TTL = 30 * time.Minute })
	token := e.create("shopbot", "192.0.2.7", "").data["session_token"].(string)
	// Activity does not extend the TTL.
	for range 29 {
		e.clock.Advance(time.Minute)
		if r := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", token, ""); r.status != http.StatusOK {
			t.Fatalf("live session refused: %d", r.status)
		}
	}
	e.clock.Advance(time.Minute - time.Millisecond)
	if r := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", token, ""); r.status != http.StatusOK {
		t.Fatalf("1ms before the deadline: %d", r.status)
	}
	e.clock.Advance(time.Millisecond)
	if r := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", token, ""); r.status != http.StatusUnauthorized {
		t.Fatalf("at the deadline: %d", r.status)
	}
}

func TestMaxSessions(t *testing.T) {
	stores(t, func(t *testing.T, st session.Store, clock *testclock.Clock) {
		e := newEnv(t, st, clock, func(c *sessionmgr.Config) { c.MaxSessions = 2; c.TTL = 10 * time.Minute })
		first := e.create("shopbot", "192.0.2.7", "")
		clock.Advance(90 * time.Second)
		second := e.create("shopbot", "192.0.2.7", "")
		if first.status != 201 || second.status != 201 {
			t.Fatal(first.raw, second.raw)
		}
		clock.Advance(500 * time.Millisecond)
		res := e.create("shopbot", "192.0.2.7", "")
		if res.status != http.StatusTooManyRequests || res.body["ok"] != false || res.body["error"] == "" {
			t.Fatalf("third create: %d %s", res.status, res.raw)
		}
		// The first expires in 10m - 90.5s = 509.5s: Retry-After rounds up.
		if ra := res.header.Get("Retry-After"); ra != "510" {
			t.Errorf("Retry-After %q, want 510", ra)
		}
		// Other identities are not affected.
		if r := e.create("otherbot", "192.0.2.7", ""); r.status != 201 {
			t.Fatalf("other agent: %d", r.status)
		}
		if r := e.create("shopbot", "192.0.2.8", ""); r.status != 201 {
			t.Fatalf("other client: %d", r.status)
		}
		clock.Advance(509 * time.Second) // 0.5s before the first expires
		res = e.create("shopbot", "192.0.2.7", "")
		if res.status != 429 || res.header.Get("Retry-After") != "1" {
			t.Fatalf("just before expiry: %d Retry-After %q", res.status, res.header.Get("Retry-After"))
		}
		clock.Advance(500 * time.Millisecond)
		if r := e.create("shopbot", "192.0.2.7", ""); r.status != 201 {
			t.Fatalf("after the first expired: %d %s", r.status, r.raw)
		}
		// Creating reaped the expired session: its end is reported.
		ends := e.events()
		if len(ends) != 1 || ends[0].reason != sessionmgr.Expired || ends[0].s.ID != first.data["session_id"] {
			t.Fatalf("ends %v, want the first session expired", ends)
		}
		// DELETE frees a slot at once.
		if r := e.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", second.data["session_token"].(string), ""); r.status != 200 {
			t.Fatal(r.raw)
		}
		if r := e.create("shopbot", "192.0.2.7", ""); r.status != 201 {
			t.Fatalf("after DELETE: %d", r.status)
		}
	})
}

// TestMaxSessionsUnderDefaultPolicy: agents under the default policy name
// themselves, so their sessions count per client whatever the name: 30
// product tokens from one client against a max of 5 create 5, another
// client still gets its own 5, a declared agent its own, and each session
// stays bound to the name that created it.
func TestMaxSessionsUnderDefaultPolicy(t *testing.T) {
	stores(t, func(t *testing.T, st session.Store, clock *testclock.Clock) {
		const max = 5
		e := newEnv(t, st, clock, func(c *sessionmgr.Config) { c.MaxSessions = max })
		for _, client := range []string{"192.0.2.7", "192.0.2.8"} {
			created := 0
			var first string
			for i := range 30 {
				agent := fmt.Sprintf("*/Agent%d", i)
				if i%10 == 9 {
					agent = "*" // no product token at all
				}
				r := e.create(agent, client, "")
				switch r.status {
				case http.StatusCreated:
					created++
					if first == "" {
						first = r.data["session_token"].(string)
					}
				case http.StatusTooManyRequests:
				default:
					t.Fatalf("%s from %s: %d %s", agent, client, r.status, r.raw)
				}
			}
			if created != max {
				t.Errorf("client %s: %d sessions created under *, want %d", client, created, max)
			}
			if r := e.do(http.MethodGet, "/cart", "*/Agent1", client, first, ""); r.status != http.StatusUnauthorized {
				t.Errorf("a session of */Agent0 used as */Agent1: %d", r.status)
			}
		}
		if r := e.create("shopbot", "192.0.2.7", ""); r.status != http.StatusCreated {
			t.Errorf("a declared agent of the same client: %d %s", r.status, r.raw)
		}
	})
}

func TestCountedAs(t *testing.T) {
	for in, want := range map[string]string{"*": "*", "*/ShopAgent": "*", "*/ClaudeBot": "*", "claude": "claude", "": "", "a*/b": "a*/b"} {
		if got := session.CountedAs(in); got != want {
			t.Errorf("CountedAs(%q) = %q, want %q", in, got, want)
		}
	}
}

// Concurrent creates through the endpoint never exceed the max.
func TestConcurrentCreates(t *testing.T) {
	stores(t, func(t *testing.T, st session.Store, clock *testclock.Clock) {
		const max = 4
		e := newEnv(t, st, clock, func(c *sessionmgr.Config) { c.MaxSessions = max })
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			statuses = map[int]int{}
		)
		for range 40 {
			wg.Go(func() {
				r := e.do(http.MethodPost, endpoint, "shopbot", "192.0.2.7", "", "")
				mu.Lock()
				statuses[r.status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if statuses[201] != max || statuses[429] != 40-max {
			t.Fatalf("statuses %v, want %d created", statuses, max)
		}
	})
}

func TestHandoff(t *testing.T) {
	e := newEnv(t, nil, nil, nil)
	token := e.create("shopbot", "192.0.2.7", "").data["session_token"].(string)
	e.clock.Advance(time.Minute)
	r := e.do(http.MethodPost, "/checkout", "shopbot", "192.0.2.7", token, "")
	if r.status != 200 || r.raw != e.clock.Now().Format(time.RFC3339Nano) {
		t.Fatalf("checkout: %d %q", r.status, r.raw)
	}
	ends := e.events()
	if len(ends) != 1 || ends[0].reason != sessionmgr.Handoff || !ends[0].s.EndedAt.Equal(e.clock.Now()) {
		t.Fatalf("ends %v", ends)
	}
	if r := e.do(http.MethodPost, "/checkout", "shopbot", "192.0.2.7", token, ""); r.status != 401 {
		t.Fatalf("second checkout: %d", r.status)
	}
	carrying := func(token string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/checkout", nil)
		r.Header.Set(session.HeaderSession, token)
		return r
	}
	ended := carrying(token)
	if _, err := e.m.End(context.Background(), ended, ends[0].s, sessionmgr.Handoff); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("End of an ended session = %v", err)
	}
	live := carrying(e.create("shopbot", "192.0.2.7", "").data["session_token"].(string))
	for _, tc := range []struct {
		name   string
		r      *http.Request
		s      *session.Session
		reason sessionmgr.EndReason
	}{
		{"nil", live, nil, sessionmgr.Handoff},
		{"not from a store", live, &session.Session{ID: "x"}, sessionmgr.Handoff},
		{"no token", httptest.NewRequest(http.MethodPost, "/checkout", nil), ends[0].s, sessionmgr.Handoff},
		{"expired reason", ended, ends[0].s, sessionmgr.Expired},
		{"zero reason", ended, ends[0].s, 0},
	} {
		if _, err := e.m.End(context.Background(), tc.r, tc.s, tc.reason); err == nil {
			t.Errorf("End %s: no error", tc.name)
		}
	}
	if len(e.events()) != 1 {
		t.Fatalf("failed Ends were reported: %v", e.events())
	}
}

// TestBeforeEnd: BeforeEnd runs before a session ends, with the reason;
// its error keeps the session live (503 on DELETE, ErrNotRecorded from
// End) and OnEnd hears nothing.
func TestBeforeEnd(t *testing.T) {
	var refuse atomic.Bool
	var reasons []sessionmgr.EndReason
	var mu sync.Mutex
	e := newEnv(t, nil, nil, func(c *sessionmgr.Config) {
		c.BeforeEnd = func(ctx context.Context, s *session.Session, r sessionmgr.EndReason) error {
			mu.Lock()
			defer mu.Unlock()
			reasons = append(reasons, r)
			if refuse.Load() {
				return errors.New("audit store down")
			}
			return nil
		}
	})
	token := e.create("shopbot", "192.0.2.7", "").data["session_token"].(string)
	refuse.Store(true)
	r := e.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", token, "")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body["error"].(string), "still live") {
		t.Fatalf("refused DELETE: %d %s", r.status, r.raw)
	}
	if r := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", token, ""); r.status != 200 {
		t.Fatalf("session not live after a refused DELETE: %d %s", r.status, r.raw)
	}
	if r := e.do(http.MethodPost, "/checkout", "shopbot", "192.0.2.7", token, ""); r.status != http.StatusServiceUnavailable {
		t.Fatalf("refused handoff: %d %s", r.status, r.raw)
	}
	if len(e.events()) != 0 {
		t.Fatalf("refused ends were reported: %v", e.events())
	}
	refuse.Store(false)
	if r := e.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", token, ""); r.status != 200 {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	if ends := e.events(); len(ends) != 1 || ends[0].reason != sessionmgr.Deleted {
		t.Fatalf("ends %v", ends)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []sessionmgr.EndReason{sessionmgr.Deleted, sessionmgr.Handoff, sessionmgr.Deleted}; !slices.Equal(reasons, want) {
		t.Errorf("BeforeEnd reasons %v, want %v", reasons, want)
	}
	if s, _ := sessionmgr.ErrorStatus(fmt.Errorf("x: %w", sessionmgr.ErrNotRecorded)); s != 503 {
		t.Errorf("ErrorStatus(ErrNotRecorded) = %d", s)
	}
}

// TestAfterCreate: AfterCreate sees every new session before its token
// is handed out; its error deletes the session and fails the creation
// with 503, leaving nothing live (max_sessions is not used up).
func TestAfterCreate(t *testing.T) {
	var refuse atomic.Bool
	var seen []string
	var mu sync.Mutex
	clock := testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	st := session.NewMemoryStore(session.WithClock(clock.Now))
	e := newEnv(t, st, clock, func(c *sessionmgr.Config) {
		c.MaxSessions = 1
		c.AfterCreate = func(ctx context.Context, s *session.Session) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, s.Agent)
			if refuse.Load() {
				return errors.New("audit store down")
			}
			return nil
		}
	})
	refuse.Store(true)
	if r := e.create("shopbot", "192.0.2.7", ""); r.status != http.StatusServiceUnavailable {
		t.Fatalf("refused create: %d %s", r.status, r.raw)
	}
	if left, err := st.Reap(context.Background(), clock.Now().Add(48*time.Hour), 0); err != nil || len(left) != 0 {
		t.Fatalf("a refused session was kept: %v %v", left, err)
	}
	refuse.Store(false)
	r := e.create("shopbot", "192.0.2.7", "")
	if r.status != http.StatusCreated {
		t.Fatalf("create after a refusal (max_sessions 1): %d %s", r.status, r.raw)
	}
	if got := e.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", r.data["session_token"].(string), ""); got.status != 200 {
		t.Fatalf("created session: %d %s", got.status, got.raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{"shopbot", "shopbot"}) {
		t.Errorf("AfterCreate saw %v", seen)
	}
}

// A reap failure after a successful create does not fail the create; it
// goes to OnError.
func TestReapErrorsOnCreate(t *testing.T) {
	clock := testclock.New(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	st := reapFails{session.NewMemoryStore(session.WithClock(clock.Now))}
	e := newEnv(t, st, clock, nil)
	if r := e.create("shopbot", "192.0.2.7", ""); r.status != 201 {
		t.Fatalf("create: %d", r.status)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.errs) != 1 || !errors.Is(e.errs[0], errDown) {
		t.Fatalf("OnError got %v", e.errs)
	}
}

type reapFails struct{ *session.MemoryStore }

func TestRun(t *testing.T) {
	ended := make(chan *session.Session, 3)
	e := newEnv(t, nil, nil, func(c *sessionmgr.Config) {
		c.OnEnd = func(s *session.Session, r sessionmgr.EndReason) {
			if r == sessionmgr.Expired {
				ended <- s
			}
		}
	})
	for range 3 {
		e.create("shopbot", "192.0.2.7", "")
	}
	e.clock.Advance(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.m.Run(ctx, time.Millisecond) }()
	for range 3 {
		select {
		case <-ended:
		case err := <-done:
			t.Fatalf("Run returned early: %v", err)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if err := e.m.Run(context.Background(), 0); err == nil {
		t.Fatal("Run(0) accepted")
	}
}

func TestNewErrors(t *testing.T) {
	_, err := sessionmgr.New(sessionmgr.Config{TTL: -time.Second, MaxSessions: -1, Capabilities: []string{"a", ""}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"TTL -1s is negative", "MaxSessions -1 is negative", "Capabilities[1] is empty"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustNew did not panic")
			}
		}()
		sessionmgr.MustNew(sessionmgr.Config{TTL: -time.Second})
	}()
	m := sessionmgr.MustNew(sessionmgr.Config{})
	if m.TTL() != 1800*time.Second {
		t.Errorf("default TTL %v", m.TTL())
	}
	if _, ok := m.Store().(*session.MemoryStore); !ok {
		t.Errorf("default store %T", m.Store())
	}
}

func TestEndReasonString(t *testing.T) {
	for r, want := range map[sessionmgr.EndReason]string{
		sessionmgr.Deleted: "deleted", sessionmgr.Expired: "expired", sessionmgr.Handoff: "handoff", 0: "EndReason(0)", 9: "EndReason(9)",
	} {
		if got := r.String(); got != want {
			t.Errorf("%d: %q, want %q", r, got, want)
		}
	}
}
