package config

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/format/txtgrammar"
)

// siteFields checks the top-level fields of the Site.
func (r *report) siteFields() {
	s := r.site
	// A blank value is set but says nothing: agents.md refuses it as its
	// H1 and as a line, and the agents.txt lines would be empty.
	if s.Name != "" && strings.TrimSpace(s.Name) == "" {
		r.Add("Name", "", "is blank (only white space)")
	}
	if s.Description != "" && strings.TrimSpace(s.Description) == "" {
		r.Add("Description", "", "is blank (only white space): write the description or leave it out")
	}
	if !validDialect(s.Dialect) {
		r.Addf("Dialect", "", "%s is not a dialect: %s", alt(s.Dialect.String(), fmt.Sprintf("%q", s.Dialect.String())),
			alt("config.DialectIETFDraft or DialectV010", "draft-car or v0.1.0"))
	}
	switch s.ImplicitAccess {
	case "", fieldcheck.ImplicitAll, fieldcheck.ImplicitAI:
	default:
		r.Addf("ImplicitAccess", "", "%q is not a scope: %s", s.ImplicitAccess,
			alt(`"all-agents" (agentready.ImplicitAllAgents) or "ai-agents" (ImplicitAIAgents)`, "all-agents or ai-agents"))
	}
	r.WebURL("URL", s.URL, fieldcheck.WebSchemes)
	r.WebURL("PrivacyPolicy", s.PrivacyPolicy, fieldcheck.WebSchemes)
	for i, u := range s.OperatesOn {
		if strings.TrimSpace(u) == "" {
			r.Add(at("OperatesOn", i), "", "is empty")
		}
		r.WebURL(at("OperatesOn", i), u, fieldcheck.WebSchemes)
	}
	if !txtgrammar.TimeOK(s.GeneratedAt) {
		r.Addf("GeneratedAt", "", "%v has no RFC 3339 form (years 0000-9999), which Generated-At and generatedAt are written in", s.GeneratedAt)
	}
	r.WebURL("DocsURL", s.DocsURL, fieldcheck.WebSchemes)
	r.WebURL("AgentsJSONURL", s.AgentsJSONURL, fieldcheck.WebSchemes)
	if err := s.RateLimit.Validate(); err != nil {
		r.Add("RateLimit", "", err.Error()+rateRule)
	}
}

func validDialect(d Dialect) bool { return d == DialectIETFDraft || d == DialectV010 }

const rateRule = " (Rate-Limit is N/second, N/minute, N/hour or N/day, draft-car 2.5)"

// session checks the audit endpoint; the v0.1.0 session and audit
// fields are the dialect's rules.
func (r *report) session() {
	r.WebURL("Audit.Endpoint", r.site.Audit.Endpoint, fieldcheck.WebSchemes)
}
