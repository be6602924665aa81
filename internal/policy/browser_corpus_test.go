package policy

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// readLines reads a corpus file of testdata/ua, one User-Agent a line,
// kept exactly (a line may end in a space).
func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/ua/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBrowserCorpus: no real browser User-Agent of the npm package
// user-agents is taken for an agent (testdata/ua/SOURCE.md).
func TestBrowserCorpus(t *testing.T) {
	c := NewClassifier(nil)
	uas := readLines(t, "browsers.txt")
	if len(uas) < 900 {
		t.Fatalf("only %d browser User-Agents read", len(uas))
	}
	for _, ua := range uas {
		if got := c.Classify(ua); got.Kind != Browser {
			t.Errorf("%s: %v %q, want browser", ua, got.Kind, got.Name)
		}
	}
}

// TestCrawlerCorpus: no example of the npm package crawler-user-agents
// passes as a browser.
func TestCrawlerCorpus(t *testing.T) {
	c := NewClassifier(nil)
	uas := readLines(t, "crawlers.txt")
	if len(uas) < 2000 {
		t.Fatalf("only %d crawler User-Agents read", len(uas))
	}
	for _, ua := range uas {
		if got := c.Classify(ua); got.Kind == Browser {
			t.Errorf("%q passes as a browser", ua)
		}
	}
}

// TestIsbotDisagreements: where the npm package isbot (its verdicts are
// recorded in testdata/ua/isbot.tsv) and Classify disagree on the two
// corpora, the User-Agent is listed, with the reason, in
// testdata/ua/isbot-disagreements.txt; nothing else may disagree.
func TestIsbotDisagreements(t *testing.T) {
	c := NewClassifier(nil)
	listed := map[string]bool{}
	for _, l := range readLines(t, "isbot-disagreements.txt") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		_, ua, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("isbot-disagreements.txt: no tab in %q", l)
		}
		listed[ua] = true
	}
	seen := map[string]bool{}
	for _, l := range readLines(t, "isbot.tsv") {
		verdict, ua, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("isbot.tsv: no tab in %q", l)
		}
		isbot := verdict == "bot"
		ours := c.Classify(ua).Agent()
		if isbot != ours {
			seen[ua] = true
			if !listed[ua] {
				t.Errorf("unlisted disagreement: isbot %s, Classify %v: %s", verdict, c.Classify(ua).Kind, ua)
			}
		}
	}
	for ua := range listed {
		if !seen[ua] {
			t.Errorf("listed, but isbot and Classify agree now: %s", ua)
		}
	}
}

// TestBrowserShapeEdges: browsers the corpora lack (TVs, consoles, KaiOS,
// Firefox forks, FreeBSD) pass; automated clients dressed as Chrome with a
// version that is no version, a contact address or a URL do not. (A
// single-word bot name in a comment, "(Newsbot)", passes: markers are
// whole words; docs/enforcement.md says so.)
func TestBrowserShapeEdges(t *testing.T) {
	c := NewClassifier(nil)
	for _, ua := range []string{
		"Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36",
		"Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.79 Safari/537.36 WebAppManager",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
		"Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
		"Mozilla/5.0 (Mobile; Nokia_8110_4G; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:102.0) Gecko/20100101 Goanna/6.3 Firefox/102.0 PaleMoon/32.5.0",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:109.0) Gecko/20100101 Firefox/115.0 SeaMonkey/2.53.18",
		"Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0 Waterfox/G5.1.12",
		"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0 LibreWolf/121.0",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Ubuntu Chromium/71.0.3578.98 Chrome/71.0.3578.98 Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 CrKey/1.56.500000",
		"Mozilla/5.0 (X11; FreeBSD amd64; rv:121.0) Gecko/20100101 Firefox/121.0",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Safari/537.36 Avast/118.0.0.0",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Vivaldi/6.5",
	} {
		if got := c.Classify(ua); got.Kind != Browser {
			t.Errorf("a browser taken for %v: %s", got.Kind, ua)
		}
	}
	for _, ua := range []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/+https://crawler.example/bot.html",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 (contact ops@crawler.org)",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/bot Safari/crawler",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/bot@example.org",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 (+http://example.org/x)",
		"Mozilla/5.0 (Linux; Android 14; python-requests) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
	} {
		if got := c.Classify(ua); got.Kind == Browser {
			t.Errorf("an automated client passes as a browser: %s", ua)
		}
	}
}
