package main

import (
	"fmt"
	"strings"
)

// yaml writes the declaration of p, each part with a comment saying what
// it is and where it comes from. Strings are written quoted (yamlString),
// so no value of a robots.txt can be read as YAML syntax.
func (p *initPlan) yaml(o initOptions, src string) []byte {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	if p.robots != nil {
		line("# A declaration made by agentready init from %s.", comment(src))
		line("# The \"*\" groups' rules are the access rules and each agent the file names is")
		line("# a policy; what a declaration cannot say is listed at the end, and init said")
		line("# it on stderr, at its line.")
	} else {
		line("# A declaration made by agentready init.")
	}
	line("# Check it with: agentready lint FILE; see what it publishes, robots.txt")
	line("# included, with: agentready render -out DIR FILE. docs/declaration.md has")
	line("# every key; agentready schema prints the JSON Schema for editors.")
	line("")
	line("# Who the site is: published in agents.txt, agents.json, agents.md and agent.json.")
	line("name: %s", yamlString(o.name))
	line("url: %s", yamlString(o.url))
	line("description: %s  # what the site offers agents", yamlString(o.description))
	if o.contact != "" {
		line("contact: %s", yamlString(o.contact))
	}
	line("")
	line("# What agents may fetch, in robots.txt syntax: the longest matching pattern")
	line("# wins, Allow on a tie (RFC 9309 2.2.2); agentready enforces it and renders")
	line("# it into robots.txt for \"*\" and every agent below.")
	line("access:")
	allow := p.allow
	if len(allow) == 0 && len(p.disallow) == 0 {
		// Without a rule the declaration would mean draft-car 2.6's
		// capability-only default; "Allow: /" refuses nothing.
		allow = []planRule{{pattern: "/"}}
		if p.robots != nil {
			line("  # robots.txt refuses nothing to an agent it does not name.")
		} else {
			line("  # Every path is open; narrow it with disallow.")
		}
	}
	for _, list := range []struct {
		key   string
		rules []planRule
	}{{"allow", allow}, {"disallow", p.disallow}} {
		if len(list.rules) == 0 {
			continue
		}
		line("  %s:", list.key)
		for _, r := range list.rules {
			if r.line > 0 {
				line("    - %s  # line %d", yamlString(r.pattern), r.line)
			} else {
				line("    - %s", yamlString(r.pattern))
			}
		}
	}
	if p.robots != nil && len(p.star) == 0 && len(p.agents) == 0 {
		return []byte(b.String()) // robots.txt has no group
	}
	line("")
	line("# Agent policies: a rate limit and the capabilities each may use (none")
	line("# declared yet: add them under capabilities). \"*\" is every other agent.")
	line("agents:")
	if p.robots == nil || len(p.star) > 0 {
		if len(p.star) > 0 {
			line("  - name: \"*\"  # User-agent: * (%s)", lines(p.star))
		} else {
			line("  - name: \"*\"")
		}
	}
	for _, a := range p.agents {
		c := "User-agent: " + a.name + " (" + lines(a.lines) + ")"
		if len(a.raws) > 0 {
			c += "; written " + strings.Join(quoteAll(a.raws), ", ") + ": crawlers match the product token"
		}
		line("  - name: %s  # %s", yamlString(a.name), comment(c))
	}
	return []byte(b.String())
}

// notesYAML writes p.notes as comments at the end of the declaration.
func (p *initPlan) notesYAML() []byte {
	if len(p.notes) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n# Not carried, or carried otherwise than robots.txt says (init said each on stderr):\n")
	for _, n := range p.notes {
		if n.line > 0 {
			fmt.Fprintf(&b, "# line %d: %s\n", n.line, comment(n.msg))
		} else {
			fmt.Fprintf(&b, "# %s\n", comment(n.msg))
		}
	}
	return []byte(b.String())
}

// lines writes line numbers as "line 3" or "lines 3, 9".
func lines(ls []int) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = fmt.Sprint(l)
	}
	if len(ls) == 1 {
		return "line " + s[0]
	}
	return "lines " + strings.Join(s, ", ")
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return q
}
