package agentready

import (
	"net/url"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/publish/robotstxt"
)

// renderRobots renders the /robots.txt document.
func renderRobots(p *policy.Policy, docs []publish.Document, st *settings) (publish.Document, error) {
	var allow []string
	for _, d := range docs {
		for _, path := range d.Paths {
			// Documents are looked up by URL.Path, unescaped; robots.txt
			// compares paths percent-encoded (RFC 9309 2.2.2).
			allow = append(allow, (&url.URL{Path: path}).EscapedPath())
		}
	}
	o := robotstxt.Options{Allow: allow, Own: st.docs.OwnRobotsTxt}
	if p.Implicit && st.implicit != ImplicitAllAgents {
		o.RulesFor = implicitAgents(p)
	}
	body, err := robotstxt.Render(p, o)
	if err != nil {
		return publish.Document{}, err
	}
	// RFC 9309 2.4: crawlers should not use a cached copy for more than
	// 24 hours; an hour lets a change reach them the same day.
	return publish.Document{Name: "robots.txt", Paths: []string{"/robots.txt"}, ContentType: "text/plain; charset=utf-8",
		Body: body, MaxAge: time.Hour, LastModified: lastModified(docs, st)}, nil
}

// lastModified is the Last-Modified of the rendered documents, which
// publish.Render resolved (Documents.LastModified, else Site.GeneratedAt,
// else the time New ran), so that robots.txt has the one every document
// has; with no other document served, Documents.LastModified or now.
func lastModified(docs []publish.Document, st *settings) time.Time {
	if len(docs) > 0 {
		return docs[0].LastModified
	}
	return st.lastModified(nil)
}

// lastModified is the documents' Last-Modified: Documents.LastModified,
// else the site's GeneratedAt (when site is not nil), else the clock's
// now, the time New or Reload ran.
func (st *settings) lastModified(site *config.Site) time.Time {
	switch {
	case !st.docs.LastModified.IsZero():
		return st.docs.LastModified
	case site != nil && !site.GeneratedAt.IsZero():
		return site.GeneratedAt
	}
	return clock.Or(st.clock)()
}

// implicitAgents are the product tokens the implicit rules apply to under
// ImplicitAIAgents (the enforcer applies them to policy.Declared and
// policy.Known clients): the declared agent names, then the known ones,
// each once (names compare without case, RFC 9309 2.2.1). Never nil, so
// that an empty list still keeps the rules from "*".
func implicitAgents(p *policy.Policy) []string {
	names := []string{}
	seen := map[string]bool{}
	add := func(n string) {
		if k := strings.ToLower(n); n != "*" && !seen[k] {
			seen[k] = true
			names = append(names, n)
		}
	}
	for _, a := range p.Agents {
		add(a.Name)
	}
	for _, n := range p.Classifier.Names(policy.Known) {
		add(n)
	}
	return names
}

// warnContradictions logs, once, what the declaration says against
// itself: a capability endpoint that a Disallow closes to agents, and a
// preference that refuses an agent a path an Allow opens to it.
func warnContradictions(p *policy.Policy, st *settings) {
	log := st.log()
	if !p.Implicit {
		for _, c := range p.Capabilities {
			if c.Path == "" || strings.Contains(c.Path, "{") {
				continue
			}
			if r, ok := p.Rules.Match(c.Path); ok && !r.Allow {
				log.Warn("agentready: a capability endpoint is under a Disallow: agents are refused it", "capability", c.ID, "endpoint", c.Path, "rule", "Disallow: "+r.Pattern)
			}
		}
	}
	site := p.Site()
	if f := st.docs.formats(); f.Dialect == config.DialectV010 && f.Serves(config.DocAgentsTxt) {
		// The v0.1.0 grammar has no Disallow and no agent policy: what is
		// enforced must be said where it can be.
		var lost []string
		for _, d := range site.Access.Disallow {
			lost = append(lost, "Disallow: "+d)
		}
		for _, a := range site.Agents {
			if a.Name != "*" {
				lost = append(lost, "Agent: "+a.Name)
			}
		}
		if len(lost) > 0 {
			where := "publish them in robots.txt with Documents.RobotsTxt"
			if st.docs.RobotsTxt {
				where = "the generated robots.txt carries the rules"
			}
			log.Warn("agentready: the v0.1.0 agents.txt cannot carry these, and they are enforced; "+where, "enforced", lost)
		}
	}
	u := p.Usage
	if u == nil || !site.Usage.Enforce {
		return
	}
	for _, r := range p.Rules.List() {
		if !r.Allow {
			continue
		}
		rule := u.Match(strings.TrimSuffix(strings.ReplaceAll(r.Pattern, "*", ""), "$"))
		for _, pur := range []policy.Purpose{policy.TrainingCrawler, policy.SearchCrawler} {
			if pref, ok := rule.Denies(pur); ok {
				log.Warn("agentready: a usage preference refuses what an Allow opens", "allow", "Allow: "+r.Pattern, "preference", pref, "refused", pur.String())
			}
		}
	}
}
