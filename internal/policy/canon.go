package policy

import (
	"strings"
)

// A request target has more than one reading. chi routes the escaped
// path as sent (r.URL.RawPath); net/http.ServeMux routes the escaped path
// cleaned and unescaped segment by segment; an RFC 9309 matcher compares
// the path with only its unreserved escapes decoded. agentready decides on
// every reading a router may route (see NormalPath for the targets whose
// readings cannot be reconciled, which are refused instead):
//
//   - Canonical is the RFC 9309 2.2.2 reading: unreserved escapes decoded,
//     the others kept (upper-cased), so "/a%3Bb" is not "/a;b";
//   - Decoded is the reading of a router that unescapes the path
//     (ServeMux): escapes of the sub-delims, ':' and '@', which may appear
//     raw in a path segment, are decoded too, so "/a%3Bb" is "/a;b".
//
// The two differ only when the path holds such an escape (HasDecodable);
// then a request is allowed only if both readings are.

// Canonical appends the RFC 9309 reading of a request path and query to
// dst and returns the extended buffer, so a caller can reuse one buffer
// per request (no allocation when dst has the capacity). rawPath is the
// escaped path as sent (r.URL.EscapedPath()), rawQuery the raw query
// (r.URL.RawQuery).
//
//   - escapes of unreserved characters (ALPHA DIGIT - . _ ~) are decoded
//     (RFC 3986 6.2.2.2, RFC 9309 2.2.2), other escapes are upper-cased
//     (RFC 3986 6.2.2.1);
//   - a '%' that does not start a valid escape is encoded as %25, so the
//     output is itself canonical (Canonical is idempotent) and a bare '%'
//     can never combine with later characters into a different escape;
//   - bytes that may not appear raw in a path or query (controls, space,
//     non-ASCII, '#', and '?' inside the path) are percent-encoded, and so
//     are '*' and '$', which are pattern operators: a literal '*' in a URL
//     is matched by %2A in a rule (RFC 9309 2.2.3);
//   - a non-empty query is appended as "?query" after the same escape
//     normalisation, so rules can see it: Google's "/*.php$" does not
//     match /filename.php?parameters.
//
// Nothing else changes: dot segments are not removed, empty segments are
// not collapsed, %2F is not decoded. Those are what routers disagree on,
// and NormalPath refuses them before any rule is consulted; patterns
// holding them are refused at construction (pathpattern.Check).
// Canonical never fails: every input has a canonical form. Its cost is
// linear in the input; Match bounds what it examines (see MaxPathLen).
func Canonical(dst []byte, rawPath, rawQuery string) []byte {
	return appendTarget(dst, rawPath, rawQuery, false)
}

// Decoded is Canonical with the escapes of the sub-delims ("!&'()+,;="),
// ':' and '@' in the path decoded as well: the path a router that unescapes
// reads (net/http.ServeMux, RFC 3986 2.2 says such escapes are not
// equivalent to the characters, but Go's routers treat them so). '*' and
// '$' stay encoded: they are pattern operators.
func Decoded(dst []byte, rawPath, rawQuery string) []byte {
	return appendTarget(dst, rawPath, rawQuery, true)
}

func appendTarget(dst []byte, rawPath, rawQuery string, decode bool) []byte {
	if len(rawPath) == 0 || rawPath[0] != '/' {
		dst = append(dst, '/')
	}
	mode := uint8(0)
	if decode {
		mode = modeDecode
	}
	dst = appendEscapes(dst, rawPath, clsPath, mode)
	if rawQuery != "" {
		dst = append(dst, '?')
		dst = appendEscapes(dst, rawQuery, clsQuery, 0)
	}
	return dst
}

// HasDecodable reports whether Decoded and Canonical differ for rawPath:
// whether it holds an escape of a sub-delim, ':' or '@'.
func HasDecodable(rawPath string) bool {
	for i := strings.IndexByte(rawPath, '%'); i >= 0; {
		if v, ok := escapeAt(rawPath, i); ok && urlClass[v]&clsDecodable != 0 {
			return true
		}
		j := strings.IndexByte(rawPath[i+1:], '%')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// canonicalPattern is Canonical for an Allow/Disallow pattern, which
// pathpattern.Check has accepted (no encoded '/', no dot or empty
// segments): '*' stays a wildcard, a trailing '$' stays the end anchor,
// and the query part (after the first '?') is normalised like a request's
// query. Nothing is resolved or collapsed: a pattern is matched as
// published (RFC 9309 2.2.2).
func canonicalPattern(p string) string {
	anchored := len(p) > 0 && p[len(p)-1] == '$'
	if anchored {
		p = p[:len(p)-1]
	}
	path, query, hasQuery := strings.Cut(p, "?")
	b := make([]byte, 0, len(p)+8)
	b = appendEscapes(b, path, clsPath, modeWild)
	if hasQuery {
		// A '?' with nothing after it still matches only targets with a
		// query ("/search?" is not "/search"): nothing is dropped.
		b = append(b, '?')
		b = appendEscapes(b, query, clsQuery, modeWild)
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
	clsDecodable              // sub-delims, ':' and '@': decoded by Decoded
)

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
		t[c] = clsPath | clsQuery | clsDecodable
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

// Modes of appendEscapes.
const (
	modeWild   = 1 << iota // keep '*' raw (patterns)
	modeDecode             // decode escapes of clsDecodable bytes (Decoded)
)

// appendEscapes appends s with its escapes normalised: a byte of class raw
// stays raw, an escape of an unreserved byte (or, with modeDecode, of a
// decodable one) is decoded, any other escape is upper-cased, any other
// byte is encoded, and a '%' that starts no valid escape becomes %25.
func appendEscapes(dst []byte, s string, raw uint8, mode uint8) []byte {
	decode := uint8(clsUnreserved)
	if mode&modeDecode != 0 {
		decode |= clsDecodable
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c == '%' {
			if v, ok := escapeAt(s, i); ok {
				if urlClass[v]&decode != 0 {
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
		if urlClass[c]&raw != 0 || (mode&modeWild != 0 && c == '*') {
			dst = append(dst, c)
		} else {
			dst = appendEscaped(dst, c)
		}
		i++
	}
	return dst
}
