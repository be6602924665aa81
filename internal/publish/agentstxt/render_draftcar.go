package agentstxt

import (
	"strings"

	"github.com/agentready/agentready/config"
)

// generatedAtLayout is RFC 3339 in UTC with whole seconds, as Appendix A
// writes it ("2026-02-01T00:00:00Z").
const generatedAtLayout = "2006-01-02T15:04:05Z"

// checkDraftCarText checks every raw value the draft-car file carries.
func checkDraftCarText(c *checker, s *config.Site) {
	c.text(s.Name, "Name")
	c.text(s.URL, "URL")
	c.text(s.Description, "Description")
	c.text(s.Contact, "Contact")
	c.text(s.PrivacyPolicy, "PrivacyPolicy")
	c.text(string(s.DeclarationType), "DeclarationType")
	c.list(s.OperatesOn, "OperatesOn")
	c.text(s.AgentsJSONURL, "AgentsJSONURL")
	for i := range s.Capabilities {
		k := &s.Capabilities[i]
		c.text(k.ID, "Capabilities[%d].ID", i)
		c.text(k.Endpoint, "Capabilities[%d].Endpoint", i)
		c.text(k.Method, "Capabilities[%d].Method", i)
		c.text(string(k.Protocol), "Capabilities[%d].Protocol", i)
		c.text(string(k.Auth.Type), "Capabilities[%d].Auth.Type", i)
		c.text(k.Auth.TokenEndpoint, "Capabilities[%d].Auth.TokenEndpoint", i)
		c.text(k.Auth.DocsURL, "Capabilities[%d].Auth.DocsURL", i)
		c.list(k.Auth.Scopes, "Capabilities[%d].Auth.Scopes", i)
		c.text(k.Description, "Capabilities[%d].Description", i)
		c.text(k.OpenAPI, "Capabilities[%d].OpenAPI", i)
		for j, p := range k.Params {
			c.text(p.Name, "Capabilities[%d].Params[%d].Name", i, j)
			c.text(string(p.In), "Capabilities[%d].Params[%d].In", i, j)
			c.text(string(p.Type), "Capabilities[%d].Params[%d].Type", i, j)
			c.text(p.Description, "Capabilities[%d].Params[%d].Description", i, j)
		}
	}
	c.list(s.Access.Allow, "Access.Allow")
	c.list(s.Access.Disallow, "Access.Disallow")
	for i, a := range s.Agents {
		c.text(a.Name, "Agents[%d].Name", i)
		c.list(a.Capabilities, "Agents[%d].Capabilities", i)
		c.text(a.AgentDeclaration, "Agents[%d].AgentDeclaration", i)
	}
}

// checkDraftCarGrammar checks what the text checks cannot: that the
// projected site p of s reads back as itself.
func checkDraftCarGrammar(c *checker, s *config.Site, p *config.Site) {
	if !p.GeneratedAt.IsZero() && (p.GeneratedAt.Year() < 0 || p.GeneratedAt.Year() > 9999) {
		c.bad("year outside 0000-9999 has no RFC 3339 form", "GeneratedAt")
	}
	c.items(p.OperatesOn, false, "OperatesOn")
	for i := range p.Capabilities {
		k := &p.Capabilities[i]
		if k.ID == "" {
			c.bad("empty capability identifier", "Capabilities[%d].ID", i)
		}
		c.items(k.Auth.Scopes, true, "Capabilities[%d].Auth.Scopes", i)
		c.rate(s.Capabilities[i].RateLimit, "Capabilities[%d].RateLimit", i)
		for j, prm := range k.Params {
			switch {
			case prm.Name == "":
				c.bad("empty parameter name", "Capabilities[%d].Params[%d].Name", i, j)
			case strings.ContainsRune(prm.Name, '('):
				c.bad(`"(" would end the parameter name`, "Capabilities[%d].Params[%d].Name", i, j)
			}
			if !knownLocation(prm.In) {
				c.bad("location "+quote(string(prm.In))+" is not one of query, path, header, body (2.5)", "Capabilities[%d].Params[%d].In", i, j)
			}
			if !knownType(prm.Type) {
				c.bad("type "+quote(string(prm.Type))+" is not one of string, integer, number, boolean (2.5)", "Capabilities[%d].Params[%d].Type", i, j)
			}
		}
	}
	c.items(p.Access.Allow, false, "Access.Allow")
	c.items(p.Access.Disallow, false, "Access.Disallow")
	for i := range p.Agents {
		a := &p.Agents[i]
		if a.Name == "" {
			c.bad("empty agent identifier", "Agents[%d].Name", i)
		}
		c.rate(s.Agents[i].RateLimit, "Agents[%d].RateLimit", i)
		c.items(a.Capabilities, true, "Agents[%d].Capabilities", i)
	}
}

// writeDraftCar writes a projected site in the draft-car grammar, in the
// order and layout of Appendix A: header, site, one block per capability,
// access control, one block per agent, a blank line between sections.
func writeDraftCar(w *writer, p *config.Site) {
	w.comment("agents.txt")
	w.field(fSpecVersion, "1.0")
	if !p.GeneratedAt.IsZero() {
		w.field(fGeneratedAt, p.GeneratedAt.Format(generatedAtLayout))
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
		switch {
		case a.Capabilities == nil:
			// Omitted: every declared capability is permitted (2.7).
		case len(a.Capabilities) == 0:
			// Present and empty: none is. The line is the only way to say so.
			w.line(true, fieldNames[fCapabilities], ":")
		default:
			w.sub(fCapabilities, strings.Join(a.Capabilities, ", "))
		}
		w.sub(fAgentDeclaration, a.AgentDeclaration)
	}
}
