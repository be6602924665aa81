package policy

import "strings"

// Purpose is what an agent fetches for: to train models, to index for
// search, or on a person's behalf. Usage preferences (config.Usage) are
// enforced by purpose.
type Purpose uint8

// Purposes.
const (
	// PurposeUnknown: the agent's purpose is not in the known-agent data.
	PurposeUnknown Purpose = iota
	// TrainingCrawler crawls to train AI models.
	TrainingCrawler
	// SearchCrawler crawls to build a search index.
	SearchCrawler
	// UserAgent fetches on a person's request (a user-triggered fetcher,
	// an AI assistant or agent acting for someone): never a crawler.
	UserAgent
)

var purposeNames = [...]string{"unknown", "training-crawler", "search-crawler", "user-agent"}

func (p Purpose) String() string {
	if int(p) < len(purposeNames) {
		return purposeNames[p]
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler, so that a Purpose logs by
// name.
func (p Purpose) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// purposes is the known-agent data's purpose of each agent, by lower-case
// product token, from the operators' pages (gathered 2026-11-25, the
// OpenAI, Anthropic, Perplexity, Google user-triggered fetcher and
// DuckDuckGo rows checked again 2026-11-27; internal/verifier/known.go
// names each page and the copy it was read in). OpenAI:
// developers.openai.com/api/docs/bots; Anthropic: support.claude.com
// article 8896518; Google: developers.google.com/crawling/docs; Bing;
// Apple: support.apple.com/en-us/119829; Perplexity:
// docs.perplexity.ai/docs/resources/perplexity-crawlers; Mistral:
// docs.mistral.ai/robots; DuckDuckGo's help pages; Common Crawl:
// commoncrawl.org/ccbot. An agent whose operator says it serves several
// purposes, or one none of these (OAI-AdsBot checks the landing pages of
// ads submitted to ChatGPT), is left out: no usage preference applies to
// it.
//
// A UserAgent fetches because a person asked: Google's user-triggered
// fetchers ("initiated by users", Gemini Notebook fetching the sources a
// user adds), the assistants' user agents, DuckAssistBot (pages for the
// DuckAssist answer to a person's search). Their fetches may feed a
// generative model (draft-ietf-aipref-vocab-08 4.2, ai-use), which is why
// a preference never refuses them: see UsageRule.Denies.
var purposes = map[string]Purpose{
	"gptbot":             TrainingCrawler,
	"claudebot":          TrainingCrawler,
	"ccbot":              TrainingCrawler,
	"bytespider":         TrainingCrawler,
	"meta-externalagent": TrainingCrawler,

	"oai-searchbot":    SearchCrawler,
	"claude-searchbot": SearchCrawler,
	"perplexitybot":    SearchCrawler,
	"googlebot":        SearchCrawler,
	"bingbot":          SearchCrawler,
	"applebot":         SearchCrawler,
	"duckduckbot":      SearchCrawler,
	"yandexbot":        SearchCrawler,
	"baiduspider":      SearchCrawler,

	"chatgpt-user":    UserAgent,
	"claude-user":     UserAgent,
	"perplexity-user": UserAgent,
	"google-agent":    UserAgent,
	// Google lists it as "Gemini Notebook", the product NotebookLM was
	// renamed to; it listed Google-NotebookLM from October 2025 (its
	// crawling docs changelog), which older fetchers may still send.
	"google-gemininotebook": UserAgent,
	"google-notebooklm":     UserAgent,
	"mistralai-user":        UserAgent,
	"duckassistbot":         UserAgent,
	// Meta: "performs user-initiated fetches of individual links to
	// support specific product functions"
	// (developers.facebook.com/docs/sharing/webmasters/web-crawlers, read
	// 2026-11-27).
	"meta-externalfetcher": UserAgent,
}

// previews are the link previews and feed readers, by lower-case product
// token (the form knownToken looks a listed name up by): each fetches a
// page because a person shared it in a conversation or subscribed to its
// feed, never to crawl. Their purpose is UserAgent (PurposeOf), and
// IsPreview names them, for a site that serves them as browsers
// (config.Access.LinkPreviews). The operators' pages, read 2026-11-27:
//
//   - facebookexternalhit: "crawl the content of an app or website that
//     was shared on one of Meta's family of apps"
//     (developers.facebook.com/docs/sharing/webmasters/web-crawlers).
//     Meta's Facebot ("helps improve advertising performance") is not one.
//   - Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots): "When a
//     link is spotted, Slack crawls it and provides a preview"
//     (api.slack.com/reference/messaging/link-unfurling). Slackbot, the
//     token its other fetches send with the same robots page, is listed
//     with it (that page itself was not in the copies read).
//   - Twitterbot, LinkedInBot, Discordbot, TelegramBot, WhatsApp,
//     redditbot: each network's card or preview of a link a person posts
//     to it, as bot directories describe them (no operator page of these
//     was in the copies read).
//   - Mastodon: each server fetches the preview card of a link in a post
//     it receives ("http.rb/5.1.0 (Mastodon/4.0.2; +https://SERVER/)").
//   - Embedly: embeds and previews of links for the sites that use it.
//   - Feed readers: Feedly's fetcher "behaves as a direct agent of the
//     human user, not as a robot" (feedly.com/fetcher.html), Inoreader
//     "collects RSS feeds on behalf of users who choose to subscribe to
//     them" (inoreader.com/feed-fetcher), Google's Feedfetcher is among
//     its user-triggered fetchers (developers.google.com/crawling/docs);
//     NewsBlur, Feedbin, The Old Reader, FreshRSS, Miniflux, Tiny Tiny RSS
//     (looked up by "Tiny", its first word) and NetNewsWire fetch the
//     feeds their users subscribe to (classify_lists.go gives the
//     User-Agent of each).
//
// Pinterestbot is not one: Pinterest says it "crawls websites to index
// content onto Pinterest" and re-scrapes the pages behind Pins
// (help.pinterest.com, "Pinterest crawler"), which is crawling.
var previews = map[string]bool{
	"facebookexternalhit": true, "slackbot": true, "slackbot-linkexpanding": true,
	"twitterbot": true, "linkedinbot": true, "discordbot": true, "telegrambot": true,
	"whatsapp": true, "redditbot": true, "mastodon": true, "embedly": true,

	"feedly": true, "inoreader": true, "newsblur": true, "feedbin": true,
	"theoldreader.com": true, "freshrss": true, "miniflux": true, "tiny": true,
	"netnewswire": true, "feedfetcher-google": true,
}

// IsPreview reports whether the agent name is a link preview or a feed
// reader (see previews): a product token ("Discordbot") or a known
// agent's name as listed (Class.Name: "Tiny Tiny RSS", "Feedly/1.0"),
// case-insensitively.
func IsPreview(name string) bool {
	name, _, _ = strings.Cut(name, "/")
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		name = name[:i]
	}
	return previews[strings.ToLower(name)]
}

// PurposeNamed is the Purpose whose name (String) is s, PurposeUnknown
// for any other string.
func PurposeNamed(s string) Purpose {
	for i, n := range purposeNames {
		if n == s {
			return Purpose(i)
		}
	}
	return PurposeUnknown
}

// PurposeOf returns the known purpose of the agent product token name
// (case-insensitive).
// A link preview or feed reader (IsPreview) fetches for a person:
// UserAgent.
func PurposeOf(name string) Purpose {
	name = strings.ToLower(name)
	if p, ok := purposes[name]; ok {
		return p
	}
	if previews[name] {
		return UserAgent
	}
	return PurposeUnknown
}
