package config

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yaml.v3 reports a syntax error as "yaml: line N: problem", with no
// column, and N is not always the line of the failing construct: for a
// parser error (an unclosed flow collection, a bad indentation) it is the
// 0-based line of the construct being parsed (the line before it, in an
// editor's count), for a scanner error the 1-based line of the token
// being scanned or, when that is the first line, of where scanning
// stopped (an unterminated quoted string on line 1 is reported at the
// end of the file), and no line at all when both are the first
// (decode.go's parser.fail, go.yaml.in/yaml/v3 v3.0.6). syntaxAt works
// out the line and column, 1-based, of where the failing construct
// starts, from the source and the problem.

// syntaxError is the *FileError of err, yaml.v3's error decoding data.
func syntaxError(data []byte, prefix string, err error) *FileError {
	problem, reported := splitYAMLError(err.Error())
	line, col := syntaxAt(data, problem, reported)
	return &FileError{Line: line, Column: col, Msg: prefix + problem, value: true}
}

// splitYAMLError splits "yaml: line N: problem" into the problem and N
// (0 when no line is given).
func splitYAMLError(msg string) (problem string, line int) {
	msg = strings.TrimPrefix(msg, "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, p, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				return p, l
			}
		}
	}
	return msg, 0
}

// syntaxAt is where the construct that failed starts, by problem (the
// message of scannerc.go or parserc.go) and the line yaml.v3 reported
// (0: none). It answers 0, 0 when it cannot tell.
func syntaxAt(data []byte, problem string, reported int) (line, col int) {
	lines := bytes.Split(data, []byte("\n"))
	s := scanSyntax(data)
	switch {
	case strings.HasPrefix(problem, "did not find expected ',' or ']'"):
		if m, ok := s.unclosed('['); ok {
			return m.line, m.column(data)
		}
		return inLine(lines, reported+1, "[")
	case strings.HasPrefix(problem, "did not find expected ',' or '}'"):
		if m, ok := s.unclosed('{'); ok {
			return m.line, m.column(data)
		}
		return inLine(lines, reported+1, "{")
	case problem == "found unexpected end of stream" || problem == "found unexpected document indicator":
		// In a quoted scalar (scannerc.go's only sources of these two).
		if s.quote.line > 0 {
			return s.quote.line, s.quote.column(data)
		}
	case problem == "found unknown escape character" || problem == "did not find expected hexdecimal number" ||
		problem == "found invalid Unicode character escape code":
		// "while parsing a quoted scalar": at its opening quote.
		if s.escape.line > 0 {
			return s.escape.line, s.escape.column(data)
		}
	case strings.Contains(problem, "tab character"), problem == "found character that cannot start any token":
		// A scanner error, its line 1-based (none on the first line);
		// for a tab inside a plain scalar, the scalar's line: the tab is
		// at the start of a line at or after it.
		if l, c := tabAfter(lines, max(reported, 1)); l > 0 {
			return l, c
		}
		return firstContent(lines, max(reported, 1))
	case problem == "mapping values are not allowed in this context":
		// A scanner error at the ':' itself.
		return colonAt(lines, max(reported, 1))
	case strings.HasPrefix(problem, "did not find expected"):
		// A parser error ("key", "'-' indicator", "node content"): N
		// is 0-based, the collection the token does not fit; the token
		// is the first line after it indented as no open block is. A
		// flow collection still open at the end is what failed, though
		// yaml.v3 names the end ("x: [" as the last line).
		if len(s.open) > 0 {
			m := s.open[len(s.open)-1]
			return m.line, m.column(data)
		}
		if l, c := misindented(lines, reported+1); l > 0 {
			return l, c
		}
		return firstContent(lines, min(reported+1, len(lines)))
	}
	if reported > 0 {
		return firstContent(lines, reported)
	}
	return 0, 0
}

// mark is a position in the source: its line (1-based), the offsets of
// the line's start and of the byte, and the byte there. The column is
// counted only for the mark reported: counting it for every bracket of a
// long line would be quadratic.
type mark struct {
	line, start, pos int
	c                byte
}

// column is m's column, 1-based, in characters.
func (m mark) column(data []byte) int { return utf8.RuneCount(data[m.start:m.pos]) + 1 }

