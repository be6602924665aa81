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
// is the response to id (to any id, when id is nil) with a result,
// returns it with the result's tools filtered by allow; every other byte
// stays as the server sent it.
//
// It reads strictly: a member agentready reads (jsonrpc, id, method,
// result, error, the result's tools) that appears twice or in another
// case is an error, since a client decoding with encoding/json matches
// member names case-insensitively and keeps the last of duplicates, the
// Go SDK's matches them exactly, and either would read a list other than
// the one filtered (a tool's name: toolName).
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
		seen     [len(topNames)]bool
		gotID    json.RawMessage
		tools    span // the result's tools, offsets in raw
		filtered []byte
		skip     json.RawMessage
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
		switch i {
		case memberResult:
			tools, filtered, err = result(dec, raw, allow)
		case memberID:
			err = dec.Decode(&gotID)
		default:
			err = dec.Decode(&skip)
		}
		if err != nil && !errors.Is(err, errUnreadable) {
			err = fmt.Errorf("%w: %v", errUnreadable, err)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if err := end(dec); err != nil {
		return nil, 0, err
	}
	switch {
	case !seen[memberResult] && !seen[memberError]:
		return nil, other, nil
	case seen[memberMethod]:
		return nil, 0, fmt.Errorf("%w: a method beside a result or an error", errUnreadable)
	case id != nil && !sameID(gotID, id):
		return nil, stray, nil
	case filtered == nil:
		return raw, answer, nil // an error, or a result without tools: nothing to filter
	}
	out := make([]byte, 0, tools.start+len(filtered)+len(raw)-tools.end)
	out = append(out, raw[:tools.start]...)
	out = append(out, filtered...)
	return append(out, raw[tools.end:]...), answer, nil
}

// The members of a JSON-RPC message agentready reads (JSON-RPC 2.0, 4
// and 5), by their index in topNames.
var topNames = [...]string{"jsonrpc", "id", "method", "result", "error"}

const (
	memberID     = 1
	memberMethod = 2
	memberResult = 3
	memberError  = 4
)

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
// (not an object, no string name, a name in another case) is not listed:
// a tool agentready cannot name is one the caller may not call.
func toolList(dec *json.Decoder, raw []byte, allow func(string) bool) (span, []byte, error) {
	// The value begins after the ':' and whitespace the offset still
	// counts.
	from := int(dec.InputOffset())
	var elems []json.RawMessage
	if err := dec.Decode(&elems); err != nil || elems == nil {
		return span{}, nil, fmt.Errorf("%w: tools is not an array", errUnreadable)
	}
	sp := span{end: int(dec.InputOffset())}
	sp.start = from + bytes.IndexByte(raw[from:sp.end], '[')
	out := make([]byte, 1, sp.end-sp.start)
	out[0] = '['
	for _, e := range elems {
		if name, ok := toolName(e); !ok || !allow(name) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return sp, append(out, ']'), nil
}

// toolName returns the name of the tool e, ok false when it is not a tool
// read one way only. Its members are read into a map, whose keys keep
// their case: a name spelt in another case beside it ("Name", "NAME")
// makes it unreadable, since the Go SDK matches member names exactly and
// encoding/json in any case. A member that appears twice is read as every
// JSON reader of MCP's SDKs reads it, the last one.
func toolName(e json.RawMessage) (string, bool) {
	var members map[string]value
	if len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &members) != nil {
		return "", false
	}
	n := 0
	for k := range members {
		if strings.EqualFold(k, "name") {
			n++
		}
	}
	v, ok := members["name"]
	var name string
	if n != 1 || !ok || len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &name) != nil {
		return "", false
	}
	return name, true
}

// value is a member's value as sent. It keeps the slice encoding/json
// hands it, a part of the tool's bytes, which outlive the map it is in.
type value []byte

// UnmarshalJSON keeps data.
func (v *value) UnmarshalJSON(data []byte) error {
	*v = data
	return nil
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

// read reads the data of an event or a JSON body. On a stream of no one
// request (nil id) it may be a batch of responses: the POST of a batch
// (MCP 2025-03-26, Basic, "Batching"; the Go SDK v1.8.0 still answers one
// at that version) is answered by an array, or by an event each.
func (w *Writer) read(raw []byte) ([]byte, kind, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); w.id != nil || len(t) == 0 || t[0] != '[' {
		return message(raw, w.id, w.allow)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || len(elems) == 0 {
		return nil, 0, fmt.Errorf("%w: not a batch of messages", errUnreadable)
	}
	out := []byte{'['}
	k := other
	for i, e := range elems {
		m, mk, err := message(e, nil, w.allow)
		if err != nil {
			return nil, 0, fmt.Errorf("batch member %d: %w", i, err)
		}
		if mk == answer {
			e, k = m, answer
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	if k == other {
		return nil, other, nil // requests and notifications: passed as sent
	}
	return append(out, ']'), answer, nil
}
