// Package specschemas holds the JSON Schemas the specifications publish
// (SOURCE.md says where each comes from), embedded, so that the tests and
// the agentready check command validate documents against the same files.
package specschemas

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.json
var files embed.FS

var (
	mu       sync.Mutex
	compiled = map[string]*jsonschema.Schema{}
)

// Compile returns the compiled schema of file (a name in this directory,
// optionally with a "#/..." fragment), with format assertions on.
func Compile(file string) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[file]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := files.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		if err := c.AddResource("mem:///"+e.Name(), doc); err != nil {
			return nil, err
		}
	}
	s, err := c.Compile("mem:///" + file)
	if err != nil {
		return nil, err
	}
	compiled[file] = s
	return s, nil
}

// Validate validates the JSON document doc against file.
func Validate(file string, doc []byte) error {
	s, err := Compile(file)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}
