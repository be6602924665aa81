package gatewaydecl

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/config"
)

// quickSchemas are schemas of the subset and past it.
var quickSchemas = []map[string]any{
	{"type": "object", "properties": map[string]any{
		"q":     map[string]any{"type": "string", "description": "d", "default": "x"},
		"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 50},
		"f":     map[string]any{"type": "number", "minimum": -1.5, "maximum": 1e300},
		"n":     map[string]any{"type": "number", "minimum": 0},
		"e":     map[string]any{"type": "string", "enum": []any{"a", "b"}},
		"m":     map[string]any{"enum": []any{"a", 1, nil, true}},
		"tags":  map[string]any{"type": "array", "items": scalarItems},
		"when":  map[string]any{"type": "string", "format": "date-time"},
		"obj":   map[string]any{"type": "object"},
		"b":     map[string]any{"type": "boolean"},
		"big":   map[string]any{"type": "integer", "maximum": 1e20, "minimum": -1e20},
	}, "required": []any{"q"}},
	{"type": "object", "properties": map[string]any{
		"items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"x":     map[string]any{"type": "object", "additionalProperties": false},
	}, "additionalProperties": map[string]any{"type": "string"}},
	{"type": "object", "properties": map[string]any{
		"items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"x":     map[string]any{"type": []any{"object", "null"}, "properties": map[string]any{"y": map[string]any{"type": "integer"}}, "required": []any{"y"}},
	}},
}

var quickInstances = []string{
	`{}`, `{"q": "a"}`, `{"q": 1}`, `{"q": null}`, `{"q": "a", "limit": 5}`, `{"q": "a", "limit": 0}`,
	`{"q": "a", "limit": 51}`, `{"q": "a", "limit": 50}`, `{"q": "a", "limit": 1}`, `{"q": "a", "limit": 5.0}`,
	`{"q": "a", "limit": 5.5}`, `{"q": "a", "limit": 1e1}`, `{"q": "a", "limit": 1e2}`, `{"q": "a", "limit": -0}`,
	`{"q": "a", "limit": "5"}`, `{"q": "a", "f": -1.5}`, `{"q": "a", "f": -1.50001}`, `{"q": "a", "f": 1e300}`,
	`{"q": "a", "f": 1.0000001e300}`, `{"q": "a", "n": -0.0}`, `{"q": "a", "n": -1e-300}`, `{"q": "a", "e": "a"}`,
	`{"q": "a", "e": "c"}`, `{"q": "a", "e": 1}`, `{"q": "a", "m": 1.0}`, `{"q": "a", "m": null}`, `{"q": "a", "m": "b"}`,
	`{"q": "a", "tags": ["a", 1, true]}`, `{"q": "a", "tags": [null]}`, `{"q": "a", "tags": [[]]}`, `{"q": "a", "tags": "a"}`,
	`{"q": "a", "when": "2020-01-01T00:00:00Z"}`, `{"q": "a", "when": "soon"}`, `{"q": "a", "obj": {"a": 1}}`,
	`{"q": "a", "obj": []}`, `{"q": "a", "b": false}`, `{"q": "a", "b": "true"}`, `{"q": "a", "big": 99999999999999999999}`,
	`{"q": "a", "big": 100000000000000000001}`, `{"q": "a", "big": -100000000000000000000}`, `{"q": "a", "big": 9223372036854775808}`,
	`{"items": ["a"]}`, `{"items": [1]}`, `{"items": []}`, `{"x": {}}`, `{"x": {"y": 1}}`, `{"x": {"y": "1"}}`, `{"x": null}`,
	`{"z": 1}`, `{"z": "1"}`, `[]`, `"x"`, `null`, `1`,
}

// TestQuickAgrees: whatever quick accepts the compiled schema accepts, and
// quick accepts the valid instances of the subset.
func TestQuickAgrees(t *testing.T) {
	for i, s := range quickSchemas {
		s["$schema"] = Dialect
		_, c, err := compile("q.json", s)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range quickInstances {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(raw)))
			if err != nil {
				t.Fatal(err)
			}
			valid := c.schema.Validate(v) == nil
			quick := c.quick.accepts(v)
			if quick && !valid {
				t.Errorf("schema %d, %s: quick accepts what the schema refuses", i, raw)
			}
			if i == 0 && valid && !quick && !bytes.Contains([]byte(raw), []byte(`"when"`)) &&
				!bytes.Contains([]byte(raw), []byte(`"m"`)) && !bytes.Contains([]byte(raw), []byte(`e1`)) &&
				!bytes.Contains([]byte(raw), []byte(`e2`)) && !bytes.Contains([]byte(raw), []byte(`5.0`)) {
				t.Errorf("schema %d, %s: valid, and quick asks the schema", i, raw)
			}
		}
	}
}

// TestQuickOfParams: the input schema of a declaration's params is of the
// subset but for formats.
func TestQuickOfParams(t *testing.T) {
	_, c, err := inputSchema([]config.Param{{Name: "q", Required: true, Description: "d", Default: "x"},
		{Name: "n", Type: config.TypeInteger, Min: new(1.0), Max: new(9.0), Enum: []any{1.0, 2.0}},
		{Name: "tags", Type: config.TypeArray}, {Name: "id", In: config.InPath},
		{Name: "when", Format: "date-time"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.quick.slow || c.quick.props["q"].slow || c.quick.props["n"].slow || c.quick.props["tags"].items == nil ||
		!c.quick.props["when"].slow {
		t.Fatalf("%+v", c.quick)
	}
}

// FuzzQuickAgrees: for any JSON instance, against every schema of the
// subset and past it, what quick accepts the compiled schema accepts:
// quick only ever skips a Validate that would pass.
func FuzzQuickAgrees(f *testing.F) {
	var cs []*compiled
	for _, s := range quickSchemas {
		s["$schema"] = Dialect
		_, c, err := compile("q.json", s)
		if err != nil {
			f.Fatal(err)
		}
		cs = append(cs, c)
	}
	for _, raw := range quickInstances {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return
		}
		for i, c := range cs {
			if c.quick.accepts(v) && c.schema.Validate(v) != nil {
				t.Errorf("schema %d, %s: quick accepts what the schema refuses", i, raw)
			}
		}
	})
}
