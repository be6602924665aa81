package jsonenc_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/publish/internal/jsonenc"
)

func TestEncode(t *testing.T) {
	type doc struct {
		A      string                         `json:"a"`
		Params jsonenc.Object[int]            `json:"params,omitempty"`
		Nested jsonenc.Object[map[string]any] `json:"nested,omitempty"`
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"scalar", "x", "\"x\"\n"},
		{"html stays literal", map[string]string{"d": "a <b> & c"}, "{\n  \"d\": \"a <b> & c\"\n}\n"},
		{"line separators escaped", "\u2028", "\"\\u2028\"\n"},
		{"struct indented", doc{A: "x"}, "{\n  \"a\": \"x\"\n}\n"},
		{"object keeps declaration order", doc{A: "x", Params: jsonenc.Object[int]{{"z", 1}, {"a", 2}, {"m", 3}}},
			"{\n  \"a\": \"x\",\n  \"params\": {\n    \"z\": 1,\n    \"a\": 2,\n    \"m\": 3\n  }\n}\n"},
		{"empty object omitted", doc{A: "x", Params: jsonenc.Object[int]{}}, "{\n  \"a\": \"x\"\n}\n"},
		{"nested object re-indented", doc{Nested: jsonenc.Object[map[string]any]{{"k&<", map[string]any{"b": 1, "a": "&"}}}},
			"{\n  \"a\": \"\",\n  \"nested\": {\n    \"k&<\": {\n      \"a\": \"&\",\n      \"b\": 1\n    }\n  }\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonenc.Encode(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Encode = %q, want %q", got, tt.want)
			}
			// The documented equivalence: json.MarshalIndent plus a
			// newline, but for the HTML escaping.
			ref, err := json.MarshalIndent(tt.v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if want := unescapeHTML(string(ref)) + "\n"; string(got) != want {
				t.Errorf("Encode = %q, json.MarshalIndent gives %q", got, want)
			}
		})
	}
}

// unescapeHTML undoes encoding/json's HTML escaping.
func unescapeHTML(s string) string {
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(s)
}

func TestObjectMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		o    jsonenc.Object[any]
		want string // newlines aside, which the calling encoder compacts
	}{
		{"nil", nil, "{}"},
		{"empty", jsonenc.Object[any]{}, "{}"},
		{"order kept", jsonenc.Object[any]{{"b", 1}, {"a", "x"}}, `{"b":1,"a":"x"}`},
		{"escaping", jsonenc.Object[any]{{"q\"<", "a & b\n"}}, `{"q\"<":"a & b\n"}`},
		{"null value", jsonenc.Object[any]{{"n", nil}}, `{"n":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := tt.o.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(raw) {
				t.Fatalf("MarshalJSON = %q: not JSON", raw)
			}
			if got := bytes.ReplaceAll(raw, []byte("\n"), nil); string(got) != tt.want {
				t.Errorf("MarshalJSON = %q, want %q", raw, tt.want)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"unsupported value", map[string]any{"f": func() {}}},
		{"unsupported member value", jsonenc.Object[any]{{"ok", 1}, {"ch", make(chan int)}}},
		{"unsupported nested member", struct{ P jsonenc.Object[any] }{jsonenc.Object[any]{{"x", func() {}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonenc.Encode(tt.v)
			if err == nil || !strings.Contains(err.Error(), "unsupported type") {
				t.Fatalf("Encode = %q, %v; want an unsupported type error", got, err)
			}
		})
	}
}

// FuzzObject: any names and values come back in declaration order and
// unchanged (encoding/json replaces invalid UTF-8), byte-identical on every
// call.
func FuzzObject(f *testing.F) {
	f.Add("a", "1", "b", "<&>")
	f.Add("", "", "", "")
	f.Add("\xff", "\u2028", "x\"y", "\\")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		o := jsonenc.Object[string]{{k1, v1}, {k2, v2}}
		doc, err := jsonenc.Encode(o)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := jsonenc.Encode(o); !bytes.Equal(doc, again) {
			t.Fatal("not deterministic")
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		var got []string
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if s, ok := tok.(string); ok {
				got = append(got, s)
			}
		}
		if len(got) != 4 {
			t.Fatalf("%d names and values in %s", len(got), doc)
		}
		for i, in := range []string{k1, v1, k2, v2} {
			if utf8.ValidString(in) && got[i] != in {
				t.Fatalf("%q came back as %q in %s", in, got[i], doc)
			}
		}
	})
}
