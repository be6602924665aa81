package main

import (
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

// robotsProbes are the paths on which the files' rules can differ,
// sorted: see above. Only paths of characters a URL carries as they are
// are kept, '%' only before two hex digits, so that a crawler reads the
// same path.
func robotsProbes(files ...*robotsFile) []string {
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
	for _, f := range files {
		for _, g := range f.groups {
			for _, r := range g.rules {
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

// robotsDiffs are the pairs of agents and probes that a and b decide
// differently, by agent in the order of agents.
func robotsDiffs(a, b *robotsFile, agents, probes []string) []verdictDiff {
	var diffs []verdictDiff
	for _, agent := range agents {
		ra, _ := a.rulesFor(agent)
		rb, _ := b.rulesFor(agent)
		for _, p := range probes {
			wa, wb := robotsMatch(ra, p), robotsMatch(rb, p)
			allowA, allowB := wa == nil || wa.allow, wb == nil || wb.allow
			if allowA != allowB {
				diffs = append(diffs, verdictDiff{agent: agent, path: p, wasAllowed: allowA, was: wa, is: wb})
			}
		}
	}
	return diffs
}
