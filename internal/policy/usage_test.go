package policy

import (
	"maps"
	"testing"

	sfv "github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/config"
)

// readContentUsage is draft-ietf-aipref-vocab-08 6.5, the recipient's
// side: the value parsed as an RFC 9651 Dictionary, then each category
// the vocabulary defines read from its label (Token y allows, n
// disallows, anything else is unknown), with labels a vocabulary does not
// define ignored (6.4). It returns the known preferences, as
// config.Allowed and config.Denied.
func readContentUsage(t *testing.T, value string, labels ...string) map[string]string {
	t.Helper()
	d, err := sfv.UnmarshalDictionary([]string{value})
	if err != nil {
		t.Fatalf("%q is not an RFC 9651 Dictionary: %v", value, err)
	}
	out := map[string]string{}
	for _, l := range labels {
		m, ok := d.Get(l)
		if !ok {
			continue
		}
		if it, ok := m.(sfv.Item); ok {
			if tok, ok := it.Value.(sfv.Token); ok {
				switch tok {
				case "y":
					out[l] = config.Allowed
				case "n":
					out[l] = config.Denied
				}
			}
		}
	}
	return out
}

// TestUsageVocabularies: the Content-Usage value is written in the
// declared vocabulary, in vocab-08 Table 1's order, and a recipient
// reading it with that vocabulary (6.5) finds the declared preferences;
// ai-use exists in -08 only (4.2) and is left out of -07's value, while
// Content-Signal carries it as ai-input in both. Content Signals' use=
// goes on the Content-Signal value alone.
func TestUsageVocabularies(t *testing.T) {
	for _, c := range []struct {
		name          string
		u             config.Usage
		contentUsage  string
		contentSignal string
		read          map[string]string // what a recipient of the vocabulary reads
	}{
		{"08 all three", config.Usage{Train: config.Denied, Search: config.Allowed, AIInput: config.Allowed},
			"train-ai=n, ai-use=y, search=y", "search=yes, ai-input=yes, ai-train=no",
			map[string]string{"train-ai": config.Denied, "ai-use": config.Allowed, "search": config.Allowed}},
		{"08 named", config.Usage{Vocabulary: "aipref-vocab-08", AIInput: config.Denied},
			"ai-use=n", "ai-input=no", map[string]string{"ai-use": config.Denied}},
		{"07 all three", config.Usage{Vocabulary: "aipref-vocab-07", Train: config.Denied, Search: config.Allowed, AIInput: config.Allowed},
			"train-ai=n, search=y", "search=yes, ai-input=yes, ai-train=no",
			map[string]string{"train-ai": config.Denied, "search": config.Allowed}},
		{"07 ai-input only", config.Usage{Vocabulary: "aipref-vocab-07", AIInput: config.Denied},
			"", "ai-input=no", map[string]string{}},
		{"use", config.Usage{Train: config.Denied, Search: config.Allowed, Use: "reference"},
			"train-ai=n, search=y", "search=yes, ai-train=no, use=reference",
			map[string]string{"train-ai": config.Denied, "search": config.Allowed}},
		{"use alone", config.Usage{Use: "immediate"}, "", "use=immediate", map[string]string{}},
		{"nothing", config.Usage{}, "", "", map[string]string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := compileUsage(&c.u)
			if err != nil {
				t.Fatal(err)
			}
			r := u.Site
			if r.ContentUsage != c.contentUsage || r.ContentSignal != c.contentSignal {
				t.Errorf("Content-Usage %q, Content-Signal %q; want %q, %q", r.ContentUsage, r.ContentSignal, c.contentUsage, c.contentSignal)
			}
			if (r.Header == nil) != (c.contentUsage == "") || (r.Header != nil && r.Header[0] != c.contentUsage) {
				t.Errorf("Header %q for Content-Usage %q", r.Header, c.contentUsage)
			}
			if c.contentUsage != "" {
				labels := []string{"train-ai", "search"}
				if u.Vocabulary == vocab08 {
					labels = []string{"train-ai", "ai-use", "search"}
				}
				if got := readContentUsage(t, c.contentUsage, labels...); !maps.Equal(got, c.read) {
					t.Errorf("a %s recipient reads %v, want %v", u.Vocabulary, got, c.read)
				}
				// A -07 recipient reading a -08 value ignores ai-use (6.4)
				// and finds the rest unchanged.
				got07 := readContentUsage(t, c.contentUsage, "train-ai", "search")
				want07 := maps.Clone(c.read)
				delete(want07, "ai-use")
				if !maps.Equal(got07, want07) {
					t.Errorf("a -07 recipient reads %v, want %v", got07, want07)
				}
			}
			if u.IsZero() != (c.contentUsage == "" && c.contentSignal == "") {
				t.Errorf("IsZero %v", u.IsZero())
			}
		})
	}
}

