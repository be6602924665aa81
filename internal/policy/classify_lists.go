package policy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// aiRobotsJSON is the ai.robots.txt project's robots.json (see
// data/SOURCE.md): an object keyed by agent name.
//
//go:embed data/ai-robots.json
var aiRobotsJSON []byte

// supplementaryAgents are well-known automated clients that the ai.robots
// list leaves out because they are not AI-specific (search-engine
// crawlers, link-preview fetchers, SEO crawlers and archivers) or that it
// has not caught up with (agents named on their operators' pages since).
// This list is ours; each name is the product token the operator
// documents.
var supplementaryAgents = []string{
	// Google (developers.google.com/search/docs/crawling-indexing/overview-google-crawlers)
	"Googlebot", "Googlebot-Image", "Googlebot-News", "Googlebot-Video",
	"Storebot-Google", "Google-InspectionTool", "GoogleOther", "AdsBot-Google",
	"AdsBot-Google-Mobile", "Mediapartners-Google", "APIs-Google",
	"FeedFetcher-Google", "Google-Read-Aloud", "Google-Site-Verification",
	// (developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers,
	// read 2026-11-27: "Gemini Notebook", the product NotebookLM was
	// renamed to; ai.robots.txt has the older Google-NotebookLM.)
	"Google-GeminiNotebook",
	// OpenAI (developers.openai.com/api/docs/bots, read 2026-11-27 in a
	// mirror of its Markdown source): the landing pages of ChatGPT ads.
	"OAI-AdsBot",
	// Cloudflare Browser Run's /crawl endpoint
	// (developers.cloudflare.com/browser-run/reference/automatic-request-headers/,
	// read 2026-11-27), which signs its requests with Web Bot Auth.
	"CloudflareBrowserRenderingCrawler",
	// Microsoft
	"bingbot", "BingPreview", "msnbot", "adidxbot", "MicrosoftPreview",
	// Other search engines
	"Applebot", "DuckDuckBot", "DuckDuckGo-Favicons-Bot", "YandexBot",
	"YandexImages", "YandexMobileBot", "Baiduspider", "Baiduspider-image",
	"SeznamBot", "Qwantbot", "Yeti", "coccocbot-web",
	// Link previews and social networks. Each fetches a page because a
	// person shared it (see previews in purpose.go, and the pages read
	// 2026-11-27 named there). facebookexternalhit is in ai.robots.txt too
	// (which doubts Meta's account of it); it is listed here so that it
	// stays known whatever that list does. Facebot is Meta's crawler
	// "that helps improve advertising performance"
	// (developers.facebook.com/docs/sharing/webmasters/crawler, read
	// 2026-11-27): known, but no preview.
	"Twitterbot", "LinkedInBot", "Discordbot", "Slackbot",
	"Slackbot-LinkExpanding", "TelegramBot", "WhatsApp", "Pinterestbot",
	"redditbot", "Mastodon", "Embedly", "facebookexternalhit", "Facebot",
	// Feed readers, by the product token each sends (read 2026-11-27):
	// Feedly "Feedly/1.0 (+http://www.feedly.com/fetcher.html; N
	// subscribers)" (feedly.com/fetcher.html: it "behaves as a direct agent
	// of the human user"); Inoreader "Inoreader/1.0
	// (+http://www.inoreader.com/feed-fetcher; N subscribers; )"
	// (inoreader.com/feed-fetcher). The others from their fetchers' source
	// code: NewsBlur "NewsBlur Feed Fetcher - N subscribers - URL (...)",
	// Feedbin "Feedbin feed-id:N - N subscribers", FreshRSS
	// "FreshRSS/VERSION (OS; https://freshrss.org)", Miniflux
	// "Mozilla/5.0 (compatible; Miniflux/VERSION; +https://miniflux.app)",
	// Tiny Tiny RSS "Tiny Tiny RSS/VERSION (http://tt-rss.org/)" (looked
	// up by its first word, see knownToken); The Old Reader "Mozilla/5.0
	// (compatible; theoldreader.com; N subscribers; feed-id=...)" and
	// NetNewsWire "NetNewsWire (RSS Reader; https://netnewswire.com/)" as
	// feed-statistics tools' test data quote them.
	"Feedly", "Inoreader", "NewsBlur", "Feedbin", "theoldreader.com",
	"FreshRSS", "Miniflux", "Tiny Tiny RSS", "NetNewsWire",
	// SEO crawlers and archivers
	"AhrefsBot", "AhrefsSiteAudit", "SemrushBot", "MJ12bot", "DotBot",
	"rogerbot", "archive.org_bot", "ia_archiver",
}

