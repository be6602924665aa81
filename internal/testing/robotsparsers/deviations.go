package robotsparsers

import (
	"slices"
	"strings"
)

// Deviation is one way a parser reads a robots.txt otherwise than RFC
// 9309. Reaches says whether a pair of a file may be read otherwise by
// it: it errs only towards true, so that false means the pair is read as
// RFC 9309 reads it, as far as this deviation goes.
type Deviation struct {
	ID, Says string
	Reaches  func(f File, q Query) bool
}

// NpmDeviations are how robots-parser 3.0.1 (Robots.js, read in
// node_modules) reads a robots.txt otherwise than RFC 9309. The rest of
// its reading is the RFC's: a group's User-agent values matched to the
// product token exactly, case-insensitively, after "/version" is cut
// (2.2.1); groups naming one agent merged, "*" read only when none
// names it; '*' and a final '$' as 2.2.3 says, by Google's algorithm;
// the longest pattern wins, Allow on a tie (2.2.2); an empty Disallow
// matches nothing; the query is part of the path matched.
var NpmDeviations = []Deviation{
	{"N1", "a record other than User-agent, Allow and Disallow between User-agent lines ends the group's agents (parseRobots' isNoneUserAgentState), where RFC 9309 2.2.4 lets no other record interfere",
		func(f File, _ Query) bool { return otherRecordAmongAgents(f) }},
	{"N2", "percent-encodings of unreserved characters are compared as written, in the path and in the patterns (urlEncodeToUpper only uppercases them), where RFC 9309 2.2.2 decodes them first",
		func(f File, q Query) bool {
			return escapesUnreserved(q.Path) || slices.ContainsFunc(ruleValues(f, false), escapesUnreserved)
		}},
}

// ProtegoDeviations are how Protego 0.2.1 (Debian's python3-protego,
// protego.py, read in /usr/lib/python3/dist-packages) reads a robots.txt
// otherwise than RFC 9309. The rest of its reading is the RFC's: groups
// naming one agent merged (2.2.1); '*' and a final '$' as 2.2.3 says;
// the longest pattern wins, Allow on a tie (2.2.2); an empty Disallow
// matches nothing; escapes of unreserved characters in the path decoded,
// the query part of the path matched.
var ProtegoDeviations = []Deviation{
	{"P1", "a group applies when its User-agent value is a substring of the product token, the longest such value winning (_RuleSet.applies_to), where RFC 9309 2.2.1 matches the product token",
		protegoOtherGroup},
	{"P2", "a record other than User-agent, Allow and Disallow between User-agent lines ends the group's agents (previous_rule_field), where RFC 9309 2.2.4 lets no other record interfere",
		func(f File, _ Query) bool { return otherRecordAmongAgents(f) }},
	{"P3", "a rule with '$' is also read with each '$' a literal character (%24), a longer pattern and so preferred, where RFC 9309 2.2.3 makes a final '$' the end of the path",
		func(f File, q Query) bool {
			return (strings.Contains(q.Path, "$") || strings.Contains(strings.ToLower(q.Path), "%24")) &&
				slices.ContainsFunc(ruleValues(f, false), func(v string) bool { return strings.Contains(v, "$") })
		}},
	{"P4", "an Allow of a path ending in /index.html also allows its directory, exactly (_RuleSet.allow), where RFC 9309 2.2.2 allows what the pattern matches",
		func(f File, _ Query) bool {
			// Any "index" errs towards true: the pattern is tested after
			// Protego's unquoting and quoting.
			return slices.ContainsFunc(ruleValues(f, true), func(v string) bool { return strings.Contains(strings.ToLower(v), "index") })
		}},
	{"P5", "a pattern not starting with '/' is read with one before it (_enforce_path), where RFC 9309 2.2.2's path-pattern starts with '/' and such a line is no rule",
		func(f File, _ Query) bool {
			return slices.ContainsFunc(ruleValues(f, false), func(v string) bool { return v != "" && !strings.HasPrefix(v, "/") })
		}},
	{"P6", "percent-encodings of unreserved characters in the query are compared as written (_quote_path and _quote_pattern decode the path only), where RFC 9309 2.2.2 decodes them in the URI",
		func(f File, q Query) bool {
			query := func(s string) string { _, after, _ := strings.Cut(s, "?"); return after }
			return escapesUnreserved(query(q.Path)) ||
				slices.ContainsFunc(ruleValues(f, false), func(v string) bool { return escapesUnreserved(query(v)) })
		}},
	{"P7", "misspelt records (Dissallow, Useragent, ...) and lines without ':' that start with a record's name are read as that record, where RFC 9309 2.2 reads the records it names, with a ':'",
		func(f File, _ Query) bool {
			return slices.ContainsFunc(f.recs, func(r record) bool {
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
func protegoOtherGroup(f File, q Query) bool {
	token := strings.ToLower(strings.TrimSpace(q.Agent))
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
func protegoGroups(f File, v string) []int {
	var gs []int
	for _, w := range f.order {
		if w == v || w != "*" && strings.Contains(w, "*") && strings.ReplaceAll(w, "*", "") == v {
			gs = append(gs, f.groups[w]...)
		}
	}
	slices.Sort(gs)
	return slices.Compact(gs)
}
