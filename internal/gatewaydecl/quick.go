package gatewaydecl

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
)

// quick is a JSON Schema node of the subset the gateway's schemas are made
// of (type, properties, required, items, enum, minimum, maximum and
// annotations), read from the document the compiler compiled, that says
// of an instance "surely valid" or "ask the compiled schema". It is a
// filter before jsonschema's Validate, never instead of it: accepts is
// true only where the compiled schema accepts too, and any false (an
// invalid instance, or a node with a keyword outside the subset) goes to
// Validate, whose errors are the Faults.
//
// Hand-written on the hot path: on BenchmarkGatewayToolCall it takes the
// santhosh-tekuri validator (its per-node allocations and a fmt.Sprintf
// and big.Rat per number) off every valid call's arguments and answer,
// which buys more than 5% of the whole request (docs/gateway.md,
// "Performance").
type quick struct {
	// slow: the node has a keyword outside the subset ("format", "$ref",
	// "additionalProperties" ...): an instance that reaches it is asked
	// of the compiled schema.
	slow     bool
	types    uint8 // the types allowed, a bit each; 0: any
	props    map[string]*quick
	required []string
	items    *quick
	hasEnum  bool
	enum     []string // the enum's strings (only a string is matched here)
	min, max *big.Rat
	// minInt, maxInt are min and max where they are int64 integers
	// (intMin, intMax say so): an integer argument is compared without
	// math/big.
	minInt, maxInt int64
	intMin, intMax bool
}

const (
	tNull uint8 = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeBits = map[string]uint8{"null": tNull, "boolean": tBoolean, "number": tNumber,
	"integer": tInteger, "string": tString, "array": tArray, "object": tObject}

// quickOf reads the schema document doc (as jsonschema.UnmarshalJSON
// decodes it: numbers are json.Number). top: doc is the document's root,
// where "$schema" may name Dialect.
func quickOf(doc any, top bool) *quick {
	m, ok := doc.(map[string]any)
	if !ok {
		return &quick{slow: true} // a boolean schema
	}
	q := &quick{}
	for k, v := range m {
		switch k {
		case "description", "default", "title", "examples", "deprecated", "readOnly", "writeOnly":
			// annotations: they assert nothing
		case "$schema":
			q.slow = q.slow || !top || v != Dialect
		case "type":
			q.slow = q.slow || !q.readTypes(v)
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				q.slow = true
				continue
			}
			q.props = make(map[string]*quick, len(props))
			for name, p := range props {
				q.props[name] = quickOf(p, false)
			}
		case "required":
			arr, _ := v.([]any)
			for _, x := range arr {
				s, ok := x.(string)
				q.slow = q.slow || !ok
				q.required = append(q.required, s)
			}
			q.slow = q.slow || arr == nil
		case "items":
			q.items = quickOf(v, false)
		case "enum":
			arr, ok := v.([]any)
			q.slow, q.hasEnum = q.slow || !ok, true
			for _, x := range arr {
				if s, ok := x.(string); ok {
					q.enum = append(q.enum, s)
				}
			}
		case "minimum", "maximum":
			n, ok := v.(json.Number)
			r, okr := new(big.Rat).SetString(string(n))
			if !ok || !okr {
				q.slow = true
				continue
			}
			i, isInt := r.Num().Int64(), r.IsInt() && r.Num().IsInt64()
			if k == "minimum" {
				q.min, q.minInt, q.intMin = r, i, isInt
			} else {
				q.max, q.maxInt, q.intMax = r, i, isInt
			}
		default:
			q.slow = true
		}
	}
	return q
}

func (q *quick) readTypes(v any) bool {
	names := []any{v}
	if arr, ok := v.([]any); ok {
		names = arr
	}
	for _, n := range names {
		s, _ := n.(string)
		bit, ok := typeBits[s]
		if !ok {
			return false
		}
		q.types |= bit
	}
	return true
}

// accepts reports whether v (decoded as jsonschema.UnmarshalJSON does) is
// surely valid against q; false is "ask the compiled schema".
func (q *quick) accepts(v any) bool {
	if q == nil || q.slow {
		return false
	}
	switch x := v.(type) {
	case nil:
		return q.allows(tNull) && !q.hasEnum
	case bool:
		return q.allows(tBoolean) && !q.hasEnum
	case string:
		return q.allows(tString) && (!q.hasEnum || slices.Contains(q.enum, x))
	case json.Number:
		return !q.hasEnum && q.number(x)
	case []any:
		if !q.allows(tArray) || q.hasEnum {
			return false
		}
		if q.items != nil {
			for _, item := range x {
				if !q.items.accepts(item) {
					return false
				}
			}
		}
		return true
	case map[string]any:
		if !q.allows(tObject) || q.hasEnum {
			return false
		}
		for _, name := range q.required {
			if _, ok := x[name]; !ok {
				return false
			}
		}
		for name, p := range q.props {
			if val, ok := x[name]; ok && !p.accepts(val) {
				return false
			}
		}
		return true
	}
	return false
}

func (q *quick) allows(bit uint8) bool { return q.types == 0 || q.types&bit != 0 }

// number is the type, minimum and maximum of n, read as the validator
// reads it: an exact rational (big.Rat of its text), an integer where
// that rational is one.
func (q *quick) number(n json.Number) bool {
	i, err := strconv.ParseInt(string(n), 10, 64) // plain decimal digits only
	plain := err == nil
	var r *big.Rat
	rat := func() *big.Rat {
		if r == nil {
			r, _ = new(big.Rat).SetString(string(n))
		}
		return r
	}
	if !q.allows(tNumber) {
		if !q.allows(tInteger) || !plain && (rat() == nil || !rat().IsInt()) {
			return false
		}
	}
	if q.min != nil {
		switch {
		case plain && q.intMin:
			if i < q.minInt {
				return false
			}
		case rat() == nil || rat().Cmp(q.min) < 0:
			return false
		}
	}
	if q.max != nil {
		switch {
		case plain && q.intMax:
			if i > q.maxInt {
				return false
			}
		case rat() == nil || rat().Cmp(q.max) > 0:
			return false
		}
	}
	return true
}
