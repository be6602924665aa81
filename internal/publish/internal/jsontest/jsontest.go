// Package jsontest compares rendered JSON documents in the tests of the
// publish renderers: by meaning, ignoring member order and whitespace, and,
// where a specification fixes an order, by the order of the text.
package jsontest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Decode unmarshals a document into plain JSON values for comparisons that
// ignore member order and whitespace. It fails t unless doc is an object.
func Decode(t testing.TB, doc []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, doc)
	}
	return v
}

// AssertSame fails t unless got and want are the same JSON object, member
// order and whitespace aside.
func AssertSame(t testing.TB, got []byte, want string) {
	t.Helper()
	g, w := Decode(t, got), Decode(t, []byte(want))
	if !reflect.DeepEqual(g, w) {
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("rendered:\n%s\nwant (semantically):\n%s", got, wb)
	}
}

// Equal compares two values after a JSON round trip, so that Go literals in
// tests compare equal to decoded documents. Values that do not encode are
// never equal.
func Equal(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}

// InOrder reports whether the parts occur in s in the given order, without
// overlapping.
func InOrder(s string, parts ...string) bool {
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			return false
		}
		at += i + len(p)
	}
	return true
}
