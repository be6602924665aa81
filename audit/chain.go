package audit

import (
	"crypto/ed25519"
	"fmt"
	"sync"
)

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
	events [][]byte // canonical serialisations
	last   string
}

// Append validates e, redacts its params, sets its PrevHash to the hash
// of the previous event (the caller's PrevHash is ignored) and records
// it. It returns the event as recorded, as it reads back from JSON.
func (c *Chain) Append(e Event) (Event, error) {
	r := c.Redactor
	if r == nil {
		r = DefaultRedactor
	}
	p, err := prepare(&e, redactWith(r))
	if err != nil {
		return Event{}, err
	}
	c.mu.Lock()
	canonical, h := p.link(c.last)
	c.events = append(c.events, canonical)
	c.last = h
	c.mu.Unlock()
	var out Event
	if err := decodeStrictJSON(canonical, &out); err != nil {
		return Event{}, fmt.Errorf("audit: reading back a recorded event: %w", err) // unreachable
	}
	return out, nil
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
	raw := c.events[:len(c.events):len(c.events)]
	c.mu.Unlock()
	events, _ := decodeEvents(raw) // the chain wrote them: they decode
	return events
}

// Seal signs the events recorded so far with key into an Artifact (see
// Sign). The chain stays usable; a later Seal covers later events too.
func (c *Chain) Seal(key ed25519.PrivateKey, m Meta) (*Artifact, error) {
	return Sign(c.Events(), key, m)
}

// prepared is an event validated, redacted and serialised up to its
// prev_hash: all the work of an append that needs no lock.
type prepared struct {
	buf       []byte // canonical bytes through `"prev_hash":`
	status    int
	timestamp string
}

// prepare does an append's work outside the lock: it validates e and
// serialises it, params redacted by rd, up to the value of prev_hash.
func prepare(e *Event, rd redaction) (prepared, error) {
	if err := checkEvent(e, true); err != nil {
		return prepared{}, err
	}
	buf, err := appendEventHead(make([]byte, 0, 512), e, rd, true)
	if err != nil {
		return prepared{}, err
	}
	return prepared{buf: buf, status: e.ResponseStatus, timestamp: e.Timestamp}, nil
}

// link completes the event with prev as its prev_hash and returns its
// canonical serialisation and hash. It is called under the lock that
// orders the chain, and costs one SHA-256. It may be called again with
// another prev (a retry); earlier results are then overwritten.
func (p *prepared) link(prev string) ([]byte, string) {
	b := appendString(p.buf, prev)
	b = appendEventTail(b, p.status, p.timestamp)
	return b, hashHex(b)
}

// decodeEvents decodes canonical serialisations, as recorded.
func decodeEvents(raw [][]byte) ([]Event, error) {
	events := make([]Event, len(raw))
	for i, b := range raw {
		if err := decodeStrictJSON(b, &events[i]); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
	}
	return events, nil
}
