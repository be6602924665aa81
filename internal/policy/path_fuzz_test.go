package policy

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/format/pathpattern"
)

// refRule and refMatch are the reference the fuzzer compares Match with:
// a linear scan over every rule, a position-set wildcard matcher written
// straight from the definition, and the same precedence.
type refRule struct {
	pattern string // canonical
	allow   bool
	index   int
}

func refMatch(rules []refRule, path string) (refRule, bool) {
	best := -1
	for i, r := range rules {
		if !refWildcard(r.pattern, path) {
			continue
		}
		b := rules[max(best, 0)]
		if best < 0 || len(r.pattern) > len(b.pattern) ||
			len(r.pattern) == len(b.pattern) && (r.allow && !b.allow || r.allow == b.allow && r.index < b.index) {
			best = i
		}
	}
	if best < 0 {
		return refRule{}, false
	}
	return rules[best], true
}

// refWildcard: reach[i] says the pattern read so far can end at path[i].
// The pattern is anchored at the start; it matches a prefix of the path
// unless it ends with '$'.
func refWildcard(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	reach := make([]bool, len(path)+1)
	reach[0] = true
	for k := 0; k < len(pattern); k++ {
		next := make([]bool, len(path)+1)
		for i, ok := range reach {
			if !ok {
				continue
			}
			if pattern[k] == '*' {
				for j := i; j <= len(path); j++ {
					next[j] = true
				}
			} else if i < len(path) && path[i] == pattern[k] {
				next[i+1] = true
			}
		}
		reach = next
	}
	if anchored {
		return reach[len(path)]
	}
	for _, ok := range reach {
		if ok {
			return true
		}
	}
	return false
}

func TestRefWildcard(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"/a*b$", "/axxb", true}, {"/a*b$", "/axxbc", false}, {"/a*b", "/axxbc", true},
		{"*", "", true}, {"/$", "/", true}, {"/$", "/a", false}, {"/a", "/", false},
	} {
		if got := refWildcard(tt.pattern, tt.path); got != tt.want {
			t.Errorf("refWildcard(%q, %q) = %v", tt.pattern, tt.path, got)
		}
	}
}

// fuzzAlphabet keeps fuzzed rules and paths in a space where they often
// overlap: separators, dots, escapes, wildcards and a query.
const fuzzAlphabet = "/ab.*$?%2eF"

func fuzzString(s string, n int) string {
	b := make([]byte, 0, min(len(s), n))
	for i := 0; i < len(s) && len(b) < n; i++ {
		b = append(b, fuzzAlphabet[int(s[i])%len(fuzzAlphabet)])
	}
	return string(b)
}

// fuzzPattern makes a valid pattern: a leading '/' or '*', '$' only last.
func fuzzPattern(s string) string {
	p := fuzzString(s, 24)
	anchored := strings.HasSuffix(p, "$")
	p = strings.ReplaceAll(p, "$", "")
	if p == "" || p[0] != '/' && p[0] != '*' {
		p = "/" + p
	}
	if anchored {
		p += "$"
	}
	return p
}

// FuzzMatch: for random rule sets and paths, Match and the reference
// agree on whether a rule applies and which one.
func FuzzMatch(f *testing.F) {
	f.Add("/a\n*b$\n/a*.$\n/%2e", "/a/b.", uint64(0b1010))
	f.Add("/\n/$\n/a/b\n*", "/a/b?x", uint64(0b0110))
	f.Add("/a*a*a*b\n/a*b$\n/*?", "/aaab?b", uint64(0b11))
	f.Fuzz(func(t *testing.T, spec, rawPath string, allowBits uint64) {
		var allow, disallow []string
		var ref []refRule
		for i, s := range strings.Split(spec, "\n") {
			if i == 40 {
				break
			}
			p := fuzzPattern(s)
			if pathpattern.Check(p) != nil {
				continue // a bare '%': CompileRules must reject it (TestCompileRulesErrors)
			}
			r := refRule{pattern: canonicalPattern(p), allow: allowBits>>(i%64)&1 == 1}
			if r.allow {
				r.index = len(allow)
				allow = append(allow, p)
			} else {
				r.index = len(disallow)
				disallow = append(disallow, p)
			}
			ref = append(ref, r)
		}
		rules, err := CompileRules(allow, disallow)
		if err != nil {
			t.Fatalf("valid patterns rejected: %v", err)
		}
		p, q, _ := strings.Cut(fuzzString(rawPath, 64), "?")
		path := string(Canonical(nil, p, q))

		got, ok := rules.Match(path)
		want, wantOK := refMatch(ref, path)
		if ok != wantOK {
			t.Fatalf("path %q rules allow %q disallow %q: Match ok=%v (%+v), reference ok=%v (%+v)", path, allow, disallow, ok, got, wantOK, want)
		}
		if ok && (got.Pattern != want.pattern || got.Allow != want.allow || got.Index != want.index) {
			t.Fatalf("path %q rules allow %q disallow %q: Match %+v, reference %+v", path, allow, disallow, *got, want)
		}
	})
}

// TestMatchDeepTrie: more nested literal prefixes along one path than
// Match defers (stackNodes), mixed with wildcard rules at every depth.
func TestMatchDeepTrie(t *testing.T) {
	var allow, disallow []string
	var ref []refRule
	for i := 1; i <= 3*stackNodes; i++ {
		lit := "/" + strings.Repeat("a", i)
		wild := "/*" + strings.Repeat("a", i) + "*b"
		allow = append(allow, lit)
		ref = append(ref, refRule{lit, true, len(allow) - 1})
		disallow = append(disallow, wild)
		ref = append(ref, refRule{wild, false, len(disallow) - 1})
	}
	rules := mustRules(t, allow, disallow)
	for n := 0; n <= 3*stackNodes+2; n++ {
		for _, tail := range []string{"", "b", "/b", "?b"} {
			path := "/" + strings.Repeat("a", n) + tail
			got, ok := rules.Match(path)
			want, wantOK := refMatch(ref, path)
			if ok != wantOK || ok && (got.Pattern != want.pattern || got.Allow != want.allow) {
				t.Fatalf("%q: Match %+v %v, reference %+v %v", path, got, ok, want, wantOK)
			}
		}
	}
}
