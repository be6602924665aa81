package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The decoder of declaration files, node by node: see ParseFile.

type fileDecoder struct {
	errs   []error
	lines  Lines
	visits int
}

// maxVisits bounds the values a file may hold once its aliases are
// expanded: yaml.v3's own guard against alias bombs does not see an
// expansion done here, node by node. A declaration of a thousand
// capabilities holds some 50,000.
const maxVisits = 1 << 17

// fail reports a value at path (a Go field path) that cannot be decoded.
func (d *fileDecoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &FileError{Line: n.Line, Field: filePath(path), Msg: fmt.Sprintf(format, args...), value: true})
}

// failKey reports a key of the mapping at path that is refused; the
// mapping's other keys are decoded.
func (d *fileDecoder) failKey(k *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &FileError{Line: k.Line, Field: filePath(path), Msg: fmt.Sprintf(format, args...)})
}

// isString reports whether the scalar n is a string in YAML 1.2's core
// schema, as JSON and site.schema.json see it: quoted, or plain and not a
// number, a boolean or null. A plain timestamp is a string there (yaml.v3
// tags it !!timestamp).
func isString(n *yaml.Node) bool {
	switch n.ShortTag() {
	case "!!str", "!!timestamp":
		return true
	}
	return false
}

// scalarKind names what the YAML scalar n is, for a message.
func scalarKind(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "boolean"
	}
	return strings.TrimPrefix(n.ShortTag(), "!!")
}

var (
	typeDialect  = reflect.TypeFor[Dialect]()
	typeDuration = reflect.TypeFor[time.Duration]()
	typeTime     = reflect.TypeFor[time.Time]()
	typeRaw      = reflect.TypeFor[json.RawMessage]()
	typeRate     = reflect.TypeFor[Rate]()
	// typeElsewhere is a key another reader decodes (siteFile).
	typeElsewhere = reflect.TypeFor[elsewhere]()
)

// decode sets v, the value at path (a Go field path), from n, reporting
// every value it cannot set rather than stopping at the first: ParseFile
// says all a file's problems at once.
func (d *fileDecoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if !d.visit(n, path) {
		return
	}
	t := v.Type()
	if t == typeElsewhere {
		return // whatever it holds, aliases unexpanded
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		if t.Kind() == reflect.Interface || t == typeRaw {
			return // JSON's null, a value
		}
		// "key:" with nothing after it is an unfinished edit more often
		// than a way to say "unset"; JSON Schema refuses it too.
		d.fail(n, path, "has no value: give it one, or leave the key out")
		return
	}
	if d.decodeSpelled(n, v, path) {
		return
	}
	d.decodeKind(n, v, path)
}

// visit counts n against maxVisits, reporting the first value over it
// once, and notes the line of path. It reports whether n is to be
// decoded.
func (d *fileDecoder) visit(n *yaml.Node, path string) bool {
	if d.visits++; d.visits > maxVisits {
		if d.visits == maxVisits+1 {
			d.fail(n, path, "the file expands to more than %d values (aliases?)", maxVisits)
		}
		return false
	}
	if path != "" {
		d.lines[path] = n.Line
	}
	return true
}

// decodeSpelled decodes the types a file spells its own way (a duration,
// a time, a rate, a dialect as strings; a JSON value as any YAML), not as
// their Go kind would be decoded. It reports whether v is one of them.
func (d *fileDecoder) decodeSpelled(n *yaml.Node, v reflect.Value, path string) bool {
	switch v.Type() {
	case typeDuration:
		dur, err := time.ParseDuration(n.Value)
		if n.Kind != yaml.ScalarNode || !isString(n) || err != nil {
			d.fail(n, path, "%q is not a duration (30s, 30m, 1h)", n.Value)
			return true
		}
		v.SetInt(int64(dur))
	case typeTime:
		tm, err := time.Parse(time.RFC3339, n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.fail(n, path, "%q is not an RFC 3339 time", n.Value)
			return true
		}
		v.Set(reflect.ValueOf(tm))
	case typeRaw:
		x, ok := d.plain(n, path)
		if !ok {
			return true
		}
		b, err := json.Marshal(x)
		if err != nil {
			d.fail(n, path, "%v", err)
			return true
		}
		v.SetBytes(b)
	case typeRate: // "rate_limit: 60/minute"
		if n.Kind != yaml.ScalarNode || !isString(n) {
			d.fail(n, path, "want a string N/window: 60/minute")
			return true
		}
		r, err := ParseRate(n.Value)
		if err != nil {
			d.fail(n, path, "%v", err)
			return true
		}
		v.Set(reflect.ValueOf(r))
	case typeDialect: // "dialect: v0.1.0"
		switch {
		case n.Kind == yaml.ScalarNode && isString(n) && n.Value == DialectIETFDraft.String():
			v.SetInt(int64(DialectIETFDraft))
		case n.Kind == yaml.ScalarNode && isString(n) && n.Value == DialectV010.String():
			v.SetInt(int64(DialectV010))
		default:
			d.fail(n, path, "%q is not a dialect: draft-car or v0.1.0", n.Value)
		}
	default:
		return false
	}
	return true
}

