package main

import (
	"fmt"
	"slices"
	"strings"
)

// init checks its own work: it reads the robots.txt the declaration
// renders and asks, for every agent either file names and for one neither
// names, which paths the two files decide differently. A path robots.txt
// can decide differently is one a pattern reaches: each pattern's
// instances (its '*' filled in, its '$' dropped), a path below and a
// path beside each, with and without a query.

// verdictDiff is one agent/path pair two robots.txt files decide
// differently.
type verdictDiff struct {
	agent      string // "" for an agent neither file names
	path       string
	wasAllowed bool        // the verdict of the first file
	was, is    *robotsRule // the rules that decided, nil for none
}

// robotsAgents are the product tokens the files' groups name, each once
// (case aside, RFC 9309 2.2.1), then "" for an agent none names.
func robotsAgents(files ...*robotsFile) []string {
	var names []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, g := range f.groups {
			for _, a := range g.agents {
				if k := strings.ToLower(a.token); !a.global && k != "" && !seen[k] {
					seen[k] = true
					names = append(names, a.token)
				}
			}
		}
	}
	return append(names, "")
}

// robotsProbes are the paths on which rule lists can differ, sorted:
// see above. Only paths of characters a URL carries as they are are
// kept, '%' only before two hex digits, so that a crawler reads the same
// path.
func robotsProbes(lists ...[]robotsRule) []string {
	set := map[string]bool{"/": true, "/x": true}
	add := func(p string) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		for i := 0; i < len(p); i++ {
			if !isProbeChar(p[i]) || p[i] == '%' && (i+2 >= len(p) || !isHexDigit(p[i+1]) || !isHexDigit(p[i+2])) {
				return // a URL can carry it only otherwise
			}
		}
		set[p] = true
	}
	for _, rules := range lists {
		for _, r := range rules {
			base := strings.TrimSuffix(r.pattern, "$")
			for _, fill := range []string{"", "x", "x/y"} {
				q := strings.ReplaceAll(base, "*", fill)
				add(q)
				add(q + "x")
				add(q + "/x")
				add(q + "?q=1")
				if len(q) > 1 {
					add(q[:len(q)-1])
				}
			}
		}
	}
	probes := make([]string, 0, len(set))
	for p := range set {
		probes = append(probes, p)
	}
	slices.Sort(probes)
	return probes
}

// isProbeChar: unreserved, sub-delims, ':', '@', '/', '?' and '%' (RFC
// 3986 3.3, 3.4), which a URL carries unchanged.
func isProbeChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()+,;=:@/?%", c) >= 0
}

// maxCompareWork bounds the work of one comparison (path bytes and rules
// tried): a file of
// 500 KiB can hold tens of thousands of groups and rules, and init must
// answer. Past it init stops and says so (robotsDiffs' complete).
const maxCompareWork = 50_000_000

// robotsDiffs are the pairs of agents and paths that a and b decide
// differently, by agent in the order of agents: for each agent, the paths
// the rules either file gives it reach (robotsProbes). Agents that both
// files give the same rules are decided once. complete is false when
// the work bound stopped the comparison: the pairs found are then some of
// them.
func robotsDiffs(a, b *robotsFile, agents []string) (diffs []verdictDiff, complete bool) {
	classes := map[string][]verdictDiff{} // by rulesKey, with no agent
	work := 0
	for _, agent := range agents {
		ra, _ := a.rulesFor(agent)
		rb, _ := b.rulesFor(agent)
		key := rulesKey(ra) + "\x00" + rulesKey(rb)
		ds, ok := classes[key]
		if !ok {
			xa, xb := indexRules(ra), indexRules(rb)
			for _, p := range robotsProbes(ra, rb) {
				wa, na := xa.match(p)
				wb, nb := xb.match(p)
				if work += len(p) + na + nb; work > maxCompareWork {
					return diffs, false
				}
				allowA, allowB := wa == nil || wa.allow, wb == nil || wb.allow
				if allowA != allowB {
					ds = append(ds, verdictDiff{path: p, wasAllowed: allowA, was: wa, is: wb})
				}
			}
			classes[key] = ds
		}
		for _, d := range ds {
			d.agent = agent
			diffs = append(diffs, d)
		}
	}
	return diffs, true
}

// rulesKey identifies a rule list: its rules' lines and kinds, which two
// lists read from one file share exactly when they are the same rules.
func rulesKey(rules []robotsRule) string {
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "%d%t,", r.line, r.allow)
	}
	return b.String()
}

// ruleIndex finds the rules that can match a path by their literal
// prefix (the pattern up to its first '*' or '$'): only a rule whose
// prefix is a prefix of the path can match it.
type ruleIndex struct {
	rules    []robotsRule
	byPrefix map[string][]int
}

func indexRules(rules []robotsRule) *ruleIndex {
	x := &ruleIndex{rules: rules, byPrefix: map[string][]int{}}
	for i, r := range rules {
		lit := r.pattern
		if j := strings.IndexAny(lit, "*$"); j >= 0 {
			lit = lit[:j]
		}
		x.byPrefix[lit] = append(x.byPrefix[lit], i)
		if j := strings.LastIndexByte(r.pattern, '/'); r.allow && j >= 0 && strings.HasPrefix(r.pattern[j:], "/index.htm") {
			// robotsMatch's ".../index.html" also allows ".../".
			dir := r.pattern[:j+1]
			if k := strings.IndexAny(dir, "*$"); k >= 0 {
				dir = dir[:k]
			}
			x.byPrefix[dir] = append(x.byPrefix[dir], i)
		}
	}
	return x
}

// match is robotsMatch on the rules that can match path, in their order,
// and how many were tried.
func (x *ruleIndex) match(path string) (*robotsRule, int) {
	var cand []int
	for i := 0; i <= len(path); i++ {
		cand = append(cand, x.byPrefix[path[:i]]...)
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	rules := make([]robotsRule, len(cand))
	for i, j := range cand {
		rules[i] = x.rules[j]
	}
	r := robotsMatch(rules, path)
	if r != nil {
		// The rule itself, not the copy: its line and pattern are the same.
		for _, j := range cand {
			if x.rules[j].line == r.line && x.rules[j].allow == r.allow {
				return &x.rules[j], len(cand)
			}
		}
	}
	return r, len(cand)
}
