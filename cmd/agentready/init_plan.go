package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/policy"
)

// initPlan is what init declares: the access rules and the agent
// policies, each with the robots.txt lines it comes from, and the notes.
type initPlan struct {
	robots          *robotsFile // nil without -robots
	lenient         *robotsFile // the robots.txt as Google's parser reads it
	allow, disallow []planRule
	star            []int // the lines of the "*" user-agent lines
	agents          []planAgent
	notes           []initNote
}

type planRule struct {
	pattern string
	line    int // 0: from a flag
}

type planAgent struct {
	name  string
	lines []int
	raws  []string // user-agent values written otherwise than name
}

// planFromFlags is a declaration without robots.txt: -allow and
// -disallow, or every path open.
func planFromFlags(o initOptions) initPlan {
	var p initPlan
	for _, s := range strings.Split(o.allow, ",") {
		if s = strings.TrimSpace(s); s != "" {
			p.allow = append(p.allow, planRule{pattern: s})
		}
	}
	for _, s := range strings.Split(o.disallow, ",") {
		if s = strings.TrimSpace(s); s != "" {
			p.disallow = append(p.disallow, planRule{pattern: s})
		}
	}
	return p
}

// planFromRobots carries f (parsed from body): the rules of its "*"
// groups, combined (RFC 9309 2.2.1), are the access rules, which
// agentready enforces for every agent and renders into one robots.txt
// group for "*" and every declared agent; each agent a group names is a
// policy. Everything else is a note.
func planFromRobots(f *robotsFile, body []byte) initPlan {
	p := initPlan{robots: f, lenient: parseRobots(body, true)}
	seenRule := map[string]bool{}
	seenAgent := map[string]int{}
	for _, g := range f.groups {
		star := false
		for _, a := range g.agents {
			if a.global {
				star = true
				p.star = append(p.star, a.line)
				continue
			}
			p.addAgent(a, seenAgent)
		}
		if !star {
			continue
		}
		for _, r := range g.rules {
			kind := map[bool]string{true: "Allow", false: "Disallow"}[r.allow]
			switch key := kind + " " + r.pattern; {
			case r.pattern == "":
				// "Disallow:" matches nothing (RFC 9309 2.2.2): nothing to carry.
			case seenRule[key]:
			default:
				seenRule[key] = true
				compiled, err := policy.CompileRules([]string{r.pattern}, nil)
				if err != nil {
					_, why, _ := strings.Cut(err.Error(), ": ")
					p.notes = append(p.notes, initNote{line: r.line, msg: fmt.Sprintf("%s: %s: not carried: %s", kind, r.raw, why)})
					continue
				}
				if c := compiled.List()[0].Pattern; c != r.pattern {
					// The enforcer's canonical form (RFC 3986 6.2.2), which
					// robots.txt is rendered with; a crawler compares the
					// two spellings as two paths (RFC 9309 2.2.2).
					p.notes = append(p.notes, initNote{line: r.line, msg: fmt.Sprintf("%s: %s: rendered as %s: %s", kind, r.raw, c, "agentready compares paths in one spelling, and renders the rule in it; a crawler reads the two spellings as two paths")})
				}
				if r.allow {
					p.allow = append(p.allow, planRule{r.pattern, r.line})
				} else {
					p.disallow = append(p.disallow, planRule{r.pattern, r.line})
				}
			}
		}
	}
	for _, r := range f.records {
		if msg := recordNote(r); msg != "" {
			p.notes = append(p.notes, initNote{line: r.line, msg: msg})
		}
	}
	return p
}

// addAgent makes a policy of a user-agent line, once a name (case aside,
// RFC 9309 2.2.1), or notes why it cannot be one.
func (p *initPlan) addAgent(a robotsAgent, seen map[string]int) {
	name := a.token
	var why string
	switch {
	case name == "":
		why = "names no product token (RFC 9309 2.2.1), so it matches no crawler"
	case strings.Contains(name, "*"):
		why = `"*" in a name is not a pattern (RFC 9309 2.2.1), and a policy name cannot hold one (draft-car 2.7)`
	case !fieldcheck.IsToken(name) || policy.CheckAgentName(name) != nil:
		why = "a policy name must be a User-Agent product token of at most 64 bytes"
	}
	if why != "" {
		p.notes = append(p.notes, initNote{line: a.line, msg: fmt.Sprintf("User-agent: %s: no policy: %s; the agent is one the declaration does not name", a.raw, why)})
		return
	}
	k := strings.ToLower(name)
	i, ok := seen[k]
	if !ok {
		i = len(p.agents)
		seen[k] = i
		p.agents = append(p.agents, planAgent{name: name})
	}
	p.agents[i].lines = append(p.agents[i].lines, a.line)
	if a.raw != name {
		p.agents[i].raws = append(p.agents[i].raws, a.raw)
	}
}

