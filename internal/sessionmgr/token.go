package sessionmgr

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"github.com/agentready/agentready/session"
)

// Token and ID sizes. 32 random bytes are 256 bits, 43 base64url
// characters: above the at-least-32-characters the v0.1.0 session rules
// ask for. The public ID needs only to be unguessable enough not to collide
// and not to enumerate audit artifacts: 128 bits.
const (
	tokenBytes = 32
	// TokenLen is the length of the tokens NewToken returns.
	TokenLen = 43
	idBytes  = 16
	// maxTokenLen bounds what Lookup hashes: a longer header is no token
	// of ours.
	maxTokenLen = 256
	// minTokenLen is the v0.1.0 minimum.
	minTokenLen = 32
)

// NewToken returns a new random token and its hash. The token is 43
// base64url characters (32 bytes from crypto/rand); give it to the agent
// and keep only the hash.
func NewToken() (token string, hash session.Hash, err error) {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", session.Hash{}, fmt.Errorf("session: reading random token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken returns the SHA-256 of token.
func HashToken(token string) session.Hash { return sha256.Sum256([]byte(token)) }

// newID returns a public session ID: 16 random bytes, 22 base64url
// characters.
func newID() (string, error) {
	var b [idBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session: reading random id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
