package cards

import "github.com/agentready/agentready/internal/resolve"

// A2A v0.3.0 AgentCard (specification 5.5), the rendering for clients that
// have not moved to 1.0: one url with its preferredTransport, the others
// in additionalInterfaces (5.6), OpenAPI 3.0 security schemes and
// requirements (5.5.2, 5.5.3).
type agentCardV03 struct {
	ProtocolVersion      string                       `json:"protocolVersion"`
	Name                 string                       `json:"name"`
	Description          string                       `json:"description"`
	URL                  string                       `json:"url"`
	PreferredTransport   string                       `json:"preferredTransport"`
	AdditionalInterfaces []agentInterfaceV03          `json:"additionalInterfaces,omitempty"`
	Version              string                       `json:"version"`
	Provider             *provider                    `json:"provider,omitempty"`
	DocumentationURL     string                       `json:"documentationUrl,omitempty"`
	Capabilities         agentCapabilities            `json:"capabilities"`
	SecuritySchemes      map[string]securitySchemeV03 `json:"securitySchemes,omitempty"`
	Security             []map[string][]string        `json:"security,omitempty"`
	DefaultInputModes    []string                     `json:"defaultInputModes"`
	DefaultOutputModes   []string                     `json:"defaultOutputModes"`
	Skills               []skillV03                   `json:"skills"`
}

// agentInterfaceV03 is v0.3.0's AgentInterface: url and transport.
type agentInterfaceV03 struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

type skillV03 struct {
	ID          string                `json:"id"`
	Name        string                `json:"name"`
	Description string                `json:"description"`
	Tags        []string              `json:"tags"`
	Security    []map[string][]string `json:"security,omitempty"`
}

// v03 is the v0.3.0 card. Its requirements are the v1.0 card's, in
// OpenAPI's shape (a scheme name to its scopes, an empty list for none).
func (a *a2aAgent) v03() *agentCardV03 {
	s := a.site
	card := &agentCardV03{
		ProtocolVersion: "0.3.0", Name: s.Name, Description: a.description(),
		URL: a.interfaces[0].url, PreferredTransport: a.interfaces[0].binding,
		Version: resolve.Version(s), DocumentationURL: s.DocsURL,
		Provider:          &provider{Organization: s.Name, URL: s.URL},
		Capabilities:      agentCapabilities{Streaming: &a.streaming},
		DefaultInputModes: a2aModes, DefaultOutputModes: a2aModes,
	}
	// 5.6: additionalInterfaces, when present, SHOULD list the main url
	// and transport too.
	if len(a.interfaces) > 1 {
		for _, in := range a.interfaces {
			card.AdditionalInterfaces = append(card.AdditionalInterfaces, agentInterfaceV03{URL: in.url, Transport: in.binding})
		}
	}
	for _, sc := range a.schemes {
		if card.SecuritySchemes == nil {
			card.SecuritySchemes = map[string]securitySchemeV03{}
		}
		card.SecuritySchemes[sc.name] = sc.v03()
	}
	for _, sk := range a.skills {
		card.Skills = append(card.Skills, skillV03{ID: sk.c.ID, Name: sk.name(), Description: sk.description(),
			Tags: sk.tags(), Security: openAPIRequirements(a.requirementsV10(sk))})
	}
	card.Security = openAPIRequirements(a.cardRequirementsV10())
	return card
}

// openAPIRequirements turns v1.0 requirements into OpenAPI's: a scheme
// name to its scopes, [] for none (OpenAPI 3.0's Security Requirement
// Object: "For other security scheme types, the array MUST be empty").
func openAPIRequirements(reqs []securityRequirement) []map[string][]string {
	var out []map[string][]string
	for _, r := range reqs {
		m := map[string][]string{}
		for name, l := range r.Schemes {
			m[name] = append([]string{}, l.List...)
		}
		out = append(out, m)
	}
	return out
}
