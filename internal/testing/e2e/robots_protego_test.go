package e2e_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/testing/testtools"
)

// protegoDeviations are how Protego 0.2.1 (Debian's python3-protego,
// protego.py, read in /usr/lib/python3/dist-packages) reads a robots.txt
// otherwise than RFC 9309. The rest of its reading is the RFC's: groups
// naming one agent merged (2.2.1); '*' and a final '$' as 2.2.3 says;
// the longest pattern wins, Allow on a tie (2.2.2); an empty Disallow
// matches nothing; escapes of unreserved characters in the path decoded,
// the query part of the path matched.
var protegoDeviations = []robotsDeviation{
	{"P1", "a group applies when its User-agent value is a substring of the product token, the longest such value winning (_RuleSet.applies_to), where RFC 9309 2.2.1 matches the product token",
		protegoOtherGroup},
	{"P2", "a record other than User-agent, Allow and Disallow between User-agent lines ends the group's agents (previous_rule_field), where RFC 9309 2.2.4 lets no other record interfere",
		func(f robotsFile, _ robotsQuery) bool { return otherRecordAmongAgents(f) }},
	{"P3", "a rule with '$' is also read with each '$' a literal character (%24), a longer pattern and so preferred, where RFC 9309 2.2.3 makes a final '$' the end of the path",
		func(f robotsFile, q robotsQuery) bool {
			return (strings.Contains(q.path, "$") || strings.Contains(strings.ToLower(q.path), "%24")) &&
				slices.ContainsFunc(ruleValues(f, false), func(v string) bool { return strings.Contains(v, "$") })
		}},
	{"P4", "an Allow of a path ending in /index.html also allows its directory, exactly (_RuleSet.allow), where RFC 9309 2.2.2 allows what the pattern matches",
		func(f robotsFile, _ robotsQuery) bool {
			// Any "index" errs towards true: the pattern is tested after
			// Protego's unquoting and quoting.
			return slices.ContainsFunc(ruleValues(f, true), func(v string) bool { return strings.Contains(strings.ToLower(v), "index") })
		}},
	{"P5", "a pattern not starting with '/' is read with one before it (_enforce_path), where RFC 9309 2.2.2's path-pattern starts with '/' and such a line is no rule",
		func(f robotsFile, _ robotsQuery) bool {
			return slices.ContainsFunc(ruleValues(f, false), func(v string) bool { return v != "" && !strings.HasPrefix(v, "/") })
		}},
	{"P6", "percent-encodings of unreserved characters in the query are compared as written (_quote_path and _quote_pattern decode the path only), where RFC 9309 2.2.2 decodes them in the URI",
		func(f robotsFile, q robotsQuery) bool {
			query := func(s string) string { _, after, _ := strings.Cut(s, "?"); return after }
			return escapesUnreserved(query(q.path)) ||
				slices.ContainsFunc(ruleValues(f, false), func(v string) bool { return escapesUnreserved(query(v)) })
		}},
	{"P7", "misspelt records (Dissallow, Useragent, ...) and lines without ':' that start with a record's name are read as that record, where RFC 9309 2.2 reads the records it names, with a ':'",
		func(f robotsFile, _ robotsQuery) bool {
			return slices.ContainsFunc(f.recs, func(r robotsRecord) bool {
				return !r.colon || slices.Contains([]string{"dissallow", "dissalow", "disalow", "diasllow", "disallaw", "useragent", "user agent"}, r.key)
			})
		}},
}