// syntaxScan is what scanSyntax found: the flow collections still open
// where it stopped (at the end, or at a closing bracket of the wrong
// kind), and the start of a quoted scalar that does not end.
type syntaxScan struct {
	open  []mark
	quote mark
	// escape is the first double-quoted scalar holding an escape YAML
	// 1.2 (5.7) does not define.
	escape mark
}

// unclosed is the innermost open flow collection opened by c.
func (s syntaxScan) unclosed(c byte) (mark, bool) {
	for i := len(s.open) - 1; i >= 0; i-- {
		if s.open[i].c == c {
			return s.open[i], true
		}
	}
	return mark{}, false
}

// scanSyntax reads data as far as YAML's flow indicators and quoted
// scalars go: a '[' or '{' opens a flow collection where a value starts
// (or anywhere inside a flow collection), a quote starts a quoted scalar
// only where a value starts (in "it's" it is a letter), comments and
// block scalars (| and >) hold neither. It stops at a closing bracket of
// the wrong kind or an unterminated quote.
func scanSyntax(data []byte) syntaxScan {
	var s syntaxScan
	line, lineStart := 1, 0
	start := true // a value may start here
	blockIndent := -1
	indentOf := func(i int) int { // indentation of the line holding i
		j := lineStart
		for j < len(data) && data[j] == ' ' {
			j++
		}
		return j - lineStart
	}
	at := func(i int) mark { return mark{line: line, start: lineStart, pos: i, c: data[i]} }
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			line, lineStart, start = line+1, i+1, true
			if blockIndent >= 0 {
				// A block scalar's lines: blank, or indented more than
				// the line that opened it.
				j := lineStart
				for j < len(data) && data[j] == ' ' {
					j++
				}
				if j < len(data) && data[j] != '\n' && j-lineStart <= blockIndent {
					blockIndent = -1
				} else {
					for i+1 < len(data) && data[i+1] != '\n' {
						i++
					}
				}
			}
			continue
		}
		flow := len(s.open) > 0
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
			continue
		case (c == '"' || c == '\'') && start:
			end, ok := quoteEnd(data, i)
			if !ok {
				s.quote = at(i)
				return s
			}
			if c == '"' && s.escape.line == 0 && badEscape(data[i+1:end-1]) {
				s.escape = at(i)
			}
			for _, b := range data[i:end] {
				if b == '\n' {
					line++
				}
			}
			if k := bytes.LastIndexByte(data[:end], '\n'); k >= lineStart {
				lineStart = k + 1
			}
			i = end - 1
			start = false
		case (c == '[' || c == '{') && (start || flow):
			s.open = append(s.open, at(i))
			start = true
		case (c == ']' || c == '}') && flow:
			top := s.open[len(s.open)-1]
			if (c == ']') != (top.c == '[') {
				return s // the wrong kind: yaml fails on the one open
			}
			s.open = s.open[:len(s.open)-1]
			start = false
		case c == ',' && flow:
			start = true
		case (c == ':' || c == '-' || c == '?') && (i+1 == len(data) || data[i+1] == ' ' || data[i+1] == '\n' || data[i+1] == '\r' || flow && c == ':' && bytes.IndexByte([]byte(",]}"), data[i+1]) >= 0):
			start = c == ':' || start
		case (c == '|' || c == '>') && start && !flow:
			blockIndent = indentOf(i)
			start = false
		default:
			start = false
		}
	}
	return s
}

// badEscape reports whether the body of a double-quoted scalar holds an
// escape YAML 1.2 (5.7) does not define, or \x, \u, \U without their hex
// digits.
func badEscape(body []byte) bool {
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if i+1 == len(body) {
			return true
		}
		i++
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[body[i]]
		switch {
		case digits > 0:
			if i+digits >= len(body)+1 || !isHex(body[i+1:min(i+1+digits, len(body))], digits) {
				return true
			}
			i += digits
		case !strings.ContainsRune("0abt\tnvfre \"/\\N_LP\n\r", rune(body[i])):
			return true
		}
	}
	return false
}

