package audit

import (
	"crypto/ed25519"
	"fmt"
	"sync"
)

// Names the external tests read that are not part of the API.
var SensitiveKey = sensitiveKey

var (
	RootHash       = rootHash
	SigningPayload = signingPayload
)

const TimeLayout = timeLayout

type ChainError = chainError

func (a *Artifact) Meta() Meta { return a.meta() }

// DecodeArtifact decodes an artifact strictly, as VerifyJSON does, without
// verifying it.
func DecodeArtifact(b []byte) (*Artifact, error) {
	var a Artifact
	if err := decodeStrictJSON(b, &a); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return &a, nil
}

var (
	ErrInvalidKey  = errInvalidKey
	ErrParams      = errParams
	ErrKeyMismatch = errKeyMismatch
	ErrRootHash    = errRootHash
)

// Redact returns a copy of params in the JSON data model (see Event.Params)
// with r applied as a store applies it (DefaultRedactor when r is nil).
func Redact(params map[string]any, r Redactor) (map[string]any, error) {
	if r == nil {
		r = DefaultRedactor
	}
	return normalizeParams(params, r, false)
}

// Chain is a session's audit log in memory: it redacts each event, links
// it to the previous one and seals the whole into an Artifact. A Chain is
// safe for concurrent use; its zero value is an empty log redacting with
// DefaultRedactor. Stores do the same work durably, for a middleware that
// keeps sessions across requests and replicas.
type Chain struct {
	// Redactor filters params before hashing; nil means DefaultRedactor.
	// Set it before the first Append.
	Redactor Redactor

	mu     sync.Mutex
	events []Event // linked, as recorded
	last   string  // the hash of the last event
}

// Append validates e, redacts its params, sets its PrevHash to the hash
// of the previous event (the caller's PrevHash is ignored) and records
// it. It returns the event as recorded, as it reads back from JSON.
func (c *Chain) Append(e Event) (Event, error) {
	r := c.Redactor
	if r == nil {
		r = DefaultRedactor
	}
	rec, err := prepare(e, r, true)
	if err != nil {
		return Event{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rec.PrevHash = c.last
	b, err := canonicalEvent(&rec)
	if err != nil {
		return Event{}, err
	}
	c.events = append(c.events, rec)
	c.last = hashHex(b)
	rec.Params = cloneMap(rec.Params)
	return rec, nil
}

// Len returns the number of events recorded.
func (c *Chain) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.events)
}

// Events returns the events recorded, in order.
func (c *Chain) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cloneEvents(c.events)
}

// Seal signs the events recorded so far with key into an Artifact (see
// Sign). The chain stays usable; a later Seal covers later events too.
func (c *Chain) Seal(key ed25519.PrivateKey, m Meta) (*Artifact, error) {
	return Sign(c.Events(), key, m)
}

// AllParams returns the parameters e records before redaction.
func (e *Event) AllParams() map[string]any { return e.allParams() }
