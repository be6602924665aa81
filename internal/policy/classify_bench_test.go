package policy

import (
	"strings"
	"testing"
)

// BenchmarkClassify: one User-Agent against the whole built-in list.
func BenchmarkClassify(b *testing.B) {
	c := NewClassifier([]string{"*", "claude", "MyAgent"})
	cases := []struct{ name, ua string }{
		{"browser", uaChrome},
		{"browser-mobile", uaSamsung},
		{"known", uaClaudeBot},
		{"known-googlebot-phone", uaGooglebotPhone},
		{"declared", "MyAgent/1.0 (+https://example.com/bot)"},
		{"generic", "curl/8.5.0"},
		{"hostile-10KiB", strings.Repeat("a;", 5<<10)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(tc.ua)
			}
		})
	}
}

// BenchmarkClassifyListLength: the cost does not grow with the lists.
func BenchmarkClassifyListLength(b *testing.B) {
	var many []string
	for i := range 10000 {
		many = append(many, "Bot"+strings.Repeat("x", i%40)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676%26)))
	}
	for _, tc := range []struct {
		name string
		c    *Classifier
	}{
		{"names=3", NewClassifier([]string{"a"}, WithKnownList([]string{"b"}), WithGenericList([]string{"c"}))},
		{"names=builtin", NewClassifier(nil)},
		{"names=10000", NewClassifier(nil, WithExtraKnown(many...))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tc.c.Classify(uaChrome)
			}
		})
	}
}
