package policy

import "strings"

// Bot markers: what makes a browser-shaped User-Agent an automated
// client's (see plausibleBrowser). A marker is a URL, an e-mail address or
// a marker word; the words name crawling, scraping and automation, and
// come from the crawler examples this package is tested against
// (testdata/ua/crawlers.txt: bot, crawler, spider, scraper, fetcher,
// checker, monitor, validator, archiver, preview, proxy, ...) and from the
// automation tools and scraping services that name themselves in the
// User-Agents they send (HeadlessChrome, PhantomJS, Selenium, WebDriver,
// Puppeteer, Playwright, ScrapingBee, ScraperAPI, Browserless,
// Browserbase, Zyte, Apify, Bright Data, Oxylabs).
//
// Words are read as docs/enforcement.md says: a run of letters is a word, and so is
// each part of it split at case changes ("ScrapingBee" is scrapingbee,
// scraping and bee; "MyCrawlerBot" is mycrawlerbot, my, crawler and bot).
// Digits and punctuation end a run. A word is a marker when it is
//
//   - one of markerWords, exactly ("bot", "http", "com");
//   - a stem of markerStems with one inflection ("bots", "crawlers",
//     "fetching", "monitored", "validation", "archive"): an ending of
//     inflections, never an arbitrary tail;
//   - it begins with one of markerPrefixes, stems no browser word begins
//     with ("scrap" is Scraper, Scrapers, Scraping, ScrapingBee,
//     Scrapfly; "crawl" is Crawlers, Crawlee, Crawlbase; "automat" is
//     Automated, Automation);
//   - or it ends in one of markerSuffixes, agent nouns no other word ends
//     in ("webcrawler", "newsspider", "sitescrapers").
//
// Otherwise a marker never matches inside a word: "Cubot", a phone, holds
// no "bot" word ("MyBot" does: the case change makes it one). TestBrowserCorpus holds that no real browser
// User-Agent holds a marker.

// markerWords are marker words matched exactly.
var markerWords = []string{
	"http", "https", "www", "com", "compatible",
	"headless", "lighthouse", "proxies", "uptime",
}

// markerStems are marker words matched with one of inflections appended
// (or none): "bot" is bot and bots, "fetch" is fetcher, fetchers,
// fetching.
var markerStems = []string{
	"bot", "robot", "agent", "fetch", "scan", "scann",
	"check", "monitor", "monit", "validat", "archiv",
	"preview", "proxy", "index", "audit", "pars",
	"harvest", "extract", "download", "spider",
}

// markerTable holds markerWords and markerStems by length and first
// letter, so that looking a word up costs two index operations and a
// comparison or two, no hashing.
var markerTable = func() (t [maxMarkerLen + 1][26][]markerEntry) {
	add := func(w string, stem bool) {
		t[len(w)][w[0]-'a'] = append(t[len(w)][w[0]-'a'], markerEntry{w, stem})
	}
	for _, w := range markerWords {
		add(w, false)
	}
	for _, w := range markerStems {
		add(w, true)
	}
	return t
}()

const maxMarkerLen = 12 // the longest of markerWords and markerStems

type markerEntry struct {
	word string
	stem bool
}

// lookupMarker reports whether w is one of markerWords or markerStems
// (any), and one of markerStems (stem).
func lookupMarker(w []byte) (any, stem bool) {
	if len(w) > maxMarkerLen || w[0] < 'a' || w[0] > 'z' {
		return false, false
	}
	for _, e := range markerTable[len(w)][w[0]-'a'] {
		if e.word == string(w) {
			return true, e.stem
		}
	}
	return false, false
}

// inflections are the endings a stem of markerStems takes (isMarkerWord
// tests them by the last letter; TestMarkerLists holds the two together).
var inflections = []string{"s", "es", "e", "ed", "er", "ers", "ing", "ion", "ions", "or", "ors"}

// markerPrefixes are stems matched at the start of a word, whatever
// follows: no word of a browser's User-Agent begins with one. Indexed by
// first letter.
var markerPrefixes = func() (t [26][]string) {
	for _, p := range []string{
		"scrap", "crawl", "spider", "headless", "automat",
		"selenium", "webdriver", "chromedriver", "geckodriver", "puppeteer", "playwright",
		"phantomjs", "slimerjs", "htmlunit", "jsdom",
		"browserless", "browserbase", "zyte", "apify", "brightdata", "oxylabs",
	} {
		t[p[0]-'a'] = append(t[p[0]-'a'], p)
	}
	return t
}()