// TestUsagePaths: a path rule is written in the site's vocabulary, has no
// Content-Signal use (Content Signals apply to a robots.txt group), and is
// matched whole over the site rule.
func TestUsagePaths(t *testing.T) {
	for vocab, want := range map[string]string{"": "ai-use=y, search=y", "aipref-vocab-07": "search=y"} {
		u, err := compileUsage(&config.Usage{Vocabulary: vocab, Train: config.Denied, Use: "full",
			Paths: []config.PathUsage{{Path: "/products/", AIInput: config.Allowed, Search: config.Allowed}}})
		if err != nil {
			t.Fatal(err)
		}
		r := u.Match("/products/tent")
		if r.ContentUsage != want || r.Use != "" || r.ContentSignal != "search=yes, ai-input=yes" || r.Train != "" {
			t.Errorf("%q: /products/tent has %+v, want Content-Usage %q", vocab, r, want)
		}
		if s := u.Match("/about"); s != &u.Site || s.ContentSignal != "ai-train=no, use=full" {
			t.Errorf("%q: /about has %+v", vocab, s)
		}
	}
}

// TestUsageDenies: each purpose is held to its own category
// (draft-ietf-aipref-vocab-08 4): a training crawler to train-ai, never to
// ai-use (4.2 leaves training out of it); a search crawler to search alone,
// whatever train-ai and ai-use say (4.3 overrides them); a person's agent
// and an agent of unknown purpose to none.
func TestUsageDenies(t *testing.T) {
	all := func(v string) config.Usage { return config.Usage{Train: v, Search: v, AIInput: v} }
	for _, c := range []struct {
		name string
		u    config.Usage
		want map[Purpose]string // purposes denied, with the preference named
	}{
		{"all denied", all(config.Denied), map[Purpose]string{
			TrainingCrawler: "Content-Usage: train-ai=n", SearchCrawler: "Content-Usage: search=n"}},
		{"all allowed", all(config.Allowed), nil},
		{"unstated", config.Usage{}, nil},
		{"search overrides", config.Usage{Train: config.Denied, AIInput: config.Denied, Search: config.Allowed},
			map[Purpose]string{TrainingCrawler: "Content-Usage: train-ai=n"}},
		{"search unstated, others denied", config.Usage{Train: config.Denied, AIInput: config.Denied},
			map[Purpose]string{TrainingCrawler: "Content-Usage: train-ai=n"}},
		{"ai-use does not cover training", config.Usage{AIInput: config.Denied, Train: config.Allowed}, nil},
		{"search denied, training allowed", config.Usage{Search: config.Denied, Train: config.Allowed},
			map[Purpose]string{SearchCrawler: "Content-Usage: search=n"}},
		{"07 the same", config.Usage{Vocabulary: "aipref-vocab-07", Train: config.Denied, Search: config.Denied, AIInput: config.Denied},
			map[Purpose]string{TrainingCrawler: "Content-Usage: train-ai=n", SearchCrawler: "Content-Usage: search=n"}},
	} {
		u, err := compileUsage(&c.u)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []Purpose{PurposeUnknown, TrainingCrawler, SearchCrawler, UserAgent} {
			pref, denied := u.Site.Denies(p)
			want, wantDenied := c.want[p]
			if denied != wantDenied || pref != want {
				t.Errorf("%s: %s denied %v (%q), want %v (%q)", c.name, p, denied, pref, wantDenied, want)
			}
		}
	}
}

// TestDeniedPreferenceIsPublished: the preference Denies names is in the
// Content-Usage value the response carries, so that a refused crawler was
// told (the header says what is enforced).
func TestDeniedPreferenceIsPublished(t *testing.T) {
	for _, vocab := range []string{"", "aipref-vocab-07"} {
		u, err := compileUsage(&config.Usage{Vocabulary: vocab, Train: config.Denied, Search: config.Denied, AIInput: config.Denied})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []Purpose{TrainingCrawler, SearchCrawler} {
			pref, _ := u.Site.Denies(p)
			got := readContentUsage(t, u.Site.ContentUsage, "train-ai", "search")
			label := map[Purpose]string{TrainingCrawler: "train-ai", SearchCrawler: "search"}[p]
			if pref != "Content-Usage: "+label+"=n" || got[label] != config.Denied {
				t.Errorf("%q: %s refused by %q, published %q", vocab, p, pref, u.Site.ContentUsage)
			}
		}
	}
}
