package webbotauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// MaxDirectoryBytes bounds a key directory body (after content decoding):
// parseDirectory refuses a longer one, and Directories reads no more than
// DirectoryOptions.MaxBytes, which defaults to it. 64 KiB holds well over a
// hundred RSA-4096 JWKs; a directory lists the few keys in active use
// (draft-ietf-webbotauth-httpsig-protocol-01 6.7, 7.4).
const MaxDirectoryBytes = 64 << 10

// maxDirectoryKeys bounds the usable keys of one directory: Directories
// verifies one possession proof per key on every fetch.
const maxDirectoryKeys = 64

// RSA modulus sizes accepted. Smaller keys are too weak for a signature
// that identifies an operator; larger ones only make verification (which an
// unauthenticated request can trigger) slower.
const (
	minRSABits = 2048
	maxRSABits = 8192
)

// Key is a verification key from a key directory.
type Key struct {
	ID     string           // RFC 7638 JWK SHA-256 thumbprint, base64url without padding
	Public crypto.PublicKey // ed25519.PublicKey or *rsa.PublicKey
}

// dirKey is a Key with the optional validity window some directories give
// their keys ("nbf" and "exp", in seconds since the epoch, as in the
// directory example of draft-ietf-webbotauth-httpsig-protocol-01 5.5.1).
type dirKey struct {
	Key
	notBefore, notAfter time.Time // zero when absent
}

// validAt reports whether the key's own validity window admits t.
func (k dirKey) validAt(t time.Time) bool {
	if !k.notBefore.IsZero() && t.Before(k.notBefore) {
		return false
	}
	if !k.notAfter.IsZero() && !t.Before(k.notAfter) {
		return false
	}
	return true
}

var b64url = base64.RawURLEncoding

// Thumbprint returns the RFC 7638 JWK SHA-256 thumbprint of a public key,
// base64url without padding: the keyid of Web Bot Auth
// (draft-ietf-webbotauth-httpsig-protocol-01 5.2). For Ed25519 the required
// members are crv, kty, x (RFC 8037 A.3); for RSA e, kty, n (RFC 7638 3.2),
// in that (lexicographic) order, without whitespace; for P-256 crv, kty, x,
// y.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	var members string
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return "", fmt.Errorf("webbotauth: thumbprint: Ed25519 public key of %d bytes", len(k))
		}
		members = `{"crv":"Ed25519","kty":"OKP","x":"` + b64url.EncodeToString(k) + `"}`
	case *ecdsa.PublicKey:
		// crv, kty, x, y (RFC 7638 3.2), for the P-256 key agent://
		// descriptors are signed with.
		if k == nil || k.Curve != elliptic.P256() {
			return "", errors.New("webbotauth: thumbprint: an ECDSA key must be P-256")
		}
		pt, err := k.Bytes() // 0x04 || X || Y
		if err != nil {
			return "", fmt.Errorf("webbotauth: thumbprint: %w", err)
		}
		members = `{"crv":"P-256","kty":"EC","x":"` + b64url.EncodeToString(pt[1:33]) + `","y":"` + b64url.EncodeToString(pt[33:65]) + `"}`
	case *rsa.PublicKey:
		if k == nil || k.N == nil || k.N.Sign() <= 0 || k.E <= 0 {
			return "", errors.New("webbotauth: thumbprint: invalid RSA public key")
		}
		e := big.NewInt(int64(k.E)).Bytes()
		members = `{"e":"` + b64url.EncodeToString(e) + `","kty":"RSA","n":"` + b64url.EncodeToString(k.N.Bytes()) + `"}`
	default:
		return "", fmt.Errorf("webbotauth: thumbprint: unsupported key type %T", pub)
	}
	sum := sha256.Sum256([]byte(members))
	return b64url.EncodeToString(sum[:]), nil
}

func parseDirectory(body []byte, limit int64) ([]dirKey, error) {
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("webbotauth: key directory of %d bytes exceeds %d", len(body), limit)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	// Members are matched case-sensitively below; the top level only needs
	// "keys", and encoding/json's case-insensitive match of "Keys" there is
	// harmless.
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("webbotauth: key directory: %w", err)
	}
	var keys []dirKey
	seen := make(map[string]bool)
	for _, raw := range set.Keys {
		k, ok := parseJWK(raw)
		if !ok || seen[k.ID] {
			continue
		}
		seen[k.ID] = true
		keys = append(keys, k)
		if len(keys) > maxDirectoryKeys {
			return nil, fmt.Errorf("webbotauth: key directory lists more than %d usable keys", maxDirectoryKeys)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("webbotauth: key directory has no usable Ed25519 or RSA key")
	}
	return keys, nil
}