// protegoOtherGroup (P1) says whether the groups whose rules Protego
// applies to q's agent are not those RFC 9309 2.2.1 applies: the groups
// naming the longest User-agent value that is a substring of the product
// token ('*' counting 1, the first value read winning a tie), where the
// RFC takes those naming the token, else those naming '*'. Groups are
// told apart as RFC 9309 2.1 does (a User-agent line after a rule starts
// one), which is Protego's way where P2 does not reach the file.
func protegoOtherGroup(f robotsFile, q robotsQuery) bool {
	token := strings.ToLower(strings.TrimSpace(q.agent))
	best, score := "", 0
	for _, v := range f.order {
		// Protego also reads "Claude*" as "claude": the value with '*'
		// dropped, of the same groups, comes right after it.
		for _, v := range []string{v, strings.ReplaceAll(v, "*", "")} {
			s := 0
			switch {
			case v == "*":
				s = 1
			case v != "" && strings.Contains(token, v):
				s = len(v)
			}
			if s > score {
				best, score = v, s
			}
		}
	}
	rfc := f.groups[token]
	if rfc == nil {
		rfc = f.groups["*"]
	}
	return !slices.Equal(protegoGroups(f, best), rfc)
}

// protegoGroups are the groups whose rules Protego's rule set for the
// value v holds: those naming v, and those naming v with '*'s in it.
func protegoGroups(f robotsFile, v string) []int {
	var gs []int
	for _, w := range f.order {
		if w == v || w != "*" && strings.Contains(w, "*") && strings.ReplaceAll(w, "*", "") == v {
			gs = append(gs, f.groups[w]...)
		}
	}
	slices.Sort(gs)
	return slices.Compact(gs)
}

// protegoVerdicts runs testdata/protego/verdicts.py with py, a Python
// that imports Protego.
func protegoVerdicts(py string) parserVerdictsFunc {
	return func(t *testing.T, body string, qs []robotsQuery) []bool {
		t.Helper()
		return parserVerdicts(t, exec.Command(py, "testdata/protego/verdicts.py"), body, qs)
	}
}

// TestProtego: Protego (0.2.1, Debian's python3-protego, the robots.txt
// parser of Scrapy) reads the robots.txt agentready generates as
// agentready enforces it, on the pairs the urllib.robotparser comparison
// asks about, for examples/stdlib and every other case of robotsCases;
// none of its deviations (protegoDeviations) reaches a pair of these
// files: agentready names every agent it gives rules in one group (so a
// value Protego takes by substring is of the group the RFC takes), writes
// a group's User-agent lines one after another and its usage lines after
// the rules, every pattern from '/', no "index" and no escape in a query,
// and no path asked holds a '$'.
func TestProtego(t *testing.T) {
	py, missing := testtools.ProtegoPython()
	testtools.Need(t, missing)
	n := compareParser(t, "Protego", protegoDeviations, protegoVerdicts(py))
	t.Logf("%d agent/path pairs compared in all, every one read as agentready enforces it", n)
}

// TestProtegoDeviations: each of protegoDeviations is real, shown on a
// file where Protego's verdict is not RFC 9309's.
func TestProtegoDeviations(t *testing.T) {
	py, missing := testtools.ProtegoPython()
	testtools.Need(t, missing)
	checkDeviations(t, "Protego", protegoDeviations, []robotsDeviationCase{
		// RFC 9309: ClaudeBot has no group of its own, so "*"'s or none.
		{"P1", "User-agent: bot\nDisallow: /\n", "ClaudeBot", "/x", true},
		{"P1", "User-agent: *\nAllow: /\n\nUser-agent: claude\nDisallow: /\n", "ClaudeBot", "/x", true},
		// RFC 9309: a and b are one group; Protego leaves a without
		// rules.
		{"P2", "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		{"P2", "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n", "a", "/x", false},
		{"P3", "User-agent: *\nDisallow: /a$\n", "a", "/a$b", true},
		{"P4", "User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "a", "/d/", false},
		{"P5", "User-agent: *\nDisallow: x\n", "a", "/x", true},
		{"P6", "User-agent: *\nDisallow: /a?q=%70\n", "a", "/a?q=p", false},
		{"P6", "User-agent: *\nDisallow: /a?q=p\n", "a", "/a?q=%70", false},
		{"P7", "User-agent: *\nDissallow: /x\n", "a", "/x", true},
		{"P7", "user-agent a\nDisallow: /x\n", "a", "/x", true},
	}, protegoVerdicts(py))
}
