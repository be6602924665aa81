package policy

import (
	"strings"

	"github.com/agentready/agentready/config"
)

// UsageRule is the usage preference that applies to some paths, with its
// published forms rendered once.
type UsageRule struct {
	// Pattern is the config.PathUsage pattern, "" for the site-wide rule.
	Pattern string
	Train   string
	Search  string
	AIInput string
	// ContentUsage is the aipref form (draft-ietf-aipref-attach-05
	// section 2, an RFC 9651 Dictionary of draft-ietf-aipref-vocab-07
	// tokens): "train-ai=n, search=y"; "" when it states neither.
	ContentUsage string
	// Header is ContentUsage as an http.Header value, shared by every
	// response: never modify it. Nil when ContentUsage is "".
	Header []string
	// ContentSignal is the Content Signals form: "search=yes,
	// ai-train=no, ai-input=yes"; "" when it states nothing.
	ContentSignal string
}

// Denies reports whether the rule denies what an agent of purpose p does:
// training for a TrainingCrawler, search for a SearchCrawler. A UserAgent,
// which fetches for a person, and an agent of unknown purpose are never
// denied by a preference. It returns the preference that denies, as
// published ("Content-Usage: train-ai=n").
func (u *UsageRule) Denies(p Purpose) (string, bool) {
	switch {
	case p == TrainingCrawler && u.Train == config.Denied:
		return "Content-Usage: train-ai=n", true
	case p == SearchCrawler && u.Search == config.Denied:
		return "Content-Usage: search=n", true
	}
	return "", false
}

// Usage is the compiled config.Usage: the site-wide rule and the path
// rules, matched with robots.txt precedence.
type Usage struct {
	Site  UsageRule
	Paths []UsageRule // in declaration order
	rules *Rules
}

// compileUsage compiles u; the patterns were validated with the site.
func compileUsage(u *config.Usage) (*Usage, error) {
	c := &Usage{Site: usageRule("", u.Train, u.Search, u.AIInput)}
	var pats []string
	for _, p := range u.Paths {
		c.Paths = append(c.Paths, usageRule(p.Path, p.Train, p.Search, p.AIInput))
		pats = append(pats, p.Path)
	}
	if len(pats) > 0 {
		rules, err := CompileRules(pats, nil)
		if err != nil {
			return nil, err
		}
		c.rules = rules
	}
	return c, nil
}

func usageRule(pattern string, train, search, input string) UsageRule {
	r := UsageRule{Pattern: pattern, Train: train, Search: search, AIInput: input}
	var cu, cs []string
	yn := map[string]string{config.Allowed: "y", config.Denied: "n"}
	if train != "" {
		cu = append(cu, "train-ai="+yn[train])
	}
	if search != "" {
		cu = append(cu, "search="+yn[search])
		cs = append(cs, "search="+string(search))
	}
	if input != "" {
		cs = append(cs, "ai-input="+string(input))
	}
	if train != "" {
		cs = append(cs, "ai-train="+string(train))
	}
	r.ContentUsage = strings.Join(cu, ", ")
	r.ContentSignal = strings.Join(cs, ", ")
	if r.ContentUsage != "" {
		r.Header = []string{r.ContentUsage}
	}
	return r
}

// Match returns the rule of the canonical path (see Canonical): the
// longest matching path rule's, whole, else the site-wide one
// (draft-ietf-aipref-attach-05 3.1). It does not allocate.
func (u *Usage) Match(canonicalPath string) *UsageRule {
	if u.rules != nil {
		if r, ok := u.rules.Match(canonicalPath); ok {
			return &u.Paths[r.Index]
		}
	}
	return &u.Site
}

// IsZero reports whether the site states no preference.
func (u *Usage) IsZero() bool {
	return u == nil || (u.Site.ContentUsage == "" && u.Site.ContentSignal == "" && len(u.Paths) == 0)
}
