package audit

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// FuzzCompareUTF16 holds compareUTF16 to the definition: the order of the
// strings' UTF-16 code units.
func FuzzCompareUTF16(f *testing.F) {
	for _, p := range [][2]string{{"a", "b"}, {"\uffff", "\U00010000"}, {"\ue000", "😀"}, {"ab", "a"}, {"", "x"}, {"é", "e\u0301"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		a, b = validString(a), validString(b)
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		got := compareUTF16(a, b)
		if sign(got) != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want sign %d", a, b, got, want)
		}
	})
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestValidNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "1.5": true, "1e5": true, "1E+5": true, "-1.25e-3": true, "10": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "+1": false, "1e": false, "0x10": false,
		"1_000": false, "Inf": false, "NaN": false, "1 ": false, "1.5.5": false, "--1": false,
	} {
		if got := validNumber(s); got != want {
			t.Errorf("validNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

type card struct {
	Number string  `json:"number"`
	Amount float32 `json:"amount"`
}

// TestAppendRawMatchesNormalize: serialising params as passed (the append
// path) writes what serialising their normalised, redacted copy writes.
func TestAppendRawMatchesNormalize(t *testing.T) {
	params := []map[string]any{
		nil,
		{},
		{"q": "x", "n": 1, "f": math.Copysign(0, -1), "u": uint64(1<<63 + 1), "i32": int32(-5), "u32": uint32(7), "b": true, "z": nil},
		{"password": map[string]any{"x": 1}, "payment": map[string]any{"card_number": 1, "list": []any{map[string]any{"cvv": 1, "ok": "y"}}}},
		{"typed": map[string]string{"token": "t", "a": "b"}, "strs": []string{"x"}, "card": card{"4111", 1.5}, "c": &card{Number: "1"}},
		{"bad\xffkey": 1, "s": "bad\xfevalue", "nested": map[string]any{"k\xff": []any{"\xff"}}},
		{"deep": []any{[]any{[]any{map[string]any{"pin": 1234, "float32": float32(0.1)}}}}},
	}
	redactors := map[string]Redactor{
		"none":    nil,
		"default": DefaultRedactor,
		"replace": func(k string, v any) any {
			if k == "q" || k == "a" {
				return map[string]any{"was": v, "token": "x"}
			}
			return v
		},
	}
	for name, r := range redactors {
		for i, p := range params {
			raw, err1 := appendRawMap(nil, p, r, 1)
			n, err2 := normalizeParams(p, r, true)
			var want []byte
			if err2 == nil {
				if n == nil {
					want = []byte("{}")
					raw = []byte("{}") // appendEventHead writes nil params itself
				} else {
					want, err2 = appendObject(nil, n)
				}
			}
			if (err1 != nil) != (err2 != nil) || string(raw) != string(want) {
				t.Errorf("%s/%d:\nraw  %s (%v)\nnorm %s (%v)", name, i, raw, err1, want, err2)
			}
		}
	}
}

// queryCases are Event.Query lists for the appendQuery tests.
var queryCases = [][]Param{
	{{"q", "mug"}, {"limit", "5"}},
	{{"a", "1"}, {"b", "x"}, {"a", "2"}, {"a", "3"}},
	{{"password", "hunter2"}, {"password", "again"}, {"access_token", "t"}, {"shipping", "ok"}},
	{{"", ""}, {"é", "\xff"}, {"\ue000", "a\"b\\c\n"}, {"😀", "x"}, {"Z", ""}},
	{{"k\xff", "v"}, {"k", "w"}}, // a name to repair: declined
	{{"x", "1"}, {"x", "2"}},
}

// TestAppendQueryMatchesMap: writing Query params directly writes what
// writing the map Event.AllParams makes of them writes, redacted by
// nothing or DefaultRedactor, and a custom Redactor is declined.
func TestAppendQueryMatchesMap(t *testing.T) {
	many := make([]Param, maxQuickQuery+1)
	for i := range many {
		many[i] = Param{string(rune('a' + i)), "v"}
	}
	custom := func(k string, v any) any { return v }
	for i, q := range append(queryCases, many) {
		for _, r := range []Redactor{nil, DefaultRedactor, custom} {
			rd := redactWith(r)
			e := Event{Query: q}
			want, err := appendRawMap(nil, e.AllParams(), r, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := appendQuery(nil, q, rd, nil)
			decline := len(q) > maxQuickQuery || (r != nil && !rd.byName) || i == 4
			if err != nil || ok == decline {
				t.Errorf("case %d, byName %v: appendQuery ok = %v, %v", i, rd.byName, ok, err)
			}
			if ok && string(got) != string(want) {
				t.Errorf("case %d, byName %v:\ngot  %s\nwant %s", i, rd.byName, got, want)
			}
			// With a target, wherever its member sorts among the names.
			for _, tg := range targetCases {
				m := e.queryParams()
				withT := make(map[string]any, len(m)+1)
				for k, v := range m {
					withT[k] = v
				}
				withT[TargetMember] = tg.value(rd)
				want, err := appendRawMap(nil, withT, r, 1)
				if err != nil {
					t.Fatal(err)
				}
				e := Event{Query: q, Target: tg}
				if got, ok, err := appendQuery(nil, q, rd, tg); err != nil || (ok && string(got) != string(want)) {
					t.Errorf("case %d, byName %v, target %+v:\ngot  %s\nwant %s (%v)", i, rd.byName, tg, got, want, err)
				}
				if got, err := appendParams(nil, e.queryParams(), tg, rd); err != nil || string(got) != string(want) {
					t.Errorf("case %d, byName %v, target %+v, appendParams:\ngot  %s\nwant %s (%v)", i, rd.byName, tg, got, want, err)
				}
			}
		}
	}
}

// targetCases are targets of every shape appendTarget writes.
var targetCases = []*Target{
	{Path: "/orders/1001"},
	{Path: "/search", Query: "q=mug%FF&token=abc;pin=1&x"},
	{Path: "/orders/1001/items/7", PathParams: []PathParam{{"id", 2}, {"item", 4}}},
	{Path: "/reset/s3cret", PathParams: []PathParam{{"token", 2}}, Query: "a=1"},
	{Path: "/refunds", Headers: []Param{{"X-Refund-Id", "r-9"}, {"X-Refund-Id", "r-10"}, {"X-API-Key", "k"}, {"X-Note", "caf\xe9 50%"}}},
	{Path: "/caf\xff", Query: "q=\xfe"},
}

func TestRedactWith(t *testing.T) {
	if !redactWith(DefaultRedactor).byName {
		t.Error("DefaultRedactor not recognised")
	}
	wrapped := func(k string, v any) any { return DefaultRedactor(k, v) }
	if redactWith(wrapped).byName || redactWith(nil).byName {
		t.Error("another redactor taken for DefaultRedactor")
	}
}

// FuzzAppendQuery holds appendQuery to appendRawMap of AllParams on query
// lists built from the input: names and values split at '&' and '='.
func FuzzAppendQuery(f *testing.F) {
	for _, s := range []string{"q=mug&limit=5", "a=1&a=2&b=3&a=4", "pin=1&pin=2&x=\xff", "\ue000=1&😀=2&é=3", "=&=&="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var q []Param
		for _, kv := range strings.Split(s, "&") {
			k, v, _ := strings.Cut(kv, "=")
			q = append(q, Param{k, v})
		}
		for _, r := range []Redactor{nil, DefaultRedactor} {
			e := Event{Query: q}
			want, err := appendRawMap(nil, e.AllParams(), r, 1)
			got, ok, qerr := appendQuery(nil, q, redactWith(r), nil)
			if !ok || qerr != nil {
				continue
			}
			if err != nil || string(got) != string(want) {
				t.Fatalf("%q:\ngot  %s\nwant %s (%v)", s, got, want, err)
			}
		}
	})
}

// FuzzValidTime holds validTime to time.Parse with TimeLayout, made
// strict by a round trip: Parse also takes one-digit hours and a comma
// before the milliseconds, which are not the layout's one spelling.
func FuzzValidTime(f *testing.F) {
	for _, s := range []string{"2025-06-01T12:00:05.250Z", "2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z",
		"2025-06-01T12:00:05.25aZ", "2025-06-01T12:00:05/250Z", "+025-06-01T12:00:05.250Z", "2025-06-01T12:00:05.250", "0000-01-01T0:00:00,000Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := time.Parse(TimeLayout, s)
		want := err == nil && FormatTime(tm) == s
		if got := validTime(s); got != want {
			t.Fatalf("validTime(%q) = %v, time.Parse: %v, %v", s, got, tm, err)
		}
	})
}

// TestAppendEventTailStatus: the three-digit fast path writes what
// strconv writes, and other numbers (which Verify may meet) still print.
func TestAppendEventTailStatus(t *testing.T) {
	for _, st := range []int{-1, 0, 7, 99, 100, 200, 404, 599, 999, 1000, 123456} {
		got := string(appendEventTail(nil, st, "T"))
		want := `,"response_status":` + strconv.Itoa(st) + `,"timestamp":"T"}`
		if got != want {
			t.Errorf("status %d: %s, want %s", st, got, want)
		}
	}
}
