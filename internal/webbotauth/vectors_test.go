package webbotauth

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sfv "github.com/dunglas/httpsfv"
)

type requestVector struct {
	Key               map[string]string `json:"key"`
	TargetURL         string            `json:"target_url"`
	CreatedMS         int64             `json:"created_ms"`
	ExpiresMS         int64             `json:"expires_ms"`
	Nonce             string            `json:"nonce"`
	Label             string            `json:"label"`
	Signature         string            `json:"signature"`
	SignatureInput    string            `json:"signature_input"`
	SignatureAgent    string            `json:"signature_agent"`
	SignatureAgentKey string            `json:"signature_agent_key"`
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// vectorRequest rebuilds the request a vector signs.
func vectorRequest(t *testing.T, v requestVector) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, v.TargetURL, nil)
	r.Header.Set("Signature", v.Signature)
	r.Header.Set("Signature-Input", v.SignatureInput)
	if v.SignatureAgent != "" {
		r.Header.Set("Signature-Agent", v.SignatureAgent)
	}
	return r
}

// TestVectors verifies every request-signature vector with Verify, the clock
// set one minute after created. The vectors live an hour (v1) or a century
// (v2), beyond the default MaxLifetime of five minutes, so MaxLifetime is
// raised for them; with the default they are ErrLifetime, which is checked
// too. The vectors without a Signature-Agent (sig1), which the draft
// dropped (draft-meunier-webbotauth-httpsig-protocol-02: a signed request
// must carry one), are refused: ErrNoAgent.
func TestVectors(t *testing.T) {
	n := 0
	for _, file := range []string{"web_bot_auth_architecture_v1.json", "web_bot_auth_architecture_v2.json"} {
		var vs []requestVector
		readJSON(t, file, &vs)
		for i, v := range vs {
			name := file + "/" + v.Label + "/" + v.Key["kty"]
			if v.SignatureAgent != "" {
				name += "/agent"
			}
			t.Run(name, func(t *testing.T) {
				k := privateJWK(t, v.Key)
				u, err := url.Parse(v.TargetURL)
				if err != nil {
					t.Fatal(err)
				}
				const agent = "https://signature-agent.test"
				keys := newKeyMap().add(agent, k)
				now := time.UnixMilli(v.CreatedMS).Add(time.Minute)
				ver := &Verifier{
					Keys:        keys.resolve,
					Now:         func() time.Time { return now },
					MaxLifetime: 200 * 365 * 24 * time.Hour,
					Replays:     NewMemoryReplays(16),
				}
				sig, err := ver.Verify(context.Background(), vectorRequest(t, v), u.Host)
				if v.SignatureAgent == "" {
					wantErr(t, err, "ErrNoAgent")
					if keys.calls != 0 {
						t.Fatal("a key was looked up for a signature that names no directory")
					}
					return
				}
				wantErr(t, err, "ok")
				if sig.KeyID != k.id || sig.Label != v.Label || sig.Agent != agent || sig.Nonce != v.Nonce ||
					!sig.Created.Equal(time.UnixMilli(v.CreatedMS)) || !sig.Expires.Equal(time.UnixMilli(v.ExpiresMS)) {
					t.Fatalf("vector %d: got %+v", i, sig)
				}
				// Its nonce is now spent.
				_, err = ver.Verify(context.Background(), vectorRequest(t, v), u.Host)
				wantErr(t, err, "ErrReplay")

				// With the default lifetime bound, the vector is too long-lived.
				strict := &Verifier{Keys: keys.resolve, Now: ver.Now}
				_, err = strict.Verify(context.Background(), vectorRequest(t, v), u.Host)
				wantErr(t, err, "ErrLifetime")

				// Another site does not accept it.
				_, err = ver.Verify(context.Background(), vectorRequest(t, v), "example.org")
				wantErr(t, err, "ErrAuthority")

				// Any single changed byte of the signature fails.
				r := vectorRequest(t, v)
				r.Header.Set("Signature", flipSignatureByte(t, v.Signature))
				_, err = ver.Verify(context.Background(), r, u.Host)
				wantErr(t, err, "ErrBadSignature")
			})
			n++
		}
	}
	if n != 8 {
		t.Fatalf("verified %d vectors, want 8", n)
	}
}

