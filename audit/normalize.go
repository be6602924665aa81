package audit

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/auditparams"
)

// errParams reports params that have no representation in the JSON data
// model: NaN or infinite numbers, nesting deeper than 64 levels, values
// encoding/json cannot marshal, or object keys that collide once invalid
// UTF-8 is repaired.
var errParams = fmt.Errorf("%w: params not representable in JSON", ErrInvalidEvent)

// normalizeParams returns a fresh copy of params in the JSON data model,
// applying r (when not nil) to every object member at every depth. A nil
// map stays nil only when keepNil is set (Verify hashes what it is given);
// a producer records {} instead, which round-trips through JSON.
func normalizeParams(params map[string]any, r Redactor, keepNil bool) (map[string]any, error) {
	if params == nil {
		if keepNil {
			return nil, nil
		}
		return map[string]any{}, nil
	}
	return normalizeMap(params, r, 1)
}

// normalize returns v as json.Unmarshal would produce it from
// json.Marshal(v): map[string]any, []any, string (valid UTF-8), float64,
// bool or nil, with r applied to the members of every object on the way.
// Values of other types (integers, structs, typed maps and slices,
// Marshalers) take that very round trip. Doing it before hashing means
// the hash of an event in memory is the hash of the same event read back
// from JSON, which is what a verifier sees, and that the Redactor meets
// the members of a struct as a verifier will read them.
func normalize(v any, r Redactor, depth int) (any, error) {
	if depth > auditparams.MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", errParams, auditparams.MaxDepth)
	}
	switch x := v.(type) {
	case nil, bool:
		return v, nil
	case string:
		return validString(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: %v is not a JSON number", errParams, x)
		}
		if x == 0 {
			return 0.0, nil // -0 is written "0" (RFC 8785 §3.2.2.3) and reads back as 0
		}
		return v, nil
	case map[string]any:
		return normalizeMap(x, r, depth+1)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e, r, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", errParams, v, err)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		return nil, fmt.Errorf("%w: %T: %v", errParams, v, err)
	}
	// The decoded value is in the data model already, but its members have
	// not met the redactor yet, and its depth counts from here.
	return normalize(decoded, r, depth)
}

func normalizeMap(m map[string]any, r Redactor, depth int) (map[string]any, error) {
	if depth > auditparams.MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", errParams, auditparams.MaxDepth)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		key := validString(k)
		if r != nil {
			v = r(key, v)
		}
		n, err := normalize(v, r, depth)
		if err != nil {
			return nil, err
		}
		out[key] = n
	}
	if len(out) != len(m) {
		return nil, fmt.Errorf("%w: object keys collide once invalid UTF-8 is replaced by U+FFFD", errParams)
	}
	return out, nil
}

// validString replaces every byte of s that is not part of valid UTF-8
// with U+FFFD, one replacement per byte, as encoding/json does
// (strings.ToValidUTF8 replaces a run of such bytes with one), so that a
// string reads the same before and after a JSON round trip.
func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
			i++
			continue
		}
		b = append(b, s[i:i+size]...)
		i += size
	}
	return string(b)
}

// truncate shortens a string from untrusted input for an error message;
// a hash (64 characters) stays whole.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// cloneValue deep-copies a value already in the data model, so that a
// store never hands out maps it keeps.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneEvents(events []Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		e.Params = cloneMap(e.Params)
		out[i] = e
	}
	return out
}
