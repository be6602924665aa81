package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// A declaration file is a Site written in YAML or JSON (JSON is read as
// the YAML 1.2 it is), every key the snake_case form of the Go field name
// (fileKey): rate_limit, token_endpoint, requires_session, agents_json_url.
// Rates are written "60/minute", durations "30m", times RFC 3339. A key
// that names no field is an error, as is a value of the wrong type; every
// problem is reported at once, each with its line. site.schema.json, beside
// this file, is the JSON Schema of the format (generated from the types by
// TestSiteSchema).
//
//	name: Outdoor Supply Co.
//	url: https://outdoorsupply.example
//	capabilities:
//	  - id: product-search
//	    endpoint: https://outdoorsupply.example/api/search
//	    protocol: REST
//	    rate_limit: 60/minute
//	agents:
//	  - name: claude
//	    rate_limit: 200/minute

// FileError is one problem of a declaration file.
type FileError struct {
	Line  int    // 0 when unknown
	Field string // as in FieldError
	Msg   string
}

func (e *FileError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Lines maps the field paths of a decoded file to their lines.
type Lines map[string]int

// line returns the line of field, or of its closest enclosing field.
func (l Lines) line(field string) int {
	for f := field; f != ""; {
		if n, ok := l[f]; ok {
			return n
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return 0
}

// Locate turns the problems of a Validate or agentready.New error into
// *FileErrors at their lines, joined; it returns other errors as they are.
func (l Lines) Locate(err error) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	errs := make([]error, len(ve.Errors))
	for i, fe := range ve.Errors {
		errs[i] = &FileError{Line: l.line(fe.Field), Field: fe.Field, Msg: fe.Msg}
	}
	return errors.Join(errs...)
}

// file is a declaration file: the Site, and the settings only agentready
// serve reads (the middleware has no upstream). Its keys are the Site's
// and "upstream", which ParseSite checks and leaves out, and
// cmd/agentready reads.
type file struct {
	Site
	// Upstream is what agentready serve assumes of the site it proxies.
	Upstream upstream
}

// upstream says how the site behind agentready serve routes a request, so
// that serve decides on every spelling the upstream may route alike.
type upstream struct {
	// Strict declares that the upstream routes a path only as it is
	// spelled: ASCII case and a trailing slash tell routes apart. Without
	// it serve assumes, as Express (case-insensitive, non-strict routing)
	// and ASP.NET do by default, that they may not, and holds the rules
	// and capability endpoints on every such spelling
	// (agentready.WithLenientRouting). Declare it only for an upstream
	// that routes "/ADMIN/users" and "/admin/users/" elsewhere than
	// "/admin/users": otherwise an agent passes a rule by changing case.
	Strict bool
}

// ParseSite decodes a YAML or JSON file (site.schema.json; agentready serve's
// "upstream" key is checked and dropped). Errors are *FileError, joined. It
// does not validate: call Validate, then Lines.Locate.
func ParseSite(data []byte) (Site, Lines, error) {
	f, lines, err := parseFile(data)
	return f.Site, lines, err
}

// parseFile decodes a declaration file, with the settings of agentready
// serve.
func parseFile(data []byte) (file, Lines, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return file{}, nil, &FileError{Msg: "not YAML or JSON: " + err.Error()}
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return file{}, nil, &FileError{Line: second.Line, Msg: "a second YAML document: a declaration file holds one"}
	} else if err != io.EOF {
		return file{}, nil, &FileError{Msg: "after the declaration, not YAML: " + err.Error()}
	}
	// Site's fields are promoted in file: their paths (and so Validate's
	// field paths in Lines) are the Site's own.
	var f file
	d := &fileDecoder{lines: Lines{}}
	if len(root.Content) == 1 {
		d.decode(root.Content[0], reflect.ValueOf(&f).Elem(), "")
	}
	return f, d.lines, errors.Join(d.errs...)
}

// LoadSite reads and decodes the declaration file at path.
func LoadSite(path string) (Site, Lines, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Site{}, nil, err
	}
	return ParseSite(b)
}

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

func (d *fileDecoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &FileError{Line: n.Line, Field: path, Msg: fmt.Sprintf(format, args...)})
}

var (
	typeDuration = reflect.TypeFor[time.Duration]()
	typeTime     = reflect.TypeFor[time.Time]()
	typeRaw      = reflect.TypeFor[json.RawMessage]()
)

