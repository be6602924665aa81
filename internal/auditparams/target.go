package auditparams

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Segment returns the i-th segment of an escaped path ("/a/b": 1 is "a").
func Segment(path string, i int) (string, bool) {
	if i < 1 {
		return "", false
	}
	for n := 0; ; n++ {
		j := strings.IndexByte(path, '/')
		if j < 0 {
			return path, n == i
		}
		if n == i {
			return path[:j], true
		}
		path = path[j+1:]
	}
}

// redactsString reports whether r redacts the member key of the string
// value raw: a query value (unescaped for the Redactor) when query is
// set, else a path segment. r redacts a value when it returns anything
// but that very string.
func redactsString(r Redactor, key, raw string, query bool) bool {
	if r == nil {
		return false
	}
	v := urlText(raw)
	if query && strings.ContainsAny(raw, "%+") {
		if un, err := url.QueryUnescape(raw); err == nil {
			v = un
		}
	}
	s, ok := r(key, v).(string)
	return !ok || s != v
}

// Value returns the value Target records under TargetMember, in the JSON
// data model. r (nil: none) redacts what it cannot reach as a member: a
// path segment whose path param r redacts is written "{name}", a query
// pair or a ";name=value" path parameter whose name r redacts
// name=[REDACTED].
func (t *Target) Value(r Redactor) map[string]any {
	m := map[string]any{"path": urlText(t.redactedPath(r))}
	if t.Query != "" {
		m["query"] = urlText(redactedQuery(t.Query, r))
	}
	if len(t.PathParams) > 0 {
		pp := make(map[string]any, len(t.PathParams))
		for _, p := range t.PathParams {
			if _, ok := pp[p.Name]; ok {
				continue // a name given more segments: each is redacted, the first recorded
			}
			seg, _ := Segment(t.Path, p.Segment)
			pp[p.Name] = urlText(redactedParams(seg, r))
		}
		m["path_params"] = pp
	}
	if len(t.Headers) > 0 {
		h := make(map[string]any, len(t.Headers))
		for _, p := range t.Headers {
			v := byteText(p.Value)
			switch old := h[p.Name].(type) {
			case nil:
				h[p.Name] = v
			case []any:
				h[p.Name] = append(old, v)
			default:
				h[p.Name] = []any{old, v}
			}
		}
		m["headers"] = h
	}
	return m
}

// redactedPath returns Path with the segments of the path params r
// redacts written as "{name}", and the value of every ";name=value" path
// parameter of a segment whose name r redacts as [REDACTED]
// ("/cart;jsessionid=[REDACTED]": servlet containers carry the session
// there).
func (t *Target) redactedPath(r Redactor) string {
	if r == nil || (len(t.PathParams) == 0 && !strings.Contains(t.Path, ";")) {
		return t.Path
	}
	parts := strings.Split(t.Path, "/")
	changed := false
	for _, p := range t.PathParams {
		seg, _ := Segment(t.Path, p.Segment)
		if p.Segment < len(parts) && redactsString(r, p.Name, seg, false) {
			parts[p.Segment], changed = "{"+p.Name+"}", true
		}
	}
	for i, seg := range parts {
		if red := redactedParams(seg, r); red != seg {
			parts[i], changed = red, true
		}
	}
	if !changed {
		return t.Path
	}
	return strings.Join(parts, "/")
}

// redactedParams returns the path segment seg with the value of every
// ";name=value" pair after its first ';' whose name r redacts written as
// [REDACTED], names unescaped as a servlet container reads them.
func redactedParams(seg string, r Redactor) string {
	i := strings.IndexByte(seg, ';')
	if i < 0 {
		return seg
	}
	return redactedPairs(seg, i+1, false, r)
}

// redactedQuery returns q with the value of every pair whose name r
// redacts written as [REDACTED]. Pairs are split at '&' and at ';' (some
// parsers split there; Go's skips such pairs), names unescaped as a query
// parser does.
func redactedQuery(q string, r Redactor) string {
	if r == nil {
		return q
	}
	return redactedPairs(q, 0, true, r)
}

// redactedPairs is redactedQuery (query) or redactedParams for the pairs
// of s from start on; r is asked about a query's pair without a value
// too, as a query parser reads it as a name with an empty value.
func redactedPairs(s string, start int, query bool, r Redactor) string {
	seps, escapes, unescape := ";", "%", url.PathUnescape
	if query {
		seps, escapes, unescape = "&;", "%+", url.QueryUnescape
	}
	var b []byte // nil until a pair is redacted
	from := start
	for i := start; i <= len(s); i++ {
		if i < len(s) && strings.IndexByte(seps, s[i]) < 0 {
			continue
		}
		pair := s[from:i]
		name, value, hasValue := strings.Cut(pair, "=")
		if strings.ContainsAny(name, escapes) {
			if un, err := unescape(name); err == nil {
				name = un
			}
		}
		if (query || hasValue) && redactsString(r, name, value, query) && hasValue {
			if b == nil {
				b = append(make([]byte, 0, len(s)+16), s[:from]...)
			}
			b = append(b, pair[:len(pair)-len(value)]...)
			b = append(b, Redacted...)
		} else if b != nil {
			b = append(b, pair...)
		}
		if b != nil && i < len(s) {
			b = append(b, s[i])
		}
		from = i + 1
	}
	if b == nil {
		return s
	}
	return string(b)
}

// urlText returns s, text of a URL (a path, a query, a path segment),
// with every byte that is not part of valid UTF-8 percent-encoded (%XX,
// upper-case hex), as a browser encodes a URL: percent-decoding it gives
// the bytes a URL parser decodes from s.
func urlText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendPercent(nil, s, false))
}

// percentKey is the member of the object that stands for a header value
// that is not valid UTF-8 (see byteText).
const percentKey = "pct"

// byteText returns a header value as recorded: the string itself when it
// is valid UTF-8, else {"pct": s with '%' and every byte that is not part
// of valid UTF-8 percent-encoded}, from which percent-decoding gives the
// bytes back; a recorded string is never such an object, so the two
// cannot be confused.
func byteText(s string) any {
	if utf8.ValidString(s) {
		return s
	}
	return map[string]any{percentKey: string(appendPercent(nil, s, true))}
}

// appendPercent appends s with every byte that is not part of valid UTF-8
// (and, with pct, every '%') written %XX.
func appendPercent(b []byte, s string, pct bool) []byte {
	const upperHex = "0123456789ABCDEF"
	for i := 0; i < len(s); {
		c := s[i]
		if c == '%' && pct {
			b = append(b, "%25"...)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, '%', upperHex[c>>4], upperHex[c&0xf])
			i++
			continue
		}
		b = append(b, s[i:i+size]...)
		i += size
	}
	return b
}

// Check reports what a producer must get right of a Target: every path
// param and header named, every path param's segment present.
func (t *Target) Check() error {
	for _, p := range t.PathParams {
		if p.Name == "" {
			return errors.New("a path param of the target has no name")
		}
		if _, ok := Segment(t.Path, p.Segment); !ok {
			return fmt.Errorf("path param %q names segment %d of %.80q, which has none", p.Name, p.Segment, t.Path)
		}
	}
	for _, h := range t.Headers {
		if h.Name == "" {
			return errors.New("a header param of the target has no name")
		}
	}
	return nil
}
