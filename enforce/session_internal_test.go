package enforce

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
)

func TestFormatTimeMatchesAudit(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 999_999_999, time.FixedZone("x", 3600)),
		time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC), // beyond 4 digits: audit's own formatting
	} {
		if got, want := formatTime(tm), audit.FormatTime(tm); got != want {
			t.Errorf("formatTime(%v) = %q, want %q", tm, got, want)
		}
	}
}

func TestIDAndTime(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC),
		time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		id, ts := idAndTime(tm)
		if len(id) != 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" || ts != audit.FormatTime(tm) {
			t.Errorf("idAndTime(%v) = %q, %q", tm, id, ts)
		}
		var buf [64]byte
		id2, ts2 := idAndTimeInto(&buf, tm)
		if len(id2) != 26 || strings.Trim(id2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" || ts2 != audit.FormatTime(tm) || id2 == id {
			t.Errorf("idAndTimeInto(%v) = %q, %q", tm, id2, ts2)
		}
	}
}

// allParams is what the audit trail records of r's params, before
// redaction.
func allParams(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	body, _, status, err := readBody(r, 1<<20)
	if err != nil {
		t.Fatalf("readBody: %d %v", status, err)
	}
	e := audit.Event{Query: queryParams(r.URL.RawQuery, nil), Params: body}
	return e.AllParams()
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

func TestQueryParams(t *testing.T) {
	for _, q := range []string{"", "q=mug&limit=5", "a=1&a=2&a=3", "x=%41+b&%7A=1", "bad=%zz&ok=1", "k&=v&&k2=", "semi=1;x=2&y=3", "a=b=c", "%41=x+y=%42", "k+1=&=v", "==", "a%3D=1", "a=%zz&b"} {
		t.Run(q, func(t *testing.T) {
			e := audit.Event{Query: queryParams(q, nil), Params: map[string]any{}}
			got := e.AllParams()
			vals, _ := url.ParseQuery(q)
			want := map[string]any{}
			for k, vs := range vals {
				if len(vs) == 1 {
					want[k] = vs[0]
					continue
				}
				l := []any{}
				for _, v := range vs {
					l = append(l, v)
				}
				want[k] = l
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestNewEventID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newEventID()
		if len(id) != 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" || seen[id] {
			t.Fatalf("event id %q", id)
		}
		seen[id] = true
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

func TestAuditWriterUnwrapFlush(t *testing.T) {
	rec := &flushRecorder{ResponseRecorder: httptest.NewRecorder()}
	aw := &auditWriter{w: rec, e: &Enforcer{}}
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

// keepStore is a Store of another package's kind: it may keep what it is
// given, and may not know audit.Event.Query.
type keepStore struct{ audit.Store }

// TestEventParams: the package's stores get the query params in Query,
// kept in the pooled writer's buffer; another Store gets every param in a
// map of its own.
func TestEventParams(t *testing.T) {
	ms, err := audit.NewMemoryStore()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		st    audit.Store
		owned bool
	}{
		{"memory store", ms, true},
		{"other store", keepStore{ms}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &Enforcer{auditOwned: builtinAudit(c.st)}
			r := httptest.NewRequest("POST", "/cart?q=mug&tag=a&tag=b", strings.NewReader(`{"id":"body"}`))
			r.Header.Set("Content-Type", "application/json")
			aw := new(auditWriter)
			e.newEvent(r, &Decision{Outcome: Allow, Capability: "cart.add"}, aw, time.Now())
			ev := aw.ev
			target := map[string]any{"path": "/cart", "query": "q=mug&tag=a&tag=b"}
			want := map[string]any{"id": "body", "q": "mug", "tag": []any{"a", "b"}, audit.TargetMember: target}
			if got := ev.AllParams(); !reflect.DeepEqual(got, want) {
				t.Errorf("params %#v, want %#v", got, want)
			}
			if owned := ev.Query != nil; owned != c.owned || len(aw.query) != 3 {
				t.Errorf("Query %v (buffer %d), want it set: %v", ev.Query, len(aw.query), c.owned)
			}
			aw.release()
			if len(aw.query) != 0 || cap(aw.query) < 3 || aw.query[:3][0] != (audit.Param{}) {
				t.Errorf("released query buffer %v (cap %d): want it empty, cleared and kept", aw.query, cap(aw.query))
			}

			// A query parameter and a body member of one name: both kept.
			r = httptest.NewRequest("POST", "/cart?q=mug&tag=a&tag=b", strings.NewReader(`{"q":"body"}`))
			e.newEvent(r, &Decision{Outcome: Allow, Capability: "cart.add"}, aw, time.Now())
			want = map[string]any{"q": "body", QueryMember: map[string]any{"q": "mug", "tag": []any{"a", "b"}}, audit.TargetMember: target}
			if got := aw.ev.AllParams(); !reflect.DeepEqual(got, want) {
				t.Errorf("colliding params %#v, want %#v", got, want)
			}
			aw.release()
		})
	}
}

// TestAppendTimeCivil checks the civil-from-days arithmetic against the
// time package across leap years, century rules and the layout's range.
func TestAppendTimeCivil(t *testing.T) {
	check := func(tm time.Time) {
		t.Helper()
		if got, want := formatTime(tm), audit.FormatTime(tm); got != want {
			t.Fatalf("formatTime(%v) = %q, want %q", tm, got, want)
		}
	}
	for _, tm := range []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 2, 29, 12, 0, 0, 0, time.UTC),
		time.Date(1600, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(1900, 2, 28, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 500_000_000, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2100, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		check(tm)
	}
	// Every day of 1600 through 2400, at a time of day that varies.
	for d, tm := 0, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC); tm.Year() < 2401; d++ {
		check(tm.Add(time.Duration(d%86400) * time.Second))
		tm = tm.AddDate(0, 0, 1)
	}
}

// TestEventTargetReserved: a JSON body member of the name the target is
// recorded under is refused before the handler runs (the event keeps no
// body); a query parameter of that name leaves the members, the query
// being recorded as sent in the target.
func TestEventTargetReserved(t *testing.T) {
	e := &Enforcer{auditOwned: true}
	aw := new(auditWriter)
	r := httptest.NewRequest("POST", "/cart?q=1&%24request=x", strings.NewReader(`{"$request":{"path":"/elsewhere"}}`))
	r.Header.Set("Content-Type", "application/json")
	status, err := e.newEvent(r, &Decision{Outcome: Allow, Capability: "cart.add"}, aw, time.Now())
	if status != http.StatusBadRequest || !errors.Is(err, errBodyReserved) {
		t.Fatalf("newEvent: %d %v", status, err)
	}
	want := map[string]any{"q": "1", audit.TargetMember: map[string]any{"path": "/cart", "query": "q=1&%24request=x"}}
	if got := aw.ev.AllParams(); !reflect.DeepEqual(got, want) {
		t.Errorf("params %#v, want %#v", got, want)
	}
	aw.release()
}

// TestEventReservedMembers: a JSON body member of any name the trail
// records something else under is refused (found by review: a body member
// "$query" was overwritten by a colliding query, so two bodies the handler
// read differently were recorded alike; a "$body" member could pass for the
// digest of another body).
func TestEventReservedMembers(t *testing.T) {
	e := &Enforcer{auditOwned: true}
	for _, body := range []string{
		`{"id":"a","$query":"BODY-P"}`,
		`{"$body":{"content_type":"text/plain","length":1,"sha256":"00"}}`,
		`{"$request":"x"}`,
	} {
		aw := new(auditWriter)
		r := httptest.NewRequest("POST", "/cart?id=mug", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		status, err := e.newEvent(r, &Decision{Outcome: Allow, Capability: "cart.add"}, aw, time.Now())
		if status != http.StatusBadRequest || !errors.Is(err, errBodyReserved) {
			t.Errorf("%s: newEvent %d %v, want 400 and errBodyReserved", body, status, err)
		}
		aw.release()
	}
}
