package policy

import (
	"slices"
	"strings"
	"testing"
)

func tokens(ua string) []string {
	var out []string
	t := ProductTokens(ua)
	for {
		name, ok := t.Next()
		if !ok {
			return out
		}
		out = append(out, name)
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name, ua string
		want     []string
	}{
		{"empty", "", nil},
		{"blank", " \t ", nil},
		{"one product", "curl/8.5.0", []string{"curl"}},
		{"no version", "Ruby", []string{"Ruby"}},
		{"product with spaces", "Linguee Bot (http://www.linguee.com/bot; bot@linguee.com)",
			[]string{"Linguee", "Bot", "http:", "bot@linguee.com"}},
		{"comment items", "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
			[]string{"Mozilla", "compatible", "ClaudeBot", "+claudebot@anthropic.com"}},
		{"item name ends at space", "Mozilla/5.0 (Windows NT 10.0; Win64; x64)",
			[]string{"Mozilla", "Windows", "Win64", "x64"}},
		{"comma items", "AppleWebKit/537.36 (KHTML, like Gecko)",
			[]string{"AppleWebKit", "KHTML", "like"}},
		{"top-level products after a comment with ';'",
			"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
			[]string{"Mozilla", "AppleWebKit", "KHTML", "like", "compatible", "ChatGPT-User", "+https:"}},
		{"nested comment", "A/1 (x; (y; z/2) w) B/3", []string{"A", "x", "y", "z", "w", "B"}},
		{"unclosed comment", "A/1 (x; y", []string{"A", "x", "y"}},
		{"stray close", "A/1) B/2 ))", []string{"A", "B"}},
		{"word starting with slash", "/1.0 A/2", []string{"A"}},
		{"item starting with slash", "A (/x; y)", []string{"A", "y"}},
		{"version with parenthesis", "Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)",
			[]string{"Sogou", "web", "spider", "+http:"}},
		{"controls separate", "A/1\x00B/2\nC", []string{"A", "B", "C"}},
		{"non-UTF-8 kept", "\xff\xfe/1 B", []string{"\xff\xfe", "B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokens(tt.ua); !slices.Equal(got, tt.want) {
				t.Errorf("tokens(%q) = %q, want %q", tt.ua, got, tt.want)
			}
		})
	}
}

func TestTokensBounds(t *testing.T) {
	many := strings.Repeat("a/1 ", 100)
	if got := len(tokens(many)); got != MaxUserAgentTokens {
		t.Errorf("%d tokens, want the cap %d", got, MaxUserAgentTokens)
	}
	long := strings.Repeat("x", MaxUserAgentLen) + " ClaudeBot/1.0"
	if got := tokens(long); len(got) != 1 || len(got[0]) != MaxUserAgentLen {
		t.Errorf("a name past MaxUserAgentLen was read: %d tokens", len(got))
	}
	var zero Tokens
	if _, ok := zero.Next(); ok {
		t.Error("zero Tokens yielded a name")
	}
}

// FuzzTokenize: no panic, every name is a non-empty substring of the
// input's first MaxUserAgentLen bytes, names come in input order without
// overlapping, and their count is bounded.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
		"((((", "))))", ";;;,,,", "a/b/c (d/e (f; g) h", "\x00\xff(\x80;/)", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ua string) {
		head := ua[:min(len(ua), MaxUserAgentLen)]
		if got, want := tokens(ua), refTokens(ua); !slices.Equal(got, want) {
			t.Fatalf("tokens(%q) = %q, reference %q", ua, got, want)
		}
		tk := ProductTokens(ua)
		n, pos := 0, 0
		for {
			name, ok := tk.Next()
			if !ok {
				break
			}
			n++
			if n > MaxUserAgentTokens {
				t.Fatalf("more than %d tokens", MaxUserAgentTokens)
			}
			if name == "" {
				t.Fatal("empty name")
			}
			i := strings.Index(head[pos:], name)
			if i < 0 {
				t.Fatalf("name %q is not a substring of %q after byte %d", name, head, pos)
			}
			pos += i + len(name)
			if strings.ContainsAny(name, " /;,()\t") {
				t.Fatalf("name %q contains a separator", name)
			}
		}
	})
}

// refTokens is a byte-at-a-time reference tokenizer written from the
// Tokens documentation.
func refTokens(ua string) []string {
	s := ua[:min(len(ua), MaxUserAgentLen)]
	space := func(c byte) bool { return c <= ' ' || c == 0x7f }
	var out []string
	depth := 0
	for i := 0; i < len(s) && len(out) < MaxUserAgentTokens; {
		switch c := s[i]; {
		case c == '(':
			depth++
			i++
		case c == ')':
			depth = max(depth-1, 0)
			i++
		case space(c) || c == ';' || c == ',':
			i++
		default:
			j := i
			for j < len(s) && !space(s[j]) && !strings.ContainsRune("/;,()", rune(s[j])) {
				j++
			}
			if j > i {
				out = append(out, s[i:j])
			}
			for j < len(s) && !strings.ContainsRune(";,()", rune(s[j])) && (depth > 0 || !space(s[j])) {
				j++
			}
			i = j
		}
	}
	return out
}

func TestTokensAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		tk := ProductTokens(uaGooglebotPhone)
		for {
			if _, ok := tk.Next(); !ok {
				break
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("Tokens allocates %v times", allocs)
	}
}
