// Package schemagen generates JSON Schema (2020-12) from Go types: every
// struct a closed object of its fields' keys, the rules of their
// `validate` tags (required, oneof, min, max) and the keywords a caller
// adds by field. internal/publish generates the declaration file's schema
// with it from the type cmd/agentready gives (settings.File: config.Site
// and serve's own settings), so that a rule is stated once, in the types
// and their tags.
package schemagen

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Generator builds the defs of the types it is given.
type Generator struct {
	// Key is a field's key; nil takes its yaml tag, else its json tag,
	// else its name.
	Key func(reflect.StructField) string
	// Types are schemas that replace the generated one of a type (a
	// duration or a time written as a string).
	Types map[reflect.Type]map[string]any
	// Rules add keywords to a field, by "Type.Field" (Type the struct's
	// Go name; a promoted field is the outer struct's); "Type.Field[]"
	// adds them to each item of a list.
	Rules map[string]map[string]any
	// Defs are the definitions generated so far, by defName.
	Defs map[string]any
	used map[string]bool // the keys of Rules a field took
}

// Ref is the reference to the def called name.
func Ref(name string) map[string]any { return map[string]any{"$ref": "#/$defs/" + name} }

// Of returns the schema of t, adding the defs of its structs to g.Defs.
func (g *Generator) Of(t reflect.Type) map[string]any {
	if s, ok := g.Types[t]; ok {
		return copyMap(s)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.Of(t.Elem())
	case reflect.Struct:
		name := DefName(t)
		if g.Defs == nil {
			g.Defs = map[string]any{}
		}
		if _, ok := g.Defs[name]; !ok {
			g.Defs[name] = nil // reserved: a recursive type refers to itself
			g.Defs[name] = g.object(t)
		}
		return Ref(name)
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.Of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.Of(t.Elem())}
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

// DefName is the name of t's def: an unexported type's (file, serve)
// capitalised as the others are.
func DefName(t reflect.Type) string {
	name := t.Name()
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return name
}

// object is the closed object of struct type t: its keys, the rules of
// their validate tags and of g.Rules.
func (g *Generator) object(t reflect.Type) map[string]any {
	if g.used == nil {
		g.used = map[string]bool{}
	}
	props := map[string]any{}
	var required []any
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		key := g.key(f)
		p := g.Of(f.Type)
		if TagRules(f.Tag.Get("validate"), p) {
			required = append(required, key)
		}
		name := t.Name() + "." + f.Name // the outer struct's, for a promoted field
		if r, ok := g.Rules[name]; ok {
			merge(p, r)
			g.used[name] = true
		}
		if r, ok := g.Rules[name+"[]"]; ok {
			if item, ok := p["items"].(map[string]any); ok {
				p["items"] = copyMap(item)
				merge(p["items"].(map[string]any), r)
				g.used[name+"[]"] = true
			}
		}
		props[key] = p
	}
	obj := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		obj["required"] = required
	}
	return obj
}

// Unused are the keys of Rules that no field of the types generated so
// far took (a misspelt type or field, or "[]" after a field that is not a
// list), sorted: such a rule would otherwise be dropped unseen.
func (g *Generator) Unused() []string {
	return slices.DeleteFunc(slices.Sorted(maps.Keys(g.Rules)), func(k string) bool { return g.used[k] })
}

func (g *Generator) key(f reflect.StructField) string {
	if g.Key != nil {
		return g.Key(f)
	}
	for _, tag := range []string{"yaml", "json"} {
		if name, _, _ := strings.Cut(f.Tag.Get(tag), ","); name != "" && name != "-" {
			return name
		}
	}
	return f.Name
}

// merge adds the keywords of r to p; a "$ref" beside them is kept (2020-12
// applies both).
func merge(p, r map[string]any) {
	for k, v := range r {
		p[k] = v
	}
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	merge(c, m)
	return c
}

// TagRules adds to p what a validate tag says (config's validation runs
// the same tags); it reports whether the tag makes the key required.
func TagRules(tag string, p map[string]any) (required bool) {
	for _, rule := range strings.Split(tag, ",") {
		name, arg, _ := strings.Cut(rule, "=")
		switch name {
		case "required":
			required = true
			switch p["type"] {
			case "string":
				p["minLength"] = 1
			case "array":
				p["minItems"] = 1
			}
		case "oneof":
			enum := []any{}
			if strings.Contains(tag, "omitempty") {
				enum = append(enum, "")
			}
			for _, v := range strings.Fields(arg) {
				enum = append(enum, v)
			}
			p["enum"] = enum
		case "min", "gte", "max":
			n, err := strconv.Atoi(arg)
			if err != nil {
				continue
			}
			switch {
			case p["type"] == "array" && name == "min":
				p["minItems"] = n
			case p["type"] == "integer" && name == "max":
				p["maximum"] = n
			case p["type"] == "integer":
				p["minimum"] = n
			}
		}
	}
	return required
}

// Has is the rule that an object has key, its value matching rule.
func Has(key string, rule map[string]any) map[string]any {
	return map[string]any{"required": []any{key}, "properties": map[string]any{key: rule}}
}

// AnyCase is a pattern matching s in any ASCII case.
func AnyCase(s string) string {
	var b strings.Builder
	for _, c := range s {
		if u := strings.ToUpper(string(c)); u != string(c) {
			b.WriteString("[" + string(c) + u + "]")
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Document is the schema document of root with defs, indented as the
// shipped file is.
func Document(id, title, description string, root map[string]any, defs map[string]any) ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         id,
		"title":       title,
		"description": description,
		"$ref":        root["$ref"],
		"$defs":       defs,
	}, "", "  ")
}
