package webbotauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestThumbprint(t *testing.T) {
	// RFC 7638 3.1's example key and thumbprint.
	n := "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
	nb, _ := base64.RawURLEncoding.DecodeString(n)
	id, err := Thumbprint(&rsa.PublicKey{N: new(big.Int).SetBytes(nb), E: 65537})
	if err != nil || id != "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs" {
		t.Fatalf("%q %v", id, err)
	}
	// RFC 8037 A.3's Ed25519 key and thumbprint.
	x, _ := base64.RawURLEncoding.DecodeString("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
	id, err = Thumbprint(ed25519.PublicKey(x))
	if err != nil || id != "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" {
		t.Fatalf("%q %v", id, err)
	}
	// P-256: the members in RFC 7638 order, as encoding/json writes a
	// struct of them.
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pt, _ := ec.PublicKey.Bytes()
	members, _ := json.Marshal(struct {
		Crv string `json:"crv"`
		Kty string `json:"kty"`
		X   string `json:"x"`
		Y   string `json:"y"`
	}{"P-256", "EC", base64.RawURLEncoding.EncodeToString(pt[1:33]), base64.RawURLEncoding.EncodeToString(pt[33:])})
	want := sha256.Sum256(members)
	if id, err := Thumbprint(&ec.PublicKey); err != nil || id != base64.RawURLEncoding.EncodeToString(want[:]) {
		t.Errorf("P-256: %q %v", id, err)
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	for _, k := range []any{&p384.PublicKey, ed25519.PublicKey(x[:31]), (*rsa.PublicKey)(nil), nil, "x"} {
		if _, err := Thumbprint(k); err == nil {
			t.Errorf("%T accepted", k)
		}
	}
}

func TestParseDirectory(t *testing.T) {
	ed := newEd25519Key(t)
	x := base64.RawURLEncoding.EncodeToString(ed.pub.(ed25519.PublicKey))
	rsaJWK := rsaTestKey()
	rsaPub := fmt.Sprintf(`{"kty":"RSA","n":"%s","e":"AQAB"}`, rsaJWK["n"])
	okp := func(extra string) string { return `{"kty":"OKP","crv":"Ed25519","x":"` + x + `"` + extra + `}` }
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	smallJWK := fmt.Sprintf(`{"kty":"RSA","n":"%s","e":"AQAB"}`, base64.RawURLEncoding.EncodeToString(small.N.Bytes()))
	cases := []struct {
		name string
		keys []string
		want int // usable keys; -1 for an error
	}{
		{"ed25519", []string{okp("")}, 1},
		{"rsa", []string{rsaPub}, 1},
		{"both", []string{okp(""), rsaPub}, 2},
		{"kid ignored", []string{okp(`,"kid":"whatever"`)}, 1},
		{"duplicate", []string{okp(""), okp(`,"kid":"again"`)}, 1},
		{"use sig", []string{okp(`,"use":"sig"`)}, 1},
		{"use enc skipped", []string{okp(`,"use":"enc"`), rsaPub}, 1},
		{"alg EdDSA", []string{okp(`,"alg":"EdDSA"`)}, 1},
		{"alg mismatch skipped", []string{okp(`,"alg":"RS256"`), rsaPub}, 1},
		{"rsa alg RS256 skipped", []string{strings.Replace(rsaPub, `"kty"`, `"alg":"RS256","kty"`, 1), okp("")}, 1},
		{"private member skipped", []string{okp(`,"d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU"`), rsaPub}, 1},
		{"EC skipped", []string{`{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}`, okp("")}, 1},
		{"X25519 skipped", []string{`{"kty":"OKP","crv":"X25519","x":"` + x + `"}`, okp("")}, 1},
		{"short x skipped", []string{`{"kty":"OKP","crv":"Ed25519","x":"AAAA"}`, rsaPub}, 1},
		{"padded x skipped", []string{`{"kty":"OKP","crv":"Ed25519","x":"` + x + `="}`, rsaPub}, 1},
		{"case-sensitive member names", []string{`{"KTY":"OKP","crv":"Ed25519","x":"` + x + `"}`, rsaPub}, 1},
		{"1024-bit RSA skipped", []string{smallJWK, okp("")}, 1},
		{"even exponent skipped", []string{strings.Replace(rsaPub, "AQAB", "AQAC", 1), okp("")}, 1},
		{"x not a string skipped", []string{`{"kty":"OKP","crv":"Ed25519","x":5}`, rsaPub}, 1},
		{"only unusable keys", []string{`{"kty":"EC"}`}, -1},
		{"no keys", nil, -1},
		{"bad nbf skipped", []string{okp(`,"nbf":"soon"`), rsaPub}, 1},
	}
	for _, c := range cases {
		body := `{"keys":[` + strings.Join(c.keys, ",") + `]}`
		keys, err := ParseDirectory([]byte(body))
		if c.want < 0 {
			if err == nil {
				t.Errorf("%s: accepted", c.name)
			}
			continue
		}
		if err != nil || len(keys) != c.want {
			t.Errorf("%s: %d keys, %v", c.name, len(keys), err)
		}
	}
	for _, body := range []string{``, `{`, `{"keys":{}}`, `{"keys":[1,2]}`, `null`, `{"keys":null}`, `"keys"`} {
		if _, err := ParseDirectory([]byte(body)); err == nil {
			t.Errorf("%q accepted", body)
		}
	}
	if _, err := ParseDirectory([]byte(okp("") + strings.Repeat(" ", MaxDirectoryBytes))); err == nil {
		t.Error("oversize body accepted")
	}
	var many []string
	for i := 0; i <= maxDirectoryKeys; i++ {
		k := newEd25519Key(t)
		many = append(many, `{"kty":"OKP","crv":"Ed25519","x":"`+base64.RawURLEncoding.EncodeToString(k.pub.(ed25519.PublicKey))+`"}`)
	}
	if _, err := ParseDirectory([]byte(`{"keys":[` + strings.Join(many, ",") + `]}`)); err == nil {
		t.Error("too many keys accepted")
	}
}

func TestDirKeyValidity(t *testing.T) {
	ed := newEd25519Key(t)
	x := base64.RawURLEncoding.EncodeToString(ed.pub.(ed25519.PublicKey))
	body, _ := json.Marshal(map[string]any{"keys": []any{map[string]any{"kty": "OKP", "crv": "Ed25519", "x": x, "nbf": 1000, "exp": 2000}}})
	keys, err := parseDirectory(body, MaxDirectoryBytes)
	if err != nil {
		t.Fatal(err)
	}
	for at, want := range map[int64]bool{999: false, 1000: true, 1999: true, 2000: false} {
		if got := keys[0].validAt(time.Unix(at, 0)); got != want {
			t.Errorf("at %d: %v", at, got)
		}
	}
}

// ParseDirectory parses a key directory body, a JWK Set {"keys":[JWK, ...]}
// (draft-ietf-webbotauth-httpsig-protocol-01 5.5.1). Ed25519 keys (kty
// "OKP", crv "Ed25519") and RSA keys (kty "RSA", 2048 to 8192 bits) are
// kept, each identified by its RFC 7638 thumbprint: a "kid" member is
// ignored for identity, since the keyid a request names is the thumbprint
// and a directory's own label is not to be trusted. Keys are skipped, not
// refused, when they are of another type or curve, malformed, marked for
// another use ("use" other than "sig"), restricted to another algorithm
// ("alg" other than EdDSA/Ed25519 for OKP, PS512 for RSA: the algorithm of
// a key is fixed by its type, see Verifier), or carry private members (a
// published private key is compromised). A duplicate key is kept once.
//
// Malformed JSON, a body over MaxDirectoryBytes, a directory without a
// usable key or with more than 64 usable keys is an error.
func ParseDirectory(body []byte) ([]Key, error) {
	dks, err := parseDirectory(body, MaxDirectoryBytes)
	if err != nil {
		return nil, err
	}
	keys := make([]Key, len(dks))
	for i, k := range dks {
		keys[i] = k.Key
	}
	return keys, nil
}
