package jsonenc

import (
	"bytes"
	"encoding/json"
)

// Member is one name/value pair of an Object.
type Member[T any] struct {
	Name  string
	Value T
}

// Object is a JSON object whose members keep the order of the declaration
// (a map would sort them): params read in the order the site wrote them,
// as in the specifications' examples. The caller keeps names unique:
// publish.Validate rejects a declaration that repeats one.
type Object[T any] []Member[T]

// MarshalJSON writes the members in order, without HTML escaping, like
// Encode. The encoder that called it re-indents the result.
func (o Object[T]) MarshalJSON() ([]byte, error) {
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
