// Package schematest validates rendered documents against the JSON Schemas
// the specifications publish, kept in internal/specschemas, for the
// tests of the publish renderers.
//
// Format assertions are on, so that "uri", "email" and "date-time" are
// checked, not just noted: JSON Schema 2020-12 treats format as an
// annotation unless asked. Each schema compiles once per test binary.
//
// It is imported only by tests: jsonschema is a test dependency.
package schematest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dir is the library's internal/specschemas directory, found by walking up
// from the working directory (the package directory under go test) to the
// one whose go.mod is the library's: the tests of the other modules (the
// command, the end-to-end tests) use it too. Tests must not depend on
// where the checkout lives.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := schemaDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func schemaDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/agentready/agentready\n") {
			return filepath.Join(dir, "internal", "specschemas"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("schematest: no go.mod of github.com/agentready/agentready above the working directory")
		}
		dir = parent
	}
}

var (
	mu       sync.Mutex
	compiled = map[string]*jsonschema.Schema{} // by absolute path
)

// Compile returns the schema in schemaFile, a file name in Dir, compiled
// with format assertions on. It fails t when the schema does not compile: a
// schema that silently failed to load would make every validation pass.
func Compile(t testing.TB, schemaFile string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(Dir(t), schemaFile)
	mu.Lock()
	defer mu.Unlock()
	if sch, ok := compiled[path]; ok {
		return sch
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(path)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaFile, err)
	}
	compiled[path] = sch
	return sch
}

// Check is the validation error of doc against schemaFile, nil when doc is
// valid. It fails t when doc is not JSON or the schema does not compile,
// since neither is an answer to the question asked.
func Check(t testing.TB, schemaFile string, doc []byte) error {
	t.Helper()
	sch := Compile(t, schemaFile)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("rendered document is not JSON: %v\n%s", err, doc)
	}
	return sch.Validate(inst)
}

// Validate fails t unless doc is valid against schemaFile.
func Validate(t testing.TB, schemaFile string, doc []byte) {
	t.Helper()
	if err := Check(t, schemaFile, doc); err != nil {
		t.Fatalf("rendered document does not validate: %v\n%s", err, doc)
	}
}
