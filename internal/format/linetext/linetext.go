// Package linetext holds the one rule the line-based documents share
// (agents.txt in both dialects, agents.md): a value is one line of UTF-8
// text. A line break in a value starts a line of its own, so
// "Description: x\nAllow: /admin" would grant what the site never declared.
//
// config.Validate applies the rule to every string of a Site, with field
// paths; the agents.txt parser applies it to the lines it reads and the
// agents.txt writer to the values it writes.
package linetext

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Problem is what makes a value more or other than one line of text.
type Problem int

const (
	OK          Problem = iota
	InvalidUTF8         // the documents are served as UTF-8 text
	LineBreak           // CR, LF, NEL, LS or PS: some reader splits a line there
	Control             // any other C0 or C1 control character, or DEL
)

// Find returns the first rune of s that a line cannot carry and what is
// wrong with it. A tab is a control character unless allowTab is set (the
// parser reads lines with tabs in them; the writers never write one).
func Find(s string, allowTab bool) (rune, Problem) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			return r, InvalidUTF8
		case r == '\r' || r == '\n' || r == '\u0085' || r == '\u2028' || r == '\u2029':
			return r, LineBreak
		case r == '\t' && allowTab:
		case unicode.IsControl(r):
			return r, Control
		}
	}
	return 0, OK
}

// Describe names what Find found, for an error message.
func Describe(r rune, p Problem) string {
	switch p {
	case InvalidUTF8:
		return "invalid UTF-8"
	case LineBreak:
		return fmt.Sprintf("a line break (%U)", r)
	case Control:
		return fmt.Sprintf("the control character %U", r)
	}
	return ""
}
