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

// TestPreviews: link previews and feed readers are known by the
// User-Agents they send, with purpose user-agent, and IsPreview names
// them; crawlers of the same operators are not previews. Sources: Feedly
// feedly.com/fetcher.html; Inoreader inoreader.com/feed-fetcher; Meta
// developers.facebook.com/docs/sharing/webmasters/web-crawlers; Slack
// api.slack.com/robots (as the User-Agent names it); the others as their
// fetchers' source code or bot directories quote them (read 2026-11-27;
// classify_lists.go and purpose.go name each).
func TestPreviews(t *testing.T) {
	c := NewClassifier(nil)
	for ua, name := range map[string]string{
		"Feedly/1.0 (+http://www.feedly.com/fetcher.html; 5 subscribers)":           "Feedly",
		"Feedly/1.0 (+http://www.feedly.com/fetcher.html; like FeedFetcher-Google)": "Feedly",
		"Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)":         "Discordbot",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)": "facebookexternalhit",
		"facebookexternalhit/1.1":                                    "facebookexternalhit",
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)": "Slackbot-LinkExpanding",
		"Slackbot 1.0 (+https://api.slack.com/robots)":               "Slackbot",
		"Twitterbot/1.0": "Twitterbot",
		"Mozilla/5.0 (compatible; Twitterbot/1.0)":                                              "Twitterbot",
		"LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)": "LinkedInBot",
		"TelegramBot (like TwitterBot)":                                                         "TelegramBot",
		"WhatsApp/2.23.20.0 A":                                                                  "WhatsApp",
		"Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)":              "redditbot",
		"http.rb/5.1.0 (Mastodon/4.0.2; +https://freiburg.social/) Bot":                         "Mastodon",
		"Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)":                      "Embedly",
		"Inoreader/1.0 (+http://www.inoreader.com/feed-fetcher; 3 subscribers; )":               "Inoreader",
		"NewsBlur Feed Fetcher - 7 subscribers - https://www.newsblur.com/site/123/x (Mozilla/5.0 (Macintosh; Intel Mac OS X 10_7_1) AppleWebKit/534.48.3 (KHTML, like Gecko) Version/5.1 Safari/534.48.3)": "NewsBlur",
		"Feedbin feed-id:1602368 - 4 subscribers":                                                     "Feedbin",
		"Mozilla/5.0 (compatible; theoldreader.com; 2 subscribers; feed-id=0719795c4d27c784217b0bc0)": "theoldreader.com",
		"FreshRSS/1.24.1 (Linux; https://freshrss.org)":                                               "FreshRSS",
		"Mozilla/5.0 (compatible; Miniflux/2.2.3; +https://miniflux.app)":                             "Miniflux",
		"Tiny Tiny RSS/23.05-a4543de (Unsupported) (https://tt-rss.org/)":                             "Tiny Tiny RSS",
		"NetNewsWire (RSS Reader; https://netnewswire.com/)":                                          "NetNewsWire",
		"FeedFetcher-Google; (+http://www.google.com/feedfetcher.html)":                               "FeedFetcher-Google",
	} {
		got := c.Classify(ua)
		if got.Kind != Known || got.Name != name || got.Purpose != UserAgent || !IsPreview(got.Name) {
			t.Errorf("%s: %+v (preview %v), want known %s, user-agent, a preview", ua, got, IsPreview(got.Name), name)
		}
	}
	// Meta's user-initiated fetcher fetches for a person but is no preview;
	// its crawlers are neither.
	for name, want := range map[string]Purpose{
		"meta-externalfetcher": UserAgent, "Meta-ExternalAgent": TrainingCrawler,
		"Facebot": PurposeUnknown, "Pinterestbot": PurposeUnknown, "GPTBot": TrainingCrawler,
	} {
		if PurposeOf(name) != want || IsPreview(name) {
			t.Errorf("%s: %v (preview %v), want %v, no preview", name, PurposeOf(name), IsPreview(name), want)
		}
	}
	for _, name := range []string{"", "Mozilla", "curl", "feedly-clone", "Slack", "/feedly"} {
		if IsPreview(name) {
			t.Errorf("IsPreview(%q)", name)
		}
	}
	if !IsPreview("FEEDLY") || !IsPreview("Feedly/1.0") || !IsPreview("Tiny") {
		t.Error("IsPreview folds case and reads a listed name's product token")
	}
}

// TestPreviewsKnown: every preview is in the built-in known-agent list,
// so that a classifier finds it.
func TestPreviewsKnown(t *testing.T) {
	known := map[string]bool{}
	for _, n := range KnownAgents() {
		if k, ok := knownToken(n, map[string]bool{}); ok {
			known[strings.ToLower(k)] = true
		}
	}
	for name := range previews {
		if !known[name] {
			t.Errorf("preview %q is not a known agent", name)
		}
	}
}
