package agentstxt

import (
	"math"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/format/txtgrammar"
	"github.com/agentready/agentready/internal/resolve"
)

// Project returns the part of s that the agents.txt of dialect d carries,
// with the documented defaults resolved and values trimmed the way the
// parser reads them: for every site publish.Validate accepts,
//
//	Parse(Render(s, d)).Site deep-equals Project(s, d).
//
// Render writes exactly Project(s, d), so Project also says what a reader of
// the published file learns. Fields the grammar cannot express are dropped
// (draft-car has no flows, sessions or audit; v0.1.0 carries capability IDs
// only). A nil site or an unknown dialect yields the zero Site.
func Project(s *config.Site, d config.Dialect) config.Site {
	if s == nil {
		return config.Site{}
	}
	switch d {
	case config.DialectIETFDraft:
		return projectDraftCar(s)
	case config.DialectV010:
		return projectV010(s)
	}
	return config.Site{}
}

func projectDraftCar(s *config.Site) config.Site {
	p := config.Site{
		Name:          trim(s.Name),
		URL:           trim(s.URL),
		Description:   trim(s.Description),
		Contact:       trim(s.Contact),
		PrivacyPolicy: trim(s.PrivacyPolicy),
		OperatesOn:    trimAll(s.OperatesOn),
		AgentsJSONURL: trim(s.AgentsJSONURL),
		Access: config.Access{
			Allow:    trimAll(s.Access.Allow),
			Disallow: trimAll(s.Access.Disallow),
		},
	}
	// Platform is the default (2.3) and is not written.
	if dt, _ := canonDeclarationType(string(s.DeclarationType)); dt != config.DeclarationPlatform {
		p.DeclarationType = dt
	}
	if !s.GeneratedAt.IsZero() {
		// Generated-At is written in RFC 3339 UTC with whole seconds.
		p.GeneratedAt = s.GeneratedAt.UTC().Truncate(time.Second)
	}
	for i := range s.Capabilities {
		pc := projectCapability(&s.Capabilities[i])
		if s.Capabilities[i].RequiresSession {
			// Session-Endpoint (agentready's extension): the absolute URL
			// of the session endpoint, on the capability and the site.
			pc.RequiresSession = true
			p.Session.Endpoint = trim(resolve.SessionEndpointURL(s))
		}
		p.Capabilities = append(p.Capabilities, pc)
	}
	for _, a := range s.Agents {
		pa := config.AgentPolicy{
			Name:             trim(a.Name),
			RateLimit:        projectRate(a.RateLimit),
			AgentDeclaration: trim(a.AgentDeclaration),
		}
		// A single tool's grant (CAPABILITY/TOOL) has no place in the
		// line, whose IDs are [a-z0-9-] (2.5): agents.json and agents.md
		// publish it (docs/mcp.md). Left out, it permits nothing more.
		pa.Capabilities = projectIDs(resolve.WholeGrants(a.Capabilities))
		// Proven-Rate-Limit and Proven-Capabilities (agentready's
		// extension) carry a proven grant that limits something; an empty
		// one (no limit, every capability) has no line to say it.
		if g := a.Proven; g != nil && (!g.RateLimit.IsZero() || g.Capabilities != nil) {
			pa.Proven = &config.Grant{RateLimit: projectRate(g.RateLimit), Capabilities: projectIDs(resolve.WholeGrants(g.Capabilities))}
		}
		p.Agents = append(p.Agents, pa)
	}
	return p
}

// projectIDs is an Agent block's capability list: nil (every capability)
// stays nil, and present but empty ("no capabilities", 2.7) stays non-nil.
func projectIDs(ids []string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, len(ids))
	for j, c := range ids {
		out[j] = trim(c)
	}
	return out
}

