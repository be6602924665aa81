package webbotauth

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file holds the tests' own signer. It builds signature bases by plain
// string formatting, without the package's parsers or base builder, so that
// a mistake in those cannot cancel out in a round trip.

// testKey is a signing key with its public half and thumbprint.
type testKey struct {
	priv crypto.Signer
	pub  crypto.PublicKey
	id   string
	alg  string
}

func newEd25519Key(t testing.TB) testKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return mustTestKey(t, priv, pub)
}

func mustTestKey(t testing.TB, priv crypto.Signer, pub crypto.PublicKey) testKey {
	t.Helper()
	id, err := Thumbprint(pub)
	if err != nil {
		t.Fatal(err)
	}
	alg := algEd25519
	if _, ok := pub.(*rsa.PublicKey); ok {
		alg = algRSAPSS
	}
	return testKey{priv: priv, pub: pub, id: id, alg: alg}
}

// privateJWK decodes a JWK with its private members (the test vectors' keys).
func privateJWK(t testing.TB, m map[string]string) testKey {
	t.Helper()
	dec := func(name string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(m[name])
		if err != nil {
			t.Fatalf("JWK member %s: %v", name, err)
		}
		return b
	}
	switch m["kty"] {
	case "OKP":
		priv := ed25519.NewKeyFromSeed(dec("d"))
		if string(priv.Public().(ed25519.PublicKey)) != string(dec("x")) {
			t.Fatal("JWK: x is not the public half of d")
		}
		return mustTestKey(t, priv, priv.Public())
	case "RSA":
		n := new(big.Int).SetBytes(dec("n"))
		e := new(big.Int).SetBytes(dec("e"))
		priv := &rsa.PrivateKey{
			PublicKey: rsa.PublicKey{N: n, E: int(e.Int64())},
			D:         new(big.Int).SetBytes(dec("d")),
			Primes:    []*big.Int{new(big.Int).SetBytes(dec("p")), new(big.Int).SetBytes(dec("q"))},
		}
		if err := priv.Validate(); err != nil {
			t.Fatal(err)
		}
		priv.Precompute()
		return mustTestKey(t, priv, &priv.PublicKey)
	}
	t.Fatalf("JWK kty %q", m["kty"])
	return testKey{}
}

// rsaTestKey is the RSA-PSS key of RFC 9421 B.1.2, which the Web Bot Auth
// test vectors use; it saves generating one.
var rsaTestKey = sync.OnceValue(func() map[string]string {
	var vs []struct {
		Key map[string]string `json:"key"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "vectors", "web_bot_auth_architecture_v1.json"))
	if err == nil {
		err = json.Unmarshal(b, &vs)
	}
	if err != nil {
		panic(err)
	}
	for _, v := range vs {
		if v.Key["kty"] == "RSA" {
			return v.Key
		}
	}
	panic("no RSA key in the vectors")
})

// sign computes a signature over base with the key's algorithm.
// t may be nil (in a server handler): a failure then panics.
func (k testKey) sign(t testing.TB, base string) []byte {
	switch p := k.priv.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(p, []byte(base))
	case *rsa.PrivateKey:
		h := sha512.Sum512([]byte(base))
		s, err := rsa.SignPSS(rand.Reader, p, crypto.SHA512, h[:], &rsa.PSSOptions{SaltLength: 64, Hash: crypto.SHA512})
		if err != nil {
			panic(err)
		}
		return s
	}
	panic(fmt.Sprintf("key type %T", k.priv))
}

// spec describes a signature for signRequest.
type spec struct {
	label      string
	components []string // serialised component identifiers, e.g. `"@authority"`, `"signature-agent";key="sig1"`
	created    int64
	expires    int64
	keyID      string // default: the key's thumbprint
	alg        string // default: the key's algorithm; "-" for none
	nonce      string
	tag        string            // default "web-bot-auth"; "-" for none
	authority  string            // the authority signed for
	scheme     string            // for @target-uri; default https
	agentValue string            // the value signed for a `"signature-agent";key=...` component
	members    map[string]string // per key, overriding agentValue
	noCreated  bool
	noExpires  bool
	noKeyID    bool
}

// params serialises the signature parameters of s by hand.
func (s spec) params(k testKey) string {
	var b strings.Builder
	b.WriteString("(" + strings.Join(s.components, " ") + ")")
	if !s.noCreated {
		fmt.Fprintf(&b, ";created=%d", s.created)
	}
	if !s.noKeyID {
		id := s.keyID
		if id == "" {
			id = k.id
		}
		fmt.Fprintf(&b, `;keyid="%s"`, id)
	}
	alg := s.alg
	if alg == "" {
		alg = k.alg
	}
	if alg != "-" {
		fmt.Fprintf(&b, `;alg="%s"`, alg)
	}
	if !s.noExpires {
		fmt.Fprintf(&b, ";expires=%d", s.expires)
	}
	if s.nonce != "" {
		fmt.Fprintf(&b, `;nonce="%s"`, s.nonce)
	}
	tag := s.tag
	if tag == "" {
		tag = tagWebBotAuth
	}
	if tag != "-" {
		fmt.Fprintf(&b, `;tag="%s"`, tag)
	}
	return b.String()
}

// base computes the signature base of s over req by hand, for the few
// components the tests use.
func (s spec) base(t testing.TB, req *http.Request, k testKey) string {
	t.Helper()
	var b strings.Builder
	for _, c := range s.components {
		var v string
		switch {
		case c == `"@authority"`:
			v = s.authority
		case c == `"@method"`:
			v = req.Method
		case c == `"@path"`:
			v = req.URL.EscapedPath()
		case c == `"@target-uri"`:
			scheme := s.scheme
			if scheme == "" {
				scheme = "https"
			}
			v = scheme + "://" + s.authority + req.URL.RequestURI()
		case c == `"signature-agent"`:
			v = req.Header.Get("Signature-Agent")
		case strings.HasPrefix(c, `"signature-agent";key=`):
			v = s.agentValue
			if mv, ok := s.members[strings.Trim(strings.TrimPrefix(c, `"signature-agent";key=`), `"`)]; ok {
				v = mv
			}
		default:
			// A plain field.
			v = req.Header.Get(strings.Trim(c, `"`))
		}
		b.WriteString(c + ": " + v + "\n")
	}
	b.WriteString(`"@signature-params": ` + s.params(k))
	return b.String()
}

