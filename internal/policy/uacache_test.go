package policy

import (
	"bufio"
	"hash/maphash"
	"os"
	"strings"
	"sync"
	"testing"
)

// The cache answers exactly what the classifier answers, for real browser
// and crawler User-Agents (testdata/ua, sources in its
// SOURCE.md), on a miss and on a hit, from several goroutines at once,
// with strings that share a slot; a User-Agent longer than the classifier
// reads is never kept.
func TestUACacheAnswersAsTheClassifier(t *testing.T) {
	c := NewClassifier([]string{"claude", "SomeBot"})
	var uas []string
	for _, name := range []string{"browsers.txt", "crawlers.txt"} {
		f, err := os.Open("testdata/ua/" + name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if ua := sc.Text(); ua != "" && !strings.HasPrefix(ua, "#") {
				uas = append(uas, ua)
			}
		}
		f.Close()
	}
	uas = append(uas, "", "claude/1.0", "SomeBot/2.0 (+https://x.example/bot)", strings.Repeat("a", MaxUserAgentLen+1))
	if len(uas) < uaCacheSize/2 {
		t.Fatalf("%d User-Agents: too few for strings to share slots", len(uas)) // ~3000 in 4096 slots: hundreds do
	}
	u := NewUACache()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 2 { // a miss, then (mostly) a hit
				for i := range uas {
					ua := uas[(i+g*997)%len(uas)]
					if got, want := u.Classify(c, ua), c.Classify(ua); got != want {
						t.Errorf("round %d: %q: cached %+v, classifier %+v", round, ua, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	long := uas[len(uas)-1]
	if e := u.slots[maphash.String(u.seed, long)&(uaCacheSize-1)].Load(); e != nil && e.ua == long {
		t.Error("a User-Agent longer than MaxUserAgentLen was kept")
	}
}
