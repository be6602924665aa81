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
func PurposeOf(name string) Purpose {
	return purposes[strings.ToLower(name)]
}
