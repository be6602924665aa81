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

// match reports whether rest (the path after the literal prefix) matches.
// When the path was truncated its end is unknown, so an anchored pattern
// cannot match.
func (w *wildcard) match(rest string, truncated bool) bool {
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
