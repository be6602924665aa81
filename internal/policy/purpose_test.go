package policy

import (
	"strings"
	"testing"
)

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

// TestKnownAgentsUpdated: the agents added from the operators' pages read
// 2026-11-27 are known by the User-Agents the pages give, with the
// purpose the pages say: Gemini Notebook (Google's user-triggered
// fetcher, formerly Google-NotebookLM) fetches for a person; OAI-AdsBot,
// which checks ads' landing pages, has none a usage preference speaks to.
func TestKnownAgentsUpdated(t *testing.T) {
	c := NewClassifier(nil)
	for ua, want := range map[string]struct {
		name    string
		purpose Purpose
	}{
		// developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers
		"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36 (compatible; Google-GeminiNotebook; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-gemininotebook)": {"Google-GeminiNotebook", UserAgent},
		"Mozilla/5.0 (compatible; Google-NotebookLM)": {"Google-NotebookLM", UserAgent},
		// developers.openai.com/api/docs/bots
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-AdsBot/1.0; +https://openai.com/adsbot": {"OAI-AdsBot", PurposeUnknown},
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot":  {"ChatGPT-User", UserAgent},
		// developers.cloudflare.com/browser-run/reference/automatic-request-headers/
		"CloudflareBrowserRenderingCrawler/1.0": {"CloudflareBrowserRenderingCrawler", PurposeUnknown},
		// docs.perplexity.ai/docs/resources/perplexity-crawlers
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)": {"PerplexityBot", SearchCrawler},
	} {
		got := c.Classify(ua)
		if got.Kind != Known || !strings.EqualFold(got.Name, want.name) || got.Purpose != want.purpose {
			t.Errorf("%s: %+v, want known %s (%s)", ua, got, want.name, want.purpose)
		}
	}
}
