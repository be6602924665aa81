package gatewaydecl_test

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
)

// TestSchemasAreJSONSchema2020: every input and output schema of every
// site is an instance of the JSON Schema 2020-12 meta-schema, says so in
// "$schema", and its root is an object schema (MCP's inputSchema and
// outputSchema are).
func TestSchemasAreJSONSchema2020(t *testing.T) {
	meta, err := jsonschema.NewCompiler().Compile(gatewaydecl.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	check := func(where string, raw []byte) {
		t.Helper()
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if err := meta.Validate(doc); err != nil {
			t.Errorf("%s is not a JSON Schema 2020-12: %v\n%s", where, err, raw)
		}
		m, _ := doc.(map[string]any)
		if m["$schema"] != gatewaydecl.Dialect || m["type"] != "object" {
			t.Errorf("%s: $schema %v, type %v; want %s, object", where, m["$schema"], m["type"], gatewaydecl.Dialect)
		}
	}
	outputs := 0
	for _, s := range append(sites(t), site{name: "every type", site: everyType(), gateway: "mcp"}) {
		g, err := gatewaydecl.New(&s.site, s.gateway)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for _, tl := range g.Tools {
			check(s.name+" "+tl.Name+" inputSchema", tl.InputSchema)
			if tl.OutputSchema != nil {
				outputs++
				check(s.name+" "+tl.Name+" outputSchema", tl.OutputSchema)
			}
		}
	}
	if outputs == 0 {
		t.Error("no output schema was checked")
	}

	// A type that is not AWP's ("object" for "object[entity]") would be
	// read as a string, and refuse every answer: no output schema.
	odd := everyType()
	odd.Capabilities[0].Outputs["x"] = "object"
	if g, err := gatewaydecl.New(&odd, "mcp"); err != nil {
		t.Error(err)
	} else if g.Tools[0].OutputSchema != nil {
		t.Errorf("an output of type \"object\": output schema %s", g.Tools[0].OutputSchema)
	}
}

// everyType is a gateway over a capability with a param of every type, in
// every location, with every Format kind, and outputs of every AWP type.
// It is not validated by publish (draft-car has no array or object): the
// gateway reads any declaration config's own rules accept.
func everyType() config.Site {
	var params []config.Param
	for _, in := range []string{config.InQuery, config.InHeader, config.InBody} {
		for _, typ := range []string{"", config.TypeString, config.TypeInteger, config.TypeNumber, config.TypeBoolean, config.TypeArray, config.TypeObject} {
			params = append(params, config.Param{Name: "X-" + in + "-" + typ, In: in, Type: typ, Description: typ + " in " + in})
		}
	}
	params = append(params,
		config.Param{Name: "id", In: config.InPath, Type: config.TypeInteger, Min: new(0.0)},
		config.Param{Name: "when", Format: "ISO8601", Default: "2026-12-02T00:00:00Z"},
		config.Param{Name: "mail", Format: "email"},
		config.Param{Name: "price", Format: "float", Max: new(1e6)},
		config.Param{Name: "code", Type: config.TypeString, Format: "airport_code", Enum: []any{"CDG", "JFK"}},
	)
	return config.Site{Name: "T", URL: "https://t.example", Capabilities: []config.Capability{
		{ID: "all", Description: "Everything", Endpoint: "https://t.example/api/all/{id}", Method: "PATCH", Params: params,
			Outputs: map[string]string{"s": "string", "i": "integer", "f": "float", "n": "number", "b": "boolean", "d": "ISO8601", "u": "url",
				"a": "array[array[string]]", "e": "enum[a, b]", "o": "object[thing]"}},
		{ID: "mcp", Endpoint: "https://t.example/mcp", Protocol: config.ProtocolMCP, Gateway: true,
			Tools: []config.Tool{{Name: "all", Calls: "all"}}},
	}}
}
