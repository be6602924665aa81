package audit

import (
	"iter"
)

// What a Store implementation needs, beyond the types: the middleware's
// stores (MemoryStore here, the Redis store in package redisstore) keep
// events as Records and link them when they are read back, so that an
// append is one write that depends on no earlier read.

// Record is an event as a Store keeps it before the log is sealed: its
// canonical head (the members that sort before prev_hash, through
// `"prev_hash":`), its timestamp and its status apart, since the store
// sets both (it raises a timestamp earlier than the one before it, and
// Complete binds the status), and no prev_hash at all: Link computes the
// links when the records are read back.
type Record struct {
	Head      []byte
	Timestamp string // TimeLayout
	Status    int    // StatusUnrecorded until Complete
}

// NewRecord validates e and serialises it into a Record, its params
// redacted by r (nil: DefaultRedactor), for Store.Append (final: e's
// ResponseStatus is an HTTP status) or Store.Begin (not final: the status
// is StatusUnrecorded). The Record holds no reference to e.
func NewRecord(e Event, final bool, r Redactor) (Record, error) {
	if r == nil {
		r = DefaultRedactor
	}
	rec, err := prepareUnlinked(&e, redactWith(r), final)
	if err != nil {
		return Record{}, err
	}
	return Record{Head: rec.head, Timestamp: string(rec.ts[:]), Status: rec.status}, nil
}

// AmendedHead checks the arguments of Store.Complete and returns the head
// that replaces the recorded one, from amend (nil when amend is nil); its
// params are redacted by r (nil: DefaultRedactor).
func AmendedHead(sessionID string, status int, amend *Event, r Redactor) ([]byte, error) {
	if r == nil {
		r = DefaultRedactor
	}
	return prepareOutcome(sessionID, status, amend, redactWith(r))
}

// Link links records kept in order, each its head, its prev_hash (the
// hash of the event before it, "" for the first), its status and its
// timestamp, and decodes them: the session's events, as Store.Events
// returns them. n is the number of records, for the check that none is
// missing.
func Link(records iter.Seq[Record], n int) ([]Event, error) {
	return relink(func(yield func(record) bool) {
		for r := range records {
			rec := record{head: r.Head, status: r.Status}
			copy(rec.ts[:], r.Timestamp)
			if len(r.Timestamp) != len(TimeLayout) || !yield(rec) {
				return
			}
		}
	}, n)
}

// SealFingerprint is the part of Store.Seal common to every store: the
// artifact must be for the session and verify with its own key. It
// returns the artifact's fingerprint, which the store compares with that
// of the records it holds (AppendFingerprint): equal, the artifact covers
// exactly the events recorded, with their timestamps and statuses.
func SealFingerprint(sessionID string, a *Artifact) (string, error) {
	return checkSeal(sessionID, a)
}

// AppendFingerprint appends the i-th (from 0) record of a log's
// fingerprint: head, timestamp and status separated by NUL, records by
// 0x01, bytes canonical JSON never holds raw.
func (r Record) AppendFingerprint(b []byte, i int) []byte {
	rec := record{head: r.Head, status: r.Status}
	copy(rec.ts[:], r.Timestamp)
	return appendFingerprint(b, i, rec)
}

// CopiesEvents reports that the MemoryStore serialises an event within
// Append, Begin and Complete and keeps no reference to it (see
// EventCopier).
func (s *MemoryStore) CopiesEvents() bool { return true }

// EventCopier is implemented by a Store that serialises an event within
// Append, Begin and Complete and keeps no reference to it once they
// return: the middleware then hands it events whose strings live in pooled
// buffers, which saves allocations on every audited request.
type EventCopier interface {
	CopiesEvents() bool
}
