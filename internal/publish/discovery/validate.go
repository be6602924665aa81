package discovery

import (
	"errors"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
)

// Validate checks s against config's rules and those of formats, and
// returns nil or one *config.ValidationError holding every problem,
// sorted by field.
func Validate(s *config.Site, f config.Formats, formats []Format) error {
	err := config.Validate(s, f)
	var ve *config.ValidationError
	if s == nil || (err != nil && !errors.As(err, &ve)) {
		return err
	}
	if f.Dialect == config.DialectIETFDraft && s.Dialect == config.DialectV010 {
		// The site's own dialect, unless the Formats name another.
		f.Dialect = s.Dialect
	}
	ids := make(map[string]int, len(s.Capabilities))
	for i, c := range s.Capabilities {
		if _, ok := ids[c.ID]; !ok {
			ids[c.ID] = i
		}
	}
	c := &Check{
		Report:  &fieldcheck.Report{AllowHTTP: f.AllowHTTP, IDs: ids},
		Site:    s,
		Formats: f,
		Tags:    fieldcheck.Tags(s),
	}
	for _, format := range formats {
		format.Check(c)
	}
	c.Finish()
	var ps []fieldcheck.Problem
	if ve != nil {
		for _, fe := range ve.Errors {
			ps = append(ps, fieldcheck.Problem{Field: fe.Field, Format: fe.Format, Msg: fe.Msg, File: fe.File})
		}
	}
	ps = fieldcheck.Sorted(append(ps, c.Problems...))
	if len(ps) == 0 {
		return nil
	}
	out := &config.ValidationError{Errors: make([]*config.FieldError, len(ps))}
	for i, p := range ps {
		out.Errors[i] = &config.FieldError{Field: p.Field, Format: p.Format, Msg: p.Msg, File: p.File}
	}
	return out
}
