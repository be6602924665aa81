package policy

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/testing/fixtures"
)

// Real User-Agents as their operators publish them (Chrome/Safari
// version placeholders filled in).
const (
	uaClaudeBot      = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)"
	uaClaudeUser     = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)"
	uaGPTBot         = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot"
	uaChatGPTUser    = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot"
	uaOAISearchBot   = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot"
	uaPerplexityBot  = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)"
	uaPerplexityUser = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)"
	uaGooglebot      = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36"
	uaGooglebotPhone = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	uaGooglebotOld   = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	uaBytespider     = "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)"
	uaCCBot          = "CCBot/2.0 (https://commoncrawl.org/faq/)"
	uaAmazonbot      = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_1) AppleWebKit/600.2.5 (KHTML, like Gecko) Version/8.0.2 Safari/600.2.5 (Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)"
	uaApplebot       = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)"
	uaBingbot        = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36"
	uaBaiduspider    = "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)"

	uaChrome  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	uaSafari  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1"
	uaFirefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	uaEdge    = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"
	uaSamsung = "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36"
)

func TestClassifyKnownAgents(t *testing.T) {
	c := NewClassifier(nil)
	tests := []struct{ ua, want string }{
		{uaClaudeBot, "ClaudeBot"},
		{uaClaudeUser, "Claude-User"},
		{uaGPTBot, "GPTBot"},
		{uaChatGPTUser, "ChatGPT-User"},
		{uaOAISearchBot, "OAI-SearchBot"},
		{uaPerplexityBot, "PerplexityBot"},
		{uaPerplexityUser, "Perplexity-User"},
		{uaGooglebot, "Googlebot"},
		{uaGooglebotPhone, "Googlebot"},
		{uaGooglebotOld, "Googlebot"},
		{uaBytespider, "Bytespider"},
		{uaCCBot, "CCBot"},
		{uaAmazonbot, "Amazonbot"},
		{uaApplebot, "Applebot"},
		{uaBingbot, "bingbot"},
		{uaBaiduspider, "Baiduspider"},
		{"Mozilla/5.0 (compatible; Meta-ExternalAgent/1.1; +https://developers.facebook.com/docs/sharing/webmasters/crawler)", "Meta-ExternalAgent"},
		{"Mozilla/5.0 (compatible; iaskspider/2.0; +https://iask.ai)", "iaskspider"},
		{"MistralAI-User/1.0 (+https://docs.mistral.ai/robots)", "MistralAI-User"},
		{"Linguee Bot (http://www.linguee.com/bot; bot@linguee.com)", "Linguee Bot"},
		{"Scrapy/2.11.2 (+https://scrapy.org)", "Scrapy"}, // known wins over generic
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := c.Classify(tt.ua)
			if got != (Class{Kind: Known, Name: tt.want, Policy: -1, Purpose: PurposeOf(tt.want)}) {
				t.Errorf("Classify(%q) = %+v, want known %q", tt.ua, got, tt.want)
			}
		})
	}
}

func TestClassifyBrowsers(t *testing.T) {
	c := NewClassifier([]string{"*", "claude"})
	for name, ua := range map[string]string{
		"Chrome on Windows": uaChrome, "Safari on iOS": uaSafari, "Firefox on Linux": uaFirefox,
		"Edge": uaEdge, "Samsung Internet": uaSamsung,
	} {
		t.Run(name, func(t *testing.T) {
			got := c.Classify(ua)
			if got != (Class{Kind: Browser, Policy: -1}) || got.Agent() {
				t.Errorf("Classify(%q) = %+v, want browser", ua, got)
			}
		})
	}
}

