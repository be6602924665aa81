package agentsmd_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentsmd"
)

// blockOpeners is an independent oracle, written from the CommonMark and
// GFM block rules rather than from the renderer's code: a line matching one
// of these does not continue as plain paragraph or list-item text.
var blockOpeners = []*regexp.Regexp{
	regexp.MustCompile(`^ {0,3}#{1,6}([ \t]|$)`),                                        // ATX heading
	regexp.MustCompile(`^ {0,3}>`),                                                      // block quote
	regexp.MustCompile("^ {0,3}(```|~~~)"),                                              // code fence
	regexp.MustCompile(`^ {0,3}((\*[ \t]*){3,}|(-[ \t]*){3,}|(_[ \t]*){3,})$`),          // thematic break
	regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`),                                         // setext underline
	regexp.MustCompile(`^ {0,3}([-+*]|[0-9]{1,9}[.)])([ \t]|$)`),                        // list item
	regexp.MustCompile(`^( {4}|\t)`),                                                    // indented code
	regexp.MustCompile(`^ {0,3}\[[^\]]+\]:`),                                            // link reference definition
	regexp.MustCompile(`^ {0,3}<([A-Za-z][A-Za-z0-9-]*([ \t>/]|$)|[!?/])`),              // HTML block
	regexp.MustCompile(`^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`), // table delimiter row
}

func opensBlock(line string) bool {
	for _, re := range blockOpeners {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

// closingSequence matches an ATX heading whose text would lose a trailing
// run of '#'s, or be empty.
var closingSequence = regexp.MustCompile(`(^# #+[ \t]*$)|([ \t]#+[ \t]*$)`)

// FuzzRender renders arbitrary site names, descriptions, Can items and MCP
// endpoints. Render must never panic; when it succeeds, the document must
// have exactly the expected structure: the front matter parses back to the
// endpoint, then the H1, the description, "## Can" with two items and
// "## Contact", every value on its own line and none opening a block.
func FuzzRender(f *testing.F) {
	seeds := [][5]string{
		{"Shop", "A shop.", "Search", "Browse", ""},
		{"Shop", "", "Search", "Browse", "https://shop.example/mcp"},
		{"# Shop", "---", "# Admin", "- nested", "https://a.example/\n---"},
		{"Shop ##", "===", "```", "> q", "a: b #c"},
		{"Shop\n## Cannot", "a\r\nb", "[x]: /evil", "<div>", "\xff"},
		{"C# Tools", "<https://a.example>", "* * *", "1. one", "--- ..."},
		{"", "\u2028", "", "\t", "x\u0085y"},
		{"Shop", "|-|", "[ ] todo", "    code", "\"quoted\" 'single'"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, name, desc, can1, can2, endpoint string) {
		site := config.Site{
			Name:        name,
			URL:         "https://shop.example",
			Description: desc,
			Contact:     "agents@shop.example",
			AgentsMD: config.AgentsMD{
				Can:      []string{can1, can2},
				Cannot:   []string{},
				Behavior: []string{},
			},
		}
		if endpoint != "" {
			site.AgentsMD.MCP = &config.MCPGateway{Endpoint: endpoint}
		}
		doc, err := agentsmd.Render(&site)
		if err != nil {
			if doc != nil {
				t.Fatalf("output alongside error %v", err)
			}
			return
		}

		body := doc
		if endpoint != "" {
			var fm []byte
			fm, body = splitFrontMatter(t, doc)
			var got agentsmd.FrontMatter
			if err := yaml.Unmarshal(fm, &got); err != nil {
				t.Fatalf("front matter does not parse: %v\n%s", err, fm)
			}
			if got.Version != "1.0" || got.MCP.Endpoint != endpoint || got.MCP.Transport != "streamable-http" || got.MCP.Auth != "none" {
				t.Fatalf("front matter parsed to %+v, endpoint %q", got, endpoint)
			}
		}

		lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
		want := []string{"# " + name}
		if desc != "" {
			want = append(want, "", desc)
		}
		want = append(want, "", "## Can", "- "+can1, "- "+can2, "", "## Contact", "agents@shop.example")
		if len(lines) != len(want) {
			t.Fatalf("%d lines, want %d: a value broke out of its line\n%s", len(lines), len(want), body)
		}
		for i := range want {
			if lines[i] != want[i] {
				t.Fatalf("line %d = %q, want %q", i, lines[i], want[i])
			}
		}
		if closingSequence.MatchString(lines[0]) {
			t.Errorf("H1 %q loses text to a closing sequence", lines[0])
		}
		for _, v := range []string{desc, can1, can2} {
			if v != "" && opensBlock(v) {
				t.Errorf("value %q opens a Markdown block but was rendered", v)
			}
		}
		for _, item := range []string{"- " + can1, "- " + can2} {
			if opensBlock(item[2:]) || blockOpeners[3].MatchString(item) {
				t.Errorf("list item %q is not a plain item", item)
			}
		}
		if !bytes.Equal(doc, mustRender(t, &site)) {
			t.Error("rendering is not deterministic")
		}
	})
}

func mustRender(t *testing.T, s *config.Site) []byte {
	t.Helper()
	b, err := agentsmd.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
