package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
)

// A policy's name applies to a request whose User-Agent carries it as a
// product token, compared exactly, case aside (docs/enforcement.md; the
// classifier's rule, internal/policy.Classify). A name that is no known
// agent's token ("openai", "claude") applies to no crawler the site
// means: lint says so, as a note, with the nearest known names. A site's
// own agent is named that way too, so the note is a hint, never a
// problem.

// maxSuggestions is how many known names a note suggests.
const maxSuggestions = 3

// knownNames are the product tokens the classifier knows without the
// site's declaration: the known agents' and the generic clients' (a
// policy named curl applies to curl), as it looks them up, each with its
// operator from the known-agent data ("" when the data names none).
var knownNames = sync.OnceValue(func() []knownName {
	c := policy.NewClassifier(nil)
	ops := map[string]string{}
	for name, op := range policy.Operators() {
		ops[strings.ToLower(lookupToken(name))] = op
	}
	var out []knownName
	for _, kind := range []policy.Kind{policy.Known, policy.Generic} {
		for _, n := range c.Names(kind) {
			out = append(out, knownName{name: n, lower: strings.ToLower(n), operator: ops[strings.ToLower(n)]})
		}
	}
	return out
})

type knownName struct{ name, lower, operator string }

// lookupToken is the token the classifier looks a listed name up by
// (policy.KnownAgents): its version after '/' dropped, its first word.
func lookupToken(name string) string {
	name, _, _ = strings.Cut(name, "/")
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return name
}

// nameNotes are lint's notes on the policy names of s that are no known
// agent's or generic client's product token, and on a known token that
// is also the whole name of an operator with other agents ("openai"). "*"
// is not a name; a name given twice (case aside) is refused before lint
// gets here, and noted once should it not be.
func nameNotes(file string, s *config.Site, lines config.Lines) []string {
	var notes []string
	seen := map[string]bool{}
	for i, a := range s.Agents {
		lower := strings.ToLower(a.Name)
		if a.Name == "*" || seen[lower] {
			continue
		}
		seen[lower] = true
		at := lines[fmt.Sprintf("Agents[%d].Name", i)]
		if slices.ContainsFunc(knownNames(), func(k knownName) bool { return k.lower == lower }) {
			if others := operatorAgents(lower); len(others) > 0 {
				// "OpenAI" is a token of the data, and the name of the
				// operator of GPTBot and ChatGPT-User: a policy written
				// for the operator applies to the one token alone.
				notes = append(notes, fmt.Sprintf("%s:%d: note: agents[%d].name: %s applies to the User-Agent token %s alone, not to the operator's other agents: %s, each a policy of its own",
					file, at, i, a.Name, a.Name, strings.Join(others, ", ")))
			}
			continue
		}
		msg := fmt.Sprintf("%s:%d: note: agents[%d].name: %s is no known agent's product token: the policy applies only to a User-Agent that carries %s (case aside)",
			file, at, i, a.Name, a.Name)
		if near := nearestNames(a.Name); len(near) > 0 {
			msg += "; did you mean " + orList(near) + "? If it is the site's own agent, nothing is wrong"
		} else {
			msg += ", as the site's own agent's would: nothing is wrong if that is meant"
		}
		notes = append(notes, msg)
	}
	return notes
}

// operatorAgents are the known names whose operator is named lower (a
// known name itself, lower-cased), whole ("openai" for OpenAI), lower's
// own token left out, at most maxSuggestions of them, sorted.
func operatorAgents(lower string) []string {
	var out []string
	for _, k := range knownNames() {
		if k.lower != lower && operatorIs(lower, k.operator) {
			out = append(out, k.name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out[:min(len(out), maxSuggestions)]
}

// nearestNames are at most maxSuggestions known names near name, by a
// measure a reader can follow, case aside, in this order:
//
//  1. the agents of an operator the name names ("openai": OpenAI's
//     agents; the operator's name or one of its words of 4 letters or
//     more, in the known-agent data);
//  2. names that begin with it, or it with them ("claude": ClaudeBot);
//  3. names that contain it ("gpt": ChatGPT-User);
//  4. names within 2 edits of it (Levenshtein: "GPTbott": GPTBot).
//
// Steps 2 and 3 need a name of 3 bytes or more and step 4 one of 4: a
// shorter name is near too many. Within a step the nearest by edits come
// first, then by name.
func nearestNames(name string) []string {
	lower := strings.ToLower(name)
	steps := []func(k knownName) bool{
		func(k knownName) bool { return namesOperator(lower, k.operator) },
		func(k knownName) bool {
			return len(lower) >= 3 && len(k.lower) >= 3 && (strings.HasPrefix(k.lower, lower) || strings.HasPrefix(lower, k.lower))
		},
		func(k knownName) bool { return len(lower) >= 3 && strings.Contains(k.lower, lower) },
		func(k knownName) bool { return len(lower) >= 4 && levenshtein(lower, k.lower) <= 2 },
	}
	var out []string
	for _, step := range steps {
		var found []knownName
		for _, k := range knownNames() {
			if step(k) && !slices.Contains(out, k.name) {
				found = append(found, k)
			}
		}
		slices.SortFunc(found, func(a, b knownName) int {
			return cmp.Or(cmp.Compare(levenshtein(lower, a.lower), levenshtein(lower, b.lower)), cmp.Compare(a.lower, b.lower))
		})
		for _, k := range found {
			if len(out) == maxSuggestions {
				return out
			}
			out = append(out, k.name)
		}
	}
	return out
}

// namesOperator reports whether lower (a policy name, lower-cased) is the
// operator's name, spaces and punctuation aside ("openai", "OpenAI"), or
// one of its words of 4 letters or more ("meta", "Meta/Facebook").
func namesOperator(lower, operator string) bool {
	return operatorIs(lower, operator) || len(lower) >= 4 && slices.Contains(operatorWords(operator), lower)
}

// operatorIs reports whether lower is the operator's whole name, spaces
// and punctuation aside.
func operatorIs(lower, operator string) bool {
	return operator != "" && strings.Join(operatorWords(operator), "") == lower
}

// operatorWords are the words of an operator's name, lower-cased.
func operatorWords(operator string) []string {
	return strings.FieldsFunc(strings.ToLower(operator), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// levenshtein is the edit distance of a and b in bytes (names are
// product tokens, ASCII in practice). Twelve lines do not earn a
// dependency.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// orList is names as prose: "A", "A or B", "A, B or C".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
