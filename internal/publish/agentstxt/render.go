package agentstxt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/format/linetext"
)

// ErrUnsafeValue is what Render wraps when a value is not a single line of
// UTF-8 text (a line break, another control character, invalid UTF-8).
// Written out, it would start a line of its own.
var ErrUnsafeValue = errors.New("value is not a single line of UTF-8 text")

// Render renders the agents.txt of site s in dialect d. It is pure and
// deterministic: the same site yields the same bytes, and nothing
// time-dependent is written unless the site sets it (Generated-At).
//
// s must have passed publish.Validate with Formats that serve this
// dialect's agents.txt: Validate holds every value to the grammar (package
// txtgrammar) and to one line of text (package linetext), naming the
// field, and Render does not check the declaration again. It keeps one
// guard on what it writes: a value that is not one line of text is an
// error wrapping ErrUnsafeValue, never a line of the file, because in a
// public, line-based file a line break grants what the site never
// declared, whoever forgot to validate.
func Render(s *config.Site, d config.Dialect) ([]byte, error) {
	if s == nil {
		return nil, errors.New("agentstxt: nil site")
	}
	var w writer
	switch d {
	case config.DialectIETFDraft:
		p := projectDraftCar(s)
		writeDraftCar(&w, &p)
	case config.DialectV010:
		p := projectV010(s)
		writeV010(&w, &p)
	default:
		return nil, fmt.Errorf("agentstxt: unknown dialect %v", d)
	}
	if w.err != nil {
		return nil, fmt.Errorf("agentstxt: %s: %w", d, w.err)
	}
	if len(w.b) > MaxSize {
		// Parse would refuse it; so would a careful agent.
		return nil, fmt.Errorf("agentstxt: rendered %s agents.txt is %d bytes, over the %d-byte limit", d, len(w.b), MaxSize)
	}
	return w.b, nil
}

// writer builds the file. Sections are separated by one blank line, which
// is written lazily so that empty sections leave no trace.
type writer struct {
	b     []byte
	blank bool
	lines int
	err   error // the first value that is not one line of text
}

// section starts a new section.
func (w *writer) section() {
	if len(w.b) > 0 {
		w.blank = true
	}
}

func (w *writer) line(indent bool, parts ...string) {
	w.lines++
	for _, p := range parts {
		if r, bad := linetext.Find(p, false); bad != linetext.OK && w.err == nil {
			w.err = fmt.Errorf("line %d (%s): %s: %w", w.lines, strings.TrimSpace(strings.TrimSuffix(parts[0], ": ")), linetext.Describe(r, bad), ErrUnsafeValue)
		}
	}
	if w.blank {
		w.lines++
		w.b = append(w.b, '\n')
		w.blank = false
	}
	if indent {
		// Two spaces: the indentation of draft-car 2.2 and Appendix A.
		w.b = append(w.b, "  "...)
	}
	for _, p := range parts {
		w.b = append(w.b, p...)
	}
	w.b = append(w.b, '\n')
}

// comment writes "# text".
func (w *writer) comment(text string) { w.line(false, "# ", text) }

// field writes "Key: value"; an empty value writes nothing.
func (w *writer) field(f field, v string) {
	if v != "" {
		w.line(false, fieldNames[f], ": ", v)
	}
}

// sub writes an indented block field; an empty value writes nothing.
func (w *writer) sub(f field, v string) {
	if v != "" {
		w.line(true, fieldNames[f], ": ", v)
	}
}
