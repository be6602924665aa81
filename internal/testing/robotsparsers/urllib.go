package robotsparsers

import (
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/policy"
)

// PyGroups is a robots.txt as urllib.robotparser (3.11) reads it, a
// model of its reading stated whole (Urllib's verdicts are checked
// against it): its deviations from RFC 9309 are
//
//   - D1, wildcards: '*' and '$' are literal characters (RuleLine quotes
//     them to %2A and %24, and matches by str.startswith), where RFC 9309
//     2.2.3 makes '*' any sequence and a final '$' the end of the path;
//   - D2, order: the first matching rule of the group in file order wins
//     (Entry.allowance), where RFC 9309 2.2.2 takes the longest match;
//   - D3, agents: a group applies when its User-agent value, lowercased,
//     is a substring of the agent's product token (Entry.applies_to),
//     where RFC 9309 2.2.1 matches the product token, and the "*" group
//     is read only after every other (default_entry);
//   - D4, empty Disallow: "Disallow:" is read as an Allow of every path,
//     ending the group's reading there;
//   - D5, blank lines: a blank line ends a group, and the rules after it,
//     up to the next User-agent line, are ignored, where RFC 9309 2.1
//     ends a group only at a User-agent line after a rule;
//   - D6, an empty query: a '?' with nothing after it is dropped from a
//     pattern and from the URL asked (urlunparse), where RFC 9309 2.2.2
//     matches the '?'.
type PyGroups []pyGroup

// pyGroup is a group as urllib.robotparser reads it: its User-agent
// values and its rules in file order.
type pyGroup struct {
	agents []string
	rules  []pyRule
}

// pyRule is a rule: its pattern as urllib.robotparser reads it
// (percent-decoded) and as written, for RFC 9309's matching.
type pyRule struct {
	pattern, raw string
	allow        bool
}

// ReadPy reads body as RobotFileParser.parse does: a User-agent
// line after rules starts a group, a blank line ends one (and drops a
// group without rules), a rule before any User-agent is ignored, '#'
// starts a comment, other lines are ignored, values are percent-decoded.
// The "*" group comes last (default_entry), the first one only.
func ReadPy(body string) PyGroups {
	var groups PyGroups
	var def *pyGroup
	add := func(g pyGroup) {
		for _, a := range g.agents {
			if a == "*" {
				if def == nil {
					def = &g
				}
				return
			}
		}
		groups = append(groups, g)
	}
	state := 0 // 0: none, 1: User-agent lines read, 2: rules read
	var g pyGroup
	for _, line := range strings.Split(body, "\n") {
		if line == "" {
			if state == 2 {
				add(g)
			}
			if state != 0 {
				g, state = pyGroup{}, 0
			}
		}
		line, _, _ = strings.Cut(line, "#")
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		raw := strings.TrimSpace(value)
		value, err := url.PathUnescape(raw)
		if err != nil {
			value = raw
		}
		// RuleLine reads a pattern through urlunparse(urlparse(path)),
		// which drops a '?' with nothing after it.
		if i := strings.IndexByte(value, '?'); i == len(value)-1 {
			value = value[:i]
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "user-agent":
			if state == 2 {
				add(g)
				g = pyGroup{}
			}
			g.agents, state = append(g.agents, value), 1
		case "allow", "disallow":
			if state != 0 {
				allow := strings.EqualFold(strings.TrimSpace(key), "allow")
				// D4: an empty Disallow allows every path.
				g.rules, state = append(g.rules, pyRule{value, raw, allow || value == ""}), 2
			}
		}
	}
	if state == 2 {
		add(g)
	}
	if def != nil {
		groups = append(groups, *def)
	}
	return groups
}

// Allowed is can_fetch: the first group that applies to agent (D3),
// then its first rule that matches path (D2), allowed without one. With
// rfc, patterns match as RFC 9309 2.2.3 says, in D1's place.
func (groups PyGroups) Allowed(agent, path string, rfc bool) bool {
	product := strings.ToLower(strings.SplitN(agent, "/", 2)[0])
	for _, g := range groups {
		applies := false
		for _, a := range g.agents {
			applies = applies || a == "*" || strings.Contains(product, strings.ToLower(a))
		}
		if !applies {
			continue
		}
		for _, r := range g.rules {
			if rfc && rfcMatch(r.raw, path) || !rfc && literalMatch(r.pattern, path) {
				return r.allow
			}
		}
		return true
	}
	return true
}

// literalMatch is RuleLine.applies_to (D1): a prefix, '*' and '$' as
// characters; the path is percent-decoded as can_fetch decodes it.
func literalMatch(pattern, path string) bool {
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	return strings.HasPrefix(path, pattern)
}

// rfcMatch is RFC 9309 2.2.3's matching, agentready's own (policy.Rules),
// in D1's place, on the pattern as written. The path keeps a '?' with
// nothing after it, as Google's parser reads the URL ("Allow:
// /w/load.php?" matches /w/load.php?, not /w/load.php), where
// policy.Canonical, which reads a request, drops it.
func rfcMatch(pattern, path string) bool {
	rules, err := policy.CompileRules([]string{pattern}, nil)
	if err != nil {
		return false
	}
	p, q, query := strings.Cut(path, "?")
	target := string(policy.Canonical(nil, p, q))
	if query && q == "" {
		target += "?"
	}
	_, ok := rules.Match(target)
	return ok
}
