package jsonenc

import (
	"bytes"
	"encoding/json"
)

// Encode renders v as two-space indented JSON with a trailing newline: the
// bytes of json.MarshalIndent(v, "", "  ") plus "\n", except that "<", ">"
// and "&" stay literal. The documents are served as application/json, never
// inlined in HTML, and "researching & planning" reads better than
// "researching \u0026 planning" to the humans who also read them.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