// genericClients are the default User-Agents of HTTP libraries, command-
// line tools and automation frameworks: traffic no person sends with a
// browser. Each entry is there because the client sends it by default;
// the notes say where the product token differs from the library's name.
var genericClients = []string{
	// Command-line downloaders.
	"curl", "Wget", "wget2",
	// Python: aiohttp sends "Python/3.x aiohttp/3.x", httpx sends
	// "python-httpx/x".
	"python-requests", "Python-urllib", "Python", "aiohttp", "python-httpx", "httpx",
	// Go net/http.
	"Go-http-client",
	// JavaScript: Node's built-in fetch sends "node" (earlier "undici");
	// got sends "got (https://github.com/sindresorhus/got)".
	"node", "undici", "node-fetch", "axios", "got",
	// JVM. okhttp is also the default of Android apps: a site whose own
	// app calls it that way can drop it with WithoutNames.
	"okhttp", "Java", "Java-http-client", "Apache-HttpClient",
	// Perl, Ruby (Net::HTTP sends "Ruby"; Faraday "Faraday v2.x"), PHP,
	// Rust (reqwest sends none by default, but the name is the usual
	// choice).
	"libwww-perl", "Ruby", "Faraday", "GuzzleHttp", "reqwest",
	// API tools.
	"HTTPie", "PostmanRuntime", "insomnia",
	// Crawling frameworks. Scrapy is also a known agent, which takes
	// precedence.
	"Scrapy", "colly",
	// Runtimes' fetch. Dart is also Flutter apps' HttpClient (see okhttp).
	"Deno", "Bun", "Dart",
	// Headless browsers name themselves; Puppeteer and Playwright send
	// HeadlessChrome by default and are listed for setups that name them.
	"HeadlessChrome", "PhantomJS", "Puppeteer", "Playwright",
}

// browserWords are product tokens of ordinary browsers. A known agent
// name with a space is never looked up by a first word from this list.
var browserWords = []string{"mozilla", "compatible", "applewebkit", "khtml", "like", "gecko", "chrome", "safari", "mobile", "version"}

var loadKnown = sync.OnceValue(func() []string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(aiRobotsJSON, &m); err != nil {
		// The file is embedded at build time and parsed by the tests;
		// this cannot happen in a tested build.
		panic(fmt.Sprintf("policy: embedded data/ai-robots.json: %v", err))
	}
	names := append(slices.Collect(maps.Keys(m)), supplementaryAgents...)
	slices.Sort(names)
	return slices.Compact(names)
})

// KnownAgents returns the built-in known-agent names, sorted: the ai.robots
// list (data/ai-robots.json) and our supplementary list of crawlers and
// fetchers. Names are as listed; some carry a version ("iaskspider/2.0")
// or a space ("ChatGPT Agent"), and are looked up by their product-token
// form (see NewClassifier).
func KnownAgents() []string { return slices.Clone(loadKnown()) }

// GenericClients returns the built-in generic automation client names.
func GenericClients() []string { return slices.Clone(genericClients) }

// knownToken is the product-token name a listed agent name is looked up
// by, and whether it is usable:
//
//   - a version after '/' is dropped ("MistralAI-User/1.0" is
//     "MistralAI-User"): product-token names never contain '/';
//   - a name with a space can only ever appear in a User-Agent as its first
//     word (the tokenizer ends names at whitespace: "Linguee Bot/1.0"
//     yields "Linguee"), so it is looked up by that word ("ChatGPT Agent" by
//     "ChatGPT"), unless the word is a browser's or a generic client's
//     token, which would misclassify ordinary traffic.
func knownToken(name string, generic map[string]bool) (string, bool) {
	name, _, _ = strings.Cut(name, "/")
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		name = name[:i]
		lower := asciiLower(name)
		if generic[lower] || slices.Contains(browserWords, lower) {
			return "", false
		}
	}
	return name, CheckAgentName(name) == nil
}
