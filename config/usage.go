package config

// Usage says what the content may be used for, published in robots.txt
// (draft-ietf-aipref-vocab-07 4, Content Signals) and a Content-Usage header.
type Usage struct {
	Train   string // aipref train-ai, Content Signals ai-train
	Search  string // indexing, links and excerpts: search in both
	AIInput string // answer-time retrieval: Content Signals ai-input only
	// Paths override the site-wide preferences, whole, for the paths the
	// longest pattern matches (draft-ietf-aipref-attach-05 3.1).
	Paths []PathUsage
	// Enforce refuses (403) a training or search crawler the path's
	// preference denies; an agent acting for a person never is.
	Enforce bool
}

// PathUsage is the usage preference of the paths a pattern matches.
type PathUsage struct {
	Path    string // robots.txt pattern, as in Access
	Train   string
	Search  string
	AIInput string
}

// Preferences, the values of Usage's and PathUsage's Train, Search and
// AIInput. Empty is unstated, not published (draft-ietf-aipref-vocab-07 5).
const (
	Allowed = "yes"
	Denied  = "no"
)
