// Package mcprpc reads what an MCP POST asks for: the JSON-RPC method of
// each message of its body, the tool a tools/call names, and whether the
// Mcp-Method and Mcp-Name request headers say the same (docs/mcp.md).
//
// It reads strictly, so that no server reads a body otherwise: a member
// agentready reads that appears twice, or in another case (Go's
// encoding/json matches member names case-insensitively and keeps the
// last of duplicates), makes the message invalid rather than read one way
// here and another way there.
package mcprpc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/jsonfast"
)

// Message is one JSON-RPC message of an MCP POST body.
type Message struct {
	Method string
	// Name is what the method names, as Mcp-Name carries it: the tool of
	// tools/call, the prompt of prompts/get (params.name), the resource
	// of resources/read (params.uri); "" for other methods.
	Name string
	// ID is the request's id as sent, nil for a notification or a
	// response.
	ID json.RawMessage
}

// ToolsCall is the method that calls a tool.
const ToolsCall = "tools/call"

// ErrInvalid is a body that is not a JSON-RPC message or batch agentready
// can read unambiguously.
var ErrInvalid = errors.New("mcp: not a JSON-RPC message read one way only")

// Parse reads the messages of body: one JSON object, or an array of them
// (a batch). A response (a message without a method) is a Message without
// Method.
func Parse(body []byte) (msgs []Message, batch bool, err error) {
	// JSON's whitespace (RFC 8259 2), not Unicode's: "\v[" is no batch.
	if t := bytes.TrimLeft(body, " \t\n\r"); len(t) > 0 && t[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(body, &raws); err != nil {
			return nil, true, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if len(raws) == 0 {
			return nil, true, fmt.Errorf("%w: an empty batch", ErrInvalid)
		}
		msgs = make([]Message, len(raws))
		for i, raw := range raws {
			if err := parseOne(raw, &msgs[i]); err != nil {
				return nil, true, fmt.Errorf("batch member %d: %w", i, err)
			}
		}
		return msgs, true, nil
	}
	var m Message
	if err := parseOne(body, &m); err != nil {
		return nil, false, err
	}
	return []Message{m}, false, nil
}

// parseOne reads one message into m.
func parseOne(raw []byte, m *Message) error {
	top, err := members(raw, "jsonrpc", "id", "method", "params")
	if err != nil {
		return err
	}
	if v, ok := top["id"]; ok {
		m.ID = bytes.Clone(v) // v may be raw's own bytes (jsonfast)
	}
	v, ok := top["method"]
	if !ok {
		return nil // a response
	}
	if m.Method, err = str(v); err != nil {
		return fmt.Errorf("%w: method is not a string", ErrInvalid)
	}
	key := ""
	switch m.Method {
	case ToolsCall, "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return nil
	}
	p, ok := top["params"]
	if !ok {
		return fmt.Errorf("%w: %s without params", ErrInvalid, m.Method)
	}
	params, err := members(p, key)
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	nv, ok := params[key]
	if ok {
		m.Name, err = str(nv)
	}
	if !ok || err != nil {
		return fmt.Errorf("%w: %s without a string params.%s", ErrInvalid, m.Method, key)
	}
	return nil
}

// str is the JSON string v.
func str(v json.RawMessage) (string, error) {
	if s, ok := jsonfast.String(v); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// members reads the JSON object raw and returns the values of the member
// names given, refusing any member that appears twice, and any that spells
// one of names in another case: one pass of jsonfast over raw, or, where
// that cannot read it, of the decoder, whose errors are given.
func members(raw []byte, names ...string) (map[string]json.RawMessage, error) {
	if out, ok := fastMembers(raw, names); ok {
		return out, nil
	}
	return decodeMembers(raw, names)
}

// fastMembers is members in one pass of jsonfast, false for a body it
// cannot read or members would refuse (then decodeMembers says why).
func fastMembers(raw []byte, names []string) (map[string]json.RawMessage, bool) {
	out := make(map[string]json.RawMessage, len(names))
	var seenArr [8]string
	seen := seenArr[:0] // few members: a slice beats a map
	ok := jsonfast.Members(raw, func(k string, v []byte) bool {
		if slices.Contains(seen, k) {
			return false
		}
		seen = append(seen, k)
		for _, n := range names {
			switch {
			case k == n:
				out[n] = v
			case strings.EqualFold(k, n):
				return false
			}
		}
		return true
	})
	return out, ok
}

// decodeMembers is members with encoding/json's decoder.
func decodeMembers(raw []byte, names []string) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(names))
	var seen []string // few members: a slice beats a map
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalid)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		k, _ := t.(string)
		if slices.Contains(seen, k) {
			return nil, fmt.Errorf("%w: member %q appears twice", ErrInvalid, k)
		}
		seen = append(seen, k)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		for _, n := range names {
			switch {
			case k == n:
				out[n] = v
			case strings.EqualFold(k, n):
				return nil, fmt.Errorf("%w: member %q spells %q in another case", ErrInvalid, k, n)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if dec.More() || dec.InputOffset() != int64(len(bytes.TrimRight(raw, " \t\n\r"))) {
		return nil, fmt.Errorf("%w: data after the object", ErrInvalid)
	}
	return out, nil
}

// The request headers that name a message's method and what it names
// (MCP 2026-07-28, Transports, Streamable HTTP, "Standard Request
// Headers"): required from that version on, and a server refuses a
// request whose headers are missing or disagree with its body (400,
// HeaderMismatch).
const (
	HeaderMethod  = "Mcp-Method"
	HeaderName    = "Mcp-Name"
	headerVersion = "Mcp-Protocol-Version"
	// headersFrom is the first version that carries them.
	headersFrom = "2026-07-28"
)

// HeadersAgree checks the Mcp-Method and Mcp-Name headers against the
// messages of the body: when sent (and, from 2026-07-28, always), each
// names the method of the one message of the body and what that method
// names, a value sent as "=?base64?...?=" decoded first (Value
// Encoding). A header that does not agree is an error: the server would
// read the request by one and agentready by the other.
func HeadersAgree(h http.Header, msgs []Message, batch bool) error {
	method, hasMethod := h[HeaderMethod]
	name, hasName := h[HeaderName]
	versions := h[headerVersion]
	required := len(versions) == 1 && versions[0] >= headersFrom && !batch && msgs[0].Method != ""
	if !hasMethod && !hasName && !required {
		return nil
	}
	if len(method) > 1 || len(name) > 1 {
		return fmt.Errorf("%s or %s is sent more than once", HeaderMethod, HeaderName)
	}
	if batch {
		return fmt.Errorf("%s and %s name one message, and the body is a batch", HeaderMethod, HeaderName)
	}
	m := &msgs[0]
	if !hasMethod {
		return fmt.Errorf("%s is missing (required from MCP %s)", HeaderMethod, headersFrom)
	}
	if v, err := headerValue(method[0]); err != nil || v != m.Method {
		return fmt.Errorf("%s header value %q does not match body value %q", HeaderMethod, method[0], m.Method)
	}
	switch {
	case hasName:
		if v, err := headerValue(name[0]); err != nil || v != m.Name || m.Name == "" {
			return fmt.Errorf("%s header value %q does not match body value %q", HeaderName, name[0], m.Name)
		}
	case m.Name != "" && required:
		return fmt.Errorf("%s is missing for %s (required from MCP %s)", HeaderName, m.Method, headersFrom)
	}
	return nil
}

// headerValue decodes a header value sent as "=?base64?{value}?=".
func headerValue(v string) (string, error) {
	enc, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, nil
	}
	enc, ok = strings.CutSuffix(enc, "?=")
	if !ok {
		return v, nil
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	return string(b), err
}

// ErrorResponse is a JSON-RPC 2.0 error response (5, 5.1) to the request
// id (null when id is not a JSON value: none, or one agentready could not
// read), with data when not nil.
func ErrorResponse(id json.RawMessage, code int, message string, data json.RawMessage) []byte {
	if !json.Valid(id) {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: rpcError{code, message, data}}) // nothing unmarshalable
	return b
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}
