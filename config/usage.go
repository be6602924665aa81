package config

// Usage says what the site's content may be used for, by purpose, in the
// vocabularies crawlers read: IETF aipref (draft-ietf-aipref-vocab-07
// section 4: train-ai, search; attached by draft-ietf-aipref-attach-05) and
// Cloudflare's Content Signals (ai-train, search, ai-input). agentready
// publishes it as robots.txt Content-Usage and Content-Signal lines and as
// a Content-Usage response header on the site's responses, and, with
// Enforce, refuses the agents whose known purpose it denies.
type Usage struct {
	// Train is the preference on training AI models: aipref train-ai,
	// Content Signals ai-train.
	Train string
	// Search is the preference on search: building a search index and
	// showing links and excerpts (aipref search, Content Signals search).
	Search string
	// AIInput is the preference on putting content into AI models at
	// answer time (retrieval, grounding): Content Signals ai-input. aipref
	// has no such category, so it is published as a Content-Signal only.
	AIInput string
	// Paths states preferences for some paths (robots.txt patterns). The
	// longest matching pattern's preferences apply to a path, whole
	// (draft-ietf-aipref-attach-05 3.1: the same precedence as Allow and
	// Disallow); a path no pattern matches has the site-wide ones.
	Paths []PathUsage
	// Enforce refuses a request from an agent whose purpose (a training
	// crawler, a search crawler; see policy.Purpose) the preference of the
	// path denies, with 403 problem+json naming the preference. A
	// user-triggered fetcher or agent is never refused by a preference:
	// it acts for a person, and is not a crawler.
	Enforce bool
}

// PathUsage is the usage preference of the paths a pattern matches.
type PathUsage struct {
	// Path is a robots.txt pattern, as Access rules are written.
	Path    string
	Train   string
	Search  string
	AIInput string
}

// Preferences, the values of Usage.Train, Search and AIInput (and of
// PathUsage's). The empty string is unstated, which "neither grants nor
// restricts" (Content Signals) and is "unknown" to aipref
// (draft-ietf-aipref-vocab-07 section 5): it is not published.
const (
	Allowed = "yes"
	Denied  = "no"
)
