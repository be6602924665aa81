package audit_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/agentready/agentready/audit"
)

var update = flag.Bool("update", false, "rewrite testdata/artifact.json")

// testKey is the key of the worked example: Ed25519 with seed 0, 1, …, 31.
func testKey() ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// workedEvents are the worked example's events, before recording.
func workedEvents() []audit.Event {
	return []audit.Event{{
		EventID: "evt-1", Timestamp: "2025-06-01T12:00:00.000Z", Capability: "search", Method: "GET",
		Params:         map[string]any{"q": "blue mug", "limit": 10},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:search"},
		ResponseStatus: 200,
	}, {
		EventID: "evt-2", Timestamp: "2025-06-01T12:00:05.250Z", Capability: "cart.add", Method: "POST",
		Params:         map[string]any{"item_id": "mug-42", "quantity": 2, "card_number": "4111111111111111"},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: "capability:cart.add"},
		ResponseStatus: 201,
	}, {
		EventID: "evt-3", Timestamp: "2025-06-01T12:00:09.999Z", Capability: "checkout", Method: "POST",
		Params:         map[string]any{},
		PolicyResult:   audit.PolicyResult{Decision: audit.Deny, Rule: "rate-limit"},
		ResponseStatus: 429,
	}}
}

func workedMeta() audit.Meta {
	return audit.Meta{
		SessionID: "sess-1",
		Site:      "https://acmeceramics.example.com",
		CreatedAt: "2025-06-01T11:59:00.000Z",
		EndedAt:   "2025-06-01T12:01:00.000Z",
		Agent:     audit.Agent{Name: "ShopBot", Version: "1.2", Purpose: "buy a mug"},
	}
}

