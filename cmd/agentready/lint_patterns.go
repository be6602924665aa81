package main

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
)

// starNotes suggest each access pattern without its trailing '*': RFC
// 9309 2.2.3 matches a pattern as a prefix of the path, so a trailing '*'
// ("any sequence of characters") adds nothing ("/admin/*" matches what
// "/admin/" matches), yet parsers that read '*' literally, such as
// Python's urllib.robotparser, refuse nothing with it (docs/declaration.md,
// config.Site, Access). The note is left out where dropping the '*' would change
// a verdict: where nothing is left ("*": an empty Disallow disallows
// nothing, RFC 9309 2.2.2), and where the shorter pattern loses its rank
// against a rule of the other kind (RFC 9309 2.2.2: the longest match
// wins, Allow a tie; "Allow: /ab*" wins over "Disallow: /abc" on
// "/abc", "Allow: /ab" would not). A valid Site compiles; a pattern that
// does not is left to the errors lint reports.
func starNotes(file string, s *config.Site, lines config.Lines) []string {
	rules, err := policy.CompileRules(s.Access.Allow, s.Access.Disallow)
	if err != nil {
		return nil
	}
	all := rules.List()
	var notes []string
	// In the file's order: allow, then disallow, each by index.
	for _, allow := range []bool{true, false} {
		for i := 0; i < len(all); i++ {
			for _, r := range all {
				if r.Allow == allow && r.Index == i {
					notes = append(notes, starNote(file, s, lines, r, all)...)
				}
			}
		}
	}
	return notes
}

// starNote is the note of r, when it has one.
func starNote(file string, s *config.Site, lines config.Lines, r policy.Rule, all []policy.Rule) []string {
	list, key := s.Access.Disallow, "Disallow"
	if r.Allow {
		list, key = s.Access.Allow, "Allow"
	}
	declared := list[r.Index]
	short := strings.TrimRight(declared, "*")
	if short == declared || !strings.HasPrefix(short, "/") || !keepsRank(r, short, all) {
		return nil
	}
	return []string{fmt.Sprintf("%s:%d: note: access.%s[%d]: %q is %q: a trailing '*' adds nothing under RFC 9309 2.2.3, and parsers that read '*' literally (Python's urllib.robotparser) match nothing with it",
		file, lines[fmt.Sprintf("Access.%s[%d]", key, r.Index)], strings.ToLower(key), r.Index, declared, short)}
}

// keepsRank reports whether r, its pattern shortened to short, still
// outranks every rule of the other kind it outranked and no other
// (rules of its own kind decide alike whichever wins).
func keepsRank(r policy.Rule, short string, all []policy.Rule) bool {
	var allow, disallow []string
	if r.Allow {
		allow = []string{short}
	} else {
		disallow = []string{short}
	}
	c, err := policy.CompileRules(allow, disallow)
	if err != nil || c.Len() != 1 {
		return false
	}
	shorter := c.List()[0]
	shorter.Index = r.Index
	for _, o := range all {
		if o.Allow != r.Allow && r.Outranks(&o) != shorter.Outranks(&o) {
			return false
		}
	}
	return true
}
