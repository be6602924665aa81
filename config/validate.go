package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FieldError is one problem with a declaration.
type FieldError struct {
	Field  string // "Capabilities[1].RateLimit", "Formats.Dialect"
	Format string // formats whose rule it is ("draft-car, AWP"); "" for all
	Msg    string
	// file is Msg as a declaration file spells it (keys in snake_case,
	// values as written: "yes", not config.Allowed), when it differs;
	// Lines.Locate reports it.
	file string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// ValidationError is every problem Validate found, by field path.
type ValidationError struct {
	Errors []*FieldError
}

// Error lists the problems one per line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, fe := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the FieldErrors, so that errors.As finds them.
func (e *ValidationError) Unwrap() []error {
	errs := make([]error, len(e.Errors))
	for i, fe := range e.Errors {
		errs[i] = fe
	}
	return errs
}

// Validate checks every set value of s, and s against the rules of the
// formats f publishes (a Site valid in v0.1.0 may not be in draft-car). It
// returns nil or a *ValidationError, and is meant for construction time.
func Validate(s *Site, f Formats) error {
	if s != nil && f.Dialect == DialectIETFDraft && validDialect(s.Dialect) {
		// The site's own dialect, unless the Formats name another
		// (siteFields reports an unknown one).
		f.Dialect = s.Dialect
	}
	r := &report{f: f, on: servedBy(f)}
	if s == nil {
		r.add("", "", "the site is nil")
		return r.err()
	}
	r.site = s
	r.formats()
	r.structTags(s)
	r.siteFields()
	r.capabilities()
	r.access()
	r.agents()
	r.usage()
	r.flows()
	r.session()
	r.awp()
	r.agentsMD()
	r.agentURI()
	r.text()
	return r.err()
}

// Format names used in FieldError.Format.
const (
	fmtDraftCar = "draft-car"
	fmtV010     = "v0.1.0"
	fmtAgentsMD = "agents.md"
	fmtAWP      = "AWP"
	fmtAgentURI = "agent://"
)

// served records which format is published, as the rules see it.
type served struct {
	dcTxt, dcJSON     bool // draft-car agents.txt, its agents.json companion
	v010Txt, v010JSON bool // v0.1.0 agents.txt, its agents.json
	md                bool // agents.md
	awp               bool // AWP agent.json
	uri               bool // agent:// descriptors or registry
}

func servedBy(f Formats) served {
	companion := f.Serves(DocAgentsJSON) && f.AgentsJSON == AgentsJSONCompanion
	return served{
		dcTxt:    f.Dialect == DialectIETFDraft && f.Serves(DocAgentsTxt),
		dcJSON:   f.Dialect == DialectIETFDraft && companion,
		v010Txt:  f.Dialect == DialectV010 && f.Serves(DocAgentsTxt),
		v010JSON: f.Dialect == DialectV010 && companion,
		md:       f.Serves(DocAgentsMD),
		awp:      f.Serves(DocAWP),
		uri:      f.Serves(DocDescriptors) || (f.Serves(DocAgentsJSON) && f.AgentsJSON == AgentsJSONRegistry),
	}
}

func (o served) draftCar() bool { return o.dcTxt || o.dcJSON }
func (o served) v010() bool     { return o.v010Txt || o.v010JSON }

// has reports whether the named format is served ("" always is).
func (o served) has(format string) bool {
	switch format {
	case fmtDraftCar:
		return o.draftCar()
	case fmtV010:
		return o.v010()
	case fmtAgentsMD:
		return o.md
	case fmtAWP:
		return o.awp
	case fmtAgentURI:
		return o.uri
	}
	return true
}

// draftCarDoc names the draft-car document a rule is quoted from: the
// agents.txt when it is served, else the agents.json companion.
func (o served) draftCarDoc() string {
	if o.dcTxt {
		return "draft-car agents.txt"
	}
	return "draft-car agents.json"
}

func (o served) v010Doc() string {
	if o.v010Txt {
		return "v0.1.0 agents.txt"
	}
	return "v0.1.0 agents.json"
}

// report collects problems while the rules run.
type report struct {
	f    Formats
	on   served
	site *Site
	errs []*FieldError
	ids  map[string]int // capability ID -> first index, see capIndex
}

func (r *report) add(field, format, msg string) {
	fe := &FieldError{Field: field, Format: format, Msg: msg}
	if strings.IndexByte(msg, altOpen) >= 0 {
		fe.Msg, fe.file = spell(msg, false), spell(msg, true)
	}
	r.errs = append(r.errs, fe)
}

// A message names a field or a value as Go spells it and as a declaration
// file does: alt and ref mark the two spellings, add splits them into
// FieldError.Msg and FieldError.file.
const (
	altOpen  = '\x00'
	altSep   = '\x01'
	altClose = '\x02'
)

// alt is goText in FieldError.Msg and fileText in a declaration file's
// report. Use it with %s, never %q.
func alt(goText, fileText string) string {
	return string(altOpen) + goText + string(altSep) + fileText + string(altClose)
}

// ref names the field at path (at("Agents", 2)) in either spelling.
func ref(path string) string { return alt(path, filePath(path)) }

// spell keeps one spelling of each alt in msg: the file's or Go's.
func spell(msg string, file bool) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, altOpen)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		rest := msg[i+1:]
		j, k := strings.IndexByte(rest, altSep), strings.IndexByte(rest, altClose)
		if j < 0 || k < j {
			b.WriteString(rest) // not made by alt
			return b.String()
		}
		if file {
			b.WriteString(rest[j+1 : k])
		} else {
			b.WriteString(rest[:j])
		}
		msg = rest[k+1:]
	}
}

