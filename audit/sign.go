package audit

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
)

// errInvalidKey reports a key that is not an Ed25519 key of the right
// size: a programming error, not a property of an artifact.
var errInvalidKey = errors.New("audit: invalid Ed25519 key")

// Sign seals events into an Artifact for the session m describes: it
// checks that the events form one chain, computes the root hash and signs
// (docs/audit-format.md). The artifact holds a copy of the events.
func Sign(events []Event, key ed25519.PrivateKey, m Meta) (*Artifact, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: private key has %d bytes, want %d", errInvalidKey, len(key), ed25519.PrivateKeySize)
	}
	if err := checkMeta(&m); err != nil {
		return nil, err
	}
	copied := make([]Event, len(events))
	for i, e := range events {
		params, err := normalizeParams(e.allParams(), nil, true)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		e.Params, e.Query, e.Target = params, nil, nil
		copied[i] = e
	}
	hashes, err := chainHashes(copied)
	if err != nil {
		return nil, err
	}
	root := rootHash(hashes)
	sig := ed25519.Sign(key, signingPayload(m, root))
	pub := key.Public().(ed25519.PublicKey)
	return &Artifact{
		SessionID: m.SessionID,
		Site:      m.Site,
		CreatedAt: m.CreatedAt,
		EndedAt:   m.EndedAt,
		Agent:     m.Agent,
		Events:    copied,
		RootHash:  root,
		Signature: base64.StdEncoding.EncodeToString(sig),
		PublicKey: base64.StdEncoding.EncodeToString(pub),
	}, nil
}

// chainHashes returns the hash of every event, checking the links.
func chainHashes(events []Event) ([]string, error) {
	hashes := make([]string, len(events))
	prev := ""
	for i := range events {
		if events[i].PrevHash != prev {
			return nil, &chainError{Index: i, Want: prev, Got: events[i].PrevHash}
		}
		h, err := EventHash(events[i])
		if err != nil {
			return nil, fmt.Errorf("%w: event %d: %w", ErrMalformed, i, err)
		}
		hashes[i] = h
		prev = h
	}
	return hashes, nil
}