// markerSuffixes are the endings that make a lower-case compound a marker
// word. "bot" is not one: Cubot, Abbot, Talbot. (isMarkerWord tests them
// as agentNoun; TestMarkerLists holds the two together.)
var markerSuffixes = []string{"crawler", "crawlers", "spider", "spiders", "scraper", "scrapers"}

// hasMarker reports whether s holds a bot marker: a URL, an e-mail
// address or a marker word.
func hasMarker(s string) bool {
	return strings.Contains(s, "://") || strings.Contains(s, "www.") || hasEmail(s) || hasMarkerWord(s)
}

// hasMarkerWord reports whether a word of s (see the comment at the top of
// this file) is a marker word.
func hasMarkerWord(s string) bool {
	var run, part [maxNameLen]byte
	for i := 0; i < len(s); {
		for i < len(s) && !isLetter(s[i]) {
			i++
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		if i == j {
			return false
		}
		n := copy(run[:], s[i:j])
		split := false // a lower-case letter before an upper-case one
		for k := range n {
			if k > 0 && isLowerByte(run[k-1]) && !isLowerByte(run[k]) {
				split = true
			}
			run[k] = lower(run[k])
		}
		if isMarkerWord(run[:n]) {
			return true
		}
		// The parts, when case changes split the run ("ScrapingBee",
		// "HTMLUnit"; an upper-case run alone, "SAMSUNG", is one word).
		if split || hasUpperRunBeforeLower(s[i:j]) {
			for w, k := nextWord(s[i:j], 0, &part); w != nil; w, k = nextWord(s[i:j], k, &part) {
				if isMarkerWord(w) {
					return true
				}
			}
		}
		i = j
	}
	return false
}

// hasUpperRunBeforeLower reports whether r, a run of letters, has two
// upper-case letters followed by a lower-case one ("TSMBot"), where
// nextWord ends a word before the last upper-case letter.
func hasUpperRunBeforeLower(r string) bool {
	for k := 2; k < len(r); k++ {
		if isLowerByte(r[k]) && !isLowerByte(r[k-1]) && !isLowerByte(r[k-2]) {
			return true
		}
	}
	return false
}

// isMarkerWord reports whether w, a lower-case word, is a marker word.
// This runs on every word of a mobile browser's platform comment, so the
// common miss costs one map probe and a few byte comparisons.
func isMarkerWord(w []byte) bool {
	if len(w) < 3 {
		return false // no marker is shorter
	}
	if any, _ := lookupMarker(w); any {
		return true
	}
	if c := w[0]; 'a' <= c && c <= 'z' {
		for _, p := range markerPrefixes[c-'a'] {
			if len(w) >= len(p) && string(w[:len(p)]) == p {
				return true
			}
		}
	}
	// The endings, by the word's last letter: a miss costs a comparison
	// or two. TestMarkerLists holds this to inflections and markerSuffixes.
	switch n := len(w); w[n-1] {
	case 's':
		return stemmed(w, 1) || endsIn(w, "es") && stemmed(w, 2) ||
			(endsIn(w, "ers") || endsIn(w, "ors")) && stemmed(w, 3) || endsIn(w, "ions") && stemmed(w, 4) ||
			agentNoun(w[:n-1])
	case 'e':
		return stemmed(w, 1)
	case 'd':
		return endsIn(w, "ed") && stemmed(w, 2)
	case 'r':
		return (endsIn(w, "er") || endsIn(w, "or")) && stemmed(w, 2) || agentNoun(w)
	case 'g':
		return endsIn(w, "ing") && stemmed(w, 3)
	case 'n':
		return endsIn(w, "ion") && stemmed(w, 3)
	}
	return false
}

// stemmed reports whether w without its last n bytes is one of
// markerStems.
func stemmed(w []byte, n int) bool {
	if len(w) <= n {
		return false
	}
	_, stem := lookupMarker(w[:len(w)-n])
	return stem
}

func endsIn(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

// agentNoun reports whether w ends in one of markerSuffixes' singulars.
func agentNoun(w []byte) bool {
	return endsIn(w, "crawler") || endsIn(w, "spider") || endsIn(w, "scraper")
}

// hasEmail reports whether s holds an e-mail address: an '@' between a
// letter or digit and a letter ("bot@example.com"; Ecosia's
// "android@150.0.0.0" is a version).
func hasEmail(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '@' && (isLetter(s[i-1]) || isDigit(s[i-1])) && isLetter(s[i+1]) {
			return true
		}
	}
	return false
}
