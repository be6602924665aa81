package agentstxt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
)

// Errors Render wraps, so callers can tell an injection attempt from a
// declaration the grammar cannot express.
var (
	// ErrUnsafeValue: a value holds a line break, another control character
	// or invalid UTF-8. Written out, it would start a line of its own.
	ErrUnsafeValue = errors.New("value is not a single line of UTF-8 text")
	// ErrInexpressible: the declaration cannot be written in the grammar
	// (an empty identifier, a comma inside a list item, a Param type the
	// draft-car Param form does not know, an invalid rate, ...).
	ErrInexpressible = errors.New("cannot be expressed in this agents.txt grammar")
)

// Render renders the agents.txt of site s in dialect d. It is pure and
// deterministic: the same site yields the same bytes, and nothing
// time-dependent is written unless the site sets it (Generated-At).
//
// Render never writes a value it cannot write safely. Although validation
// should have rejected such a site already, every value is checked again:
// one containing CR, LF or any other control character is an error wrapping
// ErrUnsafeValue, and a declaration the grammar cannot carry faithfully is an
// error wrapping ErrInexpressible. All problems are reported at once, each
// with its field path (as in "Capabilities[1].Description").
func Render(s *config.Site, d config.Dialect) ([]byte, error) {
	if s == nil {
		return nil, errors.New("agentstxt: nil site")
	}
	var c checker
	var w writer
	switch d {
	case config.DialectDraftCar:
		checkDraftCarText(&c, s)
		p := projectDraftCar(s)
		checkDraftCarGrammar(&c, s, &p)
		if err := c.err(d); err != nil {
			return nil, err
		}
		writeDraftCar(&w, &p)
	case config.DialectV010:
		checkV010Text(&c, s)
		p := projectV010(s)
		checkV010Grammar(&c, s, &p)
		if err := c.err(d); err != nil {
			return nil, err
		}
		writeV010(&w, &p)
	default:
		return nil, fmt.Errorf("agentstxt: unknown dialect %v", d)
	}
	if err := checkOutput(w.b); err != nil {
		// Unreachable when the checks above are complete; kept because a
		// line break in a public file is the one mistake that must not ship.
		return nil, fmt.Errorf("agentstxt: %s: %w", d, err)
	}
	if len(w.b) > MaxSize {
		// Parse would refuse it; so would a careful agent.
		return nil, fmt.Errorf("agentstxt: rendered %s agents.txt is %d bytes, over the %d-byte limit", d, len(w.b), MaxSize)
	}
	return w.b, nil
}

// checkOutput scans the finished file: one line per "\n", each clean.
func checkOutput(b []byte) error {
	num := 0
	for l := range strings.Lines(string(b)) {
		num++
		if r, bad := unsafeRune(strings.TrimSuffix(l, "\n"), false); bad {
			return fmt.Errorf("rendered line %d: %s: %w", num, describeRune(r), ErrUnsafeValue)
		}
	}
	return nil
}

// checker collects every problem of one Render call.
type checker struct{ errs []error }

// text checks one raw value before it is trimmed: a leading or trailing
// line break would otherwise vanish in the trim and hide the attempt.
func (c *checker) text(v, path string, args ...any) {
	if r, bad := unsafeRune(v, false); bad {
		c.errs = append(c.errs, fmt.Errorf("%s: %s: %w", fmt.Sprintf(path, args...), describeRune(r), ErrUnsafeValue))
	}
}

// list checks every item of a raw list.
func (c *checker) list(vs []string, path string, args ...any) {
	for i, v := range vs {
		c.text(v, fmt.Sprintf(path, args...)+"[%d]", i)
	}
}

// bad records a grammar problem.
func (c *checker) bad(msg, path string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s: %w", fmt.Sprintf(path, args...), msg, ErrInexpressible))
}

// items checks the projected items of a list written one per line or
// comma-separated (commas: an item with a comma would split in two).
func (c *checker) items(vs []string, commas bool, path string, args ...any) {
	for i, v := range vs {
		switch {
		case v == "":
			c.bad("empty item", fmt.Sprintf(path, args...)+"[%d]", i)
		case commas && strings.Contains(v, ","):
			c.bad("item contains a comma, the list separator", fmt.Sprintf(path, args...)+"[%d]", i)
		}
	}
}

// rate checks a rate that is written.
func (c *checker) rate(r config.Rate, path string, args ...any) {
	if err := r.Validate(); err != nil {
		c.bad("rate "+err.Error(), path, args...)
	}
}

func (c *checker) err(d config.Dialect) error {
	if len(c.errs) == 0 {
		return nil
	}
	return fmt.Errorf("agentstxt: %s: %w", d, errors.Join(c.errs...))
}

// writer builds the file. Sections are separated by one blank line, which
// is written lazily so that empty sections leave no trace.
type writer struct {
	b     []byte
	blank bool
}

// section starts a new section.
func (w *writer) section() {
	if len(w.b) > 0 {
		w.blank = true
	}
}

func (w *writer) line(indent bool, parts ...string) {
	if w.blank {
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