// decodeKind decodes n into v by v's kind: a struct from a mapping of its
// file keys, a slice from a list, a map from a mapping, a scalar from a
// scalar of its type.
func (d *fileDecoder) decodeKind(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Pointer:
		e := reflect.New(t.Elem())
		d.decode(n, e.Elem(), path)
		v.Set(e)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "want a list")
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, e := range n.Content {
			d.decode(e, s.Index(i), path+"["+strconv.Itoa(i)+"]")
		}
		v.Set(s)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Interface:
		if x, ok := d.plain(n, path); ok && x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.String:
		d.decodeString(n, v, path)
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		d.decodeScalar(n, v, path)
	default:
		// A field of ParseFile's caller no file value can be (a channel,
		// a function, an array).
		d.fail(n, path, "a %s is not read from a file", t)
	}
}

// decodeStruct decodes the mapping n into the struct v, key by key: a key
// refused (not a plain name, set twice, unknown, a field it cannot set) is
// reported and the mapping's other keys are decoded.
func (d *fileDecoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "want a mapping of keys to values")
		return
	}
	t := v.Type()
	fields := fieldsByKey(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if !plainKey(k) {
			d.failKey(k, path, "a key must be a plain name")
			continue
		}
		if line, dup := seen[k.Value]; dup {
			d.failKey(k, path, "key %q is already set on line %d", k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		f, ok := fields[k.Value]
		if !ok {
			d.failKey(k, path, "unknown key %q (keys: %s)", k.Value, strings.Join(keysOf(t), ", "))
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		fv := fieldAt(v, f.Index)
		if !fv.IsValid() {
			d.failKey(k, path, "key %q is a field ParseFile cannot set", k.Value)
			continue
		}
		d.decode(val, fv, p)
	}
}

// decodeMap decodes the mapping n into the map v, whose keys are strings:
// a key refused (not a plain name, set twice) is reported and the others
// are decoded.
func (d *fileDecoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type()
	if n.Kind != yaml.MappingNode || t.Key().Kind() != reflect.String {
		d.fail(n, path, "want a mapping")
		return
	}
	m := reflect.MakeMapWithSize(t, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if !plainKey(k) {
			d.failKey(k, path, "a key must be a plain name")
			continue
		}
		if m.MapIndex(reflect.ValueOf(k.Value).Convert(t.Key())).IsValid() {
			d.failKey(k, path, "key %q is set twice", k.Value)
			continue
		}
		e := reflect.New(t.Elem()).Elem()
		d.decode(val, e, path+"["+strconv.Quote(k.Value)+"]")
		m.SetMapIndex(reflect.ValueOf(k.Value).Convert(t.Key()), e)
	}
	v.Set(m)
}

// decodeString decodes the scalar n into the string v.
func (d *fileDecoder) decodeString(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "want a string")
		return
	}
	if !isString(n) {
		// JSON, and a YAML-aware editor with site.schema.json, read
		// 42, 1.0 and true as a number or a boolean: a string is
		// written as one.
		d.fail(n, path, "%s is a %s, not a string: quote it (%q)", n.Value, scalarKind(n), n.Value)
		return
	}
	v.SetString(n.Value)
}

