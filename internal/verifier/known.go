package verifier

import (
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
)

// knownRow is what an operator publishes for sites to verify one of its
// agents, with where and when it was checked. Before relying on a row for
// a policy of your own, check it against the operator's page: a site can
// always name its sources in config.Verification instead.
type knownRow struct {
	// Only the sources are set: a row is the Verification a policy of
	// its name gets for the kinds it names no source of.
	config.Verification
	// Pages are the operator's pages the row was checked against.
	Pages []string
	// Read is the day the pages were read (YYYY-MM-DD), in the stored
	// copies the search tools hold of them; Note says when a copy was not
	// the page itself.
	Read string
	Note string
}

// known holds the rows, per agent product token (lower case).
//
// Left out on purpose:
//
//   - Sources that prove nothing about an agent because anyone can send
//     from them: googleusercontent.com as a reverse DNS domain and
//     Google's user-triggered-fetchers.json (Google says those addresses
//     are App Engine's, *.gae.googleusercontent.com, which any Google
//     Cloud customer can run), and OpenAI's chatgpt-agents.json (the
//     egress of Codex cloud, whose containers run their users' code:
//     developers.openai.com/api/docs/guides/ip-addresses, read
//     2026-11-27).
//   - Agents whose operator publishes no source (Bytespider,
//     meta-externalagent): they cannot be verified. Nor ChatGPT agent,
//     which signs with Web Bot Auth (Signature-Agent
//     "https://chatgpt.com") but sends a browser's User-Agent, so no
//     policy name can match it: a site trusts that directory for a policy
//     of its own naming, through SignatureAgents.
//   - Google-GeminiNotebook, the user-triggered fetcher Google lists as
//     "Gemini Notebook" (the product NotebookLM was renamed to; the
//     Google-NotebookLM token Google listed from October 2025): Google's
//     list page publishes three range lists for its user-triggered
//     fetchers and the stored copies do not say which one this fetcher
//     sends from. The name is known (policy's data), its sources are not.
var known = map[string]knownRow{
	"gptbot":        openAI("https://openai.com/gptbot.json"),
	"oai-searchbot": openAI("https://openai.com/searchbot.json"),
	// OAI-AdsBot visits the landing pages of ads submitted to ChatGPT.
	"oai-adsbot": openAI("https://openai.com/adsbot.json"),
	// ChatGPT-User also carries the GPT Actions a user runs (the bots
	// page: "ChatGPT users may also interact with external applications
	// via GPT Actions"), which the IP egress page sends from the "ChatGPT
	// integrations" ranges: both lists are ChatGPT acting for a user.
	"chatgpt-user": {
		Verification: config.Verification{IPRanges: []string{"https://openai.com/chatgpt-user.json", "https://openai.com/chatgpt-connectors.json"}},
		Pages:        []string{openAIBots, "https://developers.openai.com/api/docs/guides/ip-addresses"},
		Read:         "2026-11-27",
		Note:         openAINote,
	},
	// One list for the three; the article's "this list" links it.
	"claudebot":        anthropic,
	"claude-searchbot": anthropic,
	"claude-user":      anthropic,
	// Google sorts its clients into three kinds, each with its own IP
	// range list and reverse DNS mask
	// (https://developers.google.com/crawling/docs/crawlers-fetchers/verify-google-requests,
	// "Verifying Googlebot and other Google crawlers"; the three list pages
	// .../google-common-crawlers, .../google-special-case-crawlers and
	// .../google-user-triggered-fetchers say the same):
	//
	//   - common crawlers (Googlebot and its -Image, -News, -Video
	//     variants, Storebot-Google, Google-InspectionTool, GoogleOther):
	//     common-crawlers.json, crawl-***-***-***-***.googlebot.com or
	//     geo-crawl-***-***-***-***.geo.googlebot.com;
	//   - special-case crawlers (AdsBot-Google, AdsBot-Google-Mobile,
	//     Mediapartners-Google, APIs-Google): special-crawlers.json,
	//     rate-limited-proxy-***-***-***-***.google.com;
	//   - user-triggered fetchers Google controls (FeedFetcher-Google,
	//     Google-Read-Aloud, Google-Site-Verification):
	//     user-triggered-fetchers-google.json, google-proxy-***-***-***-***.google.com.
	//
	// A common crawler is proven by googlebot.com names only, never by
	// google.com: a forward-confirmed google.com name is a Google machine,
	// but it may be one that fetches on a user's request, for anyone who
	// asks (issue 22). The other two kinds have no reverse DNS row: their
	// masks differ only in a label prefix under google.com, which a domain
	// cannot express (google.com would admit every Google host, AdsBot's
	// for a fetcher and a fetcher's for AdsBot), so their range lists,
	// which Google publishes per kind, prove them. Google-Extended is a
	// robots.txt token, not a crawler: no request carries it, and there is
	// nothing to verify.
	"googlebot":                googleCommon,
	"googlebot-image":          googleCommon,
	"googlebot-news":           googleCommon,
	"googlebot-video":          googleCommon,
	"storebot-google":          googleCommon,
	"google-inspectiontool":    googleCommon,
	"googleother":              googleCommon,
	"adsbot-google":            googleSpecial,
	"adsbot-google-mobile":     googleSpecial,
	"mediapartners-google":     googleSpecial,
	"apis-google":              googleSpecial,
	"feedfetcher-google":       googleFetcher,
	"google-read-aloud":        googleFetcher,
	"google-site-verification": googleFetcher,
	// Google-Agent comes from user-triggered-agents.json, and some of its
	// requests are signed: Signature-Agent g="https://agent.bot.goog", the
	// key directory at its well-known URI.
	"google-agent": {
		Verification: config.Verification{
			SignatureAgents: []string{"https://agent.bot.goog"},
			IPRanges:        []string{"https://developers.google.com/static/crawling/ipranges/user-triggered-agents.json"},
		},
		Pages: []string{"https://developers.google.com/crawling/docs/crawlers-fetchers/allow-google-agent"},
		Read:  "2026-11-27",
	},
	// Cloudflare Browser Run's /crawl endpoint sends this User-Agent,
	// which its users cannot change, and signs every request with Web Bot
	// Auth, the keys at the origin its page links as "The location of the
	// bot public keys" (a workers.dev host is one Cloudflare account's).
	"cloudflarebrowserrenderingcrawler": {
		Verification: config.Verification{SignatureAgents: []string{"https://web-bot-auth.cloudflare-browser-rendering-085.workers.dev"}},
		Pages:        []string{"https://developers.cloudflare.com/browser-run/reference/automatic-request-headers/"},
		Read:         "2026-11-27",
		Note:         "the link target read in copies of the page source (cloudflare/cloudflare-docs)",
	},
	"bingbot": {
		Verification: config.Verification{IPRanges: []string{"https://www.bing.com/toolbox/bingbot.json"}, ReverseDNS: []string{"search.msn.com"}},
		Pages:        []string{"https://www.bing.com/webmaster/help/how-to-verify-bingbot-3905dc26"},
		Read:         "2026-11-25", Note: "the JSON URL is from secondary sources",
	},
	"applebot": {
		Verification: config.Verification{IPRanges: []string{"https://search.developer.apple.com/applebot.json"}, ReverseDNS: []string{"applebot.apple.com"}},
		Pages:        []string{"https://support.apple.com/en-us/119829"},
		Read:         "2026-11-25", Note: "the JSON URL is from secondary sources",
	},
	// Perplexity's page names https://www.perplexity.com/perplexitybot.json
	// and .../perplexity-user.json; those are reported (issue 24) to
	// redirect to www.perplexity.ai, which serves the lists. A source is
	// never fetched through a redirect (fetch.go), and a list that cannot
	// be loaded makes every claim it would refuse fall back to "*"
	// (Verify answers ErrUnavailable, not ErrFailed), so a row names only
	// the URLs a list is served at directly. Neither the redirect nor the
	// direct answer could be observed from here: check both before relying
	// on the row.
	"perplexitybot":   perplexity("https://www.perplexity.ai/perplexitybot.json"),
	"perplexity-user": perplexity("https://www.perplexity.ai/perplexity-user.json"),
	"ccbot": {
		Verification: config.Verification{IPRanges: []string{"https://index.commoncrawl.org/ccbot.json"}, ReverseDNS: []string{"crawl.commoncrawl.org"}},
		Pages:        []string{"https://commoncrawl.org/ccbot"},
		Read:         "2026-11-25", Note: "from secondary sources",
	},
	"mistralai-user": {
		Verification: config.Verification{IPRanges: []string{"https://mistral.ai/mistralai-user-ips.json"}},
		Pages:        []string{"https://docs.mistral.ai/robots"},
		Read:         "2026-11-25",
	},
	"duckassistbot": {
		Verification: config.Verification{IPRanges: []string{"https://duckduckgo.com/duckassistbot.json"}},
		Pages:        []string{"https://duckduckgo.com/duckduckgo-help-pages/results/duckassistbot/"},
		Read:         "2026-11-27",
		Note:         "the stored copy of the page (duckduckgo/duckduckgo-help-pages) lists its addresses inline; the JSON URL is from secondary sources",
	},
	"amazonbot": {
		Verification: config.Verification{ReverseDNS: []string{"crawl.amazonbot.amazon"}},
		Pages:        []string{"https://developer.amazon.com/amazonbot"},
		Read:         "2026-11-25",
	},
}