// privateMembers are the JWK members of private keys (RFC 7518 6.3.2,
// RFC 8037 2).
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// parseJWK decodes one JWK, reporting false for a key to skip. Members are
// read from a map so that names match case-sensitively (JWK member names
// are case-sensitive; encoding/json's struct matching is not).
func parseJWK(raw json.RawMessage) (dirKey, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return dirKey{}, false
	}
	str := func(name string) (string, bool) {
		v, present := m[name]
		if !present {
			return "", true
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	for _, p := range privateMembers {
		if _, ok := m[p]; ok {
			return dirKey{}, false
		}
	}
	kty, ok1 := str("kty")
	use, ok2 := str("use")
	alg, ok3 := str("alg")
	if !ok1 || !ok2 || !ok3 || (use != "" && use != "sig") {
		return dirKey{}, false
	}
	var pub crypto.PublicKey
	switch kty {
	case "OKP":
		crv, ok := str("crv")
		x, okx := str("x")
		if !ok || !okx || crv != "Ed25519" || (alg != "" && alg != "EdDSA" && alg != "Ed25519") {
			return dirKey{}, false
		}
		b, err := b64url.DecodeString(x)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return dirKey{}, false
		}
		pub = ed25519.PublicKey(b)
	case "RSA":
		n, okn := str("n")
		e, oke := str("e")
		if !okn || !oke || (alg != "" && alg != "PS512") {
			return dirKey{}, false
		}
		k, ok := rsaKey(n, e)
		if !ok {
			return dirKey{}, false
		}
		pub = k
	default:
		return dirKey{}, false
	}
	id, err := Thumbprint(pub)
	if err != nil {
		return dirKey{}, false
	}
	dk := dirKey{Key: Key{ID: id, Public: pub}}
	for name, dst := range map[string]*time.Time{"nbf": &dk.notBefore, "exp": &dk.notAfter} {
		v, present := m[name]
		if !present {
			continue
		}
		var secs int64
		if json.Unmarshal(v, &secs) != nil || secs < 0 || secs > maxUnixSeconds {
			return dirKey{}, false
		}
		*dst = time.Unix(secs, 0)
	}
	return dk, true
}

// rsaKey decodes the n and e members of an RSA JWK (RFC 7518 6.3.1).
func rsaKey(n, e string) (*rsa.PublicKey, bool) {
	nb, err := b64url.DecodeString(n)
	if err != nil || len(nb) == 0 || nb[0] == 0 {
		return nil, false
	}
	eb, err := b64url.DecodeString(e)
	if err != nil || len(eb) == 0 || len(eb) > 4 || eb[0] == 0 {
		return nil, false
	}
	var ev int64
	for _, c := range eb {
		ev = ev<<8 | int64(c)
	}
	if ev < 3 || ev%2 == 0 || ev > 1<<31-1 {
		return nil, false
	}
	nv := new(big.Int).SetBytes(nb)
	if bits := nv.BitLen(); bits < minRSABits || bits > maxRSABits {
		return nil, false
	}
	return &rsa.PublicKey{N: nv, E: int(ev)}, true
}

// keyAlgorithm returns the RFC 9421 algorithm a key verifies with. It comes
// from the key alone: an Ed25519 key verifies "ed25519" (RFC 9421 3.3.6), an
// RSA key "rsa-pss-sha512" (3.3.1); anything else is ErrAlgorithm.
func keyAlgorithm(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if len(k) == ed25519.PublicKeySize {
			return algEd25519, nil
		}
		return "", fmt.Errorf("%w: Ed25519 public key of %d bytes", ErrAlgorithm, len(k))
	case *rsa.PublicKey:
		if k == nil || k.N == nil {
			return "", fmt.Errorf("%w: nil RSA public key", ErrAlgorithm)
		}
		if bits := k.N.BitLen(); bits < minRSABits || bits > maxRSABits {
			return "", fmt.Errorf("%w: RSA key of %d bits (want %d to %d)", ErrAlgorithm, bits, minRSABits, maxRSABits)
		}
		return algRSAPSS, nil
	default:
		return "", fmt.Errorf("%w: unsupported key type %T", ErrAlgorithm, pub)
	}
}

const (
	algEd25519 = "ed25519"
	algRSAPSS  = "rsa-pss-sha512"
)
