package audit

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gowebpki/jcs"
)

// Verification errors. Each error Verify returns wraps exactly one of
// them; an ErrChainBroken names the first event whose prev_hash is wrong.
var (
	// ErrMalformed: the artifact is not one: bad JSON, unknown members,
	// an event with no canonical form, a public key that is not base64 of
	// 32 bytes.
	ErrMalformed = errors.New("audit: malformed artifact")
	// ErrChainBroken: an event's prev_hash is not the hash of the event
	// before it (an event changed, removed, inserted or moved).
	ErrChainBroken = errors.New("audit: hash chain broken")
	// ErrSignature: the artifact is not what the trusted key signed: its
	// metadata, root hash or signature edited, its last events changed or
	// removed (root_hash no longer covers them), or signed by another key
	// than the one the verifier trusts (a re-signed or substituted
	// artifact). The message says which.
	ErrSignature = errors.New("audit: invalid signature")

	errKeyMismatch = fmt.Errorf("%w: the artifact's public key is not the expected key", ErrSignature)
	errRootHash    = fmt.Errorf("%w: root_hash does not match the events", ErrSignature)
)

// chainError is an ErrChainBroken at a given event.
type chainError struct {
	// Index is the position of the first event whose prev_hash is wrong.
	Index int
	// Want is the hash of the event before it ("" for the first event);
	// Got is its prev_hash.
	Want, Got string
}

func (e *chainError) Error() string {
	if e.Index == 0 {
		return fmt.Sprintf("%v at event 0: prev_hash is %q, want \"\" (the first event links to nothing)", ErrChainBroken, truncate(e.Got))
	}
	return fmt.Sprintf("%v at event %d: prev_hash is %q, want %s, the hash of event %d", ErrChainBroken, e.Index, truncate(e.Got), e.Want, e.Index-1)
}

// Unwrap makes errors.Is(err, ErrChainBroken) hold.
func (e *chainError) Unwrap() error { return ErrChainBroken }

// Verify checks an artifact's chain, root hash and signature
// (docs/audit-format.md). publicKey is the key the verifier trusts (the
// site's agents.json audit.public_key); the artifact must name it
// (ErrSignature otherwise). With nil the artifact's own key is used, which
// proves it intact but not who made it.
func Verify(a *Artifact, publicKey ed25519.PublicKey) error {
	if a == nil {
		return fmt.Errorf("%w: nil artifact", ErrMalformed)
	}
	if publicKey != nil && len(publicKey) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: public key has %d bytes, want %d", errInvalidKey, len(publicKey), ed25519.PublicKeySize)
	}
	embedded, err := decodeStrict(a.PublicKey, ed25519.PublicKeySize)
	switch {
	case publicKey != nil && a.PublicKey == "":
		return fmt.Errorf("%w: the artifact names no public key", errKeyMismatch)
	case err != nil:
		return fmt.Errorf("%w: public_key %v", ErrMalformed, err)
	case publicKey != nil && !bytes.Equal(embedded, publicKey):
		return fmt.Errorf("%w: the artifact names %s, the expected key is %s", errKeyMismatch,
			truncate(a.PublicKey), base64.StdEncoding.EncodeToString(publicKey))
	}
	hashes, err := chainHashes(a.Events)
	if err != nil {
		return err
	}
	if root := rootHash(hashes); root != a.RootHash {
		return fmt.Errorf("%w: root_hash is %q, the events hash to %s", errRootHash, truncate(a.RootHash), root)
	}
	sig, err := decodeStrict(a.Signature, ed25519.SignatureSize)
	if err != nil {
		return fmt.Errorf("%w: signature %v", ErrSignature, err)
	}
	if !ed25519.Verify(ed25519.PublicKey(embedded), signingPayload(a.meta(), a.RootHash), sig) {
		return fmt.Errorf("%w: the signature does not match the session metadata and root hash under key %s", ErrSignature, a.PublicKey)
	}
	return nil
}

// VerifyJSON decodes an artifact strictly, verifies it as Verify does
// and returns it. Strictly: the artifact decoded, re-serialised, must equal
// the RFC 8785 canonicalisation of the document (no duplicate, missing,
// extra or mistyped members, nothing after it), so the hashes checked are
// those any RFC 8785 implementation computes from the same bytes.
func VerifyJSON(b []byte, publicKey ed25519.PublicKey) (*Artifact, error) {
	var a Artifact
	if err := decodeStrictJSON(b, &a); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	want, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("%w: not RFC 8785 input: %v", ErrMalformed, err)
	}
	got, err := canonicalArtifact(&a)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if !bytes.Equal(got, want) {
		return nil, fmt.Errorf("%w: %s", ErrMalformed, describeMismatch(b, &a))
	}
	if err := Verify(&a, publicKey); err != nil {
		return nil, err
	}
	return &a, nil
}

// describeMismatch names the first event whose JSON differs from what
// its decoded form serialises to, or else the artifact's own members.
func describeMismatch(b []byte, a *Artifact) string {
	var raw struct {
		Events []json.RawMessage `json:"events"`
	}
	if json.Unmarshal(b, &raw) == nil {
		for i, r := range raw.Events {
			want, err1 := jcs.Transform(r)
			got, err2 := CanonicalEvent(a.Events[i])
			if err1 == nil && err2 == nil && !bytes.Equal(got, want) {
				return fmt.Sprintf("event %d is not an audit event in canonical form (missing, extra, mistyped or miscased members): %s", i, truncate(string(want)))
			}
		}
	}
	return "the artifact's members are not those of an audit artifact (missing, extra, mistyped or miscased members)"
}

// decodeStrict decodes standard base64 of exactly n bytes, accepting only
// the one spelling that encodes them (no line breaks, no stray bits).
func decodeStrict(s string, n int) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != n || base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("%q is not standard base64 of %d bytes", truncate(s), n)
	}
	return b, nil
}

// decodeStrictJSON decodes one JSON value into v, refusing unknown
// members and trailing data.
func decodeStrictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the value")
	}
	return nil
}
