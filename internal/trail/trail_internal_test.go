package trail

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// allParams is what the audit trail records of r's params, before
// redaction.
func allParams(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	body, _, status, err := readBody(r, 1<<20)
	if err != nil {
		t.Fatalf("readBody: %d %v", status, err)
	}
	rec := &recording{query: queryMembers(r.URL.RawQuery), body: body}
	return rec.params()
}

func TestRequestParamsNone(t *testing.T) {
	r := httptest.NewRequest("GET", "/x", nil)
	if p := allParams(t, r); p != nil {
		t.Errorf("params of a request without any: %v", p)
	}
	r = httptest.NewRequest("POST", "/x", strings.NewReader(`{"a":1}`))
	r.Header.Set("Content-Type", "application/json")
	if p := allParams(t, r); len(p) != 1 || p["a"] != 1.0 {
		t.Errorf("params of a JSON body alone: %v", p)
	}
}

func TestRequestParamsRestoresBody(t *testing.T) {
	body := `{"id":"mug-blue","quantity":2}`
	r := httptest.NewRequest("POST", "/x?q=1", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json; charset=utf-8")
	p := allParams(t, r)
	if p["id"] != "mug-blue" || p["quantity"] != 2.0 || p["q"] != "1" {
		t.Errorf("params %v", p)
	}
	b := new(bytes.Buffer)
	if _, err := b.ReadFrom(r.Body); err != nil || b.String() != body {
		t.Errorf("body after: %q %v", b.String(), err)
	}
}

// digestOf is the BodyMember value that records body.
func digestOf(body, contentType string) map[string]any {
	sum := sha256.Sum256([]byte(body))
	return map[string]any{BodyMember: map[string]any{"content_type": contentType, "length": float64(len(body)), "sha256": hex.EncodeToString(sum[:])}}
}

// TestFaithfulBody: what the handler may act on is what the trail records:
// a JSON object member by member (numbers exact), anything else by digest.
func TestFaithfulBody(t *testing.T) {
	for _, tt := range []struct {
		name, body, ct string
		want           map[string]any
	}{
		{"JSON object", `{"id":"mug","n":2,"x":[1,{"y":null}],"ok":true}`, "application/json",
			map[string]any{"id": "mug", "n": 2.0, "x": []any{1.0, map[string]any{"y": nil}}, "ok": true}},
		{"no content type", `{"id":"mug"}`, "", map[string]any{"id": "mug"}},
		{"text/plain JSON", `{"id":"mug"}`, "text/plain", map[string]any{"id": "mug"}},
		{"big integer kept exact", `{"n":12345678901234567891,"m":9007199254740993,"k":9007199254740992}`, "application/json",
			map[string]any{"n": "12345678901234567891", "m": "9007199254740993", "k": 9007199254740992.0}},
		{"decimals that round-trip", `{"a":0.1,"b":1.0,"c":1e2,"d":-0,"e":0.30000000000000004}`, "application/json",
			map[string]any{"a": 0.1, "b": 1.0, "c": 100.0, "d": 0.0, "e": 0.30000000000000004}},
		{"beyond a double", `{"a":1e400,"b":1.00000000000000000000001}`, "application/json",
			map[string]any{"a": "1e400", "b": "1.00000000000000000000001"}},
		{"trailing data", `{"id":"mug"} {"id":"x"}`, "application/json", digestOf(`{"id":"mug"} {"id":"x"}`, "application/json")},
		{"trailing garbage", `{"id":"mug"}x`, "application/json", digestOf(`{"id":"mug"}x`, "application/json")},
		{"invalid JSON", `{"id":`, "application/json", digestOf(`{"id":`, "application/json")},
		{"an array", `[1,2]`, "application/json", digestOf(`[1,2]`, "application/json")},
		{"form", `a=1&b=2`, "application/x-www-form-urlencoded", digestOf(`a=1&b=2`, "application/x-www-form-urlencoded")},
		{"JSON sent as a form", `{"id":"mug","note":"&qty=1000&"}`, "application/x-www-form-urlencoded", digestOf(`{"id":"mug","note":"&qty=1000&"}`, "application/x-www-form-urlencoded")},
		{"JSON sent as a multipart form", `{"id":"mug"}`, "Multipart/Form-Data; boundary=x", digestOf(`{"id":"mug"}`, "Multipart/Form-Data; boundary=x")},
		{"repeated member", `{"id":"a","id":"b"}`, "application/json", digestOf(`{"id":"a","id":"b"}`, "application/json")},
		{"repeated nested member", `{"x":{"k":1,"k":2}}`, "application/json", digestOf(`{"x":{"k":1,"k":2}}`, "application/json")},
		{"member repeated in another case", `{"id":"mug-blue","ID":"vase-gold"}`, "application/json", digestOf(`{"id":"mug-blue","ID":"vase-gold"}`, "application/json")},
		{"invalid UTF-8", "{\"id\":\"\xff\"}", "application/json", digestOf("{\"id\":\"\xff\"}", "application/json")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(tt.body))
			if tt.ct != "" {
				r.Header.Set("Content-Type", tt.ct)
			}
			if got := allParams(t, r); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestBodyLimits: what cannot be recorded is refused before the handler.
func TestBodyLimits(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		limit      int64
		status     int
	}{
		{"over the size limit", strings.Repeat("x", 101), 100, http.StatusRequestEntityTooLarge},
		{"at the size limit", strings.Repeat("x", 100), 100, 0},
		{"too deep", strings.Repeat(`{"a":`, maxBodyDepth+1) + "1" + strings.Repeat("}", maxBodyDepth+1), 1 << 20, http.StatusBadRequest},
		{"as deep as allowed", strings.Repeat(`{"a":`, maxBodyDepth) + "1" + strings.Repeat("}", maxBodyDepth), 1 << 20, 0},
		{"too deep in arrays", `{"a":` + strings.Repeat("[", maxBodyDepth) + strings.Repeat("]", maxBodyDepth) + "}", 1 << 20, http.StatusBadRequest},
		{"too many values", `{"a":[` + strings.Repeat("0,", maxBodyValues) + "0]}", 1 << 20, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(tt.body))
			p, _, status, err := readBody(r, tt.limit)
			if status != tt.status || (err != nil) != (tt.status != 0) {
				t.Errorf("readBody = %d, %v; want %d", status, err, tt.status)
			}
			if err == nil {
				// What is accepted is recordable.
				if _, err := audit.CanonicalEvent(audit.Event{EventID: "e", Timestamp: "2026-01-01T00:00:00.000Z", Capability: "c", Method: "POST",
					Params: p, PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200}); err != nil {
					t.Errorf("accepted params do not serialise: %v", err)
				}
			}
		})
	}
}