// signRequest adds a signature by k to req, appending to any Signature and
// Signature-Input already there; it returns the signature base.
func signRequest(t testing.TB, req *http.Request, k testKey, s spec) string {
	t.Helper()
	if s.label == "" {
		s.label = "sig1"
	}
	base := s.base(t, req, k)
	sig := k.sign(t, base)
	add := func(name, member string) {
		if old := req.Header.Get(name); old != "" {
			req.Header.Set(name, old+", "+member)
		} else {
			req.Header.Set(name, member)
		}
	}
	add("Signature-Input", s.label+"="+s.params(k))
	add("Signature", s.label+"=:"+base64.StdEncoding.EncodeToString(sig)+":")
	return base
}

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// keyMap is a KeyResolver over fixed (agentURL, keyID) pairs; it counts
// its calls.
type keyMap struct {
	mu    sync.Mutex
	keys  map[[2]string]crypto.PublicKey
	calls int
	// err, when set, is returned for every lookup.
	err error
}

func newKeyMap() *keyMap { return &keyMap{keys: make(map[[2]string]crypto.PublicKey)} }

func (m *keyMap) add(agent string, k testKey) *keyMap {
	m.keys[[2]string{agent, k.id}] = k.pub
	return m
}

func (m *keyMap) resolve(_ context.Context, agent, keyID string) (crypto.PublicKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.err != nil {
		return nil, m.err
	}
	if agent != "" && !strings.HasPrefix(agent, "https://") && !strings.HasPrefix(agent, "http://") {
		return nil, ErrUntrusted
	}
	k, ok := m.keys[[2]string{agent, keyID}]
	if !ok {
		for p := range m.keys {
			if p[0] == agent {
				return nil, ErrUnknownKey
			}
		}
		return nil, ErrUntrusted
	}
	return k, nil
}

// sentinelName names the sentinel err wraps, for table tests and failures.
func sentinelName(err error) string {
	if err == nil {
		return "ok"
	}
	names := map[error]string{
		ErrNoSignature: "ErrNoSignature", ErrNoAgent: "ErrNoAgent", ErrMalformed: "ErrMalformed",
		ErrExpired: "ErrExpired", ErrLifetime: "ErrLifetime", ErrAuthority: "ErrAuthority",
		ErrUntrusted: "ErrUntrusted", ErrUnknownKey: "ErrUnknownKey", ErrAlgorithm: "ErrAlgorithm",
		ErrBadSignature: "ErrBadSignature", ErrDigest: "ErrDigest", ErrReplay: "ErrReplay",
		ErrUnavailable: "ErrUnavailable",
	}
	var found []string
	for _, s := range sentinels {
		if errors.Is(err, s) {
			found = append(found, names[s])
		}
	}
	if len(found) == 0 {
		return "unclassified"
	}
	return strings.Join(found, "+")
}

// wantErr fails the test unless err wraps exactly the sentinel named want
// ("ok" for nil).
func wantErr(t testing.TB, err error, want string) {
	t.Helper()
	if got := sentinelName(err); got != want {
		t.Fatalf("got %s (%v), want %s", got, err, want)
	}
}
