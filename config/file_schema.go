package config

import (
	"encoding/json"
	"reflect"
	"strings"
)

// fileSchema returns the JSON Schema (2020-12) of a declaration file,
// generated from the types (file: the Site's keys and upstream): every struct a closed object of its snake_case
// keys (fileKey), rates, durations and times as the strings ParseSite reads.
// The module ships it as config/site.schema.json; TestSiteSchema keeps the
// two equal.
func fileSchema() ([]byte, error) {
	g := &schemaGen{defs: map[string]any{}}
	root := g.of(reflect.TypeFor[file]())
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/agentready/agentready/config/site.schema.json",
		"title":       "agentready declaration file (a config.Site and the upstream settings of agentready serve)",
		"description": "A site's declaration for agentready, in YAML or JSON; see config.ParseSite.",
		"$ref":        root["$ref"],
		"$defs":       g.defs,
	}
	return json.MarshalIndent(doc, "", "  ")
}

type schemaGen struct{ defs map[string]any }

var typeRate = reflect.TypeFor[Rate]()

func (g *schemaGen) of(t reflect.Type) map[string]any {
	switch t {
	case typeDuration:
		return map[string]any{"type": "string", "description": "a duration: 30s, 30m, 1h"}
	case typeTime:
		return map[string]any{"type": "string", "format": "date-time"}
	case typeRaw:
		return map[string]any{}
	case typeRate:
		return map[string]any{"type": "string", "pattern": `^\s*[0-9]+\s*/\s*[A-Za-z]+\s*$`, "description": "N/window: 60/minute"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.Struct:
		// The def of an unexported type (file, upstream) is named as the
		// others are, capitalised.
		name := t.Name()
		if name != "" {
			name = strings.ToUpper(name[:1]) + name[1:]
		}
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // reserved: a recursive type refers to itself
			props := map[string]any{}
			for _, f := range reflect.VisibleFields(t) {
				if f.IsExported() && !f.Anonymous {
					props[fileKey(f.Name)] = g.of(f.Type)
				}
			}
			g.defs[name] = map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{}
}
