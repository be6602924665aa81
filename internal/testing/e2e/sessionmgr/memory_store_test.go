package sessionmgr_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/session"
)

// The MemoryStore holds hashes, never tokens: each session is stored under
// its token's SHA-256, and no field of a stored session holds a token.
func TestMemoryStoreKeepsNoToken(t *testing.T) {
	clock := testclock.New(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	st := session.NewMemoryStore(session.WithClock(clock.Now))
	e := newEnv(t, st, clock, nil)
	var tokens []string
	for range 5 {
		res := e.create("shopbot", "192.0.2.7", `{"agent_name":"ShopBot","purpose":"mugs"}`)
		tokens = append(tokens, res.data["session_token"].(string))
	}
	for _, tok := range tokens {
		h := sessionmgr.HashToken(tok)
		s, err := st.Get(context.Background(), h)
		if err != nil {
			t.Fatalf("session not stored under the token's SHA-256: %v", err)
		}
		if string(h[:]) == tok || strings.Contains(string(h[:]), tok) {
			t.Fatal("key holds the token")
		}
		for _, other := range tokens {
			if dump := fmt.Sprintf("%#v", *s); strings.Contains(dump, other) {
				t.Fatalf("stored session holds a token: %s", dump)
			}
		}
	}
}
