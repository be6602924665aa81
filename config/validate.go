package config

import (
	"strings"

	"github.com/agentready/agentready/internal/fieldcheck"
)

// FieldError is one problem with a declaration.
type FieldError struct {
	Field  string // "Capabilities[1].RateLimit", "Formats.Dialect"
	Format string // formats whose rule it is ("draft-car, AWP"); "" for all
	Msg    string
	// File is Msg as a declaration file spells it (keys in snake_case,
	// values as written: "yes", not config.Allowed), when it differs;
	// Lines.Locate reports it.
	File string
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

// Validate checks the declaration's own rules: every set value of s and
// the rules that tie its fields together (validate_cross.go), which hold
// whatever is published. Each discovery format adds its own rules (a Site
// valid in v0.1.0 may not be in draft-car), which agentready.New checks
// with these, every problem in one *ValidationError. It returns nil or a
// *ValidationError, and is meant for construction time.
func Validate(s *Site, f Formats) error {
	r := &report{f: f}
	r.AllowHTTP = f.AllowHTTP
	if s == nil {
		r.Add("", "", "the site is nil")
		return r.err()
	}
	r.site = s
	r.IDs = capIndex(s)
	r.formats()
	r.structTags(s)
	r.siteFields()
	r.capabilities()
	r.tools()
	r.gateways()
	r.access()
	r.agents()
	r.usage()
	r.session()
	r.requiresCycles()
	return r.err()
}

// report collects problems while the rules run.
type report struct {
	fieldcheck.Report
	f    Formats
	site *Site
}

// Aliases of fieldcheck's spelling helpers, which every rule words its
// messages with.
var (
	alt = fieldcheck.Alt
	ref = fieldcheck.Ref
	at  = fieldcheck.At
)

// fileKey and filePath spell Go field names and paths as a declaration
// file writes them.
var (
	fileKey  = fieldcheck.Key
	filePath = fieldcheck.FilePath
)

// err is nil, or the problems as a *ValidationError, sorted by field.
func (r *report) err() error {
	ps := fieldcheck.Sorted(r.Problems)
	if len(ps) == 0 {
		return nil
	}
	ve := &ValidationError{Errors: make([]*FieldError, len(ps))}
	for i, p := range ps {
		ve.Errors[i] = &FieldError{Field: p.Field, Format: p.Format, Msg: p.Msg, File: p.File}
	}
	return ve
}

// formats checks the Formats argument itself.
func (r *report) formats() {
	if r.f.Dialect != DialectIETFDraft && r.f.Dialect != DialectV010 {
		r.Addf("Formats.Dialect", "", "%v is not a dialect (DialectIETFDraft or DialectV010)", r.f.Dialect)
	}
	if r.f.AgentsJSON != AgentsJSONCompanion && r.f.AgentsJSON != AgentsJSONRegistry {
		r.Addf("Formats.AgentsJSON", "", "%d is not an agents.json mode (AgentsJSONCompanion or AgentsJSONRegistry)", int(r.f.AgentsJSON))
	}
	if extra := r.f.Disabled &^ AllDocuments; extra != 0 {
		r.Addf("Formats.Disabled", "", "has unknown document bits %#x", uint8(extra))
	}
}