// OpenAI's crawler page. The stored copies hold no copy of the page
// itself, only a mirror of its Markdown source (bots.md) fetched
// 2026-06-27, with the four agents and their lists.
const (
	openAIBots = "https://developers.openai.com/api/docs/bots"
	openAINote = "the bots page read in a mirror of its Markdown source (bots.md, fetched 2026-06-27)"
)

func openAI(list string) knownRow {
	return knownRow{Verification: config.Verification{IPRanges: []string{list}}, Pages: []string{openAIBots}, Read: "2026-11-27", Note: openAINote}
}

var anthropic = knownRow{
	Verification: config.Verification{IPRanges: []string{"https://claude.com/crawling/bots.json"}},
	Pages:        []string{"https://support.claude.com/en/articles/8896518"},
	Read:         "2026-11-27",
	Note:         "the article's sentence read on privacy.claude.com (zh-TW); the link target in copies of the English article",
}

func perplexity(list string) knownRow {
	return knownRow{Verification: config.Verification{IPRanges: []string{list}},
		Pages: []string{"https://docs.perplexity.ai/docs/resources/perplexity-crawlers"},
		Read:  "2026-11-27",
		Note:  "read in a copy of the page source (pie575/perplexity-docs); the URLs, see the row comment",
	}
}

// Google's three kinds of client (see the rows above).
var (
	googleCommon  = googleRow("common-crawlers.json", "google-common-crawlers", "googlebot.com")
	googleSpecial = googleRow("special-crawlers.json", "google-special-case-crawlers", "")
	googleFetcher = googleRow("user-triggered-fetchers-google.json", "google-user-triggered-fetchers", "")
)

func googleRow(list, page, rdns string) knownRow {
	r := knownRow{
		Verification: config.Verification{IPRanges: []string{"https://developers.google.com/static/crawling/ipranges/" + list}},
		Pages: []string{"https://developers.google.com/crawling/docs/crawlers-fetchers/verify-google-requests",
			"https://developers.google.com/crawling/docs/crawlers-fetchers/" + page},
		Read: "2026-11-25",
	}
	if rdns != "" {
		r.ReverseDNS = []string{rdns}
	}
	if list == "user-triggered-fetchers-google.json" {
		r.Read = "2026-11-27" // the list page read again for Google-GeminiNotebook
	}
	return r
}

// knownToken is the known agent name as the known-agent list spells it
// (policy.KnownAgents), for the lower-case key of a row.
func knownToken(lower string) string {
	for _, n := range policy.KnownAgents() {
		if strings.EqualFold(n, lower) {
			return n
		}
	}
	return lower
}
