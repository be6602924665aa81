package verifier

import (
	"slices"
	"strings"
)

// known holds, per agent product token (lower case), what its operator
// publishes for sites to verify it. Gathered 2026-11-25 from the
// operators' documentation as stored copies showed it; the row comments
// cite the page, and say "secondary" where the exact URL was confirmed
// only by independent secondary sources. Before relying on a row for a
// policy of your own, check it against the operator's page: a site can
// always name its sources in config.Verification instead.
//
// Left out on purpose: googleusercontent.com as a reverse DNS domain, and
// Google's user-triggered-fetchers.json. Google says those addresses are
// App Engine's (*.gae.googleusercontent.com), which any Google Cloud
// customer can run, so they prove nothing about Google's agents. Agents
// whose operator publishes no source (Bytespider, meta-externalagent) have
// no row: they cannot be verified. Nor has ChatGPT agent, which signs with
// Web Bot Auth (Signature-Agent "https://chatgpt.com") but sends a
// browser's User-Agent, so no policy name can match it: a site trusts
// that directory for a policy of its own naming, through SignatureAgents.
var known = map[string]Sources{
	// https://developers.openai.com/api/docs/bots
	"gptbot":        {IPRanges: []string{"https://openai.com/gptbot.json"}},
	"oai-searchbot": {IPRanges: []string{"https://openai.com/searchbot.json"}},
	"chatgpt-user":  {IPRanges: []string{"https://openai.com/chatgpt-user.json"}},
	// https://support.claude.com/en/articles/8896518 (one list for all
	// three; the URL is secondary)
	"claudebot":        {IPRanges: []string{"https://claude.com/crawling/bots.json"}},
	"claude-searchbot": {IPRanges: []string{"https://claude.com/crawling/bots.json"}},
	"claude-user":      {IPRanges: []string{"https://claude.com/crawling/bots.json"}},
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
	// https://developers.google.com/crawling/docs/crawlers-fetchers/allow-google-agent
	// (signs some requests only: Signature-Agent: g="https://agent.bot.goog")
	"google-agent": {
		SignatureAgents: []string{"https://agent.bot.goog"},
		IPRanges:        []string{"https://developers.google.com/static/crawling/ipranges/user-triggered-agents.json"},
	},
	// https://www.bing.com/webmaster/help/how-to-verify-bingbot-3905dc26
	// (the JSON URL is secondary)
	"bingbot": {
		IPRanges:   []string{"https://www.bing.com/toolbox/bingbot.json"},
		ReverseDNS: []string{"search.msn.com"},
	},
	// https://support.apple.com/en-us/119829 (the JSON URL is secondary)
	"applebot": {
		IPRanges:   []string{"https://search.developer.apple.com/applebot.json"},
		ReverseDNS: []string{"applebot.apple.com"},
	},
	// https://docs.perplexity.ai/docs/resources/perplexity-crawlers (URLs
	// secondary)
	"perplexitybot":   {IPRanges: []string{"https://www.perplexity.ai/perplexitybot.json"}},
	"perplexity-user": {IPRanges: []string{"https://www.perplexity.ai/perplexity-user.json"}},
	// https://commoncrawl.org/ccbot (secondary)
	"ccbot": {
		IPRanges:   []string{"https://index.commoncrawl.org/ccbot.json"},
		ReverseDNS: []string{"crawl.commoncrawl.org"},
	},
	// https://docs.mistral.ai/robots
	"mistralai-user": {IPRanges: []string{"https://mistral.ai/mistralai-user-ips.json"}},
	// https://duckduckgo.com/duckduckgo-help-pages/results/duckassistbot/
	// (the JSON URL is secondary)
	"duckassistbot": {IPRanges: []string{"https://duckduckgo.com/duckassistbot.json"}},
	// https://developer.amazon.com/amazonbot
	"amazonbot": {ReverseDNS: []string{"crawl.amazonbot.amazon"}},
}

// Google's three kinds of client (see the rows above).
var (
	googleCommon = Sources{
		IPRanges:   []string{"https://developers.google.com/static/crawling/ipranges/common-crawlers.json"},
		ReverseDNS: []string{"googlebot.com"},
	}
	googleSpecial = Sources{IPRanges: []string{"https://developers.google.com/static/crawling/ipranges/special-crawlers.json"}}
	googleFetcher = Sources{IPRanges: []string{"https://developers.google.com/static/crawling/ipranges/user-triggered-fetchers-google.json"}}
)

// Known returns what the known-agent data holds for the agent product
// token name (case-insensitive): the sources a policy of that name uses
// when its Verification names none.
func Known(name string) (Sources, bool) {
	s, ok := known[strings.ToLower(name)]
	return Sources{slices.Clone(s.SignatureAgents), slices.Clone(s.IPRanges), slices.Clone(s.ReverseDNS)}, ok
}
