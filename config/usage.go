package config

import (
	"github.com/agentready/agentready/internal/format/pathpattern"
)

// Usage says what the content may be used for. It is published in
// robots.txt, as Content-Usage lines (draft-ietf-aipref-attach-05 3, in
// the vocabulary Vocabulary names) and a Content-Signal line (Cloudflare's
// Content Signals, https://contentsignals.org), and as a Content-Usage
// header on every response (attach-05 2).
type Usage struct {
	// Train: aipref train-ai, Content Signals ai-train. In
	// draft-ietf-aipref-vocab-08 4.1, using the content to change the
	// learned parameters of a generative AI model; training a model used
	// only for non-generative tasks (ranking, classification) is not
	// included.
	Train string
	// Search: aipref search, Content Signals search: indexing, links and
	// excerpts that help a person choose a result, not summaries (vocab-08
	// 4.3). A search application's use is the search preference's alone,
	// whatever Train and AIInput say (4.3: it "overrides any usage that
	// falls into other categories").
	Search string
	// AIInput: aipref ai-use, Content Signals ai-input: the content as
	// input to a generative AI model when the user did not provide it
	// directly (vocab-08 4.2), such as retrieval or grounding for an
	// answer. The -07 vocabulary has no such category: with Vocabulary
	// "aipref-vocab-07" it is published in Content-Signal only.
	AIInput string
	// Use is Content Signals' use= key, site-wide: the most AI systems may
	// consume of the content, from least to most, "immediate", "reference"
	// or "full" ("how AI systems may consume the content", in the comment
	// block of Cloudflare's managed robots.txt; "the maximum level at
	// which their content may be used", Cloudflare changelog 2026-08-31).
	// Empty is unstated. It is published, not enforced: a request does
	// not say how much its sender keeps.
	Use string
	// Vocabulary is the aipref vocabulary the Content-Usage lines and
	// header are written in: "" or "aipref-vocab-08" for
	// draft-ietf-aipref-vocab-08 (train-ai, ai-use, search), the default;
	// "aipref-vocab-07" for -07 (train-ai, search), for crawlers that have
	// not moved while -08 is not the working group's consensus (its "Note
	// to Readers").
	Vocabulary string
	// Paths override the site-wide preferences, whole, for the paths the
	// longest pattern matches (draft-ietf-aipref-attach-05 3.1). Use has
	// no path form: Content Signals apply to a robots.txt group.
	Paths []PathUsage
	// Enforce refuses (403) a training or search crawler the path's
	// preference denies; an agent acting for a person never is. The
	// purpose is the proven one first (the operator's own declaration),
	// else the known purpose of the User-Agent's name.
	Enforce bool
	// UnknownPurpose is the purpose an agent of unknown purpose is held
	// to by Enforce: "training-crawler", "search-crawler" or "user-agent"
	// (enforce.PurposeTrainingCrawler, ...); "" leaves it unknown, never
	// refused. A path
	// rule's own UnknownPurpose replaces it on its paths.
	UnknownPurpose string
}

// PathUsage is the usage preference of the paths a pattern matches.
type PathUsage struct {
	Path    string // robots.txt pattern, as in Access
	Train   string
	Search  string
	AIInput string
	// UnknownPurpose replaces Usage.UnknownPurpose on these paths ("":
	// the site-wide one applies).
	UnknownPurpose string
}

// Preferences, the values of Usage's and PathUsage's Train, Search and
// AIInput. Empty is unstated, not published (draft-ietf-aipref-vocab-08 5:
// the preference is unknown).
const (
	Allowed = "yes"
	Denied  = "no"
)

// usage checks the usage preferences: their values, the vocabulary and
// path patterns.
func (r *report) usage() {
	u := &r.site.Usage
	pref := func(field, p string) {
		switch p {
		case "", Allowed, Denied:
		default:
			r.Addf(field, "", "%q is not a preference: %s", p, alt("use config.Allowed, config.Denied or leave it unstated", `"yes", "no" or leave it out`))
		}
	}
	pref("Usage.Train", u.Train)
	pref("Usage.Search", u.Search)
	pref("Usage.AIInput", u.AIInput)
	purpose := func(field, p string) {
		switch p {
		case "", "training-crawler", "search-crawler", "user-agent":
		default:
			r.Addf(field, "", "%q is not a purpose: \"training-crawler\", \"search-crawler\", \"user-agent\" or unstated", p)
		}
	}
	purpose("Usage.UnknownPurpose", u.UnknownPurpose)
	switch u.Use {
	case "", "immediate", "reference", "full":
	default:
		r.Addf("Usage.Use", "", "%q is not a Content Signals use level: immediate, reference, full or unstated", u.Use)
	}
	vocab07 := false
	switch u.Vocabulary {
	case "", "aipref-vocab-08":
	case "aipref-vocab-07":
		vocab07 = true
	default:
		r.Addf("Usage.Vocabulary", "", "%q is not a vocabulary: \"aipref-vocab-08\" (the default) or \"aipref-vocab-07\"", u.Vocabulary)
	}
	seen := map[string]int{}
	for i := range u.Paths {
		p := &u.Paths[i]
		f := at("Usage.Paths", i)
		pref(f+".Train", p.Train)
		pref(f+".Search", p.Search)
		pref(f+".AIInput", p.AIInput)
		if p.Path == "" {
			r.Add(f+".Path", "", "is required")
			continue
		}
		if err := pathpattern.Check(p.Path); err != nil {
			r.Addf(f+".Path", "", "%v", err)
		}
		if j, ok := seen[p.Path]; ok {
			r.Addf(f+".Path", "", "%q is already %s: one pattern, one set of preferences", p.Path, ref(at("Usage.Paths", j)))
		}
		seen[p.Path] = i
		purpose(f+".UnknownPurpose", p.UnknownPurpose)
		switch {
		case p.Train == "" && p.Search == "" && p.AIInput == "":
			r.Addf(f, "", "states no preference for %q", p.Path)
		case vocab07 && p.Train == "" && p.Search == "":
			// Content Signals have no path form, and -07 no ai-use: the
			// rule would publish nothing.
			r.Addf(f, "", "states only "+alt("AIInput", "ai_input")+" for %q, which the aipref-vocab-07 Content-Usage cannot say (it has train-ai and search); use aipref-vocab-08", p.Path)
		}
	}
}
