package schemagen_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agentready/agentready/internal/schemagen"
)

type file struct {
	Name  string   `validate:"required"`
	Hosts []string `yaml:"hosts"`
}

// TestUnused: a rule that no field takes (a misspelt field, "[]" after a
// field that is not a list) is reported, not dropped unseen; the others
// are applied.
func TestUnused(t *testing.T) {
	g := &schemagen.Generator{Rules: map[string]map[string]any{
		"file.Name":    {"pattern": `\S`},
		"file.Hosts[]": {"minLength": 1},
		"file.Nmae":    {"pattern": "x"},
		"file.Name[]":  {"minLength": 1},
	}}
	g.Of(reflect.TypeFor[file]())
	if got, want := g.Unused(), []string{"file.Name[]", "file.Nmae"}; !slices.Equal(got, want) {
		t.Errorf("Unused: %v, want %v", got, want)
	}
	props := g.Defs["File"].(map[string]any)["properties"].(map[string]any)
	name, hosts := props["Name"].(map[string]any), props["hosts"].(map[string]any)
	if name["pattern"] != `\S` || name["minLength"] != 1 || hosts["items"].(map[string]any)["minLength"] != 1 {
		t.Errorf("rules not applied: %v", props)
	}
}
