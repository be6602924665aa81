package awp

import (
	"bytes"
	"encoding/json"
)

// encode renders v as two-space indented JSON with a trailing newline: the
// bytes of json.MarshalIndent(v, "", "  ") plus "\n", except that "<", ">"
// and "&" stay literal. The documents are served as application/json, never
// inlined in HTML, and "researching & planning" reads better than
// "researching \u0026 planning" to the humans who also read them.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// member is one name/value pair of an object.
type member[T any] struct {
	Name  string
	Value T
}

// object is a JSON object whose members keep the order of the declaration
// (a map would sort them): params read in the order the site wrote them,
// as in the specifications' examples. Names are unique by construction.
type object[T any] []member[T]

// MarshalJSON writes the members in order. The encoder that called it
// re-indents the result.
func (o object[T]) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		// Encode appends a newline after each value; JSON allows the
		// whitespace and the calling encoder compacts it away.
		if err := enc.Encode(m.Name); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := enc.Encode(m.Value); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