// recordNote is what init says of a record it does not carry.
func recordNote(r robotsRecord) string {
	kv := r.key + ": " + r.value
	switch r.kind {
	case recordSitemap:
		return kv + ": not carried: the declaration has no place for a sitemap, and the robots.txt it renders lists none; publish it in the site's own robots.txt (agentready.Documents.OwnRobotsTxt)"
	case recordOrphan:
		return kv + ": ignored: it comes before any user-agent line, so it belongs to no group (RFC 9309 2.1), and crawlers ignore it"
	case recordNoColon:
		return fmt.Sprintf("%q: not an RFC 9309 record (2.2: a field is followed by ':'); Google's parser reads it as %q: not carried", r.key+" "+r.value, kv)
	case recordLenient:
		kind, _ := robotsKey(r.key)
		return fmt.Sprintf("%s: %q is not an RFC 9309 field name; Google's parser reads it as %s: not carried", kv, r.key, kind)
	case recordGarbage:
		return fmt.Sprintf("%q: not a record: ignored", r.value)
	case recordTruncated:
		return fmt.Sprintf("longer than %d bytes: Google's parser reads only its start, and so does init", maxRobotsLine)
	}
	switch strings.ToLower(r.key) {
	case "crawl-delay", "request-rate":
		return kv + ": not carried: RFC 9309 has no such rule (2.2.4); the declaration's rate limits (rate_limit, per agent in agents) are what agentready enforces, and no robots.txt says them"
	case "host":
		return kv + ": not carried: RFC 9309 has no such rule (2.2.4); the declaration's url names the site"
	}
	return kv + ": not carried: not an RFC 9309 rule (2.2.4), and the declaration has no place for it"
}

// explain adds to p.notes the agent/path pairs rendered (the robots.txt
// the declaration renders) decides otherwise than the original, each at
// the line that decided it there, and the pairs Google's parser decides
// otherwise than RFC 9309 because it reads a line the RFC does not.
func (p *initPlan) explain(rendered *robotsFile) {
	agents := robotsAgents(p.robots, p.lenient, rendered)
	byAgent := map[string][]verdictDiff{}
	diffs, complete := robotsDiffs(p.robots, rendered, agents)
	google, gcomplete := robotsDiffs(p.lenient, p.robots, agents)
	if !complete || !gcomplete {
		p.notes = append(p.notes, initNote{msg: fmt.Sprintf("the file is too large to compare in full (%d agents): the differences below are some of those there are", len(agents))})
	}
	for _, d := range diffs {
		byAgent[d.agent] = append(byAgent[d.agent], d)
	}
	for _, a := range agents {
		ds := orderDiffs(byAgent[a])
		if len(ds) == 0 {
			continue
		}
		line, who := 0, "an agent robots.txt does not name"
		if a != "" {
			who = "User-agent: " + a
			if _, named := p.robots.rulesFor(a); named {
				who += ": its group is not carried (a declaration has one set of access rules, which every agent gets: the \"*\" group's)"
			}
			line = p.agentLine(a)
		} else {
			for _, d := range ds {
				if d.was != nil {
					line = d.was.line
					break
				}
			}
		}
		p.notes = append(p.notes, initNote{line: line, msg: who + ": " + examples(ds, "robots.txt", "the generated robots.txt", false), diffs: ds})
	}
	// Lines only Google reads: each is noted (recordNote); here, what
	// they change, at the line that changes it.
	byLine := map[int][]verdictDiff{}
	for _, d := range google {
		l := 0
		if d.was != nil && d.was.lenient {
			l = d.was.line
		}
		byLine[l] = append(byLine[l], d)
	}
	for l, ds := range byLine {
		p.notes = append(p.notes, initNote{line: l, msg: "a line Google's parser reads and RFC 9309 does not: " + examples(ds, "Google's reading of robots.txt", "RFC 9309's reading of it", true), diffs: ds, google: true})
	}
	slices.SortStableFunc(p.notes, func(a, b initNote) int { return a.line - b.line })
}

// agentLine is the first user-agent line naming agent.
func (p *initPlan) agentLine(agent string) int {
	for _, g := range p.robots.groups {
		for _, a := range g.agents {
			if !a.global && strings.EqualFold(a.token, agent) {
				return a.line
			}
		}
	}
	return 0
}

// orderDiffs puts first the paths a rule names (the "/" of "Disallow:
// /"), then the shortest: they say best what differs.
func orderDiffs(ds []verdictDiff) []verdictDiff {
	ds = slices.Clone(ds)
	named := func(d verdictDiff) int {
		for _, r := range []*robotsRule{d.was, d.is} {
			if r != nil && d.path == strings.ReplaceAll(strings.TrimSuffix(r.pattern, "$"), "*", "") {
				return 0
			}
		}
		return 1
	}
	slices.SortStableFunc(ds, func(x, y verdictDiff) int {
		if c := named(x) - named(y); c != 0 {
			return c
		}
		return len(x.path) - len(y.path)
	})
	return ds
}

// examples says the first of ds and how many there are: a's verdict,
// then b's; perAgent names each pair's agent.
func examples(ds []verdictDiff, a, b string, perAgent bool) string {
	ds = orderDiffs(ds)
	var w strings.Builder
	for i, d := range ds {
		if i == 3 {
			fmt.Fprintf(&w, "; %d paths in all", len(ds))
			break
		}
		if i > 0 {
			w.WriteString("; ")
		}
		who := ""
		if perAgent {
			who = " for " + agentName(d.agent)
		}
		fmt.Fprintf(&w, "%s%s is %s, %s", d.path, who, verdictOf(d.wasAllowed, d.was, a), verdictOf(!d.wasAllowed, d.is, b))
	}
	return w.String()
}

// verdictOf says allowed or disallowed, by which rule of which file.
func verdictOf(allowed bool, r *robotsRule, file string) string {
	v := map[bool]string{true: "allowed", false: "disallowed"}[allowed]
	if r == nil {
		return v + " by " + file + " (no rule)"
	}
	kind := map[bool]string{true: "Allow", false: "Disallow"}[r.allow]
	return fmt.Sprintf("%s by %s line %d (%s: %s)", v, file, r.line, kind, r.raw)
}

// agentName names an agent in a note.
func agentName(agent string) string {
	if agent == "" {
		return "an unnamed agent"
	}
	return agent
}
