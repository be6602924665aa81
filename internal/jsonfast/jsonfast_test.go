package jsonfast

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

var seeds = []string{
	`{}`, ` {} `, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":null}]},"d":"x"}`, `{"a":-0.5e+10}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.1}`, `{"a":-}`, `{"a":1e}`, `{"a":tru}`, `{"a":truex}`, `{"a":"\u00e9"}`,
	`{"a":"\x"}`, `{"\u0061":1}`, "{\"a\":\"\xff\"}", "{\"\xff\":1}", `{"é":"ü"}`, `{"a":1}{}`, `{"a":1} x`,
	`{"a":[1,]}`, `{"a":{"b":1,}}`, `{,}`, `[1,2]`, `"s"`, `1`, `null`, `true`, `{"a":"b\"c"}`, "{\"a\":\"\t\"}",
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"p":"v"},"name":"t","arguments":{"q":"dome","limit":5}}}`,
	`{"a":"\ud800"}`, `{"a" : 1 , "b" : [ true , false , null ] }`, "\t{\"a\":1}\r\n", `{"a":1e999999}`,
}

// reference decodes raw as jsonschema.UnmarshalJSON does.
func reference(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// dupFree reports whether no object of raw (JSON) gives a name twice.
func dupFree(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		seen map[string]bool
		key  bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return err == io.EOF
		}
		if n := len(stack); n > 0 && stack[n-1].seen != nil {
			top := &stack[n-1]
			if top.key {
				if tok == json.Delim('}') {
					stack = stack[:n-1]
					continue
				}
				k := tok.(string)
				if top.seen[k] {
					return false
				}
				top.seen[k], top.key = true, false
				continue
			}
			top.key = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{seen: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

func check(t *testing.T, raw []byte) {
	want, valid := reference(raw)
	if v, ok := Value(raw, nil); ok {
		if !valid || !reflect.DeepEqual(v, want) || !dupFree(raw) {
			t.Fatalf("Value(%q) = %#v, encoding/json: %#v (%v)", raw, v, want, valid)
		}
	}
	var names []string
	var values [][]byte
	if Members(raw, func(n string, v []byte) bool {
		names, values = append(names, n), append(values, v)
		return true
	}) {
		obj, isObj := want.(map[string]any)
		if !valid || !isObj {
			t.Fatalf("Members(%q) read what encoding/json does not read as an object", raw)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.Token()
		for i := 0; dec.More(); i++ {
			tok, _ := dec.Token()
			var rv json.RawMessage
			if err := dec.Decode(&rv); err != nil {
				t.Fatal(err)
			}
			if i >= len(names) || tok.(string) != names[i] || !bytes.Equal(rv, values[i]) {
				t.Fatalf("Members(%q): member %d is %q %q, encoding/json: %q %q", raw, i, names, values, tok, rv)
			}
		}
		if len(names) < len(obj) {
			t.Fatalf("Members(%q): %q", raw, names)
		}
	}
	if s, ok := String(raw); ok {
		var ws string
		if json.Unmarshal(raw, &ws) != nil || ws != s {
			t.Fatalf("String(%q) = %q, encoding/json: %q", raw, s, ws)
		}
	}
}

func TestSeeds(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
	for _, s := range []string{`{"a":1}`, `{"jsonrpc":"2.0","id":3,"params":{"a":[1,{"b":"c"}]}}`, `{"a":"é"}`} {
		if !Members([]byte(s), func(string, []byte) bool { return true }) {
			t.Errorf("Members(%s): not read", s)
		}
		if _, ok := Value([]byte(s), nil); !ok {
			t.Errorf("Value(%s): not read", s)
		}
	}
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `{"a":"\n"}`} {
		if _, ok := Value([]byte(s), nil); ok {
			t.Errorf("Value(%s): read", s)
		}
	}
	if _, ok := Value([]byte(`[1,2e5]`), func(n string) bool { return n != "2e5" }); ok {
		t.Error("a refused number read")
	}
}

// FuzzAgrees: what jsonfast reads, encoding/json reads the same way.
func FuzzAgrees(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) { check(t, []byte(raw)) })
}