func TestClassifyGeneric(t *testing.T) {
	c := NewClassifier(nil)
	tests := []struct{ ua, want string }{
		{"curl/8.5.0", "curl"},
		{"Wget/1.21.4", "Wget"},
		{"wget2/2.1.0", "wget2"},
		{"python-requests/2.32.3", "python-requests"},
		{"Python-urllib/3.12", "Python-urllib"},
		{"Python/3.12 aiohttp/3.10.5", "Python"},
		{"python-httpx/0.27.0", "python-httpx"},
		{"Go-http-client/1.1", "Go-http-client"},
		{"Go-http-client/2.0", "Go-http-client"},
		{"node", "node"},
		{"node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", "node-fetch"},
		{"axios/1.7.7", "axios"},
		{"undici", "undici"},
		{"got (https://github.com/sindresorhus/got)", "got"},
		{"okhttp/4.12.0", "okhttp"},
		{"Java/17.0.12", "Java"},
		{"Apache-HttpClient/4.5.14 (Java/17.0.12)", "Apache-HttpClient"},
		{"libwww-perl/6.77", "libwww-perl"},
		{"HTTPie/3.2.3", "HTTPie"},
		{"PostmanRuntime/7.42.0", "PostmanRuntime"},
		{"Ruby", "Ruby"},
		{"Faraday v2.12.0", "Faraday"},
		{"reqwest/0.12.8", "reqwest"},
		{"Deno/2.0.0", "Deno"},
		{"Bun/1.1.30", "Bun"},
		{"Dart/3.5 (dart:io)", "Dart"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", "HeadlessChrome"},
		{"Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1", "PhantomJS"},
	}
	for _, tt := range tests {
		t.Run(tt.ua, func(t *testing.T) {
			got := c.Classify(tt.ua)
			if got != (Class{Kind: Generic, Name: tt.want, Policy: -1}) || !got.Agent() {
				t.Errorf("Classify(%q) = %+v, want generic %q", tt.ua, got, tt.want)
			}
		})
	}
}

func TestClassifyDeclared(t *testing.T) {
	declared := []string{"*", "claude", "ClaudeBot", "spider", "MyAgent", "curl"}
	c := NewClassifier(declared)
	tests := []struct {
		name, ua string
		want     Class
	}{
		{"declared name wins over known", uaClaudeBot, Class{Declared, "ClaudeBot", 2, TrainingCrawler}},
		{"case-insensitive", "Mozilla/5.0 (compatible; claudebot/1.0)", Class{Declared, "ClaudeBot", 2, TrainingCrawler}},
		{"declared wins even after a known token", "GPTBot/1.1 MyAgent/2", Class{Declared, "MyAgent", 4, PurposeUnknown}},
		{"declared first product token", "myagent/0.1 (+https://example.com)", Class{Declared, "MyAgent", 4, PurposeUnknown}},
		{"declared wins over generic", "curl/8.5.0", Class{Declared, "curl", 5, PurposeUnknown}},
		{"claude does not match Claude-User", uaClaudeUser, Class{Known, "Claude-User", -1, UserAgent}},
		{"spider does not match Baiduspider", uaBaiduspider, Class{Known, "Baiduspider", -1, SearchCrawler}},
		{"spider matches the spider token", "Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)", Class{Declared, "spider", 3, PurposeUnknown}},
		{"exact, not substring", "Mozilla/5.0 (compatible; MyAgentX/1.0)", Class{Unknown, "", -1, PurposeUnknown}},
		{"first known match in token order", "GPTBot/1.1 CCBot/2.0", Class{Known, "GPTBot", -1, TrainingCrawler}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Classify(tt.ua); got != tt.want {
				t.Errorf("Classify(%q) = %+v, want %+v", tt.ua, got, tt.want)
			}
		})
	}
	t.Run("first of duplicate names", func(t *testing.T) {
		c := NewClassifier([]string{"Bot-A", "bot-a"})
		if got := c.Classify("bot-a/1"); got != (Class{Declared, "Bot-A", 0, PurposeUnknown}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("unmatchable names ignored", func(t *testing.T) {
		c := NewClassifier([]string{"", "a b", "x/1", strings.Repeat("n", 65)})
		if got := c.Classify("a b x/1"); got.Kind != Unknown {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("fixture agent policies", func(t *testing.T) {
		// The draft-car example site declares "*" and "claude".
		for _, f := range fixtures.All() {
			var names []string
			for _, a := range f.Site.Agents {
				names = append(names, a.Name)
			}
			c := NewClassifier(names)
			if got := c.Classify(uaClaudeBot); got.Kind == Declared && !strings.EqualFold(got.Name, "ClaudeBot") {
				t.Errorf("%s: ClaudeBot classified as declared %q", f.Name, got.Name)
			}
			if i := slices.Index(names, "claude"); i >= 0 {
				if got := c.Classify("claude/1.0"); got != (Class{Declared, "claude", i, PurposeUnknown}) {
					t.Errorf("%s: got %+v", f.Name, got)
				}
			}
		}
	})
}

func TestClassifyOptions(t *testing.T) {
	t.Run("extra known", func(t *testing.T) {
		c := NewClassifier(nil, WithExtraKnown("AcmeBot"))
		if got := c.Classify("AcmeBot/1"); got != (Class{Known, "AcmeBot", -1, PurposeUnknown}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("extra generic", func(t *testing.T) {
		c := NewClassifier(nil, WithExtraGeneric("lynx"))
		if got := c.Classify("Lynx/2.9"); got != (Class{Generic, "lynx", -1, PurposeUnknown}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("replace known", func(t *testing.T) {
		c := NewClassifier(nil, WithKnownList([]string{"OnlyBot"}))
		if got := c.Classify(uaClaudeBot); got.Kind != Unknown {
			t.Errorf("ClaudeBot still known: %+v", got)
		}
		if got := c.Classify("OnlyBot"); got.Kind != Known {
			t.Errorf("got %+v", got)
		}
		if got := c.Classify("Scrapy/2"); got != (Class{Generic, "Scrapy", -1, PurposeUnknown}) {
			t.Errorf("generic list must still hold Scrapy: %+v", got)
		}
	})
	t.Run("replace generic", func(t *testing.T) {
		c := NewClassifier(nil, WithGenericList(nil))
		if got := c.Classify("curl/8"); got.Kind != Unknown {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("without names", func(t *testing.T) {
		c := NewClassifier(nil, WithoutNames("OKHTTP", "Dart", "ChatGPT Agent", "GPTBot"))
		for _, ua := range []string{"okhttp/4.12.0", "Dart/3.5 (dart:io)", "ChatGPT/1.2025.084 (iOS 18.3)", uaGPTBot} {
			if got := c.Classify(ua); got.Kind != Unknown {
				t.Errorf("Classify(%q) = %+v, want unknown", ua, got)
			}
		}
	})
	t.Run("spaced names never use browser or generic words", func(t *testing.T) {
		c := NewClassifier(nil, WithExtraKnown("Mozilla Thing", "curl Wrapper", "Zeta Crawler"))
		if got := c.Classify(uaChrome); got.Kind != Browser {
			t.Errorf("got %+v", got)
		}
		if got := c.Classify("curl/8"); got != (Class{Generic, "curl", -1, PurposeUnknown}) {
			t.Errorf("got %+v", got)
		}
		if got := c.Classify("Zeta Crawler/1.0"); got != (Class{Known, "Zeta Crawler", -1, PurposeUnknown}) {
			t.Errorf("got %+v", got)
		}
	})
}

// TestClassifyMalformed: hostile User-Agents never panic and stay cheap.
func TestClassifyMalformed(t *testing.T) {
	c := NewClassifier([]string{"claude"})
	for name, ua := range map[string]string{
		"unbalanced open":   strings.Repeat("(", 10000) + "claude",
		"unbalanced close":  strings.Repeat(")", 10000) + "claude",
		"10 KiB of ;":       strings.Repeat(";", 10<<10),
		"NULs":              "claude\x00\x00\x00/1.0\x00(\x00)",
		"non-UTF-8":         "\xff\xfe\xfd/1.0 (\xc3\x28; \xa0\xa1)",
		"long token":        strings.Repeat("A", 10<<10),
		"long token of 65":  strings.Repeat("a", 65),
		"many tokens":       strings.Repeat("x/1 ", 5000) + "claude",
		"only parentheses":  "()()((()))",
		"slashes":           "////////",
		"name at the limit": strings.Repeat(" ", MaxUserAgentLen-6) + "claude",
	} {
		t.Run(name, func(t *testing.T) {
			_ = c.Classify(ua)
		})
	}
	if got := c.Classify(strings.Repeat(";", 10<<10)); got.Kind != Unknown {
		t.Errorf("no product token: got %+v", got)
	}
	if got := c.Classify("claude\x00/1.0"); got.Kind != Declared {
		t.Errorf("NUL separates: got %+v", got)
	}
}

func TestClassifyAllocs(t *testing.T) {
	c := NewClassifier([]string{"*", "claude", "MyAgent"})
	uas := []string{uaChrome, uaClaudeBot, uaGooglebotPhone, "curl/8.5.0", "", "MyAgent/1.0", strings.Repeat("a;", 1000)}
	allocs := testing.AllocsPerRun(100, func() {
		for _, ua := range uas {
			c.Classify(ua)
		}
	})
	if allocs != 0 {
		t.Fatalf("Classify allocates %v times per run", allocs)
	}
}

// TestEmbeddedKnownAgents: the embedded list parses, matches the file in
// data/, and every usable name is found by Classify.
func TestEmbeddedKnownAgents(t *testing.T) {
	raw, err := os.ReadFile("data/ai-robots.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	known := KnownAgents()
	if !slices.IsSorted(known) || len(known) < len(m) {
		t.Fatalf("KnownAgents: %d names, sorted %v", len(known), slices.IsSorted(known))
	}
	for name := range m {
		if !slices.Contains(known, name) {
			t.Errorf("%q missing from KnownAgents", name)
		}
	}
	for _, want := range []string{"Googlebot", "bingbot", "Applebot", "ClaudeBot", "GPTBot"} {
		if !slices.Contains(known, want) {
			t.Errorf("%q missing from KnownAgents", want)
		}
	}
	c := NewClassifier(nil)
	generic := map[string]bool{}
	for _, g := range GenericClients() {
		generic[strings.ToLower(g)] = true
	}
	for _, name := range known {
		tok, ok := knownToken(name, generic)
		if !ok {
			continue
		}
		got := c.Classify("Mozilla/5.0 (compatible; " + tok + "/1.0)")
		if got.Kind != Known || !strings.EqualFold(knownTokenOf(t, got.Name, generic), tok) {
			t.Errorf("%q (token %q) classified %+v", name, tok, got)
		}
	}
	// KnownAgents returns a copy.
	known[0] = "changed"
	if KnownAgents()[0] == "changed" {
		t.Error("KnownAgents shares its slice")
	}
}

func knownTokenOf(t *testing.T, name string, generic map[string]bool) string {
	t.Helper()
	tok, _ := knownToken(name, generic)
	return tok
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Browser: "browser", Declared: "declared", Known: "known", Generic: "generic", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q", k, got)
		}
	}
}

func TestCheckAgentName(t *testing.T) {
	for _, ok := range []string{"claude", "ClaudeBot", "Meta-ExternalAgent", "archive.org_bot", "+x"} {
		if err := CheckAgentName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a b", "a/1", "a;b", "a,b", "(a)", "a\x00", strings.Repeat("a", 65)} {
		if err := CheckAgentName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestNameTableCollisions: names with the same length and the same first
// and last two bytes share a hash; each is still found, and a near miss is
// not.
func TestNameTableCollisions(t *testing.T) {
	var entries []nameEntry
	for i := range 40 {
		key := "ab" + strings.Repeat(string(rune('a'+i%26)), 1+i/26) + "yz"
		entries = append(entries, nameEntry{key: key, class: Class{Kind: Known, Name: key, Policy: i}})
	}
	tab := newNameTable(entries)
	for _, e := range entries {
		got := tab.lookup(strings.ToUpper(e.key))
		if got == nil || got.Name != e.key {
			t.Fatalf("lookup(%q) = %+v", e.key, got)
		}
	}
	for _, miss := range []string{"abyz", "ab0yz", "abAAAyz", "", strings.Repeat("a", 65)} {
		if got := tab.lookup(miss); got != nil {
			t.Errorf("lookup(%q) = %+v", miss, got)
		}
	}
	var empty nameTable
	if empty.lookup("x") != nil {
		t.Error("empty table found a name")
	}
}

func TestClassifyZeroValue(t *testing.T) {
	var c Classifier
	if got := c.Classify(uaClaudeBot); got != (Class{Kind: Unknown, Policy: -1}) {
		t.Errorf("got %+v", got)
	}
	if got := c.Classify(uaChrome); got != (Class{Kind: Browser, Policy: -1}) {
		t.Errorf("got %+v", got)
	}
	if got := c.Classify(""); got != (Class{Kind: Unknown, Policy: -1}) {
		t.Errorf("got %+v", got)
	}
}

func TestClassifyNonASCIIName(t *testing.T) {
	c := NewClassifier([]string{"Ünibot"})
	if got := c.Classify("Ünibot/1.0"); got != (Class{Declared, "Ünibot", 0, PurposeUnknown}) {
		t.Errorf("got %+v", got)
	}
	if got := c.Classify("ÜNIBOT/1.0"); got != (Class{Declared, "Ünibot", 0, PurposeUnknown}) {
		t.Errorf("ASCII letters fold: got %+v", got)
	}
	if got := c.Classify("ünibot/1.0"); got.Kind != Unknown {
		t.Errorf("only ASCII letters fold: got %+v", got)
	}
}

// Test-only options and lookups: the middleware never replaces the
// built-in lists, and Classify inlines lookup.

// WithKnownList replaces the built-in known-agent list (KnownAgents).
func WithKnownList(names []string) ClassifierOption {
	return func(l *classifierLists) { l.known = append([]string(nil), names...) }
}

// WithGenericList replaces the built-in generic-client list
// (GenericClients).
func WithGenericList(names []string) ClassifierOption {
	return func(l *classifierLists) { l.generic = append([]string(nil), names...) }
}

// lookup returns the class of name, compared case-insensitively, or nil.
// Classify inlines its first step (hash, then one slot).
func (t *nameTable) lookup(name string) *Class {
	if name == "" || len(name) > maxNameLen || len(t.slots) == 0 {
		return nil
	}
	h := hashName(name)
	return t.probe(name, h, h&t.mask)
}