// flipSignatureByte changes one byte of the signature in a Signature field
// value `label=:base64:`.
func flipSignatureByte(t testing.TB, field string) string {
	t.Helper()
	label, rest, _ := strings.Cut(field, "=")
	b, err := base64.StdEncoding.DecodeString(strings.Trim(rest, ":"))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	return label + "=:" + base64.StdEncoding.EncodeToString(b) + ":"
}

// TestVectorThumbprints checks that each vector's keyid is the RFC 7638
// thumbprint of its key, and that ParseDirectory identifies the key by it
// (ignoring the vector's own "kid").
func TestVectorThumbprints(t *testing.T) {
	want := map[string]string{
		"RSA": "oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA",
		"OKP": "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",
	}
	var vs []requestVector
	readJSON(t, "web_bot_auth_architecture_v1.json", &vs)
	for _, v := range vs {
		k := privateJWK(t, v.Key)
		if k.id != want[v.Key["kty"]] || !strings.Contains(v.SignatureInput, `keyid="`+k.id+`"`) {
			t.Fatalf("%s: thumbprint %s", v.Key["kty"], k.id)
		}
		pubOnly := map[string]string{}
		for _, m := range []string{"kty", "crv", "x", "n", "e", "kid", "alg"} {
			if s, ok := v.Key[m]; ok {
				pubOnly[m] = s
			}
		}
		body, _ := json.Marshal(map[string]any{"keys": []any{pubOnly}})
		keys, err := ParseDirectory(body)
		if err != nil || len(keys) != 1 || keys[0].ID != k.id {
			t.Fatalf("ParseDirectory: %v %+v", err, keys)
		}
		// The vector's JWK itself carries private members: never a
		// directory entry.
		full, _ := json.Marshal(map[string]any{"keys": []any{v.Key}})
		if _, err := ParseDirectory(full); err == nil {
			t.Fatal("a JWK with private members was accepted")
		}
	}
}

// TestSignatureAgentVectors parses the Signature-Agent vectors, written for
// the typed members of draft-meunier-webbotauth-httpsig-protocol-00: each
// field value and the members it holds. -01 removed the types and says a
// member carrying parameters is ignored (5.2.1): the typed ones are, the
// plain one (the directory type's default) is the JWK Set URL.
func TestSignatureAgentVectors(t *testing.T) {
	var vs []struct {
		Name    string `json:"name"`
		Header  string `json:"header"`
		Entries []struct {
			Label string `json:"label"`
			URI   string `json:"uri"`
			Type  string `json:"type"`
		} `json:"entries"`
	}
	readJSON(t, "web_bot_auth_signature_agent_v1.json", &vs)
	if len(vs) != 3 {
		t.Fatalf("%d vectors", len(vs))
	}
	for _, v := range vs {
		f := parseSignatureAgent([]string{v.Header})
		if f.err != nil || f.legacy || len(f.members) != len(v.Entries) {
			t.Fatalf("%s: %+v", v.Name, f)
		}
		for i, e := range v.Entries {
			m := f.members[i]
			typed := strings.Contains(v.Header, ";type=")
			if m.name != e.Label || m.uri != e.URI || m.err != nil || (m.ignored != "") != typed {
				t.Fatalf("%s: member %d is %+v, want %+v (ignored: %v)", v.Name, i, m, e, typed)
			}
		}
	}
}

// TestCardVectors uses what applies of the Signature Agent Card vectors:
// the JWK Set inlined in a valid card parses as a directory and yields the
// thumbprint the request vectors sign with. Cards themselves (jwks_uri,
// the validity rules, CIMD discovery) are not supported and are skipped.
func TestCardVectors(t *testing.T) {
	var vs []struct {
		Name  string          `json:"name"`
		Valid bool            `json:"valid"`
		Card  json.RawMessage `json:"card"`
	}
	readJSON(t, "web_bot_auth_signature_agent_card_v1.json", &vs)
	used := 0
	for _, v := range vs {
		var card struct {
			JWKS json.RawMessage `json:"jwks"`
		}
		if err := json.Unmarshal(v.Card, &card); err != nil {
			t.Fatal(err)
		}
		if !v.Valid || card.JWKS == nil {
			t.Logf("%s: skipped (card validation and CIMD discovery are not supported)", v.Name)
			continue
		}
		keys, err := ParseDirectory(card.JWKS)
		if err != nil || len(keys) != 1 || keys[0].ID != "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U" {
			t.Fatalf("%s: %v %+v", v.Name, err, keys)
		}
		used++
	}
	if used != 1 {
		t.Fatalf("used %d card vectors, want 1", used)
	}
}

