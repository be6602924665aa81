package config_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestUsageValues: Use takes the three Content Signals levels, Vocabulary
// the two aipref vocabularies; anything else is refused with the values
// it may take, and unstated is valid.
func TestUsageValues(t *testing.T) {
	valid := []config.Usage{
		{},
		{Use: "immediate"}, {Use: "reference"}, {Use: "full"},
		{Vocabulary: "aipref-vocab-08", AIInput: config.Denied},
		{Vocabulary: "aipref-vocab-07", Train: config.Denied, AIInput: config.Allowed},
		{Vocabulary: "aipref-vocab-07", Paths: []config.PathUsage{{Path: "/a/", Search: config.Denied, AIInput: config.Denied}}},
		{Paths: []config.PathUsage{{Path: "/a/", AIInput: config.Denied}}},
	}
	for _, u := range valid {
		s := fixtures.OutdoorSupply()
		s.Usage = u
		if err := publish.Validate(&s, config.Formats{}); err != nil {
			t.Errorf("%+v: %v", u, err)
		}
	}
	for _, c := range []struct {
		u     config.Usage
		field string
		msg   string
	}{
		{config.Usage{Use: "partial"}, "Usage.Use", `"partial" is not a Content Signals use level: immediate, reference, full`},
		{config.Usage{Use: "Reference"}, "Usage.Use", "is not a Content Signals use level"},
		{config.Usage{Vocabulary: "08"}, "Usage.Vocabulary", `"aipref-vocab-08" (the default) or "aipref-vocab-07"`},
		{config.Usage{Vocabulary: "aipref-vocab-06"}, "Usage.Vocabulary", "is not a vocabulary"},
		{config.Usage{AIInput: "y"}, "Usage.AIInput", `"y" is not a preference`},
		// -07 has no ai-use, and Content Signals no path form: the rule
		// would publish nothing.
		{config.Usage{Vocabulary: "aipref-vocab-07", Paths: []config.PathUsage{{Path: "/a/", AIInput: config.Denied}}},
			"Usage.Paths[0]", "states only AIInput for \"/a/\", which the aipref-vocab-07 Content-Usage cannot say"},
	} {
		s := fixtures.OutdoorSupply()
		s.Usage = c.u
		err := publish.Validate(&s, config.Formats{})
		if err == nil {
			t.Errorf("%+v: valid", c.u)
			continue
		}
		fes := fieldErrors(t, err, c.field)
		if len(fes) != 1 || !strings.Contains(fes[0].Msg, c.msg) {
			t.Errorf("%+v: %s: %v; want one problem saying %q (all: %v)", c.u, c.field, fes, c.msg, err)
		}
	}
}

// TestUsageFileKeys: a declaration file states Use and Vocabulary under
// usage as use and vocabulary.
func TestUsageFileKeys(t *testing.T) {
	site, _, err := config.ParseSite([]byte("name: x\nurl: https://x.example\nusage:\n  train: \"no\"\n  ai_input: \"yes\"\n  use: reference\n  vocabulary: aipref-vocab-07\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Usage{Train: config.Denied, AIInput: config.Allowed, Use: "reference", Vocabulary: "aipref-vocab-07"}
	if u := site.Usage; u.Train != want.Train || u.AIInput != want.AIInput || u.Use != want.Use || u.Vocabulary != want.Vocabulary {
		t.Errorf("usage %+v, want %+v", u, want)
	}
}
