package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// TestRobotsReaderAgreesWithGoogle: init's reading of a robots.txt (RFC
// 9309 groups, combined per agent, longest match, Allow on a tie, '*' and
// '$') decides every agent/path pair as Google's parser does, on the
// corpus's smaller files and on files made to probe the rules; where a
// file has a line only Google reads, the lenient reading agrees instead.
func TestRobotsReaderAgreesWithGoogle(t *testing.T) {
	files := map[string]string{
		"groups":                     "User-agent: a\nUser-agent: B\nDisallow: /x\n\nUser-agent: *\nDisallow: /\nAllow: /open\n\nuser-agent: b\nallow: /x/y\n",
		"star and name in one group": "User-agent: *\nUser-agent: c\nDisallow: /p\nUser-agent: d\nDisallow:\n",
		"empty group":                "User-agent: e\n\nUser-agent: *\nDisallow: /q\nUser-agent: f\n",
		"other records end nothing":  "User-agent: g\nCrawl-delay: 5\nSitemap: https://x.example/s.xml\nUser-agent: h\nDisallow: /r\n",
		"before any group":           "Disallow: /s\nAllow: /t\nUser-agent: *\nDisallow: /t\n",
		"wildcards":                  "User-agent: *\nDisallow: /*.pdf$\nDisallow: /a*b*c\nAllow: /a*b*cd$\nDisallow: /$\nAllow: /*?\n",
		"ties and lengths":           "User-agent: *\nAllow: /ab\nDisallow: /ab\nDisallow: /abc\nAllow: /*bc\n",
		"index.html":                 "User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n",
		"tokens":                     "User-agent: Googlebot/2.1 (+http://www.google.com/bot.html)\nDisallow: /g\nUser-agent: * foo\nDisallow: /h\nUser-agent: /nothing\nDisallow: /\n",
		"line endings and BOM":       "\xef\xbb\xbfUser-agent: *\r\nDisallow: /u\rAllow: /u/v\r\n# c\nDisallow: /w # comment\n",
		"escapes":                    "User-agent: *\nDisallow: /caf\xc3\xa9\nDisallow: /%7Ea\nAllow: /%7Ea/b\nDisallow: /%ab\n",
		"typos":                      "User-agent: *\nDissallow: /typo\nDisallow /nocolon\nUser-agents: i\nAllowed: /typo/ok\n",
	}
	corpus, err := filepath.Glob("testdata/robots-corpus/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range corpus {
		if b, err := os.ReadFile(file); err == nil && len(b) < 4096 {
			files[filepath.Base(file)] = string(b)
		}
	}
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			rfc, lenient := parseRobots([]byte(body), false), parseRobots([]byte(body), true)
			onlyGoogle := false
			for _, r := range rfc.records {
				onlyGoogle = onlyGoogle || r.kind == recordLenient || r.kind == recordNoColon
			}
			agents := append(robotsAgents(rfc, lenient), "Googlebot", "other-bot")
			var all []robotsRule
			for _, g := range lenient.groups {
				all = append(all, g.rules...)
			}
			paths := append(robotsProbes(all), "/dir/", "/dir/index.html", "/a/b/c", "/abcd", "/xbc")
			for _, agent := range agents {
				read := rfc
				if onlyGoogle {
					read = lenient
				}
				rules, _ := read.rulesFor(agent)
				ua := agent
				if ua == "" {
					ua = "unnamed-bot"
				}
				for _, p := range paths {
					want := grobotstxt.AgentAllowed(body, ua, "https://x.example"+p)
					if got := robotsAllowed(rules, p); got != want {
						t.Errorf("%s %s: init reads %v, Google's parser %v", ua, p, got, want)
					}
				}
			}
			if !onlyGoogle && strings.Contains(body, "Dissallow") {
				t.Error("a typo not noted")
			}
		})
	}
}

// TestGrobotstxtLowercaseEscape states where grobotstxt v1.0.3 departs
// from Google's C++ parser, so that the tests above write escapes in
// upper case: it upper-cases an escape's hex digits with c & 0xDF, which
// turns the digit '7' of "%7e" into 0x17, so "Disallow: /%7ea" matches
// nothing; the C++ parser (absl::ascii_toupper) reads "/%7Ea", as RFC
// 9309 2.2.2 compares escapes, and so does init. If grobotstxt is fixed,
// this fails, and the tests may use lower-case escapes.
func TestGrobotstxtLowercaseEscape(t *testing.T) {
	body := "User-agent: *\nDisallow: /%7ea\n"
	if !grobotstxt.AgentAllowed(body, "bot", "https://x.example/%7Ea") {
		t.Error("grobotstxt now reads /%7ea as /%7Ea")
	}
	rules, _ := parseRobots([]byte(body), false).rulesFor("bot")
	if robotsAllowed(rules, "/%7Ea") {
		t.Error("init does not read /%7ea as /%7Ea")
	}
}
