package gatewaydecl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// Dialect is the JSON Schema dialect of every schema here, named by each
// schema's "$schema".
const Dialect = "https://json-schema.org/draft/2020-12/schema"

// jsonFormats are the formats JSON Schema 2020-12 defines (Validation,
// 7.3): a Param.Format naming one is the schema's format as it is.
var jsonFormats = map[string]bool{
	"date-time": true, "date": true, "time": true, "duration": true,
	"email": true, "idn-email": true, "hostname": true, "idn-hostname": true,
	"ipv4": true, "ipv6": true, "uri": true, "uri-reference": true,
	"iri": true, "iri-reference": true, "uuid": true, "uri-template": true,
	"json-pointer": true, "relative-json-pointer": true, "regex": true,
}

// scalarItems are the items of an array argument sent in a query or a
// header, where each item is one value's text: no object, array or null.
var scalarItems = map[string]any{"type": []any{"string", "number", "boolean"}}

// inputSchema is the JSON Schema of a tool's arguments, the params of the
// called capability, and that schema compiled.
//
// Each param is a property of its Type (string by default) with its enum,
// default, minimum and maximum and description. A Format becomes the
// "format" of a string where it is a JSON Schema format ("email") or an
// AWP type config maps to one ("ISO8601" is date-time, "url" uri: the
// mapping agent:// skills use, read through config.PublishedAgents); a
// param without a Type takes the type the AWP Format names ("float" is a
// number). A format with no JSON Schema counterpart ("airport_code") is
// said in the description instead. A path param is required: the URL
// cannot be made without it. Unknown properties are allowed.
//
// Formats are asserted when arguments are validated (Tool.Validate): a
// declared format is part of the contract a call is held to.
func inputSchema(params []config.Param) (json.RawMessage, *compiled, error) {
	props := map[string]any{}
	required := []any{}
	for _, p := range params {
		props[p.Name] = paramSchema(p)
		if p.Required || resolve.ParamIn(p) == config.InPath {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"$schema": Dialect, "type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return compile("input.json", s)
}

func paramSchema(p config.Param) map[string]any {
	t := resolve.ParamType(p)
	desc := p.Description
	var format string
	mapped := p.Format == "" || p.Format == t
	switch {
	case mapped:
	case jsonFormats[p.Format]:
		format = p.Format
	default:
		awp := awpSchema(p.Format)
		if at, _ := awp["type"].(string); p.Type == "" && at != "" && at != config.TypeString {
			t, mapped = at, true
		}
		if f, _ := awp["format"].(string); f != "" {
			format = f
		}
	}
	ps := map[string]any{"type": t}
	if format != "" && t == config.TypeString {
		ps["format"], mapped = format, true
	}
	if !mapped {
		desc = strings.TrimSpace(desc + " (format: " + p.Format + ")")
	}
	if t == config.TypeArray && resolve.ParamIn(p) != config.InBody {
		ps["items"] = scalarItems
	}
	if desc != "" {
		ps["description"] = desc
	}
	if p.Default != nil {
		ps["default"] = p.Default
	}
	if len(p.Enum) > 0 {
		ps["enum"] = p.Enum
	}
	if p.Min != nil {
		ps["minimum"] = *p.Min
	}
	if p.Max != nil {
		ps["maximum"] = *p.Max
	}
	return ps
}

// skillOutput is the output schema of c's agent:// skill: c.Output, or the
// schema config makes of c.Outputs ("Output defaults to a schema of
// Outputs"). It is read through the exported PublishedAgents, from a site
// of c alone, so that the mapping of AWP types stays config's.
func skillOutput(c config.Capability) map[string]any {
	c.Tools, c.Gateway, c.Protocol = nil, false, config.ProtocolREST
	s := config.Site{URL: "https://gateway.invalid", Capabilities: []config.Capability{c}}
	agents := s.PublishedAgents()
	if len(agents) == 0 || len(agents[0].Skills) == 0 {
		return nil
	}
	return agents[0].Skills[0].Output
}

// awpSchema is the JSON Schema config maps the AWP type t to.
func awpSchema(t string) map[string]any {
	out := skillOutput(config.Capability{ID: "x", Outputs: map[string]string{"v": t}})
	props, _ := out["properties"].(map[string]any)
	v, _ := props["v"].(map[string]any)
	return v
}

// outputSchema is the JSON Schema of c's structured result, nil where c
// declares neither Outputs nor Output. It is c's agent:// skill output,
// with "$schema" added, provided that it is an object schema (MCP's
// outputSchema is one).
//
// None is given where an output names an AWP entity of the site
// ("array[flight]" with a "flight" in AWP.Entities), or a type that is
// not AWP's (section 8: "object" rather than "object[entity]"): config
// maps a type it does not know to a string, and an entity is an object,
// so that schema would refuse every conforming answer. No schema is
// better than a wrong one, which MCP requires the server to conform to.
func outputSchema(s *config.Site, c *config.Capability) (json.RawMessage, *compiled, error) {
	if len(c.Outputs) == 0 && c.Output == nil {
		return nil, nil, nil
	}
	if c.Output == nil {
		for _, t := range c.Outputs {
			if _, ok := s.AWP.Entities[entityName(t)]; ok || !resolve.AWPType(t) {
				return nil, nil, nil
			}
		}
	}
	out := skillOutput(*c)
	if out["type"] != "object" {
		return nil, nil, nil
	}
	sch := map[string]any{"$schema": Dialect}
	for k, v := range out {
		sch[k] = v
	}
	return compile("output.json", sch)
}

// entityName is the type an AWP type names, within any array[...].
func entityName(t string) string {
	t = strings.TrimSpace(t)
	for strings.HasPrefix(t, "array[") && strings.HasSuffix(t, "]") {
		t = strings.TrimSpace(t[len("array[") : len(t)-1])
	}
	return t
}

// compiled is a schema compiled, and the quick filter read from the same
// document (quick.go).
type compiled struct {
	schema *jsonschema.Schema
	quick  *quick
}

// validate is the compiled schema's Validate of v, skipped where quick
// says v is surely valid.
func (c *compiled) validate(v any) error {
	if c.quick.accepts(v) {
		return nil
	}
	return c.schema.Validate(v)
}

// compile encodes s and compiles it as JSON Schema 2020-12 with format
// assertions on; the compiler validates it against the meta-schema.
func compile(name string, s map[string]any) (json.RawMessage, *compiled, error) {
	raw, err := encode(s)
	if err != nil {
		return nil, nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, nil, fmt.Errorf("not a JSON Schema 2020-12: %w", err)
	}
	return raw, &compiled{schema: sch, quick: quickOf(doc, true)}, nil
}

// encode is v as compact JSON, keys sorted (encoding/json sorts map keys),
// without HTML escaping, so that the same declaration yields the same
// bytes.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
