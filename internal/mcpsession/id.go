package mcpsession

import (
	"crypto/sha256"
	"net/http"
)

// Header is the MCP session header (MCP 2025-11-25 Streamable HTTP,
// "Session Management"), in its canonical form: header names are
// case-insensitive, and net/http canonicalises them.
const Header = "Mcp-Session-Id"

// MaxIDLen bounds a session id in bytes. MCP sets no length; its examples
// are a UUID, a JWT or a cryptographic hash ("Session Management", item
// 1), and the SDKs mint 16 to 36 characters. 1024 leaves room for a JWT
// while keeping what an attacker makes every lookup hash small.
const MaxIDLen = 1024

// ValidID reports whether id can be a session id: 1 to MaxIDLen bytes,
// each visible ASCII. MCP 2025-11-25 "Session Management", item 1: "The
// session ID MUST only contain visible ASCII characters (ranging from 0x21
// to 0x7E)". A server never mints anything else, so anything else is a
// session no server has.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// HashID returns the key a store keeps id's binding under: its SHA-256
// (the Redis store writes it in hex), so that a store holds no live id.
// Check ValidID first.
func HashID(id string) [sha256.Size]byte { return sha256.Sum256([]byte(id)) }

// fromHeader returns the one Mcp-Session-Id of h. present is false when
// there is none; ok is false when there are several fields or the value
// fails ValidID. Several fields are refused rather than one picked: the
// server behind may read another one than agentready checked (Go's
// Header.Get reads the first, a comma-joining framework all of them).
func fromHeader(h http.Header) (id string, present, ok bool) {
	v := h.Values(Header)
	switch {
	case len(v) == 0:
		return "", false, true
	case len(v) > 1 || !ValidID(v[0]):
		return "", true, false
	}
	return v[0], true, true
}
