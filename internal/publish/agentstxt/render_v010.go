package agentstxt

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
)

// checkV010Text checks every raw value the v0.1.0 file carries.
func checkV010Text(c *checker, s *config.Site) {
	c.text(s.Name, "Name")
	c.text(s.URL, "URL")
	c.text(s.Description, "Description")
	c.text(s.Contact, "Contact")
	c.text(s.AgentsJSONURL, "AgentsJSONURL")
	for i := range s.Capabilities {
		c.text(s.Capabilities[i].ID, "Capabilities[%d].ID", i)
	}
	for i, f := range s.Flows {
		c.text(f.Name, "Flows[%d].Name", i)
		c.list(f.Steps, "Flows[%d].Steps", i)
		c.text(f.Description, "Flows[%d].Description", i)
	}
	if s.Audit.Enabled {
		c.text(s.Audit.Endpoint, "Audit.Endpoint")
	}
}

// checkV010Grammar checks that the projected site p of s reads back as
// itself.
func checkV010Grammar(c *checker, s *config.Site, p *config.Site) {
	for i := range p.Capabilities {
		if p.Capabilities[i].ID == "" {
			c.bad("empty capability name", "Capabilities[%d].ID", i)
		}
	}
	for i, f := range p.Flows {
		switch {
		case f.Name == "":
			c.bad("empty flow name", "Flows[%d].Name", i)
		case hasArrow(f.Name):
			c.bad(`an arrow ("→" or "->") would end the flow name`, "Flows[%d].Name", i)
		}
		if len(f.Steps) == 0 {
			c.bad("a flow needs at least one step", "Flows[%d].Steps", i)
		}
		c.items(f.Steps, true, "Flows[%d].Steps", i)
	}
	if _, ok := perMinute(s.RateLimit); !ok {
		if err := s.RateLimit.Validate(); err != nil {
			c.bad("rate "+err.Error(), "RateLimit")
		} else {
			c.bad("rate too large to express per minute", "RateLimit")
		}
	}
	// Defaults derived from URL: its host may hold percent-decoded runes.
	if trim(s.AgentsJSONURL) == "" {
		c.text(p.AgentsJSONURL, "AgentsJSONURL (derived from URL)")
	}
	if s.Audit.Enabled && trim(s.Audit.Endpoint) == "" {
		c.text(p.Audit.Endpoint, "Audit.Endpoint (derived from URL)")
	}
	if _, ok := ttlSeconds(s); !ok {
		c.bad("negative session TTL", "Session.TTL")
	}
}

// writeV010 writes a projected site in the layout of the v0.1.0 "Full
// Example": identity, Agents-JSON, capabilities, flows, then limits,
// sessions and audit.
func writeV010(w *writer, p *config.Site) {
	if p.Name != "" {
		w.comment("agents.txt - " + p.Name)
	} else {
		w.comment("agents.txt")
	}
	if p.URL != "" {
		w.comment(p.URL)
	}

	w.section()
	w.field(fSite, p.Name)
	w.field(fURL, p.URL)
	w.field(fDescription, p.Description)
	w.field(fContact, p.Contact)

	w.section()
	w.field(fAgentsJSON, p.AgentsJSONURL)

	if len(p.Capabilities) > 0 {
		w.section()
		w.comment("Capabilities")
		for i := range p.Capabilities {
			w.field(fAllow, p.Capabilities[i].ID)
		}
	}

	if len(p.Flows) > 0 {
		w.section()
		w.comment("Suggested Flows")
		for _, f := range p.Flows {
			w.field(fFlow, f.Name+" → "+strings.Join(f.Steps, ", "))
			w.field(fFlowDescription, f.Description)
		}
	}

	w.section()
	if !p.RateLimit.IsZero() {
		w.field(fRateLimit, p.RateLimit.String())
	}
	if p.Session.TTL > 0 {
		w.field(fSessionTTL, strconv.FormatInt(int64(p.Session.TTL/time.Second), 10)+"s")
	}
	if p.Audit.Enabled {
		w.field(fAudit, "true")
		w.field(fAuditEndpoint, p.Audit.Endpoint)
	}
}