// decodeScalar decodes the scalar n into v, a bool or a number.
func (d *fileDecoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) {
	t := v.Type()
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "want a %s", t.Kind())
		return
	}
	if t.Kind() == reflect.Bool && n.ShortTag() != "!!bool" {
		// yaml.v3 decodes YAML 1.1's yes, on, y (quoted too) into a
		// bool; the format's booleans are true and false (the JSON
		// Schema's boolean), and anything else is a mistake to report.
		d.fail(n, path, "%q is not a %s", n.Value, t.Kind())
		return
	}
	p := reflect.New(t)
	if err := n.Decode(p.Interface()); err != nil {
		d.fail(n, path, "%q is not a %s", n.Value, t.Kind())
		return
	}
	v.Set(p.Elem())
}

// plain decodes n, a value of any type (a parameter's default, a JSON
// schema), into the values encoding/json would make, node by node so that
// every value counts against maxVisits, aliases expanded (yaml.v3's Decode
// counts an alias once). Mapping keys are strings, each set once. A value
// nests at most maxPlainDepth deep, and an alias to a value that holds it
// (&a [*a]) is an error, not an expansion.
func (d *fileDecoder) plain(n *yaml.Node, path string) (any, bool) {
	p := plainDecoder{d: d, path: path, open: map[*yaml.Node]bool{}}
	return p.value(n)
}

// maxPlainDepth bounds how deep a value of any type nests.
const maxPlainDepth = 64

type plainDecoder struct {
	d    *fileDecoder
	path string              // the field holding the value
	at   []string            // the indexes and keys below it, to the node being decoded
	open map[*yaml.Node]bool // the aliased nodes being decoded: an alias to one is a cycle
}

func (p *plainDecoder) fail(n *yaml.Node, format string, args ...any) (any, bool) {
	p.d.fail(n, p.path+strings.Join(p.at, ""), format, args...)
	return nil, false
}

func (p *plainDecoder) value(n *yaml.Node) (any, bool) {
	d := p.d
	if d.visits++; d.visits > maxVisits {
		if d.visits == maxVisits+1 {
			return p.fail(n, "the file expands to more than %d values (aliases?)", maxVisits)
		}
		return nil, false
	}
	if len(p.at) > maxPlainDepth {
		return p.fail(n, "nested deeper than %d", maxPlainDepth)
	}
	if n.Kind == yaml.AliasNode {
		if p.open[n.Alias] {
			return p.fail(n, "alias %q refers to a value that holds it", n.Value)
		}
		p.open[n.Alias] = true
		defer delete(p.open, n.Alias)
		n = n.Alias
	}
	switch n.Kind {
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, e := range n.Content {
			p.at = append(p.at, "["+strconv.Itoa(i)+"]")
			x, ok := p.value(e)
			p.at = p.at[:len(p.at)-1]
			if !ok {
				return nil, false
			}
			s[i] = x
		}
		return s, true
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if !plainKey(k) {
				return p.fail(k, "a key must be a plain name")
			}
			if _, dup := m[k.Value]; dup {
				return p.fail(k, "key %q is set twice", k.Value)
			}
			p.at = append(p.at, "["+strconv.Quote(k.Value)+"]")
			x, ok := p.value(val)
			p.at = p.at[:len(p.at)-1]
			if !ok {
				return nil, false
			}
			m[k.Value] = x
		}
		return m, true
	}
	var x any
	if err := n.Decode(&x); err != nil { // a scalar: no alias within
		return p.fail(n, "%v", err)
	}
	return x, true
}

// plainKey reports whether k is a key this decoder takes: a scalar, and not
// a "<<" merge key, which would copy keys in from elsewhere unseen (a
// quoted "<<" is a plain name).
func plainKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Tag != "!!merge"
}

// fieldAt is v's field at index, as FieldByIndex finds it, an embedded
// pointer on the way allocated (a ParseFile caller's struct may embed
// *Site).
func fieldAt(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() && !v.CanSet() {
				return reflect.Value{} // an unexported embedded pointer
			}
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// fieldsByKey maps the file keys of struct type t to its fields.
func fieldsByKey(t reflect.Type) map[string]reflect.StructField {
	m := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if f.IsExported() && !f.Anonymous {
			m[fileKey(f.Name)] = f
		}
	}
	return m
}

func keysOf(t reflect.Type) []string {
	var ks []string
	for _, f := range reflect.VisibleFields(t) {
		if f.IsExported() && !f.Anonymous {
			ks = append(ks, fileKey(f.Name))
		}
	}
	return ks
}