// isHex reports whether b is n hex digits.
func isHex(b []byte, n int) bool {
	if len(b) != n {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// quoteEnd is the index after the quote closing the quoted scalar opened
// at data[i], and whether there is one before the end of data or a
// document marker (--- or ... at the start of a line).
func quoteEnd(data []byte, i int) (int, bool) {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '\\' && q == '"':
			j++ // an escape: the next byte is not the end
		case c == q && q == '\'' && j+1 < len(data) && data[j+1] == '\'':
			j++ // '' is a quote inside single quotes
		case c == q:
			return j + 1, true
		case c == '\n' && (bytes.HasPrefix(data[j+1:], []byte("---")) || bytes.HasPrefix(data[j+1:], []byte("..."))):
			return 0, false
		}
	}
	return 0, false
}

// inLine is the line n and the column of the last s in it, or of its
// first content; 0, 0 when there is no line n.
func inLine(lines [][]byte, n int, s string) (int, int) {
	if n < 1 || n > len(lines) {
		return 0, 0
	}
	if k := bytes.LastIndex(lines[n-1], []byte(s)); k >= 0 {
		return n, utf8.RuneCount(lines[n-1][:k]) + 1
	}
	return firstContent(lines, n)
}

// firstContent is line n and the column of its first byte other than a
// space or tab (1 for a blank line); 0, 0 when there is no line n.
func firstContent(lines [][]byte, n int) (int, int) {
	if n < 1 || n > len(lines) {
		return 0, 0
	}
	l := lines[n-1]
	k := 0
	for k < len(l) && (l[k] == ' ' || l[k] == '\t') {
		k++
	}
	if k == len(l) {
		k = 0
	}
	return n, utf8.RuneCount(l[:k]) + 1
}

// tabAfter is the first tab in the indentation of a line from n on.
func tabAfter(lines [][]byte, n int) (int, int) {
	for i := n - 1; i >= 0 && i < len(lines); i++ {
		for k, b := range lines[i] {
			if b == '\t' {
				return i + 1, k + 1
			}
			if b != ' ' {
				break
			}
		}
	}
	return 0, 0
}

// colonAt is line n and the column of the ':' mapping values are not
// allowed at: the second mapping indicator (": " or a ':' ending the
// line) when the line has two ("name: x: y"), else the first (a key on a
// line that continues the value above it).
func colonAt(lines [][]byte, n int) (int, int) {
	if n < 1 || n > len(lines) {
		return 0, 0
	}
	l := lines[n-1]
	var at []int
	for k, b := range l {
		if b == ':' && (k+1 == len(l) || l[k+1] == ' ' || l[k+1] == '\r') {
			at = append(at, k)
		}
	}
	switch {
	case len(at) >= 2:
		return n, utf8.RuneCount(l[:at[1]]) + 1
	case len(at) == 1:
		return n, utf8.RuneCount(l[:at[0]]) + 1
	}
	return firstContent(lines, n)
}

// misindented is the first line after line n whose content starts at a
// column no enclosing block of the lines from n on starts at, nor one a
// line ending in ':' or a "- " item opens, with that column.
func misindented(lines [][]byte, n int) (int, int) {
	if n < 1 || n > len(lines) {
		return 0, 0
	}
	var cols []int // the columns of the blocks open, outermost first
	opens := false // the line before opens a block below it
	for i := n - 1; i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], " \r")
		k := 0
		for k < len(l) && l[k] == ' ' {
			k++
		}
		if k == len(l) || l[k] == '#' {
			continue
		}
		for len(cols) > 0 && cols[len(cols)-1] > k {
			cols = cols[:len(cols)-1]
		}
		switch {
		case len(cols) > 0 && cols[len(cols)-1] == k:
		case opens || len(cols) == 0:
			cols = append(cols, k)
		default:
			return i + 1, k + 1
		}
		// A "- " item's content is a block of its own, at its column.
		for j := k; j+1 < len(l) && l[j] == '-' && l[j+1] == ' '; {
			j += 2
			for j < len(l) && l[j] == ' ' {
				j++
			}
			cols = append(cols, j)
			k = j
		}
		opens = l[len(l)-1] == ':' || bytes.HasSuffix(l, []byte(" |")) || bytes.HasSuffix(l, []byte(" >"))
	}
	return 0, 0
}
