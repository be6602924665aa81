package policy

import (
	"bytes"
	"strings"
)

// Canonical appends the canonical form of a request path and query to dst
// and returns the extended buffer, so a caller can reuse one buffer per
// request (no allocation when dst has the capacity).
//
// rawPath is the escaped path as sent (r.URL.EscapedPath()), rawQuery the
// raw query (r.URL.RawQuery). The canonical form is what path rules are
// matched against, and rule patterns go through the same steps when they
// are compiled, so that a rule and a request that name the same resource
// compare equal byte for byte:
//
//   - escapes of unreserved characters (ALPHA DIGIT - . _ ~) are decoded
//     (RFC 3986 6.2.2.2), other escapes are upper-cased (6.2.2.1);
//   - %2F and %2E are decoded before dot segments are removed, so neither
//     /x/..%2fadmin nor /x/%2e%2e/admin slips past a rule for /admin;
//   - empty segments are collapsed (//admin is /admin);
//   - dot segments are removed (RFC 3986 5.2.4), never climbing above the
//     root;
//   - a '%' that does not start a valid escape is encoded as %25, so the
//     output is itself canonical (Canonical is idempotent) and a bare '%'
//     can never combine with later characters into a different escape;
//   - bytes that may not appear raw in a path or query (controls, space,
//     non-ASCII, '#', and '?' inside the path) are percent-encoded, and so
//     are '*' and '$', which are pattern operators: a literal '*' in a URL
//     is matched by %2A in a rule (RFC 9309 2.2.3);
//   - a non-empty query is appended as "?query" after the same escape
//     normalisation (without dot-segment or %2F handling), so rules can see
//     it: Google's "/*.php$" does not match /filename.php?parameters.
//
// Canonical never fails: every input has a canonical form. Its cost is
// linear in the input; Match bounds what it examines (see MaxPathLen).
func Canonical(dst []byte, rawPath, rawQuery string) []byte {
	if IsCanonical(rawPath, rawQuery) {
		// The common case: nothing to decode, collapse or remove.
		dst = append(dst, rawPath...)
		if rawQuery != "" {
			dst = append(dst, '?')
			dst = append(dst, rawQuery...)
		}
		return dst
	}
	dst = appendPath(dst, rawPath, false)
	if rawQuery != "" {
		dst = append(dst, '?')
		dst = appendQuery(dst, rawQuery, false)
	}
	return dst
}

// canonicalPattern is Canonical for an Allow/Disallow pattern: '*' stays a
// wildcard, a trailing '$' stays the end anchor, the query part (after the
// first '?') is normalised like a request's query, and a pattern written
// with a leading '*' keeps it (so its length, which is its precedence, is
// the length as written).
func canonicalPattern(p string) string {
	anchored := len(p) > 0 && p[len(p)-1] == '$'
	if anchored {
		p = p[:len(p)-1]
	}
	path, query, _ := strings.Cut(p, "?")
	b := make([]byte, 0, len(p)+8)
	b = appendPath(b, path, true)
	if len(path) > 0 && path[0] == '*' && len(b) > 1 && b[1] == '*' {
		b = b[1:] // drop the root '/' appendPath supplied
	}
	if query != "" {
		b = append(b, '?')
		b = appendQuery(b, query, true)
	}
	if anchored {
		b = append(b, '$')
	}
	return string(b)
}

// Character classes of RFC 3986 2.2, 2.3 and 3.3.
const (
	clsUnreserved = 1 << iota // ALPHA DIGIT - . _ ~
	clsPath                   // may appear raw in a canonical path segment
	clsQuery                  // may appear raw in a canonical query
	clsOperator               // '*' and '$': raw only in patterns
)

// IsCanonical reports whether Canonical would return rawPath and rawQuery
// unchanged (joined by '?'): the path starts with '/', holds only bytes
// that stay raw, no '%', no empty segment and no dot segment ("." or "..";
// ".well-known" is fine), and the query holds only bytes that stay raw.
// Callers use it to match the request's own string without copying it.
func IsCanonical(rawPath, rawQuery string) bool {
	if len(rawPath) == 0 || rawPath[0] != '/' {
		return false
	}
	for i := 0; i < len(rawPath); i++ {
		c := rawPath[i]
		if urlClass[c]&clsPath == 0 {
			return false
		}
		if c == '/' && i+1 < len(rawPath) && (rawPath[i+1] == '/' || rawPath[i+1] == '.' && dotSegment(rawPath[i+1:])) {
			return false
		}
	}
	for i := 0; i < len(rawQuery); i++ {
		if urlClass[rawQuery[i]]&clsQuery == 0 {
			return false
		}
	}
	return true
}

