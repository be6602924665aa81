package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A declaration file is a Site written in YAML or JSON (JSON is read as
// the YAML 1.2 it is), every key the snake_case form of the Go field name
// (fileKey): rate_limit, token_endpoint, requires_session, agents_json_url.
// Rates are written "60/minute", durations "30m", times RFC 3339, the
// dialect "draft-car" or "v0.1.0". Values are typed as JSON types them: a
// string written as a number (name: 42) is quoted, booleans are true and
// false, and a key is given a value or left out. A key that names no field
// is an error, as is a value of the wrong type; every problem is reported
// at once, each with its line. Beside the Site's keys, "upstream" and
// "serve" hold what agentready serve runs with: ParseSite accepts them,
// agentready serve reads them (ParseFile). site.schema.json, beside
// this file, is the JSON Schema of the format, generated from the types
// (agentready schema prints it; cmd/agentready's TestSiteSchema holds the
// copy equal).
//
//	name: Outdoor Supply Co.
//	url: https://outdoorsupply.example
//	implicit_access: ai-agents   # no access rules: who the default binds
//	capabilities:
//	  - id: product-search
//	    description: Search the catalog
//	    endpoint: https://outdoorsupply.example/api/search
//	    rate_limit: 60/minute
//	agents:
//	  - name: claude
//	    rate_limit: 200/minute
//	serve:
//	  trusted_proxies: [10.0.0.0/8]

// FileError is one problem of a declaration file.
type FileError struct {
	Line int // 0 when unknown
	// Column is where on Line a YAML syntax error's failing construct
	// starts (1-based, in characters), 0 for the other problems.
	Column int
	// Field is the path of the key as the file writes it:
	// "capabilities[1].rate_limit" for FieldError's
	// "Capabilities[1].RateLimit".
	Field string
	Msg   string // values and keys spelled as in the file
	// value marks a value that could not be decoded (not a key's
	// problem): Locate leaves out Validate's problems within it.
	value bool
}

func (e *FileError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteString(", column " + strconv.Itoa(e.Column))
		}
		b.WriteString(": ")
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
// *FileErrors at their lines, in the file's spelling (filePath), and
// returns them joined with the *FileErrors of ParseSite that err holds,
// all sorted by line: give it errors.Join(the ParseSite error, the New
// error) to report every problem of a file in one pass. A problem of a
// value ParseSite could not decode is left out (that value was read as
// its zero value, and ParseSite said why); an error of another kind (an
// option's) is kept as it is, first. nil stays nil.
func (l Lines) Locate(err error) error {
	if err == nil {
		return nil
	}
	var other []error
	var decoded, validated []*FileError
	var walk func(error)
	walk = func(err error) {
		var ve *ValidationError
		switch e := err.(type) {
		case *FileError:
			decoded = append(decoded, e)
			return
		case *ValidationError:
			ve = e
		case interface{ Unwrap() []error }:
			for _, e := range e.Unwrap() {
				walk(e)
			}
			return
		default:
			if !errors.As(err, &ve) {
				other = append(other, err)
				return
			}
		}
		for _, fe := range ve.Errors {
			msg := fe.Msg
			if fe.File != "" {
				msg = fe.File
			}
			validated = append(validated, &FileError{Line: l.line(fe.Field), Field: filePath(fe.Field), Msg: msg})
		}
	}
	walk(err)
	if len(decoded) == 0 && len(validated) == 0 {
		return err
	}
	all := decoded
	for _, v := range validated {
		if !undecoded(decoded, v.Field) {
			all = append(all, v)
		}
	}
	slices.SortStableFunc(all, func(a, b *FileError) int { return a.Line - b.Line })
	for _, fe := range all {
		other = append(other, fe)
	}
	return errors.Join(other...)
}

// undecoded reports whether field is, or is within, a value that one of
// errs says could not be decoded.
func undecoded(errs []*FileError, field string) bool {
	for _, e := range errs {
		if !e.value {
			continue
		}
		if f := e.Field; field == f || f == "" ||
			strings.HasPrefix(field, f) && (field[len(f)] == '.' || field[len(f)] == '[') {
			return true
		}
	}
	return false
}

// siteFile is a declaration file as ParseSite reads it: the Site, and the
// keys that are agentready serve's (cmd/agentready reads and checks them
// with ParseFile), accepted whatever they hold. They are named here so
// that a typo beside the Site's keys is still an unknown key, and so that
// a program loading serve's file gets no error for them.
type siteFile struct {
	Site
	Upstream, Serve elsewhere
}

// elsewhere is the type of a key another reader of the file decodes:
// ParseSite takes its value as it is and decodes none of it.
type elsewhere struct{}

// ParseSite decodes a YAML or JSON file (site.schema.json). The keys
// "upstream" and "serve" are agentready serve's: ParseSite accepts them
// whatever they hold and leaves them out (agentready lint checks them).
// Errors are *FileError, joined. It does not validate: call Validate,
// then Lines.Locate.
func ParseSite(data []byte) (Site, Lines, error) {
	var f siteFile
	lines, err := ParseFile(data, &f)
	return f.Site, lines, err
}

// ParseFile decodes a declaration file into v, a non-nil pointer to a
// struct, by ParseSite's rules: each exported field is a key, spelled
// in snake_case as the Site's are (RateLimit is rate_limit); the fields
// of an embedded struct are keys of the struct embedding it; a key no
// field names is an error. A program that keeps settings of its own in
// the file embeds Site beside them, as agentready serve reads its
// upstream and serve keys:
//
//	var f struct {
//		config.Site
//		Serve struct{ Robots bool }
//	}
//	lines, err := config.ParseFile(data, &f)
//
// The Lines are by Go field path, the Site's as ParseSite gives them
// ("Capabilities[0].ID") and the program's beside them ("Serve.Robots").
// Errors are *FileError, joined.
func ParseFile(data []byte, v any) (Lines, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("config.ParseFile: want a non-nil pointer to a struct, got %T", v)
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, syntaxError(data, "not YAML or JSON: ", err)
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		return nil, &FileError{Line: second.Line, Msg: "a second YAML document: a declaration file holds one", value: true}
	} else if err != io.EOF {
		return nil, syntaxError(data, "after the declaration, not YAML: ", err)
	}
	// An embedded Site's fields are promoted: their paths (and so
	// Validate's field paths in Lines) are the Site's own.
	d := &fileDecoder{lines: Lines{}}
	if len(root.Content) == 1 {
		d.decode(root.Content[0], rv.Elem(), "")
	}
	return d.lines, errors.Join(d.errs...)
}

// LoadSite reads and decodes the declaration file at path.
func LoadSite(path string) (Site, Lines, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Site{}, nil, err
	}
	return ParseSite(b)
}