// TestRFC9421B26 checks the signature base and Ed25519 verification below
// Verify against RFC 9421 B.2.6. The RFC's signature has no
// tag="web-bot-auth", so Verify itself finds no signature.
func TestRFC9421B26(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "rfc9421", "b26_request.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(string(raw))))
	if err != nil {
		t.Fatal(err)
	}
	wantBase, err := os.ReadFile(filepath.Join("testdata", "rfc9421", "b26_base.txt"))
	if err != nil {
		t.Fatal(err)
	}
	jwk, err := os.ReadFile(filepath.Join("testdata", "rfc9421", "test-key-ed25519.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParseDirectory([]byte(`{"keys":[` + string(jwk) + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	pub := keys[0].Public.(ed25519.PublicKey)

	in, err := sfv.UnmarshalDictionary(r.Header.Values("Signature-Input"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := in.Get("sig-b26")
	sigs, err := sfv.UnmarshalDictionary(r.Header.Values("Signature"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := sigs.Get("sig-b26")
	base, err := signatureBase(m.(sfv.InnerList), newRequestView(r, "example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if string(base) != string(wantBase) {
		t.Fatalf("signature base:\n%s\nwant:\n%s", base, wantBase)
	}
	sig := s.(sfv.Item).Value.([]byte)
	if !verifyBytes(pub, base, sig) {
		t.Fatal("RFC 9421 B.2.6 signature does not verify")
	}
	sig[0] ^= 1
	if verifyBytes(pub, base, sig) {
		t.Fatal("altered signature verifies")
	}
	sig[0] ^= 1

	ver := &Verifier{Keys: newKeyMap().resolve, Now: func() time.Time { return time.Unix(1618884473, 0) }}
	_, err = ver.Verify(context.Background(), r, "example.com")
	wantErr(t, err, "ErrNoSignature")
	// Given the web-bot-auth tag it would still fail: the RFC's keyid is a
	// name, not a thumbprint, and it has no expires.
}

// TestDirectoryResponseVector checks the draft's signed directory response
// (appendix E.2.3) with the possession-proof verification of Directories.
func TestDirectoryResponseVector(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "directory", "e23_body.json"))
	if err != nil {
		t.Fatal(err)
	}
	hraw, err := os.ReadFile(filepath.Join("testdata", "directory", "e23_headers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mh, err := textproto.NewReader(bufio.NewReader(strings.NewReader(string(hraw) + "\n"))).ReadMIMEHeader()
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header(mh)
	keys, err := parseDirectory(body, MaxDirectoryBytes)
	if err != nil {
		t.Fatal(err)
	}
	req := requestView{method: "GET", scheme: "https", authority: "signature-agent.test", path: DirectoryPath,
		header: http.Header{"Accept": {DirectoryMediaType}}}
	now := time.Unix(1735689600, 0).Add(time.Hour)
	proven, dropped, err := verifyDirectoryResponse(req, 200, h, body, keys, now)
	if err != nil || len(proven) != 1 || len(dropped) != 0 {
		t.Fatalf("%v %v %v", err, proven, dropped)
	}
	if _, ok := proven["poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"]; !ok {
		t.Fatal("key not proven")
	}
	// Re-served under another authority, the proof fails.
	other := req
	other.authority = "copy.example"
	if _, _, err := verifyDirectoryResponse(other, 200, h, body, keys, now); err == nil {
		t.Fatal("proof accepted for another authority")
	}
	// A changed body no longer matches the covered Content-Digest.
	alt := []byte(strings.Replace(string(body), `"use":"sig"`, `"use":"sig" `, 1))
	if _, _, err := verifyDirectoryResponse(req, 200, h, alt, keys, now); err == nil {
		t.Fatal("proof accepted for another body")
	}
	// Before its created time, the proof is refused.
	if _, _, err := verifyDirectoryResponse(req, 200, h, body, keys, time.Unix(1735689600, 0).Add(-time.Hour)); err == nil {
		t.Fatal("future-dated proof accepted")
	}
}