// dotSegment reports whether s, which starts a path segment with '.',
// begins with a dot segment ("." or "..", RFC 3986 3.3) that removal would
// resolve. A segment merely starting with a dot (".well-known") is kept.
func dotSegment(s string) bool {
	n := 1
	if len(s) > 1 && s[1] == '.' {
		n = 2
	}
	return len(s) == n || s[n] == '/'
}

var urlClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsUnreserved | clsPath | clsQuery
		t[c-'a'+'A'] = clsUnreserved | clsPath | clsQuery
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsUnreserved | clsPath | clsQuery
	}
	for _, c := range "-._~" {
		t[c] = clsUnreserved | clsPath | clsQuery
	}
	// sub-delims, ':' and '@' (pchar); '*' and '$' are sub-delims too but
	// are operators in patterns.
	for _, c := range "!&'()+,;=:@" {
		t[c] = clsPath | clsQuery
	}
	t['/'] = clsPath | clsQuery
	t['?'] = clsQuery
	t['*'] = clsOperator
	t['$'] = clsOperator
	return t
}()

const upperHex = "0123456789ABCDEF"

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// escapeAt reports the byte encoded by a valid escape at s[i] ('%' XX).
func escapeAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	hi, ok1 := unhex(s[i+1])
	lo, ok2 := unhex(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

func appendEscaped(dst []byte, c byte) []byte {
	return append(dst, '%', upperHex[c>>4], upperHex[c&15])
}

// appendPath appends the canonical path of p. wild keeps '*' raw (pattern
// mode). Segments are built directly in dst, and a ".." segment truncates
// dst back to the previous '/', so the work is linear in len(p).
func appendPath(dst []byte, p string, wild bool) []byte {
	root := len(dst) // index of the root '/'
	dst = append(dst, '/')
	seg := len(dst) // start of the current segment in dst
	for i := 0; ; {
		if i >= len(p) {
			return endSegment(dst, root, seg, false)
		}
		c := p[i]
		if c == '/' {
			dst = endSegment(dst, root, seg, true)
			seg = len(dst)
			i++
			continue
		}
		if c == '%' {
			if v, ok := escapeAt(p, i); ok {
				i += 3
				switch {
				case v == '/':
					// Decoded before dot-segment removal: see the doc.
					dst = endSegment(dst, root, seg, true)
					seg = len(dst)
				case urlClass[v]&clsUnreserved != 0:
					dst = append(dst, v)
				default:
					dst = appendEscaped(dst, v)
				}
				continue
			}
			dst = append(dst, "%25"...)
			i++
			continue
		}
		cls := urlClass[c]
		if cls&clsPath != 0 || (wild && c == '*') {
			dst = append(dst, c)
		} else {
			dst = appendEscaped(dst, c)
		}
		i++
	}
}

// endSegment finishes the segment dst[seg:]: "." is dropped, ".." also
// drops the previous segment (never the root), an empty segment collapses
// into the '/' before it, and any other segment is kept, followed by '/'
// when a separator ends it.
func endSegment(dst []byte, root, seg int, slash bool) []byte {
	s := dst[seg:]
	switch {
	case len(s) == 0:
		return dst
	case len(s) == 1 && s[0] == '.':
		return dst[:seg]
	case len(s) == 2 && s[0] == '.' && s[1] == '.':
		dst = dst[:seg] // ends with the '/' before ".."
		if seg-1 > root {
			j := bytes.LastIndexByte(dst[root:seg-1], '/')
			dst = dst[:root+j+1]
		}
		return dst
	}
	if slash {
		dst = append(dst, '/')
	}
	return dst
}

// appendQuery appends the canonical query q: escape normalisation only.
func appendQuery(dst []byte, q string, wild bool) []byte {
	for i := 0; i < len(q); {
		c := q[i]
		if c == '%' {
			if v, ok := escapeAt(q, i); ok {
				if urlClass[v]&clsUnreserved != 0 {
					dst = append(dst, v)
				} else {
					dst = appendEscaped(dst, v)
				}
				i += 3
				continue
			}
			dst = append(dst, "%25"...)
			i++
			continue
		}
		if urlClass[c]&clsQuery != 0 || (wild && c == '*') {
			dst = append(dst, c)
		} else {
			dst = appendEscaped(dst, c)
		}
		i++
	}
	return dst
}
