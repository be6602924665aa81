package agentsmd

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/format/linetext"
)

// The checks below keep every value on its own line and in its own block
// (docs/design.md: text formats cannot be injected). They follow the block rules
// of CommonMark and GitHub Flavored Markdown: a line is judged by how it
// starts, since that is what decides which block it opens.

// checkText rejects what would break a value out of its line (package
// linetext: line breaks, other control characters, invalid UTF-8).
// publish.Validate applies the same rule to every string of a Site; it is
// applied here again only to the lines Render writes, because a line's
// block is judged by how it starts, which supposes that it is one line,
// and derived lines are assembled here, not in the Site.
func checkText(s string) error {
	switch r, p := linetext.Find(s, true); p {
	case linetext.InvalidUTF8:
		return fmt.Errorf("%s is not valid UTF-8", quote(s))
	case linetext.LineBreak:
		return fmt.Errorf("%s contains a line break (%U)", quote(s), r)
	case linetext.Control:
		return fmt.Errorf("%s contains the control character %U", quote(s), r)
	}
	return nil
}

// checkHeading checks the site name written after "# ". Leading '#'s are
// text there; a trailing run of '#'s after a space is the heading's closing
// sequence and would vanish.
func checkHeading(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("required: it is the agents.md H1")
	}
	if err := checkText(s); err != nil {
		return err
	}
	fields := strings.Fields(s)
	if last := fields[len(fields)-1]; strings.Trim(last, "#") == "" {
		return fmt.Errorf("%s ends with %q, which Markdown drops as the heading's closing sequence", quote(s), last)
	}
	return nil
}

// checkLine checks a value written as a whole line: the description, a
// Contact line, or the text after "- " in a list item. In all three places
// the same starts open a new block.
func checkLine(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("is empty or blank")
	}
	if err := checkText(s); err != nil {
		return err
	}
	if why := blockStart(s); why != "" {
		return fmt.Errorf("%s %s; agents.md reads it as document structure", quote(s), why)
	}
	return nil
}

// blockStart says why s, at the start of a line, would open a Markdown
// block other than a paragraph ("" when it would not).
func blockStart(s string) string {
	switch c := s[0]; {
	case c == ' ' || c == '\t':
		// Indentation: an indented code block, or continuation of the
		// previous block.
		return "starts with whitespace"
	case c == '#':
		return `starts with "#", a heading`
	case c == '>':
		return `starts with ">", a block quote`
	case strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~"):
		return "starts a fenced code block"
	case onlyMarkers(s):
		// "---", "***", "===", "|---|": a thematic break, a setext
		// underline that turns the line above into a heading, the end of
		// the front matter, or a table delimiter row.
		return "consists only of Markdown punctuation (a rule, heading underline or table row)"
	case listMarker(s):
		return "starts with a list marker"
	case c == '<' && htmlBlock(s):
		return "starts an HTML block"
	case c == '[' && strings.Contains(s, "]:"):
		// "[x]: /url" is a link reference definition: the line vanishes.
		return "is a link reference definition"
	case taskBox(s):
		return "starts with a task-list checkbox"
	}
	return ""
}

// onlyMarkers reports whether s holds nothing but characters that form
// rules, setext underlines and table delimiter rows.
func onlyMarkers(s string) bool {
	return strings.Trim(s, "-=_*:|+ \t") == ""
}

// listMarker reports whether s starts with a bullet ("-", "*", "+") or an
// ordered list marker ("1.", "1)") followed by a space, a tab or the end.
func listMarker(s string) bool {
	rest := ""
	switch {
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		rest = s[1:]
	default:
		i := 0
		for i < len(s) && i < 10 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		// CommonMark: at most nine digits.
		if i == 0 || i > 9 || i == len(s) || (s[i] != '.' && s[i] != ')') {
			return false
		}
		rest = s[i+1:]
	}
	return rest == "" || rest[0] == ' ' || rest[0] == '\t'
}

// htmlBlock reports whether s (starting with '<') opens an HTML block:
// "<!", "<?", "</", or a tag name followed by whitespace, '>' or "/".
// Autolinks such as "<https://example.com>" and "<a@example.com>" are not:
// a tag name cannot be followed by ':' or '@'.
func htmlBlock(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch s[1] {
	case '!', '?', '/':
		return true
	}
	i := 1
	for i < len(s) && (isASCIILetter(s[i]) || (i > 1 && (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')))) {
		i++
	}
	if i == 1 {
		return false
	}
	return i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '>' || s[i] == '/'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// taskBox reports whether s starts with a GFM task-list checkbox, which
// turns a list item into a task item.
func taskBox(s string) bool {
	if len(s) < 3 || s[0] != '[' || s[2] != ']' || (s[1] != ' ' && s[1] != 'x' && s[1] != 'X') {
		return false
	}
	return len(s) == 3 || s[3] == ' ' || s[3] == '\t'
}

// quote quotes a value for an error message, shortened so that a huge
// value does not make a huge error.
func quote(s string) string {
	const max = 60
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}
