package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// MaxParamsDepth bounds how deeply an event's params may nest (the params
// object is level 1); enforce refuses a request body that would nest
// deeper before its handler runs. It also turns a cyclic map
// (which json.Marshal would reject only after a long descent) into an error
// instead of a stack overflow.
const MaxParamsDepth = 64

// ErrParams reports params that have no representation in the JSON data
// model: NaN or infinite numbers, nesting deeper than 64 levels, values
// encoding/json cannot marshal, or object keys that collide once invalid
// UTF-8 is repaired.
var ErrParams = errors.New("audit: params not representable in JSON")

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

// normalize returns v as the value json.Unmarshal would produce from
// json.Marshal(v): map[string]any, []any, string (valid UTF-8), float64,
// bool or nil. It does the common types by hand, because the append path
// pays for it on every request, and falls back to that very round trip
// for the rest (structs, typed maps and slices, Marshalers). Doing it
// before hashing means the hash of an event in memory is the hash of the
// same event read back from JSON, which is what a verifier sees.
func normalize(v any, r Redactor, depth int) (any, error) {
	if depth > MaxParamsDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrParams, MaxParamsDepth)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		// Unchanged values are returned as the interface they came in, so
		// that the common case boxes nothing anew.
		if utf8.ValidString(x) {
			return v, nil
		}
		return validString(x), nil
	case bool:
		return v, nil
	case float64:
		if x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0) {
			return v, nil
		}
		return checkFloat(x)
	case float32:
		// encoding/json writes a float32 with the shortest digits that
		// round-trip in 32 bits; reading them back gives this float64.
		return checkFloat(mustParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32)))
	case int:
		return float64(x), nil
	case int8:
		return float64(x), nil
	case int16:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint:
		return float64(x), nil
	case uint8:
		return float64(x), nil
	case uint16:
		return float64(x), nil
	case uint32:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case json.Number:
		return normalizeNumber(string(x))
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
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return normalizeMap(m, r, depth+1)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = validString(s)
		}
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrParams, v, err)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrParams, v, err)
	}
	// The decoded value is in the data model already, but its members have
	// not met the redactor yet, and its depth counts from here.
	return normalize(decoded, r, depth)
}

func normalizeMap(m map[string]any, r Redactor, depth int) (map[string]any, error) {
	if depth > MaxParamsDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrParams, MaxParamsDepth)
	}
	out := make(map[string]any, len(m))
	repaired := false
	for k, v := range m {
		key := validString(k)
		repaired = repaired || key != k
		if r != nil {
			v = r(key, v)
		}
		n, err := normalize(v, r, depth)
		if err != nil {
			return nil, err
		}
		out[key] = n
	}
	if repaired && len(out) != len(m) {
		return nil, fmt.Errorf("%w: object keys collide once invalid UTF-8 is replaced by U+FFFD", ErrParams)
	}
	return out, nil
}

func checkFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v is not a JSON number", ErrParams, f)
	}
	if f == 0 {
		return 0.0, nil // -0 is written "0" (RFC 8785 §3.2.2.3) and reads back as 0
	}
	return f, nil
}

func mustParseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64) // s came from FormatFloat
	return f
}

// normalizeNumber converts a json.Number as encoding/json would marshal
// it: "" is written as 0, anything outside the RFC 8259 number grammar is
// an error, and the digits read back as a float64.
func normalizeNumber(s string) (any, error) {
	if s == "" {
		return 0.0, nil
	}
	if !validNumber(s) {
		return nil, fmt.Errorf("%w: json.Number %q is not a JSON number", ErrParams, truncate(s))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: json.Number %q is out of range", ErrParams, truncate(s))
	}
	return checkFloat(f)
}

// validNumber reports whether s matches RFC 8259 §6:
// [ "-" ] ( "0" / digit1-9 *DIGIT ) [ "." 1*DIGIT ] [ ( "e" / "E" ) [ "+" / "-" ] 1*DIGIT ].
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// truncate shortens a string from untrusted input for an error message;
// a hash (64 characters) stays whole.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// validString replaces every byte of s that is not part of valid UTF-8
// with U+FFFD, one replacement per byte, as encoding/json does, so that a
// string hashes the same before and after a JSON round trip.
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
