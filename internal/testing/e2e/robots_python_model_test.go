package e2e_test

import (
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/policy"
)

// pyGroup is a group as urllib.robotparser (3.11) reads it: its
// User-agent values and its rules in file order.
type pyGroup struct {
	agents []string
	rules  []pyRule
}

type pyRule struct {
	pattern string
	allow   bool
}

// parsePyGroups reads body as RobotFileParser.parse does: a User-agent
// line after rules starts a group, a blank line ends one (and drops a
// group without rules), a rule before any User-agent is ignored, '#'
// starts a comment, other lines are ignored, values are percent-decoded.
// The "*" group comes last (default_entry), the first one only.
func parsePyGroups(body string) []pyGroup {
	var groups []pyGroup
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
		value, err := url.PathUnescape(strings.TrimSpace(value))
		if err != nil {
			value = strings.TrimSpace(value)
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
				g.rules, state = append(g.rules, pyRule{value, allow || value == ""}), 2
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

// pyAllowed is can_fetch: the first group that applies to agent (D3),
// then its first rule that matches path (D2), allowed without one.
func pyAllowed(groups []pyGroup, agent, path string, match func(pattern, path string) bool) bool {
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
			if match(r.pattern, path) {
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
// in D1's place.
func rfcMatch(pattern, path string) bool {
	rules, err := policy.CompileRules([]string{pattern}, nil)
	if err != nil {
		return false
	}
	p, q, _ := strings.Cut(path, "?")
	_, ok := rules.Match(string(policy.Canonical(nil, p, q)))
	return ok
}
