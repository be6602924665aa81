package enforce

import (
	"bytes"
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
func allParams(r *http.Request) map[string]any {
	q, body := requestParams(r, nil)
	e := audit.Event{Query: q, Params: body}
	return e.AllParams()
}

func TestRequestParamsNone(t *testing.T) {
	r := httptest.NewRequest("GET", "/x", nil)
	if p := allParams(r); p != nil {
		t.Errorf("params of a request without any: %v", p)
	}
	r = httptest.NewRequest("POST", "/x", strings.NewReader(`{"a":1}`))
	r.Header.Set("Content-Type", "application/json")
	if p := allParams(r); len(p) != 1 || p["a"] != 1.0 {
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
	p := allParams(r)
	if p["id"] != "mug-blue" || p["quantity"] != 2.0 || p["q"] != "1" {
		t.Errorf("params %v", p)
	}
	b := new(bytes.Buffer)
	if _, err := b.ReadFrom(r.Body); err != nil || b.String() != body {
		t.Errorf("body after: %q %v", b.String(), err)
	}
	big := `{"a":"` + strings.Repeat("x", MaxAuditBody) + `"}`
	r = httptest.NewRequest("POST", "/x", strings.NewReader(big))
	r.Header.Set("Content-Type", "application/json")
	if p := allParams(r); len(p) != 0 {
		t.Errorf("large body recorded: %d params", len(p))
	}
	b.Reset()
	if _, err := b.ReadFrom(r.Body); err != nil || b.String() != big {
		t.Errorf("large body not restored: %d bytes, %v", b.Len(), err)
	}
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
			r := httptest.NewRequest("POST", "/cart?q=mug&tag=a&tag=b", strings.NewReader(`{"q":"body"}`))
			r.Header.Set("Content-Type", "application/json")
			aw := new(auditWriter)
			e.newEvent(r, &Decision{Outcome: Allow, Capability: "cart.add"}, aw, time.Now())
			ev := aw.ev
			want := map[string]any{"q": "body", "tag": []any{"a", "b"}}
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
