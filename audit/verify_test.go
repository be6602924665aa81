package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/agentready/agentready/audit"
)

// clone deep-copies an artifact through JSON.
func clone(t testing.TB, a *audit.Artifact) *audit.Artifact {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	c, err := audit.DecodeArtifact(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func attackerKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0xee}, ed25519.SeedSize))
}

// relink recomputes prev_hash from index i on and the root hash, as a
// forger without the key would, so that only the signature can tell.
func relink(t testing.TB, a *audit.Artifact) {
	t.Helper()
	prev := ""
	hashes := make([]string, len(a.Events))
	for i := range a.Events {
		a.Events[i].PrevHash = prev
		h, err := audit.EventHash(a.Events[i])
		if err != nil {
			t.Fatal(err)
		}
		hashes[i], prev = h, h
	}
	a.RootHash = audit.RootHash(hashes)
}

// TestVerifyDetectsTampering: every change to a sealed artifact is caught,
// by Verify on the struct and by VerifyJSON on its JSON, with the error
// that names what broke.
func TestVerifyDetectsTampering(t *testing.T) {
	siteKey := testKey().Public().(ed25519.PublicKey)
	tests := []struct {
		name    string
		tamper  func(*audit.Artifact)
		want    error // nil: still verifies
		index   int   // for ErrChainBroken
		withNil error // the result without a trusted key, when it differs
	}{
		{"intact", func(*audit.Artifact) {}, nil, 0, nil},
		{"event_id", func(a *audit.Artifact) { a.Events[0].EventID = "evt-9" }, audit.ErrChainBroken, 1, nil},
		{"timestamp", func(a *audit.Artifact) { a.Events[1].Timestamp = "2025-06-01T12:00:05.251Z" }, audit.ErrChainBroken, 2, nil},
		{"capability", func(a *audit.Artifact) { a.Events[0].Capability = "browse" }, audit.ErrChainBroken, 1, nil},
		{"method", func(a *audit.Artifact) { a.Events[1].Method = "GET" }, audit.ErrChainBroken, 2, nil},
		{"param value", func(a *audit.Artifact) { a.Events[0].Params["q"] = "red mug" }, audit.ErrChainBroken, 1, nil},
		{"param number", func(a *audit.Artifact) { a.Events[1].Params["quantity"] = 20.0 }, audit.ErrChainBroken, 2, nil},
		{"param added", func(a *audit.Artifact) { a.Events[0].Params["extra"] = true }, audit.ErrChainBroken, 1, nil},
		{"param removed", func(a *audit.Artifact) { delete(a.Events[0].Params, "limit") }, audit.ErrChainBroken, 1, nil},
		{"redacted value restored", func(a *audit.Artifact) { a.Events[1].Params["card_number"] = "4111111111111111" }, audit.ErrChainBroken, 2, nil},
		{"decision", func(a *audit.Artifact) { a.Events[0].PolicyResult.Decision = audit.Deny }, audit.ErrChainBroken, 1, nil},
		{"rule", func(a *audit.Artifact) { a.Events[1].PolicyResult.Rule = "" }, audit.ErrChainBroken, 2, nil},
		{"response_status", func(a *audit.Artifact) { a.Events[0].ResponseStatus = 500 }, audit.ErrChainBroken, 1, nil},
		{"last event changed", func(a *audit.Artifact) { a.Events[2].ResponseStatus = 200 }, audit.ErrRootHash, 0, nil},
		{"first prev_hash set", func(a *audit.Artifact) { a.Events[0].PrevHash = a.Events[1].PrevHash }, audit.ErrChainBroken, 0, nil},
		{"prev_hash edited", func(a *audit.Artifact) { a.Events[2].PrevHash = strings.ToUpper(a.Events[2].PrevHash) }, audit.ErrChainBroken, 2, nil},
		{"reordered first two", func(a *audit.Artifact) { a.Events[0], a.Events[1] = a.Events[1], a.Events[0] }, audit.ErrChainBroken, 0, nil},
		{"reordered last two", func(a *audit.Artifact) { a.Events[1], a.Events[2] = a.Events[2], a.Events[1] }, audit.ErrChainBroken, 1, nil},
		{"first deleted", func(a *audit.Artifact) { a.Events = a.Events[1:] }, audit.ErrChainBroken, 0, nil},
		{"middle deleted", func(a *audit.Artifact) { a.Events = append(a.Events[:1], a.Events[2]) }, audit.ErrChainBroken, 1, nil},
		{"last deleted", func(a *audit.Artifact) { a.Events = a.Events[:2] }, audit.ErrRootHash, 0, nil},
		{"all deleted", func(a *audit.Artifact) { a.Events = []audit.Event{} }, audit.ErrRootHash, 0, nil},
		{"duplicate inserted", func(a *audit.Artifact) {
			a.Events = []audit.Event{a.Events[0], a.Events[1], a.Events[1], a.Events[2]}
		}, audit.ErrChainBroken, 2, nil},
		{"event appended and relinked", func(a *audit.Artifact) {
			e := a.Events[2]
			e.EventID = "evt-4"
			a.Events = append(a.Events, e)
			relink(t, a)
		}, audit.ErrSignature, 0, nil},
		{"event removed and relinked", func(a *audit.Artifact) { a.Events = a.Events[1:]; relink(t, a) }, audit.ErrSignature, 0, nil},
		{"event edited and relinked", func(a *audit.Artifact) { a.Events[0].Params["q"] = "x"; relink(t, a) }, audit.ErrSignature, 0, nil},
		{"root_hash", func(a *audit.Artifact) { a.RootHash = strings.Repeat("0", 64) }, audit.ErrRootHash, 0, nil},
		{"root_hash upper case", func(a *audit.Artifact) { a.RootHash = strings.ToUpper(a.RootHash) }, audit.ErrRootHash, 0, nil},
		{"signature bit flipped", func(a *audit.Artifact) { a.Signature = flipBase64(a.Signature) }, audit.ErrSignature, 0, nil},
		{"signature not base64", func(a *audit.Artifact) { a.Signature = "not base64!" }, audit.ErrSignature, 0, nil},
		{"signature with a line break", func(a *audit.Artifact) { a.Signature = a.Signature[:40] + "\n" + a.Signature[40:] }, audit.ErrSignature, 0, nil},
		{"signature empty", func(a *audit.Artifact) { a.Signature = "" }, audit.ErrSignature, 0, nil},
		{"signature of another session", func(a *audit.Artifact) {
			m := a.Meta()
			m.SessionID = "sess-2"
			b, _ := audit.Sign(a.Events, testKey(), m)
			a.Signature = b.Signature
		}, audit.ErrSignature, 0, nil},
		{"public_key swapped", func(a *audit.Artifact) {
			a.PublicKey = base64.StdEncoding.EncodeToString(attackerKey().Public().(ed25519.PublicKey))
		}, audit.ErrKeyMismatch, 0, audit.ErrSignature},
		{"re-signed by another key", func(a *audit.Artifact) {
			a.Events[0].Params["q"] = "forged"
			relink(t, a)
			b, _ := audit.Sign(a.Events, attackerKey(), a.Meta())
			*a = *b
		}, audit.ErrKeyMismatch, 0, errNone},
		{"public_key removed", func(a *audit.Artifact) { a.PublicKey = "" }, audit.ErrKeyMismatch, 0, audit.ErrMalformed},
		{"public_key not base64", func(a *audit.Artifact) { a.PublicKey = "%%%" }, audit.ErrMalformed, 0, nil},
		{"public_key short", func(a *audit.Artifact) { a.PublicKey = "AAAA" }, audit.ErrMalformed, 0, nil},
		{"session_id", func(a *audit.Artifact) { a.SessionID = "sess-2" }, audit.ErrSignature, 0, nil},
		{"site", func(a *audit.Artifact) { a.Site = "https://evil.example" }, audit.ErrSignature, 0, nil},
		{"created_at", func(a *audit.Artifact) { a.CreatedAt = "2025-06-01T11:59:00.001Z" }, audit.ErrSignature, 0, nil},
		{"ended_at", func(a *audit.Artifact) { a.EndedAt = "2025-06-02T12:01:00.000Z" }, audit.ErrSignature, 0, nil},
		{"agent name", func(a *audit.Artifact) { a.Agent.Name = "OtherBot" }, audit.ErrSignature, 0, nil},
		{"agent version", func(a *audit.Artifact) { a.Agent.Version = "1.3" }, audit.ErrSignature, 0, nil},
		{"agent purpose", func(a *audit.Artifact) { a.Agent.Purpose = "" }, audit.ErrSignature, 0, nil},
	}
	orig := workedArtifact(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := clone(t, orig)
			tt.tamper(a)
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			check := func(how string, err, want error) {
				t.Helper()
				if want == errNone {
					want = nil
				}
				if want == nil {
					if err != nil {
						t.Fatalf("%s: %v, want success", how, err)
					}
					return
				}
				if !errors.Is(err, want) {
					t.Fatalf("%s: %v, want %v", how, err, want)
				}
				var ce *audit.ChainError
				if errors.Is(want, audit.ErrChainBroken) && (!errors.As(err, &ce) || ce.Index != tt.index) {
					t.Fatalf("%s: %v, want the chain broken at event %d", how, err, tt.index)
				}
			}
			check("Verify", audit.Verify(a, siteKey), tt.want)
			check("VerifyJSON", verifyJSON(b, siteKey), tt.want)
			withNil := tt.withNil
			if withNil == nil {
				withNil = tt.want
			}
			check("Verify without a key", audit.Verify(a, nil), withNil)
		})
	}
}

