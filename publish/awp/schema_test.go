package awp

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaDir holds the published schemas, relative to this package.
var schemaDir = filepath.Join("..", "..", "testdata", "schemas")

// compileSchema compiles a schema of testdata/schemas with format assertions
// on, so that "uri", "email" and "date-time" are checked, not just noted.
func compileSchema(t testing.TB, file string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join(schemaDir, file))
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return sch
}

func validate(t testing.TB, sch *jsonschema.Schema, doc []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("rendered document is not JSON: %v\n%s", err, doc)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("rendered document does not validate: %v\n%s", err, doc)
	}
}

// decode unmarshals a document into plain JSON values for comparisons that
// ignore member order and whitespace.
func decode(t testing.TB, doc []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, doc)
	}
	return v
}

func assertSameJSON(t testing.TB, got []byte, want string) {
	t.Helper()
	g, w := decode(t, got), decode(t, []byte(want))
	if !reflect.DeepEqual(g, w) {
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("rendered:\n%s\nwant (semantically):\n%s", got, wb)
	}
}

func equalJSON(a, b any) bool {
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
