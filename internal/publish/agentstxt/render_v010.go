package agentstxt

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
)

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
