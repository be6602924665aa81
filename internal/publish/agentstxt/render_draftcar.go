package agentstxt

import (
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/format/txtgrammar"
)

// writeDraftCar writes a projected site in the draft-car grammar, in the
// order and layout of Appendix A: header, site, one block per capability,
// access control, one block per agent, a blank line between sections.
func writeDraftCar(w *writer, p *config.Site) {
	w.comment("agents.txt")
	w.field(fSpecVersion, "1.0")
	if !p.GeneratedAt.IsZero() {
		w.field(fGeneratedAt, p.GeneratedAt.Format(txtgrammar.GeneratedAtLayout))
	}
	w.field(fDeclarationType, string(p.DeclarationType))
	for _, o := range p.OperatesOn {
		w.field(fOperatesOn, o)
	}

	w.section()
	w.field(fSiteName, p.Name)
	w.field(fSiteURL, p.URL)
	w.field(fSiteDescription, p.Description)
	w.field(fSiteContact, p.Contact)
	w.field(fSitePrivacyPolicy, p.PrivacyPolicy)
	w.field(fAgentsJSON, p.AgentsJSONURL) // 3.2

	for i := range p.Capabilities {
		k := &p.Capabilities[i]
		w.section()
		w.field(fCapability, k.ID)
		w.sub(fEndpoint, k.Endpoint)
		w.sub(fMethod, k.Method)
		w.sub(fProtocol, string(k.Protocol))
		w.sub(fAuth, string(k.Auth.Type))
		w.sub(fAuthEndpoint, k.Auth.TokenEndpoint)
		w.sub(fAuthDocs, k.Auth.DocsURL)
		w.sub(fScopes, strings.Join(k.Auth.Scopes, ", "))
		w.sub(fRateLimit, k.RateLimit.String())
		w.sub(fDescription, k.Description)
		w.sub(fOpenAPI, k.OpenAPI)
		if k.RequiresSession {
			w.sub(fSessionEndpoint, p.Session.Endpoint)
		}
		for _, prm := range k.Params {
			w.sub(fParam, formatParam(prm))
		}
	}

	w.section()
	for _, a := range p.Access.Allow {
		w.field(fAllow, a)
	}
	for _, d := range p.Access.Disallow {
		w.field(fDisallow, d)
	}

	for i := range p.Agents {
		a := &p.Agents[i]
		w.section()
		w.field(fAgent, a.Name)
		w.sub(fRateLimit, a.RateLimit.String())
		writeCapabilities(w, fCapabilities, a.Capabilities)
		w.sub(fAgentDeclaration, a.AgentDeclaration)
		if g := a.Proven; g != nil {
			// agentready's extension (fields.go): what a proven client gets.
			w.sub(fProvenRateLimit, g.RateLimit.String())
			writeCapabilities(w, fProvenCapabilities, g.Capabilities)
		}
	}
}

// writeCapabilities writes an Agent block's list of permitted capabilities
// (2.7) as field f.
func writeCapabilities(w *writer, f field, ids []string) {
	switch {
	case ids == nil:
		// Omitted: every declared capability is permitted (2.7).
	case len(ids) == 0:
		// Present and empty: none is. The line is the only way to say so.
		w.line(true, fieldNames[f], ":")
	default:
		w.sub(f, strings.Join(ids, ", "))
	}
}
