package gatewaydecl

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/jsonfast"
)

// Fault is one thing wrong with a call's arguments: the param it concerns
// ("" for the arguments as a whole) and what is wrong, in English.
type Fault struct {
	Param string
	Msg   string
}

// Faults are every fault of a call's arguments, ordered by param. As an
// error it reads "limit: maximum: got 80, want 50; q: is required", text
// an MCP tool result with isError carries to the model (Tools, "Error
// Handling": input validation errors are tool execution errors).
type Faults []Fault

func (f Faults) Error() string {
	parts := make([]string, len(f))
	for i, x := range f {
		if x.Param == "" {
			parts[i] = "arguments: " + x.Msg
		} else {
			parts[i] = x.Param + ": " + x.Msg
		}
	}
	return strings.Join(parts, "; ")
}

// Arguments are a call's arguments that passed Validate: the declared
// params only, decoded (numbers as json.Number, exactly as sent).
type Arguments struct {
	tool   *Tool
	values map[string]any
}

// Value is the argument of param name, and whether the call has one.
func (a *Arguments) Value(name string) (any, bool) {
	v, ok := a.values[name]
	return v, ok
}

var printer = message.NewPrinter(language.English)

// Validate checks raw, a tools/call's arguments (absent or null: none),
// against the tool's input schema and what the request can carry: a JSON
// object read one way only (no member name twice, at any depth: parsers
// disagree on which one counts), each param of its schema, a path value a
// whole non-dot segment of printable text, a header value visible ASCII
// without surrounding space. It returns every fault, as Faults; unknown
// members are dropped. It never panics, whatever raw holds.
func (t *Tool) Validate(raw json.RawMessage) (*Arguments, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	v, err := read(raw)
	if err != nil {
		return nil, Faults{{Msg: err.Error()}}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, Faults{{Msg: "not a JSON object"}}
	}
	var faults Faults
	if err := t.input.validate(obj); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, Faults{{Msg: err.Error()}}
		}
		faults = leaves(faults, ve)
	}
	args := &Arguments{tool: t, values: map[string]any{}}
	for _, a := range t.Args {
		val, ok := obj[a.Name]
		if !ok {
			continue
		}
		if msg := sendable(&a, val); msg != "" {
			faults = append(faults, Fault{Param: a.Name, Msg: msg})
		}
		args.values[a.Name] = val
	}
	if len(faults) > 0 {
		slices.SortStableFunc(faults, func(x, y Fault) int {
			return cmp.Or(cmp.Compare(x.Param, y.Param), cmp.Compare(x.Msg, y.Msg))
		})
		return nil, slices.Compact(faults)
	}
	return args, nil
}

// leaves appends a fault per leaf of ve's tree, named by the first token
// of its instance location (the param), or per missing property.
func leaves(faults Faults, ve *jsonschema.ValidationError) Faults {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			faults = leaves(faults, c)
		}
		return faults
	}
	if req, ok := ve.ErrorKind.(*kind.Required); ok && len(ve.InstanceLocation) == 0 {
		for _, m := range req.Missing {
			faults = append(faults, Fault{Param: m, Msg: "is required"})
		}
		return faults
	}
	f := Fault{Msg: ve.ErrorKind.LocalizedString(printer)}
	if len(ve.InstanceLocation) > 0 {
		f.Param = ve.InstanceLocation[0]
		if rest := ve.InstanceLocation[1:]; len(rest) > 0 {
			f.Msg = "at /" + strings.Join(rest, "/") + ": " + f.Msg
		}
	}
	return append(faults, f)
}

// sendable is what keeps val, which passed the schema, from being sent
// where a reads it from, "" when nothing does.
func sendable(a *Arg, val any) string {
	switch a.In {
	case config.InPath:
		s := text(a, val)
		switch {
		case s == "":
			return "is empty, and fills a path segment"
		case s == "." || s == "..":
			return fmt.Sprintf("is %q, a dot segment, and fills a path segment", s)
		case strings.ContainsAny(s, `/\`):
			return `holds "/" or "\", and fills one path segment`
		case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return "holds a control character, and fills a path segment"
		}
	case config.InHeader:
		vals := []any{val}
		if arr, ok := val.([]any); ok {
			vals = arr
		}
		for _, v := range vals {
			s := text(a, v)
			if s != strings.Trim(s, " \t") {
				return "begins or ends with white space, which a header field's reader drops"
			}
			for i := 0; i < len(s); i++ {
				if b := s[i]; (b < 0x20 && b != '\t') || b >= 0x7f {
					return "holds a control character or a non-ASCII byte, which a header field cannot carry one way only"
				}
			}
		}
	}
	return ""
}

// read decodes raw as jsonschema.UnmarshalJSON does, refusing what once
// refuses: in one pass of jsonfast, or, where that cannot read raw, with
// once and then UnmarshalJSON, whose errors are given (the second's as
// "not JSON: ...").
func read(raw []byte) (any, error) {
	if v, ok := jsonfast.Value(raw, tameText); ok {
		return v, nil
	}
	if err := once(raw); err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return v, nil
}

func tameText(n string) bool { return tame(json.Number(n)) }

// once reports the first object member name given twice, at any depth:
// Go's encoding/json keeps the last of duplicates, other readers the first,
// so the call would not be read one way only.
func once(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		obj  bool
		seen map[string]bool
		key  bool // the next token of an object is a member name
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not JSON: %w", err)
		}
		if n, ok := tok.(json.Number); ok && !tame(n) {
			return fmt.Errorf("the number %.40s... is beyond what a call carries (%d digits of exponent or mantissa at most)", n, maxDigits)
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			top := &stack[n-1]
			if top.key {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:n-1]
					continue
				}
				name, _ := tok.(string)
				if top.seen[name] {
					return fmt.Errorf("the member %q is given twice", name)
				}
				top.seen[name] = true
				top.key = false
				continue
			}
			top.key = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, seen: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// maxDigits bounds a number's mantissa length and exponent: float64 ends
// near 1e308, and an exponent of millions makes math/big (which the schema
// validator and canonical use) work for seconds.
const maxDigits = 400

// tame reports whether n is within maxDigits.
func tame(n json.Number) bool {
	s := string(n)
	if len(s) > maxDigits {
		return false
	}
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e := strings.TrimLeft(s[i+1:], "+-")
	e = strings.TrimLeft(e, "0")
	return len(e) < 3 || (len(e) == 3 && e <= "400")
}

// ValidateOutput checks raw, the JSON answer of the called capability,
// against the tool's output schema: nil when it conforms and may be
// returned as structuredContent, and always nil for a tool without one.
// An answer that does not conform must not be returned as
// structuredContent (MCP: servers MUST conform to the schema they give).
func (t *Tool) ValidateOutput(raw []byte) error {
	if t.output == nil {
		return nil
	}
	v, err := read(raw)
	if err != nil {
		return err
	}
	var faults Faults
	if err := t.output.validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return err
		}
		faults = leaves(faults, ve)
	}
	if len(faults) > 0 {
		return faults
	}
	return nil
}
