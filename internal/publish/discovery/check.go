package discovery

import (
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
)

// Check is what a format's rules run with: the problems found so far,
// the Site, the Formats (the dialect the site's own unless they name
// another) and the failed `validate` tags. A format's Check runs whatever
// is published; each rule decides whether it applies.
type Check struct {
	*fieldcheck.Report
	Site    *config.Site
	Formats config.Formats
	Tags    []fieldcheck.TagError
	needs   []need
	lines   []need // the line-based documents (LineBased)
}

// need is one format's part of a problem several formats may share.
type need struct {
	field, msg, format, by string
}

// Require records that the format (FieldError.Format) requires what msg
// says of field, by naming its document and rule; the formats that
// require the same thing of a field are reported as one problem, msg's
// %s the prose of their by, in the order of the formats.
func (c *Check) Require(field, msg, format, by string) {
	c.needs = append(c.needs, need{field: field, msg: msg, format: format, by: by})
}

// LineBased records that doc, of format, is a line-based document: every
// string of the Site must then be one line of UTF-8 text (text.go).
func (c *Check) LineBased(doc, format string) {
	c.lines = append(c.lines, need{format: format, by: doc})
}

// ReportTags reports the failed tags rules explains; those of a rule with
// an Owner only when served.
func (c *Check) ReportTags(rules map[string]fieldcheck.TagRule, served bool) {
	for _, te := range c.Tags {
		if rule, ok := rules[te.Key]; ok && (rule.Owner == "" || served) {
			te.Report(c.Report, rule)
		}
	}
}

// Finish reports the shared problems: the requirements, one problem per
// field and message, and the strings line-based documents cannot carry.
func (c *Check) Finish() {
	type key struct{ field, msg string }
	var order []key
	formats, by := map[key][]string{}, map[key][]string{}
	for _, n := range c.needs {
		k := key{n.field, n.msg}
		if _, ok := formats[k]; !ok {
			order = append(order, k)
		}
		formats[k] = append(formats[k], n.format)
		by[k] = append(by[k], n.by)
	}
	for _, k := range order {
		c.Add(k.field, fieldcheck.JoinFormats(formats[k]...), strings.Replace(k.msg, "%s", fieldcheck.Prose(by[k]), 1))
	}
	if len(c.lines) > 0 {
		var docs, fs []string
		for _, l := range c.lines {
			docs, fs = append(docs, l.by), append(fs, l.format)
		}
		c.text(fieldcheck.Prose(docs), fieldcheck.JoinFormats(fs...))
	}
}
