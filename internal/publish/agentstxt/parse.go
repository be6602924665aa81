package agentstxt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/format/linetext"
)

// MaxSize is the largest agents.txt Parse reads (1 MiB), and the largest
// Render writes. Real files are a few kilobytes; the bound keeps the work
// of parsing an attacker's file small.
const MaxSize = 1 << 20

// MaxWarnings bounds File.Warnings; further ones are counted in one last
// warning.
const MaxWarnings = 100

// Errors Parse wraps.
var (
	// ErrTooLarge: the input is over MaxSize bytes.
	ErrTooLarge = errors.New("agentstxt: input too large")
	// ErrUnknownDialect: neither grammar's identifying fields were found,
	// or ParseDialect was given an unknown dialect.
	ErrUnknownDialect = errors.New("agentstxt: unknown agents.txt dialect")
)

// File is a parsed agents.txt.
type File struct {
	// Dialect is the grammar the file was read in.
	Dialect config.Dialect
	// SpecVersion is the draft-car Spec-Version as written ("" in v0.1.0).
	SpecVersion string
	// Site is the declaration the file carries: for a file that Render
	// wrote, Project of the rendered site.
	Site config.Site
	// Warnings are the lines the parser skipped or doubted, in order.
	Warnings []Warning
}

// Warning is one problem the parser recovered from.
type Warning struct {
	// Line is the 1-based line number, 0 for the file as a whole.
	Line int
	Msg  string
}

func (w Warning) String() string {
	if w.Line == 0 {
		return w.Msg
	}
	return "line " + strconv.Itoa(w.Line) + ": " + w.Msg
}

// Parse reads an agents.txt in either grammar. The dialect is the one
// whose identifying field comes first: Spec-Version or Site-Name for
// draft-car, Site or URL for v0.1.0 (failing those, the first field that
// only one grammar has, such as Capability or Flow).
//
// Parse is lenient the way robots.txt parsers are: a line it cannot use is
// skipped with a Warning, never an error, and unknown fields are ignored
// (draft-car 2.5). It fails only on input over MaxSize and on input whose
// dialect it cannot tell. It never panics.
func Parse(data []byte) (*File, error) {
	if len(data) > MaxSize {
		return nil, tooLarge(len(data))
	}
	src := string(data)
	d, ok := detect(src)
	if !ok {
		return nil, fmt.Errorf("%w: no Spec-Version, Site-Name, Site or URL field", ErrUnknownDialect)
	}
	return parse(src, d), nil
}

// ParseDialect reads an agents.txt in the given grammar.
func ParseDialect(data []byte, d config.Dialect) (*File, error) {
	if len(data) > MaxSize {
		return nil, tooLarge(len(data))
	}
	if d != config.DialectIETFDraft && d != config.DialectV010 {
		return nil, fmt.Errorf("%w: %v", ErrUnknownDialect, d)
	}
	return parse(string(data), d), nil
}

func tooLarge(n int) error {
	return fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, n, MaxSize)
}

func parse(src string, d config.Dialect) *File {
	f := &File{Dialect: d}
	w := &warner{}
	if d == config.DialectIETFDraft {
		parseDraftCar(src, f, w)
	} else {
		parseV010(src, f, w)
	}
	f.Warnings = w.done()
	return f
}

// detect tells the dialect from the first identifying field.
func detect(src string) (d config.Dialect, ok bool) {
	var second config.Dialect
	haveSecond := false
	each(src, nil, func(l *line) bool {
		switch l.fld {
		case fSpecVersion, fSiteName:
			d, ok = config.DialectIETFDraft, true
		case fSite, fURL:
			d, ok = config.DialectV010, true
		case fSiteURL, fCapability, fAgent, fDeclarationType, fOperatesOn, fDisallow:
			if !haveSecond {
				second, haveSecond = config.DialectIETFDraft, true
			}
		case fFlow, fFlowDescription, fSessionTTL, fAudit, fAuditEndpoint:
			if !haveSecond {
				second, haveSecond = config.DialectV010, true
			}
		}
		return !ok
	})
	if !ok && haveSecond {
		return second, true
	}
	return d, ok
}

// line is one field line.
type line struct {
	num      int
	indented bool
	key      string
	fld      field
	value    string
}

// each calls fn for every field line of src, until fn returns false.
// Comments and blank lines are skipped; a line that is not a field is
// reported to w (when not nil) and skipped.
func each(src string, w *warner, fn func(*line) bool) {
	src = strings.TrimPrefix(src, "\ufeff")
	var l line
	for num := 1; len(src) > 0; num++ {
		raw := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			raw, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		raw = strings.TrimSuffix(raw, "\r") // CRLF files
		t := trim(raw)
		if t == "" || t[0] == '#' {
			continue
		}
		if r, bad := linetext.Find(raw, true); bad != linetext.OK {
			// A lone CR, NUL or the like: other parsers may split or stop
			// here, so no reading of the line is safe.
			what := "invalid UTF-8"
			if bad != linetext.InvalidUTF8 {
				what = fmt.Sprintf("control character %U", r)
			}
			w.add(num, "line skipped: "+what)
			continue
		}
		key, value, found := strings.Cut(t, ":")
		if !found {
			w.add(num, "line skipped: not a field (no colon): "+quote(t))
			continue
		}
		key = trim(key)
		if key == "" {
			w.add(num, "line skipped: empty field name")
			continue
		}
		// draft-car 2.2: "two or more spaces, or one or more tabs".
		l = line{
			num:      num,
			indented: raw[0] == '\t' || strings.HasPrefix(raw, "  "),
			key:      key,
			fld:      lookupField(key),
			value:    trim(value),
		}
		if !fn(&l) {
			return
		}
	}
}

// warner collects warnings, at most MaxWarnings of them.
type warner struct {
	list    []Warning
	dropped int
}

func (w *warner) add(line int, msg string) {
	if w == nil {
		return
	}
	if len(w.list) >= MaxWarnings {
		w.dropped++
		return
	}
	w.list = append(w.list, Warning{Line: line, Msg: msg})
}

func (w *warner) done() []Warning {
	if w.dropped > 0 {
		w.list = append(w.list, Warning{Msg: strconv.Itoa(w.dropped) + " more warnings omitted"})
	}
	return w.list
}

// scope tracks the single-valued fields of the file or of one block, so
// that a repeated one is reported and the first one kept.
type scope struct {
	w    *warner
	seen fieldSet
}

// take reports whether l's value should be used: not empty, and the first
// of its field in the scope.
func (s *scope) take(l *line) bool {
	if l.value == "" {
		s.w.add(l.num, "empty "+l.fld.String()+" ignored")
		return false
	}
	return s.once(l)
}

// once is take for a field whose empty value means something.
func (s *scope) once(l *line) bool {
	if s.seen.has(l.fld) {
		s.w.add(l.num, "duplicate "+l.fld.String()+" ignored; the first one counts")
		return false
	}
	s.seen.add(l.fld)
	return true
}

// nonEmpty reports whether a repeatable field's value is usable.
func nonEmpty(w *warner, l *line) bool {
	if l.value == "" {
		w.add(l.num, "empty "+l.fld.String()+" ignored")
		return false
	}
	return true
}

func unknownField(w *warner, l *line) {
	w.add(l.num, "unknown field "+quote(l.key)+" ignored")
}

func itoa(n int) string { return strconv.Itoa(n) }
