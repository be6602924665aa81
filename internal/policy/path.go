package policy

import (
	"errors"
	"fmt"
	"sort"
)

// MaxPathLen is the number of bytes of a canonical path (query included)
// that Match examines. Paths come from attackers; with the cap, one
// decision costs at most O(candidate rules × MaxPathLen) whatever is sent.
// A longer path is matched on its first MaxPathLen bytes and a '$'-anchored
// rule never matches it (its end was not seen), so a rule that needs to see
// past the cap can be evaded: the enforcing middleware should answer such
// requests 414 URI Too Long before matching. Patterns are far shorter:
// CompileRules accepts at most 2048 bytes (pathpattern.Check).
const MaxPathLen = 8 << 10

// Rule is one compiled Allow or Disallow pattern.
type Rule struct {
	// Pattern is the canonical pattern (see Canonical): what is matched,
	// and whose length in bytes is the rule's precedence.
	Pattern string
	// Allow is true for an Allow rule, false for a Disallow rule.
	Allow bool
	// Index is the rule's position in the allow or disallow slice given to
	// CompileRules (Access.Allow[Index] or Access.Disallow[Index]); for an
	// Endpoint rule, the capability's index in Policy.Capabilities.
	Index int
	// Endpoint marks an Allow rule of draft-car 2.6's implicit access
	// (Policy.Implicit): it admits exactly one capability endpoint path,
	// with or without a query. Pattern is then that path, canonical, not a
	// robots.txt pattern: each "{param}" in it stands for exactly one
	// non-empty path segment (as Policy.Route reads the template), and
	// there is no '*' or '$' (a literal '*' or '$' in the endpoint is
	// %2A or %24). Only Compile makes such rules; CompileRules never
	// does, so declared patterns keep robots.txt syntax and nothing more.
	Endpoint bool
}

// Rules is an immutable, concurrency-safe set of path rules with robots.txt
// precedence (see the package documentation). The zero value and nil have
// no rules.
type Rules struct {
	rules []Rule     // in precedence order
	tails []wildcard // tails[i] matches the part of a path after rules[i]'s literal prefix
	root  node
}

// CompileRules compiles Allow and Disallow patterns. Every invalid pattern
// is reported, each with its list and index, in one joined error.
func CompileRules(allow, disallow []string) (*Rules, error) {
	var errs []error
	r := &Rules{}
	add := func(list string, pats []string, isAllow bool) {
		for i, p := range pats {
			if err := checkPattern(p); err != nil {
				errs = append(errs, fmt.Errorf("%s[%d] %q: %w", list, i, p, err))
				continue
			}
			r.rules = append(r.rules, Rule{Pattern: canonicalPattern(p), Allow: isAllow, Index: i})
		}
	}
	add("allow", allow, true)
	add("disallow", disallow, false)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r.build()
	return r, nil
}

// endpointRules are draft-car 2.6's implicit rules: "Disallow: /" and one
// Endpoint rule per capability endpoint path (paths[i] is capability i's
// canonical endpoint path, "" for none).
func endpointRules(paths []string) *Rules {
	r := &Rules{rules: []Rule{{Pattern: "/", Index: 0}}}
	for i, p := range paths {
		if p != "" {
			r.rules = append(r.rules, Rule{Pattern: p, Allow: true, Index: i, Endpoint: true})
		}
	}
	r.build()
	return r
}

// build orders the rules by precedence and indexes them.
func (r *Rules) build() {
	sort.Slice(r.rules, func(i, j int) bool { return precedes(&r.rules[i], &r.rules[j]) })
	r.tails = make([]wildcard, len(r.rules))
	for i := range r.rules {
		var prefix string
		var tail wildcard
		if r.rules[i].Endpoint {
			prefix, tail = compileEndpoint(r.rules[i].Pattern)
		} else {
			prefix, tail = compileWildcard(r.rules[i].Pattern)
		}
		r.tails[i] = tail
		r.root.insert(prefix, int32(i))
	}
	// Rules were inserted in precedence order, so every node's list is in
	// precedence order too.
}

// precedes is the total precedence order: the longer pattern first, Allow
// first on equal length (RFC 9309 2.2.2: "the allow rule SHOULD be used"),
// then the lower Index, so exactly one rule wins.
func precedes(a, b *Rule) bool {
	if len(a.Pattern) != len(b.Pattern) {
		return len(a.Pattern) > len(b.Pattern)
	}
	if a.Allow != b.Allow {
		return a.Allow
	}
	return a.Index < b.Index
}

// Outranks reports whether r wins over o where both match a path (RFC
// 9309 2.2.2: the longer pattern, Allow on equal length).
func (r *Rule) Outranks(o *Rule) bool { return precedes(r, o) }

// Len is the number of rules.
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.rules)
}

// List returns a copy of the rules in precedence order.
func (r *Rules) List() []Rule {
	if r == nil {
		return nil
	}
	return append([]Rule(nil), r.rules...)
}

// stackNodes is how many matching trie nodes Match defers so that it can
// try the longest literal prefixes first; deeper nodes are tried at once.
const stackNodes = 16

// Match returns the rule that decides canonicalPath (the output of
// Canonical), or ok == false when no rule matches: no decision, the caller
// decides. The returned rule is shared and must not be modified.
//
// Only rules whose literal prefix (the pattern up to its first '*' or '$')
// is a prefix of the path are examined: a walk down a radix trie of the
// prefixes. Match does not allocate.
func (r *Rules) Match(canonicalPath string) (rule *Rule, ok bool) {
	if r == nil || len(r.rules) == 0 {
		return nil, false
	}
	path, truncated := canonicalPath, false
	if len(path) > MaxPathLen {
		path, truncated = path[:MaxPathLen], true
	}
	best := int32(-1)
	// Deeper nodes hold longer literal prefixes, so their rules tend to be
	// longer and to win: trying them first lets most shallow rules (such as
	// "/*.php$" at the root) be skipped without running their wildcard.
	var stack [stackNodes]struct {
		n   *node
		pos int
	}
	sp := 0
	n, pos := &r.root, 0
	for {
		if len(n.rules) > 0 {
			if sp < len(stack) {
				stack[sp].n, stack[sp].pos = n, pos
				sp++
			} else {
				best = r.tryNode(n, path[pos:], truncated, best)
			}
		}
		if pos == len(path) {
			break
		}
		c := n.child(path[pos])
		if c == nil {
			break
		}
		// child matched the label's first byte; a one-byte label ("/" of
		// most tries) needs no further comparison.
		if l := c.label; len(l) > 1 && (len(path)-pos < len(l) || path[pos+1:pos+len(l)] != l[1:]) {
			break
		}
		n, pos = c, pos+len(c.label)
	}
	for sp > 0 {
		sp--
		best = r.tryNode(stack[sp].n, path[stack[sp].pos:], truncated, best)
	}
	if best < 0 {
		return nil, false
	}
	return &r.rules[best], true
}

// tryNode tries n's rules, whose literal prefix has been consumed (rest is
// the remainder of the path), and returns the better of best and the first
// of them that matches. Rule indices are precedence ranks, so a rule can
// only win if its index is below best.
func (r *Rules) tryNode(n *node, rest string, truncated bool, best int32) int32 {
	for _, i := range n.rules {
		if best >= 0 && i > best {
			return best
		}
		if t := &r.tails[i]; t.any || t.match(rest, truncated) {
			return i
		}
	}
	return best
}
