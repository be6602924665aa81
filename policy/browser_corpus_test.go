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