func (r *report) addf(field, format, msg string, args ...any) {
	r.add(field, format, fmt.Sprintf(msg, args...))
}

// err sorts and de-duplicates the problems: sorted so that the output is
// deterministic and each field's problems sit together, stable so that a
// field's problems keep the order the rules found them in.
func (r *report) err() error {
	if len(r.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(r.errs, func(a, b *FieldError) int { return comparePaths(a.Field, b.Field) })
	seen := make(map[FieldError]bool, len(r.errs))
	out := r.errs[:0]
	for _, fe := range r.errs {
		if seen[*fe] {
			continue
		}
		seen[*fe] = true
		out = append(out, fe)
	}
	return &ValidationError{Errors: out}
}

// comparePaths orders field paths case-insensitively, with runs of digits
// compared as numbers, so that Capabilities[2] sorts before
// Capabilities[10] and AWP sits between Audit and Capabilities.
func comparePaths(a, b string) int {
	if c := compareNatural(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return compareNatural(a, b)
}

func compareNatural(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, nb := digitRun(a), digitRun(b)
			x, _ := strconv.ParseUint(a[:na], 10, 64)
			y, _ := strconv.ParseUint(b[:nb], 10, 64)
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if a[0] != b[0] {
			if a[0] < b[0] {
				return -1
			}
			return 1
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// at builds "field[i]".
func at(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// joinFormats joins format names for FieldError.Format.
func joinFormats(names ...string) string { return strings.Join(names, ", ") }

// prose joins phrases as "a", "a and b", "a, b and c".
func prose(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// formats checks the Formats argument itself.
func (r *report) formats() {
	if r.f.Dialect != DialectIETFDraft && r.f.Dialect != DialectV010 {
		r.addf("Formats.Dialect", "", "%v is not a dialect (DialectIETFDraft or DialectV010)", r.f.Dialect)
	}
	if r.f.AgentsJSON != AgentsJSONCompanion && r.f.AgentsJSON != AgentsJSONRegistry {
		r.addf("Formats.AgentsJSON", "", "%d is not an agents.json mode (AgentsJSONCompanion or AgentsJSONRegistry)", int(r.f.AgentsJSON))
	}
	if extra := r.f.Disabled &^ AllDocuments; extra != 0 {
		r.addf("Formats.Disabled", "", "has unknown document bits %#x", uint8(extra))
	}
}
