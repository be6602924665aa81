package mcplist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// errUnreadable is a message agentready cannot read one way only: the
// answer is replaced (fail closed) rather than passed on with tools the
// caller may not call.
var errUnreadable = errors.New("not a JSON-RPC message read one way only")

// kind is what a JSON-RPC message of the server's answer is to the
// tools/list request being answered.
type kind int

const (
	// other: a request or a notification (no result, no error), such as
	// notifications/tools/list_changed; it passes as sent.
	other kind = iota
	// answer: the response to this request's id; its result's tools are
	// filtered.
	answer
	// stray: a response to another id. A POST's stream carries the
	// response to the POST's own request only (MCP 2025-11-25, Transports,
	// "Sending Messages to the Server"), so it is dropped rather than
	// passed on with a list nobody filtered.
	stray
)

// message reads one JSON-RPC message of the server's answer and, when it
// is the response to id with a result, returns it with the result's tools
// filtered by allow; every other byte stays as the server sent it.
//
// It reads strictly: a member agentready reads (jsonrpc, id, method,
// result, error, the result's tools, a tool's name) that appears twice or
// in another case is an error, since a client decoding with
// encoding/json matches member names case-insensitively and keeps the
// last of duplicates, and would read a list other than the one filtered.
// A response is any message with a result or an error, whatever else it
// has: the TypeScript SDK reads {"method":...,"result":...} as a
// response, the Go SDK as a request, so a method beside a result is an
// error too.
func message(raw, id []byte, allow func(string) bool) ([]byte, kind, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, 0, fmt.Errorf("%w: not a JSON object", errUnreadable)
	}
	var (
		seen                   [5]bool // jsonrpc, id, method, result, error
		gotID                  json.RawMessage
		tools                  span // the result's tools, offsets in raw
		filtered               []byte
		hasResult, hasMethod   bool
		skip                   json.RawMessage
		topNames               = [...]string{"jsonrpc", "id", "method", "result", "error"}
		resultIdx, methodIndex = 3, 2
	)
	for dec.More() {
		k, err := key(dec)
		if err != nil {
			return nil, 0, err
		}
		i := indexFold(topNames[:], k)
		if i >= 0 {
			if k != topNames[i] || seen[i] {
				return nil, 0, fmt.Errorf("%w: member %q twice or in another case", errUnreadable, k)
			}
			seen[i] = true
		}
		switch {
		case i == resultIdx:
			hasResult = true
			if tools, filtered, err = result(dec, raw, allow); err != nil {
				return nil, 0, err
			}
			continue
		case i == 1:
			if err := dec.Decode(&gotID); err != nil {
				return nil, 0, fmt.Errorf("%w: %v", errUnreadable, err)
			}
			continue
		case i == methodIndex:
			hasMethod = true
		}
		if err := dec.Decode(&skip); err != nil {
			return nil, 0, fmt.Errorf("%w: %v", errUnreadable, err)
		}
	}
	if err := end(dec); err != nil {
		return nil, 0, err
	}
	response := hasResult || seen[4]
	switch {
	case !response:
		return nil, other, nil
	case hasMethod:
		return nil, 0, fmt.Errorf("%w: a method beside a result or an error", errUnreadable)
	case !sameID(gotID, id):
		return nil, stray, nil
	case !hasResult || filtered == nil:
		return raw, answer, nil // an error, or a result without tools: nothing to filter
	}
	out := make([]byte, 0, tools.start+len(filtered)+len(raw)-tools.end)
	out = append(out, raw[:tools.start]...)
	out = append(out, filtered...)
	return append(out, raw[tools.end:]...), answer, nil
}

// span is where a value lies in the message.
type span struct{ start, end int }

// result reads the result object and returns where its tools array lies
// and that array filtered (nil when the result has no tools).
func result(dec *json.Decoder, raw []byte, allow func(string) bool) (span, []byte, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return span{}, nil, fmt.Errorf("%w: the result is not an object", errUnreadable)
	}
	var (
		sp   span
		out  []byte
		seen bool
		skip json.RawMessage
	)
	for dec.More() {
		k, err := key(dec)
		if err != nil {
			return span{}, nil, err
		}
		if !strings.EqualFold(k, "tools") {
			if err := dec.Decode(&skip); err != nil {
				return span{}, nil, fmt.Errorf("%w: %v", errUnreadable, err)
			}
			continue
		}
		if k != "tools" || seen {
			return span{}, nil, fmt.Errorf("%w: member %q twice or in another case", errUnreadable, k)
		}
		seen = true
		if sp, out, err = toolList(dec, raw, allow); err != nil {
			return span{}, nil, err
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return span{}, nil, fmt.Errorf("%w: the result does not end", errUnreadable)
	}
	return sp, out, nil
}

