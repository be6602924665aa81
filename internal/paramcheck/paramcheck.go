// Package paramcheck holds a call to the params its capability declares
// (config.Param): the published contract, checked (docs/enforcement.md,
// "Params"). One set of rules has two entry points: Request, for an HTTP
// request to a REST capability (query, header, path and body params), and
// Args, for JSON arguments decoded into a map (an MCP tool call's).
//
// The rules, each the same in both:
//   - a required param that is missing is a fault; a param the
//     declaration does not name is left alone;
//   - a query param is read from a body too, and a body param from the
//     query (frameworks that merge the two read either there): a value
//     sent at the other location is held to the same rules, and its
//     absence there is no fault;
//   - string is any string; integer is -?[0-9]+ in a string, and in JSON a
//     number written without fraction or exponent (1.0 and 1e2 are not
//     integers: Go's encoding/json refuses them into an int); number is a
//     JSON number (RFC 8259 6: no "+1", ".5", "NaN", "Infinity", no
//     leading zero); boolean is true or false; array is a repeated name
//     (query, form, header field lines and their comma-separated
//     elements) or a JSON array; object a JSON object;
//   - a param that is not an array is sent once: a name repeated in a
//     query (which frameworks read as its first value, its last or a
//     list), a header sent twice, a JSON member sent twice is a fault;
//   - a name that spells a declared one in another case (a JSON member,
//     which Go's encoding/json matches case-insensitively; a query name,
//     which ASP.NET does) is a fault, so that no handler reads a value the
//     check did not;
//   - enum is compared after coercion: the value as its type reads it
//     ("07" is the integer 7) against the enum values read the same way;
//     an array's elements are each held to it;
//   - Min and Max bound integer and number params only, never a string's
//     length or an array's size (the declaration has no other bound).
//     Values are compared as the float64 nearest them, as a handler that
//     parses them into a float64 reads them.
//
// It never panics, whatever the input (FuzzRequest, which feeds Args too).
package paramcheck

import (
	"fmt"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
)

// Fault is one param that is not as declared.
type Fault struct {
	// Param is the declared name ("" for the body as a whole), In where it
	// was read (query, path, header, body, or arguments for Args).
	Param string `json:"name"`
	In    string `json:"in"`
	// Code says what is wrong, one of the Code constants.
	Code string `json:"fault"`
	// Detail says it in words, with the value (clipped).
	Detail string `json:"detail"`
}

// Fault codes: few and fixed, a metric may count by them.
const (
	CodeMissing   = "missing"    // a required param is not sent
	CodeType      = "type"       // the value is not of the declared type
	CodeEnum      = "enum"       // the value is not one of the enum
	CodeMin       = "min"        // below Min
	CodeMax       = "max"        // above Max
	CodeRepeated  = "repeated"   // a param that is not an array, sent twice
	CodeCase      = "case"       // a name spelling a declared one in another case
	CodeBadEscape = "bad-escape" // a percent-encoding that does not decode
	CodeBody      = "body"       // a body the body params cannot be read from
)

// InArguments is the location of every fault Args finds.
const InArguments = "arguments"

// Error is the faults of one call, the error of a refused call.
type Error struct {
	Faults []Fault
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("params not as declared: ")
	for i, f := range e.Faults {
		if i > 0 {
			b.WriteString("; ")
		}
		if f.Param != "" {
			b.WriteString(f.Param + " (" + f.In + ") ")
		}
		b.WriteString(f.Detail)
	}
	return b.String()
}

// Checker checks calls to one capability; New builds it once, and it is
// safe for concurrent use.
type Checker struct {
	params []param
	// query, body, header, path: some param is read there.
	query, body, header, path bool
	// segs is the endpoint path's segments ("{name}" for a param), nil
	// when it has none: no path param can be read.
	segs []string
	fold bool // literal segments compare ignoring ASCII case
}

// param is one declared param, ready to check.
type param struct {
	name, in, typ string
	required      bool
	enum          []enumValue
	enumText      string // the enum as a fault names it
	min, max      *float64
	header        string // the header field's canonical name (In header)
	seg           int    // the endpoint segment holding it (In path), -1: none
	decl          string // "Param: limit (query, integer)"
}

// New prepares the checks of params, for a capability whose endpoint path
// has the segments segs (policy.Capability.Template: "{name}" for a path
// param, nil when it has none); fold: the application routes ignoring
// ASCII case. nil when there is nothing to check.
func New(params []config.Param, segs []string, fold bool) *Checker {
	if len(params) == 0 {
		return nil
	}
	c := &Checker{segs: segs, fold: fold}
	for _, p := range params {
		q := param{name: p.Name, in: p.In, typ: p.Type, required: p.Required, min: p.Min, max: p.Max, seg: -1}
		if q.in == "" {
			q.in = config.InQuery
		}
		if q.typ == "" {
			q.typ = config.TypeString
		}
		for i, v := range p.Enum {
			q.enum = append(q.enum, enumOf(v))
			if i > 0 {
				q.enumText += ", "
			}
			q.enumText += clip(q.enum[i].str)
		}
		q.decl = "Param: " + q.name + " (" + q.in + ", " + q.typ
		if q.required {
			q.decl += ", required"
		}
		q.decl += ")"
		switch q.in {
		case config.InQuery:
			c.query = true
		case config.InBody:
			c.body = true
		case config.InHeader:
			c.header = true
			q.header = textproto.CanonicalMIMEHeaderKey(q.name)
		case config.InPath:
			c.path = true
			for i, s := range segs {
				if s == "{"+q.name+"}" {
					q.seg = i
				}
			}
		}
		c.params = append(c.params, q)
	}
	// The query is read for body params too (reads): it costs no read of
	// a body.
	c.query = c.query || c.body
	return c
}

// ReadsBody reports whether c has body params: only then is a body read.
func (c *Checker) ReadsBody() bool { return c != nil && c.body }

// Rule is the declaration line of the param a fault names, for
// Decision.Rule: "Param: limit (query, integer)"; for a body fault, the
// first body param's.
func (c *Checker) Rule(f Fault) string {
	for i := range c.params {
		if p := &c.params[i]; p.name == f.Param || (f.Param == "" && p.in == config.InBody) {
			return p.decl
		}
	}
	return "Params"
}

// enumValue is an enum value in the forms a value is compared in.
type enumValue struct {
	str   string  // as a string param reads it
	num   float64 // as a number, when isNum
	isNum bool
	b     bool // as a boolean, when isBool
	isB   bool
}

// enumOf reads an enum value (a JSON scalar: config.Validate refuses
// others) in every form.
func enumOf(v any) enumValue {
	var e enumValue
	switch x := v.(type) {
	case string:
		e.str = x
		if isNumber(x) || isInteger(x) { // "07" is the integer 7
			e.num, _ = strconv.ParseFloat(x, 64)
			e.isNum = true
		}
		if x == "true" || x == "false" {
			e.b, e.isB = x == "true", true
		}
	case bool:
		e.str, e.b, e.isB = strconv.FormatBool(x), x, true
	default:
		if f, ok := toFloat(v); ok {
			e.num, e.isNum = f, true
			e.str = strconv.FormatFloat(f, 'f', -1, 64)
		} else {
			e.str = fmt.Sprint(v)
		}
	}
	return e
}

// clip quotes a value for a fault's detail, at most 64 bytes of it.
func clip(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "..."
	}
	return strconv.Quote(s)
}

// isInteger reports whether s is -?[0-9]+.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isNumber reports whether s is a JSON number (RFC 8259 6):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func isNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
