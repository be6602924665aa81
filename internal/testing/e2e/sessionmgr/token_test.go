package sessionmgr_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/session"
)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok, h, err := sessionmgr.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) != sessionmgr.TokenLen || len(tok) < 32 || !isBase64URL(tok) {
			t.Fatalf("token %q: want %d base64url characters", tok, sessionmgr.TokenLen)
		}
		if seen[tok] {
			t.Fatalf("token %q repeated", tok)
		}
		seen[tok] = true
		if h != session.Hash(sha256.Sum256([]byte(tok))) || h != sessionmgr.HashToken(tok) {
			t.Fatalf("hash of %q is not its SHA-256", tok)
		}
	}
}

func TestHashToken(t *testing.T) {
	for _, tok := range []string{"", "a", strings.Repeat("x", 256), strings.Repeat("y", 257), strings.Repeat("z", 10000)} {
		if got, want := sessionmgr.HashToken(tok), session.Hash(sha256.Sum256([]byte(tok))); got != want {
			t.Errorf("HashToken(%d bytes) is not the SHA-256", len(tok))
		}
	}
	h := sessionmgr.HashToken("abc")
	if got := hex.EncodeToString(h[:]); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("hex = %s", got)
	}
}