func projectCapability(c *config.Capability) config.Capability {
	proto, _ := canonProtocol(string(c.Protocol))
	auth, _ := canonAuth(string(c.Auth.Type))
	pc := config.Capability{
		ID:          trim(c.ID),
		Description: trim(c.Description),
		Endpoint:    trim(c.Endpoint),
		Method:      strings.ToUpper(trim(c.Method)),
		Protocol:    proto,
		Auth: config.Auth{
			Type:          auth,
			TokenEndpoint: trim(c.Auth.TokenEndpoint),
			DocsURL:       trim(c.Auth.DocsURL),
			Scopes:        trimAll(c.Auth.Scopes),
		},
		RateLimit: projectRate(c.RateLimit),
		OpenAPI:   trim(c.OpenAPI),
	}
	// Method defaults to GET for REST (2.5) and is always written there, as
	// Appendix A does; other protocols carry it only when declared.
	if proto == config.ProtocolREST && pc.Method == "" {
		pc.Method = "GET"
	}
	for _, prm := range c.Params {
		pp := config.Param{
			Name:        trim(prm.Name),
			In:          strings.ToLower(trim(string(prm.In))),
			Type:        strings.ToLower(trim(string(prm.Type))),
			Required:    prm.Required,
			Description: trim(prm.Description),
		}
		if pp.In == "" {
			pp.In = config.InQuery
		}
		if pp.Type == "" {
			pp.Type = config.TypeString
		}
		pc.Params = append(pc.Params, pp)
	}
	return pc
}

func projectV010(s *config.Site) config.Site {
	p := config.Site{
		Name:          trim(s.Name),
		URL:           trim(s.URL),
		Description:   trim(s.Description),
		Contact:       trim(s.Contact),
		AgentsJSONURL: trim(s.AgentsJSONURL),
	}
	if p.AgentsJSONURL == "" {
		// "Defaults to <URL>/.well-known/agents.json"; the spec's example
		// writes it out, and so does Render.
		if o := endpoint.Origin(p.URL); o != "" {
			p.AgentsJSONURL = o + "/.well-known/agents.json"
		}
	}
	for _, c := range s.Capabilities {
		p.Capabilities = append(p.Capabilities, config.Capability{ID: trim(c.ID)})
	}
	for _, f := range s.Flows {
		p.Flows = append(p.Flows, config.Flow{
			Name:        trim(f.Name),
			Steps:       trimAll(f.Steps),
			Description: trim(f.Description),
		})
	}
	if n, ok := perMinute(s.RateLimit); ok && n > 0 {
		p.RateLimit = config.PerMinute(n)
	}
	if secs, ok := ttlSeconds(s); ok && secs > 0 {
		p.Session.TTL = time.Duration(secs) * time.Second
	}
	if s.Audit.Enabled {
		ep := trim(s.Audit.Endpoint)
		if ep == "" {
			ep = resolve.AuditEndpoint(&config.Site{URL: p.URL})
		}
		p.Audit = config.Audit{Enabled: true, Endpoint: ep}
	}
	return p
}

// projectRate keeps a valid rate; an invalid one is not carried (Validate
// refuses it).
func projectRate(r config.Rate) config.Rate {
	if r.Validate() != nil {
		return config.Rate{}
	}
	return r
}

// perMinute is the v0.1.0 form of r ("<number>/minute"). ok is false when r
// is invalid or too large to convert.
func perMinute(r config.Rate) (n int, ok bool) {
	if r.IsZero() {
		return 0, true
	}
	if r.Validate() != nil || int64(r.Requests) > txtgrammar.MaxPerMinuteRequests {
		return 0, false
	}
	return resolve.RequestsPerMinute(r), true
}

// maxTTLSeconds is the largest Session-TTL a time.Duration holds.
const maxTTLSeconds = math.MaxInt64 / int64(time.Second)

// ttlSeconds is the Session-TTL to write, in whole seconds rounded up: the
// declared TTL, or the default 1800 s when a capability needs a session.
// secs is 0 when no Session-TTL line is written; ok is false for a negative
// TTL.
func ttlSeconds(s *config.Site) (secs int64, ok bool) {
	ttl := s.Session.TTL
	if ttl < 0 {
		return 0, false
	}
	if ttl == 0 {
		if !resolve.NeedsSession(s) {
			return 0, true
		}
		ttl = resolve.DefaultSessionTTL
	}
	secs = int64(ttl / time.Second)
	if ttl%time.Second != 0 && secs < maxTTLSeconds {
		secs++
	}
	return secs, true
}

// trimAll trims every item, keeping empty ones so that Render can refuse
// them; an empty list is nil, as the parser returns it.
func trimAll(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = trim(v)
	}
	return out
}