// toolList reads the tools array, keeping the tools allow permits, each
// as the server sent it. A member that is not a tool read one way only
// (not an object, no string name, a name twice or in another case) is
// not listed: a tool agentready cannot name is one the caller may not
// call.
func toolList(dec *json.Decoder, raw []byte, allow func(string) bool) (span, []byte, error) {
	t, err := dec.Token()
	if err != nil || t != json.Delim('[') {
		return span{}, nil, fmt.Errorf("%w: tools is not an array", errUnreadable)
	}
	sp := span{start: int(dec.InputOffset()) - 1}
	out := []byte{'['}
	for dec.More() {
		start := int(dec.InputOffset())
		name, ok, err := tool(dec)
		if err != nil {
			return span{}, nil, err
		}
		if !ok || !allow(name) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		// The element begins after the comma and whitespace that the
		// offset before it still counts.
		elem := bytes.TrimLeft(raw[start:dec.InputOffset()], ", \t\n\r")
		out = append(out, elem...)
	}
	if _, err := dec.Token(); err != nil { // ']'
		return span{}, nil, fmt.Errorf("%w: %v", errUnreadable, err)
	}
	sp.end = int(dec.InputOffset())
	return sp, append(out, ']'), nil
}

// tool reads one element of tools and returns its name, ok false when it
// is not a tool read one way only.
func tool(dec *json.Decoder) (string, bool, error) {
	t, err := dec.Token()
	if err != nil {
		return "", false, fmt.Errorf("%w: %v", errUnreadable, err)
	}
	if d, isDelim := t.(json.Delim); !isDelim || d != '{' {
		return "", false, skipRest(dec, t)
	}
	var (
		name  string
		names int
		ok    = true
		skip  json.RawMessage
	)
	for dec.More() {
		k, err := key(dec)
		if err != nil {
			return "", false, err
		}
		if err := dec.Decode(&skip); err != nil {
			return "", false, fmt.Errorf("%w: %v", errUnreadable, err)
		}
		if !strings.EqualFold(k, "name") {
			continue
		}
		names++
		if k != "name" || names > 1 || len(skip) == 0 || skip[0] != '"' || json.Unmarshal(skip, &name) != nil {
			ok = false
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return "", false, fmt.Errorf("%w: %v", errUnreadable, err)
	}
	return name, ok && names == 1, nil
}

// skipRest consumes the rest of a value whose first token was t.
func skipRest(dec *json.Decoder, t json.Token) error {
	depth := 0
	for {
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if t, err = dec.Token(); err != nil {
			return fmt.Errorf("%w: %v", errUnreadable, err)
		}
	}
}

// key reads a member name.
func key(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errUnreadable, err)
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("%w: a member without a name", errUnreadable)
	}
	return k, nil
}

// end reads the end of the message's object and makes sure nothing
// follows it.
func end(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return fmt.Errorf("%w: the message does not end", errUnreadable)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: something follows the message", errUnreadable)
	}
	return nil
}

// indexFold is the index of the name k spells in any case, -1 for none.
// strings.EqualFold folds as encoding/json does ("reſult" is "result").
func indexFold(names []string, k string) int {
	for i, n := range names {
		if strings.EqualFold(k, n) {
			return i
		}
	}
	return -1
}

// sameID reports whether the response's id is the request's: the same
// string, or the same number however written (a server decodes 1.0 and
// answers 1). A number is compared as a float64: two ids it cannot tell
// apart are both filtered, never passed unfiltered.
func sameID(got, want []byte) bool {
	if len(got) == 0 || len(want) == 0 || string(want) == "null" {
		return false // a request always has an id; null answers none
	}
	if bytes.Equal(got, want) {
		return true
	}
	if got[0] == '"' && want[0] == '"' {
		var a, b string
		return json.Unmarshal(got, &a) == nil && json.Unmarshal(want, &b) == nil && a == b
	}
	if got[0] == '"' || want[0] == '"' {
		return false
	}
	a, errA := strconv.ParseFloat(string(got), 64)
	b, errB := strconv.ParseFloat(string(want), 64)
	return errA == nil && errB == nil && a == b
}
