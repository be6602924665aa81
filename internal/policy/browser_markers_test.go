package policy

import (
	"slices"
	"strings"
	"testing"
)

// markerPlaces are realistic browser User-Agents with one place (%s) where
// a word is read for bot markers: a mobile platform item, an iPhone
// platform item, a comment after a browser product, a product version.
// Each is a browser as it stands (TestMarkerPlacesAreBrowsers).
var markerPlaces = []string{
	"Mozilla/5.0 (Linux; Android 14; %s) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8 %s Build/AP1A.240505.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X; %s) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0 (Edition %s)",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 (%s)",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36-%s",
}

func place(f, word string) string { return strings.Replace(f, "%s", word, 1) }

// TestMarkerPlacesAreBrowsers: the places hold a browser with an ordinary
// word there, so that a marker in them is what makes the agent below.
func TestMarkerPlacesAreBrowsers(t *testing.T) {
	c := NewClassifier(nil)
	for _, f := range markerPlaces {
		for _, w := range []string{"K", "Cubot", "std", "Campaign", "Redmi", "KFTUWI", "beta"} {
			if got := c.Classify(place(f, w)); got.Kind != Browser {
				t.Errorf("%s: %v, want browser", place(f, w), got.Kind)
			}
		}
	}
}

// TestMarkerWords: automation, crawling and scraping words (issue 22), in
// every case, alone, in camel-case compounds and as lower-case compounds
// that begin with a marker stem, in every place a browser-shaped
// User-Agent is read for markers, make it an agent.
func TestMarkerWords(t *testing.T) {
	c := NewClassifier(nil)
	for _, w := range []string{
		// The examples.
		"Scraping", "ScrapingBee", "Browserbase", "Selenium", "Automated",
		"Scrapers", "Crawlers", "Browserless", "BrowserBase",
		// Stems and inflections.
		"Scraper", "scrape", "Scraped", "Scrapingbee", "SCRAPER", "Crawl", "Crawling", "crawled",
		"Crawlee", "Crawlbase", "Crawlera", "Spider", "Spiders", "Spidering", "Bot", "bots", "Robots",
		"Fetcher", "Fetchers", "Fetching", "Scanner", "Scanning", "Checker", "Checking",
		"Monitor", "Monitoring", "Validator", "Validation", "Archiver", "Archive", "Archiving",
		"Preview", "Previewer", "Proxy", "Proxies", "Indexer", "Indexing", "Parser", "Harvester",
		"Extractor", "Downloader", "Agent", "Agents", "Automation", "automate",
		// Automation tools and scraping services naming themselves.
		"HeadlessChrome", "Headless", "PhantomJS", "SlimerJS", "HtmlUnit", "jsdom",
		"WebDriver", "webdriver", "ChromeDriver", "GeckoDriver", "Puppeteer", "Playwright",
		"ScraperAPI", "Zyte", "Apify", "BrightData", "Oxylabs", "Scrapfly", "Lighthouse", "Uptime",
		// Compounds.
		"AcmeScraper", "MyCrawlerBot", "SiteAuditor", "LinkChecker", "PagePreview", "UptimeMonitor",
		"webcrawler", "Newsspider", "sitescrapers",
	} {
		for _, f := range markerPlaces {
			if got := c.Classify(place(f, w)); got.Kind == Browser {
				t.Errorf("%q passes as a browser: %s", w, place(f, w))
			}
		}
	}
}

// TestMarkerLists: every listed marker, with every inflection its list
// allows, in upper, lower and title case, is read as a marker in every
// place: the invariant over the lists, not the words above.
func TestMarkerLists(t *testing.T) {
	c := NewClassifier(nil)
	var words []string
	words = append(words, markerWords...)
	for _, s := range markerStems {
		words = append(words, s)
		for _, suf := range inflections {
			words = append(words, s+suf)
		}
	}
	for _, suf := range markerSuffixes {
		words = append(words, "acme"+suf)
	}
	for _, w := range words {
		if len(w) > maxMarkerLen && (slices.Contains(markerWords, w) || slices.Contains(markerStems, w)) {
			t.Errorf("%q is longer than maxMarkerLen", w)
		}
	}
	for _, ps := range markerPrefixes {
		for _, p := range ps {
			words = append(words, p, p+"x", p+"ing")
		}
	}
	for _, w := range words {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:], "Acme" + strings.ToUpper(w[:1]) + w[1:]} {
			if !hasMarker(v) {
				t.Errorf("%q is not read as a marker", v)
				continue
			}
			for _, f := range markerPlaces {
				if got := c.Classify(place(f, v)); got.Kind == Browser {
					t.Errorf("%q passes as a browser: %s", v, place(f, v))
				}
			}
		}
	}
}

// TestMarkersAreWholeWords: a marker matches a word or the start of one,
// never inside a word: these device and edition words hold marker letters
// and are no markers.
func TestMarkersAreWholeWords(t *testing.T) {
	for _, w := range []string{
		"Cubot", "CUBOT KINGKONG", "Abbot", "Bottom", "Botswana", "Reagent", "Overscan",
		"Webcrawl", "Sabot", "Talbot", "moto g power (2022)", "Redmi Note 9 Pro", "SM-G991B",
		"Infinix X6816", "TECNO KI5q", "HUAWEI P30", "Lenovo TB-X606F", "Edition std-1",
		"Edition Campaign 34", "KFTUWI", "Nokia G20",
	} {
		if hasMarker(w) {
			t.Errorf("%q is read as a marker", w)
		}
	}
}