// verifyJSON is audit.VerifyJSON's error.
func verifyJSON(b []byte, key ed25519.PublicKey) error {
	_, err := audit.VerifyJSON(b, key)
	return err
}

// errNone marks a case that verifies without a trusted key.
var errNone = errors.New("none")

func flipBase64(s string) string {
	b, _ := base64.StdEncoding.DecodeString(s)
	b[10] ^= 1
	return base64.StdEncoding.EncodeToString(b)
}

func TestVerifyKeys(t *testing.T) {
	a := workedArtifact(t)
	if err := audit.Verify(a, ed25519.PublicKey{1, 2, 3}); !errors.Is(err, audit.ErrInvalidKey) {
		t.Fatalf("short trusted key: %v, want ErrInvalidKey", err)
	}
	if err := audit.Verify(a, attackerKey().Public().(ed25519.PublicKey)); !errors.Is(err, audit.ErrKeyMismatch) {
		t.Fatalf("other trusted key: %v, want ErrKeyMismatch", err)
	}
	if err := audit.Verify(nil, nil); !errors.Is(err, audit.ErrMalformed) {
		t.Fatalf("nil artifact: %v, want ErrMalformed", err)
	}
}

// TestVerifyJSONStrict: documents that are not exactly an artifact fail
// with ErrMalformed, even where encoding/json alone would accept them.
func TestVerifyJSONStrict(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "artifact.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := string(golden)
	replace := func(old, new string) string {
		t.Helper()
		if !strings.Contains(g, old) {
			t.Fatalf("golden has no %q", old)
		}
		return strings.Replace(g, old, new, 1)
	}
	tests := []struct {
		name string
		doc  string
		want error
	}{
		{"golden", g, nil},
		{"compact", func() string { var b bytes.Buffer; _ = json.Compact(&b, golden); return b.String() }(), nil},
		{"empty", "", audit.ErrMalformed},
		{"not JSON", "artifact", audit.ErrMalformed},
		{"array", "[]", audit.ErrMalformed},
		{"trailing data", g + "{}", audit.ErrMalformed},
		{"unknown member", replace(`"site":`, `"extra": 1, "site":`), audit.ErrMalformed},
		{"unknown event member", replace(`"event_id": "evt-1",`, `"event_id": "evt-1", "note": "x",`), audit.ErrMalformed},
		{"duplicate member", replace(`"site":`, `"site": "https://evil.example", "site":`), audit.ErrMalformed},
		{"duplicate event member", replace(`"method": "GET",`, `"method": "POST", "method": "GET",`), audit.ErrMalformed},
		{"miscased member", replace(`"site":`, `"SITE":`), audit.ErrMalformed},
		{"miscased event member", replace(`"method": "GET"`, `"Method": "GET"`), audit.ErrMalformed},
		{"missing prev_hash", replace(`,
      "prev_hash": ""`, ``), audit.ErrMalformed},
		{"mistyped status", replace(`"response_status": 200`, `"response_status": "200"`), audit.ErrMalformed},
		{"fractional status", replace(`"response_status": 200`, `"response_status": 200.5`), audit.ErrMalformed},
		{"lone surrogate", replace(`"q": "blue mug"`, `"q": "blue \ud800mug"`), audit.ErrMalformed},
		{"number out of range", replace(`"limit": 10`, `"limit": 1e400`), audit.ErrMalformed},
		{"escaped spelling is the same document", replace(`"q": "blue mug"`, `"q": "blue\u0020mug"`), nil},
		{"number spelling is the same document", replace(`"limit": 10`, `"limit": 1.0e1`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verifyJSON([]byte(tt.doc), testKey().Public().(ed25519.PublicKey))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("VerifyJSON: %v, want %v", err, tt.want)
			}
		})
	}
}

// FuzzVerifyJSON: no input panics, and every document that verifies under
// the site's key is the sealed artifact itself, up to RFC 8785
// equivalence: nobody without the key can make another.
func FuzzVerifyJSON(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "artifact.json"))
	if err != nil {
		f.Fatal(err)
	}
	want, err := jcs.Transform(golden)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add([]byte(`{"events":[{}]}`))
	f.Add([]byte(`{"session_id":"x","events":[],"root_hash":"","signature":"","public_key":""}`))
	key := testKey().Public().(ed25519.PublicKey)
	f.Fuzz(func(t *testing.T, data []byte) {
		if verifyJSON(data, key) != nil {
			_ = verifyJSON(data, nil)
			return
		}
		got, err := jcs.Transform(data)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("a different document verified:\n%s", data)
		}
	})
}
