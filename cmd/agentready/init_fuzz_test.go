package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzInit: whatever robots.txt it reads, init does not panic, writes a
// declaration (exit 0) and lint accepts what it writes.
func FuzzInit(f *testing.F) {
	files, _ := filepath.Glob("testdata/robots-corpus/*.txt")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "\ufeff", "User-agent:\nDisallow: /\n", "User-agent: * \nDisallow: *\n", "user-agent: a\nuser-agent: b\nallow: /$\n",
		"Disallow: /x\nUser-agent: *\nDisallow: /%zz\nDisallow: /a$b\nDisallow: /\u00e9\n",
		"User-agent: " + string(bytes.Repeat([]byte("a"), 70)) + "\nDisallow: /\n",
		"User-agent: Googlebot/2.1 (+http://www.google.com/bot.html)\nDisallow: /*?\nAllow: /index.html\n",
		"User-agent: *\r\nDisallow: /a\rAllow: /a/b\r\nDisalow /c\n#x\nNoindex: /y\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxRobotsBytes || bytes.IndexByte(body, 0) >= 0 || !utf8.Valid(body) {
			return // readRobots refuses it, as TestInitBadInput checks
		}
		o := initOptions{url: "https://site.example", name: "site.example", description: "site.example"}
		_, doc, code := initDeclaration(o, "fuzz", parseRobots(body, false), body, io.Discard)
		if code != 0 {
			t.Fatalf("exit %d for %q", code, body)
		}
		if _, err := prepareData("fuzz.yaml", doc, overrides{}, quiet); err != nil {
			t.Fatalf("lint refuses what init wrote from %q: %v\n%s", body, err, doc)
		}
	})
}