func (d *fileDecoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if d.visits++; d.visits > maxVisits {
		if d.visits == maxVisits+1 {
			d.fail(n, path, "the file expands to more than %d values (aliases?)", maxVisits)
		}
		return
	}
	if path != "" {
		d.lines[path] = n.Line
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // the zero value
	}
	t := v.Type()
	switch {
	case t == typeDuration:
		dur, err := time.ParseDuration(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.fail(n, path, "%q is not a duration (30s, 30m, 1h)", n.Value)
			return
		}
		v.SetInt(int64(dur))
		return
	case t == typeTime:
		tm, err := time.Parse(time.RFC3339, n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.fail(n, path, "%q is not an RFC 3339 time", n.Value)
			return
		}
		v.Set(reflect.ValueOf(tm))
		return
	case t == typeRaw:
		x, ok := d.plain(n, path)
		if !ok {
			return
		}
		b, err := json.Marshal(x)
		if err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		v.SetBytes(b)
		return
	case t == typeRate: // "rate_limit: 60/minute"
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "want a string")
			return
		}
		r, err := ParseRate(n.Value)
		if err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(r))
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		e := reflect.New(t.Elem())
		d.decode(n, e.Elem(), path)
		v.Set(e)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			d.fail(n, path, "want a mapping of keys to values")
			return
		}
		fields := fieldsByKey(t)
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if !plainKey(k) {
				d.fail(k, path, "a key must be a plain name")
				continue
			}
			if line, dup := seen[k.Value]; dup {
				d.fail(k, path, "key %q is already set on line %d", k.Value, line)
				continue
			}
			seen[k.Value] = k.Line
			f, ok := fields[k.Value]
			if !ok {
				d.fail(k, path, "unknown key %q (keys: %s)", k.Value, strings.Join(keysOf(t), ", "))
				continue
			}
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			d.decode(val, v.FieldByIndex(f.Index), p)
		}
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
		if n.Kind != yaml.MappingNode || t.Key().Kind() != reflect.String {
			d.fail(n, path, "want a mapping")
			return
		}
		m := reflect.MakeMapWithSize(t, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if !plainKey(k) {
				d.fail(k, path, "a key must be a plain name")
				continue
			}
			if m.MapIndex(reflect.ValueOf(k.Value).Convert(t.Key())).IsValid() {
				d.fail(k, path, "key %q is set twice", k.Value)
				continue
			}
			e := reflect.New(t.Elem()).Elem()
			d.decode(val, e, path+"["+strconv.Quote(k.Value)+"]")
			m.SetMapIndex(reflect.ValueOf(k.Value).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Interface:
		if x, ok := d.plain(n, path); ok && x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "want a string")
			return
		}
		v.SetString(n.Value)
	default: // bool, numbers
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

// fileKey is the declaration-file key of a Go field name: its words in
// snake_case, an acronym a word of its own, and a run of known acronyms
// split ("AgentsJSONURL" is agents_json_url, "IPRanges" ip_ranges,
// "JWKSURI" jwks_uri, "RequiresSession" requires_session).
func fileKey(name string) string {
	var words []string
	r := []rune(name)
	for i := 0; i < len(r); {
		j := i + 1
		if unicode.IsUpper(r[i]) && j < len(r) && unicode.IsUpper(r[j]) {
			// An acronym run; its last letter starts the next word when a
			// lower case letter follows it.
			for j < len(r) && unicode.IsUpper(r[j]) {
				j++
			}
			if j < len(r) && unicode.IsLower(r[j]) {
				j--
			}
			words = append(words, splitAcronyms(string(r[i:j]))...)
			i = j
			continue
		}
		for j < len(r) && !unicode.IsUpper(r[j]) {
			j++
		}
		words = append(words, string(r[i:j]))
		i = j
	}
	return strings.ToLower(strings.Join(words, "_"))
}

// acronyms are those the field names run together.
var acronyms = []string{"JWKS", "JSON", "HTTP", "URL", "URI", "API", "MCP", "AWP", "TTL", "ID", "IP", "AI"}

// splitAcronyms splits a run of upper case letters into known acronyms,
// or returns it whole when it is not made of them.
func splitAcronyms(run string) []string {
	var out []string
	for run != "" {
		found := false
		for _, a := range acronyms {
			if strings.HasPrefix(run, a) {
				out, run, found = append(out, a), run[len(a):], true
				break
			}
		}
		if !found {
			return []string{strings.Join(out, "") + run}
		}
	}
	return out
}
