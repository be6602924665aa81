package session_test

import (
	"crypto/sha256"
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/session"
)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok, h, err := session.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) != session.TokenLen || len(tok) < 32 || !isBase64URL(tok) {
			t.Fatalf("token %q: want %d base64url characters", tok, session.TokenLen)
		}
		if seen[tok] {
			t.Fatalf("token %q repeated", tok)
		}
		seen[tok] = true
		if h != session.Hash(sha256.Sum256([]byte(tok))) || h != session.HashToken(tok) {
			t.Fatalf("hash of %q is not its SHA-256", tok)
		}
	}
}

func TestHashToken(t *testing.T) {
	for _, tok := range []string{"", "a", strings.Repeat("x", 256), strings.Repeat("y", 257), strings.Repeat("z", 10000)} {
		if got, want := session.HashToken(tok), session.Hash(sha256.Sum256([]byte(tok))); got != want {
			t.Errorf("HashToken(%d bytes) is not the SHA-256", len(tok))
		}
	}
	h := session.HashToken("abc")
	if got := h.String(); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("String() = %s", got)
	}
	tok, _, _ := session.NewToken()
	if n := testing.AllocsPerRun(100, func() { _ = session.HashToken(tok) }); n != 0 {
		t.Errorf("HashToken allocates %v times", n)
	}
}

// TestHeaderSessionCanonical: Lookup reads the header map under
// HeaderSession directly, which finds the header only if the name is in
// canonical form.
func TestHeaderSessionCanonical(t *testing.T) {
	if got := http.CanonicalHeaderKey(session.HeaderSession); got != session.HeaderSession {
		t.Fatalf("HeaderSession %q is not canonical (%q)", session.HeaderSession, got)
	}
}
