package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// testClient is the client of the sessions createToken creates, for
// the agent "shopbot".
var testClient = netip.MustParsePrefix("192.0.2.1/32")

func identifyShopbot(*http.Request) (string, netip.Prefix, bool) { return "shopbot", testClient, true }

// createToken POSTs to m's handler and returns the token.
func createToken(t *testing.T, m *Manager, body string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler(identifyShopbot).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	i := strings.Index(rec.Body.String(), `"session_token":"`)
	return rec.Body.String()[i+17 : i+17+TokenLen]
}

// The MemoryStore holds hashes, never tokens: no key and no field of any
// stored session holds a token.
func TestMemoryStoreKeepsNoToken(t *testing.T) {
	clock := &testClock{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	st := NewMemoryStore(WithClock(clock.now))
	m := MustNew(Config{Store: st, Now: clock.now,
		Capabilities: []string{"checkout"}})
	var tokens []string
	for range 5 {
		tokens = append(tokens, createToken(t, m, `{"agent_name":"ShopBot","purpose":"mugs"}`))
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	if len(st.byHash) != len(tokens) {
		t.Fatalf("%d sessions stored", len(st.byHash))
	}
	for _, tok := range tokens {
		h := HashToken(tok)
		e, ok := st.byHash[h]
		if !ok {
			t.Fatal("session not stored under the token's SHA-256")
		}
		if string(h[:]) == tok || strings.Contains(string(h[:]), tok) {
			t.Fatal("key holds the token")
		}
		for _, e := range st.byHash {
			if dump := fmt.Sprintf("%#v %#v", *e, *e.s); strings.Contains(dump, tok) {
				t.Fatalf("stored entry holds a token: %s", dump)
			}
		}
		if e.s.hash != h || e.hash != h {
			t.Fatal("entry hash mismatch")
		}
	}
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
		_, h, _ := NewToken()
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
	if st.Len() != 0 || len(st.queue) != 0 || len(st.idents) != 0 {
		t.Fatalf("left: %d sessions, %d queued, %d identities", st.Len(), len(st.queue), len(st.idents))
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
			_, h, _ := NewToken()
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

// Lookup with a MemoryStore allocates nothing: the middleware's budget for
// a session-bound request is small.
func TestLookupAllocs(t *testing.T) {
	clock := &testClock{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	m := MustNew(Config{Now: clock.now})
	req := httptest.NewRequest(http.MethodGet, "/cart", nil)
	req.Header.Set(HeaderSession, createToken(t, m, ""))
	if n := testing.AllocsPerRun(1000, func() {
		if _, err := m.Lookup(req, "shopbot", testClient); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("Lookup allocates %v times", n)
	}
}

// TestLookupAt: with the store the Manager made, LookupAt checks expiry at
// the reading it is given (and allocates nothing); with a store of the
// caller's, whose clock may differ, the store's own clock decides.
func TestLookupAt(t *testing.T) {
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := &testClock{start}
	client := testClient
	own := MustNew(Config{Now: clock.now, TTL: time.Hour})
	given := MustNew(Config{Now: clock.now, TTL: time.Hour, Store: NewMemoryStore(WithClock(clock.now))})
	for _, c := range []struct {
		name      string
		m         *Manager
		lateFound bool // LookupAt with a reading past the TTL
	}{
		{"own store", own, false},
		{"given store", given, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/cart", nil)
			req.Header.Set(HeaderSession, createToken(t, c.m, ""))
			if got := c.m.Now(); !got.Equal(start) {
				t.Fatalf("Now = %v, want the Manager's clock", got)
			}
			if _, err := c.m.LookupAt(req, "shopbot", client, start.Add(30*time.Minute)); err != nil {
				t.Fatalf("LookupAt within the TTL: %v", err)
			}
			_, err := c.m.LookupAt(req, "shopbot", client, start.Add(2*time.Hour))
			if found := err == nil; found != c.lateFound {
				t.Fatalf("LookupAt past the TTL: %v", err)
			}
			if _, err := c.m.LookupAt(req, "shopbot", client, time.Time{}); err != nil {
				t.Fatalf("LookupAt without a reading: %v", err)
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = c.m.LookupAt(req, "shopbot", client, start) }); n != 0 {
				t.Fatalf("LookupAt allocates %v times", n)
			}
		})
	}
}