// FuzzNormalizeBody: any body is recorded (never a panic), either member
// by member, when it is exactly one JSON object (encoding/json agrees), or
// by its digest, whose length and SHA-256 are the body's; and what is
// recorded serialises canonically.
func FuzzNormalizeBody(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1} x`, `[1]`, `{"a":{"a":{}}}`, `{"n":12345678901234567891}`, `{"a":1,"a":2}`, "\xff", ``, `{"a":1e999}`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := normalizeBody(body, "text/plain")
		if err != nil {
			if !errors.Is(err, errBodyDepth) && !errors.Is(err, errBodyValues) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if d, ok := p[BodyMember].(map[string]any); ok && len(p) == 1 {
			sum := sha256.Sum256(body)
			if d["length"] != float64(len(body)) || d["sha256"] != hex.EncodeToString(sum[:]) {
				t.Fatalf("digest %v of %q", d, body)
			}
		} else {
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil || m == nil || dec.More() {
				t.Fatalf("recorded %v member by member, but encoding/json: %v", p, err)
			}
			if len(m) != len(p) {
				t.Fatalf("%d members recorded, encoding/json reads %d", len(p), len(m))
			}
		}
		if _, err := audit.CanonicalEvent(audit.Event{EventID: "e", Timestamp: "2026-01-01T00:00:00.000Z", Capability: "c", Method: "POST",
			Params: p, PolicyResult: audit.PolicyResult{Decision: audit.Allow}, ResponseStatus: 200}); err != nil {
			t.Fatalf("recorded params do not serialise: %v", err)
		}
	})
}

// flushRecorder counts flushes.
type flushRecorder struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushRecorder) Flush() { f.flushes++ }

func TestRecordingUnwrapFlush(t *testing.T) {
	rec := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	aw := &recording{w: rec, t: &Trail{}}
	if err := http.NewResponseController(aw).Flush(); err != nil {
		t.Fatal(err)
	}
	if rec.flushes != 1 || !aw.decided || aw.status != 200 || rec.Code != 200 {
		t.Errorf("flushes %d decided %v status %d code %d", rec.flushes, aw.decided, aw.status, rec.Code)
	}
	if aw.Unwrap() != http.ResponseWriter(rec) {
		t.Error("Unwrap")
	}
}

// newTestTrail is a Trail of the outdoor-supply fixture recording to st.
func newTestTrail(t *testing.T, st audit.Store) *Trail {
	t.Helper()
	site := fixtures.OutdoorSupply()
	p, err := policy.Compile(&site)
	if err != nil {
		t.Fatal(err)
	}
	return &Trail{p: p, audit: st}
}

// startEvent starts the event of r, allowed, in a new recording.
func startEvent(tr *Trail, r *http.Request) (*recording, int, error) {
	rec := &recording{t: tr, seq: -1}
	status, err := rec.start(r, &enforce.Decision{Outcome: enforce.Allow, Capability: "cart.add"}, time.Now())
	return rec, status, err
}

// TestEventParams: the event holds the query's params beside the body's
// members, or under QueryMember when they collide, and the target.
func TestEventParams(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tr := newTestTrail(t, ms)
	r := httptest.NewRequest("POST", "/cart?q=mug&tag=a&tag=b", strings.NewReader(`{"id":"body"}`))
	r.Header.Set("Content-Type", "application/json")
	rec, _, _ := startEvent(tr, r)
	target := map[string]any{"path": "/cart", "query": "q=mug&tag=a&tag=b"}
	want := map[string]any{"id": "body", "q": "mug", "tag": []any{"a", "b"}, auditparams.TargetMember: target}
	if got := recorded(t, rec.ev); !reflect.DeepEqual(got, want) {
		t.Errorf("params %#v, want %#v", got, want)
	}

	// A query parameter and a body member of one name: both kept.
	r = httptest.NewRequest("POST", "/cart?q=mug&tag=a&tag=b", strings.NewReader(`{"q":"body"}`))
	rec, _, _ = startEvent(tr, r)
	want = map[string]any{"q": "body", QueryMember: map[string]any{"q": "mug", "tag": []any{"a", "b"}}, auditparams.TargetMember: target}
	if got := recorded(t, rec.ev); !reflect.DeepEqual(got, want) {
		t.Errorf("colliding params %#v, want %#v", got, want)
	}
}

// TestEventTargetReserved: a JSON body member of the name the target is
// recorded under is refused before the handler runs (the event keeps no
// body); a query parameter of that name leaves the members, the query
// being recorded as sent in the target.
func TestEventTargetReserved(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/cart?q=1&%24request=x", strings.NewReader(`{"$request":{"path":"/elsewhere"}}`))
	r.Header.Set("Content-Type", "application/json")
	aw, status, err := startEvent(newTestTrail(t, ms), r)
	if status != http.StatusBadRequest || !errors.Is(err, errBodyReserved) {
		t.Fatalf("start: %d %v", status, err)
	}
	want := map[string]any{"q": "1", auditparams.TargetMember: map[string]any{"path": "/cart", "query": "q=1&%24request=x"}}
	if got := recorded(t, aw.ev); !reflect.DeepEqual(got, want) {
		t.Errorf("params %#v, want %#v", got, want)
	}
}

// TestEventReservedMembers: a JSON body member of any name the trail
// records something else under is refused (found by review: a body member
// "$query" was overwritten by a colliding query, so two bodies the handler
// read differently were recorded alike; a "$body" member could pass for the
// digest of another body).
func TestEventReservedMembers(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tr := newTestTrail(t, ms)
	for _, body := range []string{
		`{"id":"a","$query":"BODY-P"}`,
		`{"$body":{"content_type":"text/plain","length":1,"sha256":"00"}}`,
		`{"$request":"x"}`,
	} {
		r := httptest.NewRequest("POST", "/cart?id=mug", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if _, status, err := startEvent(tr, r); status != http.StatusBadRequest || !errors.Is(err, errBodyReserved) {
			t.Errorf("%s: start %d %v, want 400 and errBodyReserved", body, status, err)
		}
	}
}

// recorded is the params ev records, unredacted.
func recorded(t *testing.T, ev audit.Event) map[string]any {
	t.Helper()
	p, err := audit.Prepare(ev, func(_ string, v any) any { return v })
	if err != nil {
		t.Fatal(err)
	}
	return p.Params
}
