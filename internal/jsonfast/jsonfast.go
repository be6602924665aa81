// Package jsonfast reads the plain JSON an MCP request carries in one pass
// without encoding/json's Decoder: an object's members as raw values, or
// a whole value decoded as jsonschema.UnmarshalJSON decodes it (numbers as
// json.Number). It is a fast path, never the only one: every function
// reports ok only for input it reads exactly as encoding/json would (a
// string without escapes or invalid UTF-8, nesting of at most maxDepth),
// and false for anything else (invalid JSON included), which the caller
// then reads with encoding/json, whose errors are the ones given.
//
// Hand-written on the hot path: on BenchmarkGatewayToolCall it replaces
// four Decoder passes over each tools/call (the MCP stage's members of the
// message and of its params, the arguments' duplicate-key pass and their
// decoding, the answer's two), which buys more than 5% of the whole
// request (docs/gateway.md, "Performance").
package jsonfast

import (
	"encoding/json"
	"unicode/utf8"
)

// maxDepth bounds nesting: deeper input is left to encoding/json.
const maxDepth = 64

// Members reads raw, one JSON object (whitespace around it allowed), and
// calls member for each member in order with its name and its value's
// bytes (a subslice of raw, without surrounding whitespace), stopping
// with false when member returns false. Nested values are checked to be
// JSON, not decoded.
func Members(raw []byte, member func(name string, value []byte) bool) bool {
	s := scanner{b: raw}
	s.space()
	if !s.eat('{') {
		return false
	}
	s.space()
	if s.eat('}') {
		s.space()
		return s.i == len(s.b)
	}
	for {
		name, ok := s.str()
		if !ok {
			return false
		}
		s.space()
		if !s.eat(':') {
			return false
		}
		s.space()
		start := s.i
		if !s.skip(1) || !member(name, raw[start:s.i]) {
			return false
		}
		s.space()
		if s.eat(',') {
			s.space()
			continue
		}
		if !s.eat('}') {
			return false
		}
		s.space()
		return s.i == len(s.b)
	}
}

// String is the JSON string raw (a whole value, no whitespace), when it
// holds no escape and is valid UTF-8.
func String(raw []byte) (string, bool) {
	s := scanner{b: raw}
	v, ok := s.str()
	return v, ok && s.i == len(raw)
}

// Value decodes raw, one JSON value (whitespace around it allowed), as a
// json.Decoder with UseNumber decodes it into an any, provided that no
// object at any depth gives a member name twice and that number accepts
// the text of every number.
func Value(raw []byte, number func(string) bool) (any, bool) {
	s := scanner{b: raw, number: number}
	s.space()
	v, ok := s.value(1)
	if !ok {
		return nil, false
	}
	s.space()
	return v, s.i == len(s.b)
}

type scanner struct {
	b      []byte
	i      int
	number func(string) bool
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string without escapes, valid UTF-8.
func (s *scanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start, ascii := s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return "", false
			}
			return string(v), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	return "", false
}

// skipStr passes over a string, escapes included (checked, not decoded):
// its bytes are kept raw, as json.RawMessage keeps them.
func (s *scanner) skipStr() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// num reads a number as JSON's grammar has it (RFC 8259 6) and returns
// its text.
func (s *scanner) num() (string, bool) {
	start := s.i
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return "", false
	}
	if s.eat('.') && !s.digits() {
		return "", false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return "", false
		}
	}
	return string(s.b[start:s.i]), true
}

// digits reads one digit or more.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// skip passes over a value, checking it is JSON.
func (s *scanner) skip(depth int) bool {
	if s.i >= len(s.b) || depth > maxDepth {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		return s.skipStr()
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.i++
		s.space()
		if s.eat(end) {
			return true
		}
		for {
			if c == '{' {
				if !s.skipStr() {
					return false
				}
				s.space()
				if !s.eat(':') {
					return false
				}
				s.space()
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.space()
			if s.eat(end) {
				return true
			}
			if !s.eat(',') {
				return false
			}
			s.space()
		}
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	}
	_, ok := s.num()
	return ok
}

// value decodes a value.
func (s *scanner) value(depth int) (any, bool) {
	if s.i >= len(s.b) || depth > maxDepth {
		return nil, false
	}
	switch s.b[s.i] {
	case '"':
		return s.str()
	case '{':
		s.i++
		s.space()
		m := map[string]any{}
		if s.eat('}') {
			return m, true
		}
		for {
			k, ok := s.str()
			if !ok {
				return nil, false
			}
			if _, dup := m[k]; dup {
				return nil, false
			}
			s.space()
			if !s.eat(':') {
				return nil, false
			}
			s.space()
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			s.space()
			if s.eat('}') {
				return m, true
			}
			if !s.eat(',') {
				return nil, false
			}
			s.space()
		}
	case '[':
		s.i++
		s.space()
		arr := []any{}
		if s.eat(']') {
			return arr, true
		}
		for {
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
			s.space()
			if s.eat(']') {
				return arr, true
			}
			if !s.eat(',') {
				return nil, false
			}
			s.space()
		}
	case 't':
		return true, s.lit("true")
	case 'f':
		return false, s.lit("false")
	case 'n':
		return nil, s.lit("null")
	}
	n, ok := s.num()
	if !ok || s.number != nil && !s.number(n) {
		return nil, false
	}
	return json.Number(n), true
}