// workedArtifact records and seals the worked example.
func workedArtifact(t testing.TB) *audit.Artifact {
	t.Helper()
	var c audit.Chain
	for _, e := range workedEvents() {
		if _, err := c.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	a, err := c.Seal(testKey(), workedMeta())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestWorkedExample pins the canonical serialisation: fixed events give
// these exact bytes, hashes, root hash and signature. The values were
// cross-checked with an independent implementation (Python's json with
// sorted keys and compact separators, which is RFC 8785 for this data,
// hashlib and the cryptography package's Ed25519); testdata/artifact.json
// is the sealed artifact, for third-party verifiers.
func TestWorkedExample(t *testing.T) {
	wantCanonical := []string{
		`{"capability":"search","event_id":"evt-1","method":"GET","params":{"limit":10,"q":"blue mug"},"policy_result":{"decision":"allow","rule":"capability:search"},"prev_hash":"","response_status":200,"timestamp":"2025-06-01T12:00:00.000Z"}`,
		`{"capability":"cart.add","event_id":"evt-2","method":"POST","params":{"card_number":"[REDACTED]","item_id":"mug-42","quantity":2},"policy_result":{"decision":"allow","rule":"capability:cart.add"},"prev_hash":"12d7f6d5066645188c83f6a6a28c78fbec270bb40a6236ed76129438844c1ef6","response_status":201,"timestamp":"2025-06-01T12:00:05.250Z"}`,
		`{"capability":"checkout","event_id":"evt-3","method":"POST","params":{},"policy_result":{"decision":"deny","rule":"rate-limit"},"prev_hash":"666443dba109558a4ef675090900d79e32940dcc9445e0da7690ed12b3ede690","response_status":429,"timestamp":"2025-06-01T12:00:09.999Z"}`,
	}
	wantHashes := []string{
		"12d7f6d5066645188c83f6a6a28c78fbec270bb40a6236ed76129438844c1ef6",
		"666443dba109558a4ef675090900d79e32940dcc9445e0da7690ed12b3ede690",
		"f336f59cd22e383c401e7bb1bf7cbb65e1ac414dfd2dc3deac5997ae8a451b31",
	}
	const (
		wantRoot      = "8ea3a00bf6342af8ff80bfa90ceae1d04f8183065fea2afb04d117c47553d55b"
		wantPayload   = `{"agent":{"name":"ShopBot","purpose":"buy a mug","version":"1.2"},"created_at":"2025-06-01T11:59:00.000Z","ended_at":"2025-06-01T12:01:00.000Z","root_hash":"8ea3a00bf6342af8ff80bfa90ceae1d04f8183065fea2afb04d117c47553d55b","session_id":"sess-1","site":"https://acmeceramics.example.com"}`
		wantSignature = "/e+7Y4ikQiBUIiVTpR7xRdO3QFkjjNfGn+yrLbijvpL1ZTtR+b0NzwX+r0iZoh7yGDLAdWy/WiNqhtOSdOFcAw=="
		wantPublicKey = "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg="
	)

	a := workedArtifact(t)
	for i, e := range a.Events {
		b, err := audit.CanonicalEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != wantCanonical[i] {
			t.Errorf("event %d serialises to\n%s\nwant\n%s", i, b, wantCanonical[i])
		}
		sum := sha256.Sum256(b)
		if h, _ := audit.EventHash(e); h != wantHashes[i] || hex.EncodeToString(sum[:]) != h {
			t.Errorf("event %d hash = %s, want %s", i, h, wantHashes[i])
		}
	}
	if got := audit.RootHash(wantHashes); got != wantRoot || a.RootHash != wantRoot {
		t.Errorf("root hash = %s (artifact %s), want %s", got, a.RootHash, wantRoot)
	}
	rootInput := `["` + strings.Join(wantHashes, `","`) + `"]`
	if sum := sha256.Sum256([]byte(rootInput)); hex.EncodeToString(sum[:]) != wantRoot {
		t.Errorf("root hash is not SHA-256 of %s", rootInput)
	}
	if got := string(audit.SigningPayload(a.Meta(), a.RootHash)); got != wantPayload {
		t.Errorf("signing payload =\n%s\nwant\n%s", got, wantPayload)
	}
	if a.Signature != wantSignature || a.PublicKey != wantPublicKey {
		t.Errorf("signature, key = %s, %s\nwant %s, %s", a.Signature, a.PublicKey, wantSignature, wantPublicKey)
	}

	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden := filepath.Join("testdata", "artifact.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(want) {
		t.Errorf("artifact differs from %s (go test -update to rewrite):\n%s", golden, b)
	}
	if _, err := audit.VerifyJSON(want, testKey().Public().(ed25519.PublicKey)); err != nil {
		t.Errorf("%s does not verify: %v", golden, err)
	}
}

func TestRootHashOfNoEvents(t *testing.T) {
	sum := sha256.Sum256([]byte("[]"))
	if got := audit.RootHash(nil); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("RootHash(nil) = %s, want SHA-256 of []", got)
	}
}

// jcsOf is the reference: RFC 8785 by way of encoding/json and
// github.com/gowebpki/jcs.
func jcsOf(t testing.TB, e audit.Event) ([]byte, error) {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

type payment struct {
	Card   string `json:"card"`
	Amount int    `json:"amount"`
	Note   string `json:"note,omitempty"`
}

// TestCanonicalMatchesJCS holds the hand-written serialisation
// byte-identical to the reference for every kind of value params take.
func TestCanonicalMatchesJCS(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
	}{
		{"nil params", nil},
		{"empty params", map[string]any{}},
		{"scalars", map[string]any{"s": "x", "t": true, "f": false, "n": nil}},
		{"integers", map[string]any{"i": -7, "i8": int8(-8), "i16": int16(300), "i32": int32(-1 << 31), "i64": int64(1) << 53, "u": uint(7), "u8": uint8(255), "u16": uint16(65535), "u32": uint32(1 << 31), "u64": uint64(math.MaxUint64)}},
		{"big integers round", map[string]any{"a": int64(1)<<53 + 1, "b": int64(math.MaxInt64), "c": int64(math.MinInt64)}},
		{"floats", map[string]any{"a": 0.1, "b": 1e21, "c": 1e-7, "d": 1e-6, "e": 123456789.123, "f": math.Copysign(0, -1), "g": 5e-324, "h": math.MaxFloat64, "i": 1e20, "j": 0.000001234, "k": 9007199254740993.0}},
		{"float32", map[string]any{"a": float32(0.1), "b": float32(3.4e38), "c": float32(1e-45), "d": float32(16777217)}},
		{"json.Number", map[string]any{"a": json.Number("1.50"), "b": json.Number("1E3"), "c": json.Number("-0"), "d": json.Number("")}},
		{"escapes", map[string]any{"s": "\"\\/\b\f\n\r\t\x00\x01\x1f\x7f <>& \u2028\u2029 é 😀"}},
		{"invalid UTF-8", map[string]any{"s": "a\xffb\xc0\xaf", "k\xfe": 1}},
		{"key order by UTF-16", map[string]any{"\u20ac": 1, "\r": 2, "\ufb33": 3, "1": 4, "😀": 5, "\u0080": 6, "\u00f6": 7, "\uffff": 8, "\U00010000": 9, "": 10, "a": 11, "aa": 12, "A": 13}},
		{"nested", map[string]any{"a": map[string]any{"z": []any{1, "x", nil, []any{}, map[string]any{}}, "y": map[string]any{"b": 2.5}}}},
		{"typed containers", map[string]any{"m": map[string]string{"b": "2", "a": "1"}, "l": []string{"x", "y"}, "ints": []int{3, 1}}},
		{"struct", map[string]any{"p": payment{Card: "4111", Amount: 12}, "ptr": &payment{Note: "n"}, "nilptr": (*payment)(nil)}},
		{"time", map[string]any{"t": time.Date(2025, 6, 1, 12, 0, 0, 5, time.UTC)}},
		{"raw message", map[string]any{"r": json.RawMessage(`{"b":1e2,"a":[true]}`)}},
		{"many keys", func() map[string]any {
			m := map[string]any{}
			for i := range 40 {
				m[strings.Repeat("k", i%7)+string(rune('a'+i))] = i
			}
			return m
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := workedEvents()[0]
			e.Params = tt.params
			e.PrevHash = "0123\"\n"
			want, err := jcsOf(t, e)
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			got, err := audit.CanonicalEvent(e)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("CanonicalEvent:\n%s\nRFC 8785 reference:\n%s", got, want)
			}
			// What a store records hashes like what it was given.
			var c audit.Chain
			c.Redactor = func(_ string, v any) any { return v }
			rec, err := c.Append(e)
			if err != nil {
				t.Fatal(err)
			}
			rec.PrevHash = e.PrevHash
			if tt.params == nil {
				rec.Params = nil // recorded as {}; the reference had null
			}
			if got, _ := audit.CanonicalEvent(rec); string(got) != string(want) {
				t.Fatalf("recorded event serialises to\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestCanonicalErrors(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	deep := map[string]any{}
	for range 70 {
		deep = map[string]any{"d": deep}
	}
	tests := []struct {
		name   string
		params map[string]any
	}{
		{"NaN", map[string]any{"x": math.NaN()}},
		{"Inf", map[string]any{"x": []any{math.Inf(-1)}}},
		{"float32 Inf", map[string]any{"x": float32(math.Inf(1))}},
		{"cycle", cyclic},
		{"too deep", deep},
		{"channel", map[string]any{"x": make(chan int)}},
		{"function", map[string]any{"x": func() {}}},
		{"json.Number not a number", map[string]any{"x": json.Number("0x10")}},
		{"json.Number out of range", map[string]any{"x": json.Number("1e400")}},
		{"keys collide after UTF-8 repair", map[string]any{"a\xff": 1, "a\xfe": 2}},
		{"struct with NaN", map[string]any{"x": struct{ F float64 }{math.NaN()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := workedEvents()[0]
			e.Params = tt.params
			if _, err := audit.CanonicalEvent(e); !errors.Is(err, audit.ErrParams) {
				t.Fatalf("CanonicalEvent: %v, want ErrParams", err)
			}
			var c audit.Chain
			if _, err := c.Append(e); !errors.Is(err, audit.ErrParams) {
				t.Fatalf("Append: %v, want ErrParams", err)
			}
		})
	}
}

// FuzzCanonical: for any JSON value as params, the serialisation equals
// the RFC 8785 reference, or both refuse it.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"b":[1,2,{"c":null}]}`, `{"\u20ac":1,"\ud83d\ude00":2,"\uffff":3}`,
		`{"n":[1e21,1e-7,0.1,-0,5e-324,1.7976931348623157e308,123456789012345678901234567890]}`,
		`{"s":"\u0000\u001f\"\\\/\u2028"}`, `{"deep":[[[[[[{"a":[]}]]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var params map[string]any
		if json.Unmarshal(data, &params) != nil {
			return
		}
		e := workedEvents()[1]
		e.Params = params
		want, refErr := jcsOf(t, e)
		got, err := audit.CanonicalEvent(e)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("CanonicalEvent error %v, reference error %v, for %s", err, refErr, data)
		}
		if err == nil && string(got) != string(want) {
			t.Fatalf("for %s:\n got %s\nwant %s", data, got, want)
		}
	})
}
