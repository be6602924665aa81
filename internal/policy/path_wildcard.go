package policy

import "strings"

// wildcard matches the part of a path that follows a rule's literal
// prefix. A pattern is L0 *L1 *L2 ... *Lk with an optional final '$'; L0 is
// the literal prefix (matched by the trie walk) and pieces holds L1..Lk.
//
// Matching is greedy and linear: each middle piece is found at its leftmost
// occurrence after the previous one (leftmost leaves the most room for what
// follows, so greedy never misses a match), and an anchored last piece must
// end the path. Each piece is searched once, so a rule costs O(len(path))
// with strings.Index, whatever the number of stars: "/*a*a*a*a*a*b"
// against 8 KiB of 'a' is a handful of scans, not a backtracking search.
// (gobwas/glob was measured against this for the same job; see
// BenchmarkWildcard and the package documentation.)
type wildcard struct {
	pieces   []string
	star     bool // the pattern has a '*' after its literal prefix
	anchored bool // the pattern ends with '$'
	// any is set when the rest is only stars and no '$' ("/api/*"): every
	// path matches, and Match need not call match.
	any bool
	// endpoint is set for an Endpoint rule (see Rule.Endpoint): the rest is
	// params and literals, then the end of the path or its query. params
	// holds, for each "{param}" after the literal prefix, the literal that
	// follows it ("" for the last).
	endpoint bool
	params   []string
}

// compileWildcard splits a canonical pattern into its literal prefix and
// the matcher of the rest. A '$' is special only as the last byte (pattern
// validation rejects it elsewhere).
func compileWildcard(pattern string) (prefix string, w wildcard) {
	if strings.HasSuffix(pattern, "$") {
		w.anchored = true
		pattern = pattern[:len(pattern)-1]
	}
	i := strings.IndexByte(pattern, '*')
	if i < 0 {
		return pattern, w
	}
	w.star = true
	w.pieces = strings.Split(pattern[i+1:], "*")
	w.any = !w.anchored && strings.Trim(pattern[i:], "*") == ""
	return pattern[:i], w
}

// compileEndpoint splits an Endpoint rule's pattern (a canonical endpoint
// path whose only raw '{' start "{param}" segments) into its literal
// prefix, up to the first param, and the matcher of the rest.
func compileEndpoint(pattern string) (prefix string, w wildcard) {
	w.endpoint = true
	i := strings.IndexByte(pattern, '{')
	if i < 0 {
		return pattern, w
	}
	prefix, rest := pattern[:i], pattern[i:]
	for rest != "" {
		// rest starts with a param segment: "{name}" up to the next '/'.
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		rest = rest[end:]
		lit := rest
		if j := strings.IndexByte(rest, '{'); j >= 0 {
			lit = rest[:j]
		}
		w.params = append(w.params, lit)
		rest = rest[len(lit):]
	}
	return prefix, w
}

// matchEndpoint is match for an Endpoint rule. A param takes the whole
// segment (every byte up to the next '/' or the query) and must take at
// least one; the literal after it starts with '/' or is the end, so taking
// the whole segment never misses a match. The path must then end, or go
// on with its query only.
func (w *wildcard) matchEndpoint(rest string, truncated bool) bool {
	for _, lit := range w.params {
		n := strings.IndexAny(rest, "/?")
		if n < 0 {
			n = len(rest)
		}
		if n == 0 || !strings.HasPrefix(rest[n:], lit) {
			return false
		}
		rest = rest[n+len(lit):]
	}
	if rest == "" {
		// A truncated path goes on past what was seen.
		return !truncated
	}
	return rest[0] == '?'
}

// match reports whether rest (the path after the literal prefix) matches.
// When the path was truncated its end is unknown, so an anchored pattern
// cannot match.
func (w *wildcard) match(rest string, truncated bool) bool {
	if w.endpoint {
		return w.matchEndpoint(rest, truncated)
	}
	if w.anchored && truncated {
		return false
	}
	if !w.star {
		return !w.anchored || rest == ""
	}
	last := len(w.pieces) - 1
	for i, p := range w.pieces {
		if i == last && w.anchored {
			return strings.HasSuffix(rest, p)
		}
		if p == "" {
			continue
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}
