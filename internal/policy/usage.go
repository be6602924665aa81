package policy

import (
	"strings"

	"github.com/agentready/agentready/config"
)

// The aipref vocabularies config.Usage.Vocabulary names.
const (
	// vocab08 is draft-ietf-aipref-vocab-08 (6.1, Table 1): train-ai,
	// ai-use, search. The default.
	vocab08 = "aipref-vocab-08"
	// vocab07 is draft-ietf-aipref-vocab-07 (6.1): train-ai, search.
	vocab07 = "aipref-vocab-07"
)

// UsageRule is the usage preference that applies to some paths, with its
// published forms rendered once.
type UsageRule struct {
	// Pattern is the config.PathUsage pattern, "" for the site-wide rule.
	Pattern string
	Train   string
	Search  string
	AIInput string
	// Use is Content Signals' use= level, site-wide rule only.
	Use string
	// Unknown is the purpose an agent of unknown purpose is held to on
	// the rule's paths (config.Usage.UnknownPurpose); PurposeUnknown when
	// the site says none.
	Unknown Purpose
	// ContentUsage is the aipref form (draft-ietf-aipref-attach-05
	// section 2, an RFC 9651 Dictionary of the vocabulary's labels, in
	// the order of vocab-08 Table 1): "train-ai=n, ai-use=y, search=y";
	// "" when it states none of them.
	ContentUsage string
	// Header is ContentUsage as an http.Header value, shared by every
	// response: never modify it. Nil when ContentUsage is "".
	Header []string
	// ContentSignal is the Content Signals form: "search=yes,
	// ai-input=yes, ai-train=no, use=reference"; "" when it states
	// nothing.
	ContentSignal string
}

// Denies reports whether the rule denies what an agent of purpose p does,
// and returns the preference that denies as published ("Content-Usage:
// train-ai=n"). Each purpose is held to its own category of
// draft-ietf-aipref-vocab-08 (section 4; -07 has the same two):
//
//   - a TrainingCrawler to train-ai (4.1): ai-use does not cover training
//     (4.2: it "does not include any use that is included in the AI
//     Training usage category");
//   - a SearchCrawler to search alone (4.3: search "overrides any usage
//     that falls into other categories, including AI Training and AI
//     Use"), so train-ai=n or ai-use=n never refuses it;
//   - an agent of unknown purpose as the purpose the rule holds it to
//     (config.Usage.UnknownPurpose), else never;
//   - a UserAgent, which fetches on a person's request, never. Whether content a person names by URL is
//     "directly provided by the user" (4.2) is vocab-08's open issue 249;
//     agentready does not refuse a person's agent for a preference either
//     way, and no known agent has ai-use as its purpose, so ai-use is
//     published, not enforced.
func (u *UsageRule) Denies(p Purpose) (string, bool) {
	if p == PurposeUnknown {
		p = u.Unknown
	}
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
	// Vocabulary is the aipref vocabulary the Content-Usage forms are
	// written in: "aipref-vocab-08" or "aipref-vocab-07".
	Vocabulary string
	rules      *Rules
}

// compileUsage compiles u; the patterns and values were validated with the
// site.
func compileUsage(u *config.Usage) (*Usage, error) {
	vocab := u.Vocabulary
	if vocab == "" {
		vocab = vocab08
	}
	c := &Usage{Vocabulary: vocab, Site: usageRule(vocab, "", u.Train, u.Search, u.AIInput, u.Use)}
	c.Site.Unknown = PurposeNamed(u.UnknownPurpose)
	var pats []string
	for _, p := range u.Paths {
		r := usageRule(vocab, p.Path, p.Train, p.Search, p.AIInput, "")
		r.Unknown = c.Site.Unknown
		if p.UnknownPurpose != "" {
			r.Unknown = PurposeNamed(p.UnknownPurpose)
		}
		c.Paths = append(c.Paths, r)
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

func usageRule(vocab, pattern, train, search, input, use string) UsageRule {
	r := UsageRule{Pattern: pattern, Train: train, Search: search, AIInput: input, Use: use}
	// vocab-08 6.2 (-07 6.2): a preference is the Token y or n.
	yn := map[string]string{config.Allowed: "y", config.Denied: "n"}
	var cu, cs []string
	if train != "" {
		cu = append(cu, "train-ai="+yn[train])
	}
	if input != "" && vocab == vocab08 {
		// vocab-08 4.2; -07 has no such label, and a recipient ignores
		// one it does not know (6.4), so -07 leaves it out.
		cu = append(cu, "ai-use="+yn[input])
	}
	if search != "" {
		cu = append(cu, "search="+yn[search])
	}
	// Content Signals take yes and no as they are; ai-input is the
	// category ai-use maps to (input to a model at answer time, not
	// training).
	if search != "" {
		cs = append(cs, "search="+search)
	}
	if input != "" {
		cs = append(cs, "ai-input="+input)
	}
	if train != "" {
		cs = append(cs, "ai-train="+train)
	}
	if use != "" {
		cs = append(cs, "use="+use)
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
