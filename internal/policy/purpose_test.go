package policy

import "testing"

func TestPurposes(t *testing.T) {
	for name, want := range map[string]Purpose{
		"GPTBot": TrainingCrawler, "gptbot": TrainingCrawler, "ClaudeBot": TrainingCrawler,
		"OAI-SearchBot": SearchCrawler, "Googlebot": SearchCrawler, "bingbot": SearchCrawler,
		"ChatGPT-User": UserAgent, "Claude-User": UserAgent, "Google-Agent": UserAgent,
		"claude": PurposeUnknown, "curl": PurposeUnknown, "": PurposeUnknown,
	} {
		if got := PurposeOf(name); got != want {
			t.Errorf("PurposeOf(%q) = %v, want %v", name, got, want)
		}
	}
	// A declared policy named after a known agent carries its purpose.
	c := NewClassifier([]string{"*", "GPTBot", "claude"})
	if got := c.Classify("Mozilla/5.0 (compatible; GPTBot/1.2)"); got.Kind != Declared || got.Purpose != TrainingCrawler {
		t.Errorf("declared GPTBot: %+v", got)
	}
	if got := c.Classify("claude/1.0"); got.Purpose != PurposeUnknown {
		t.Errorf("claude: %+v", got)
	}
	if b, _ := SearchCrawler.MarshalText(); string(b) != "search-crawler" || Purpose(9).String() != "unknown" {
		t.Errorf("names: %s %s", b, Purpose(9))
	}
}
