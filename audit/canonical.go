package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// The canonical serialisation is RFC 8785 (JCS): encoding/json writes the
// value, which is in the JSON data model by then (normalize), and
// jcs.Transform canonicalises it (member order, string escapes, numbers).

// canonicalJSON returns the RFC 8785 serialisation of v.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

// CanonicalEvent returns the RFC 8785 serialisation of e, the bytes its
// hash is taken over (ErrInvalidEvent when its params have no JSON form).
func CanonicalEvent(e Event) ([]byte, error) {
	params, err := e.paramsToRecord(nil)
	if err != nil {
		return nil, err
	}
	if params, err = normalizeParams(params, nil, true); err != nil {
		return nil, err
	}
	e.Params = params
	return canonicalEvent(&e)
}

// canonicalEvent serialises an event whose params are in the JSON data
// model.
func canonicalEvent(e *Event) ([]byte, error) {
	b, err := canonicalJSON(e)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errParams, err)
	}
	return b, nil
}

// EventHash returns the lowercase hex SHA-256 of CanonicalEvent(e): the
// value the next event's prev_hash must hold.
func EventHash(e Event) (string, error) {
	b, err := CanonicalEvent(e)
	if err != nil {
		return "", err
	}
	return hashHex(b), nil
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// rootHash returns the lowercase hex SHA-256 of the RFC 8785 serialisation
// of the JSON array of the given event hashes, in order:
// ["<hash 0>","<hash 1>",...]. No events hash as "[]".
func rootHash(eventHashes []string) string {
	if eventHashes == nil {
		eventHashes = []string{}
	}
	b, _ := canonicalJSON(eventHashes) // lowercase hex strings: always serialisable
	return hashHex(b)
}

// signingPayload returns the bytes an artifact's Ed25519 signature covers:
// the RFC 8785 serialisation of
//
//	{"agent":{"name":…,"purpose":…,"version":…},"created_at":…,"ended_at":…,
//	 "root_hash":…,"session_id":…,"site":…}
//
// that is, the artifact without events (bound by the root hash), signature
// and public_key (bound by the signature itself). Binding the metadata
// means an artifact cannot be re-labelled as another session, site or time.
func signingPayload(m Meta, rootHash string) []byte {
	b, _ := canonicalJSON(struct {
		Agent     Agent  `json:"agent"`
		CreatedAt string `json:"created_at"`
		EndedAt   string `json:"ended_at"`
		RootHash  string `json:"root_hash"`
		SessionID string `json:"session_id"`
		Site      string `json:"site"`
	}{m.Agent, m.CreatedAt, m.EndedAt, rootHash, m.SessionID, m.Site}) // strings only: always serialisable
	return b
}

// CanonicalArtifact returns the RFC 8785 serialisation of a: the bytes an
// audit endpoint serves, which VerifyJSON accepts as they are.
func CanonicalArtifact(a *Artifact) ([]byte, error) {
	if a == nil {
		return nil, fmt.Errorf("audit: nil artifact")
	}
	return canonicalArtifact(a)
}

// canonicalArtifact serialises a with each event's params as CanonicalEvent
// takes them, which VerifyJSON compares with jcs.Transform of the document
// a was decoded from.
func canonicalArtifact(a *Artifact) ([]byte, error) {
	c := *a
	if a.Events != nil {
		c.Events = make([]Event, len(a.Events))
		for i, e := range a.Events {
			params, err := e.paramsToRecord(nil)
			if err == nil {
				params, err = normalizeParams(params, nil, true)
			}
			if err != nil {
				return nil, fmt.Errorf("event %d: %w", i, err)
			}
			e.Params, e.Query, e.Target = params, nil, nil
			c.Events[i] = e
		}
	}
	b, err := canonicalJSON(&c)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errParams, err)
	}
	return b, nil
}
