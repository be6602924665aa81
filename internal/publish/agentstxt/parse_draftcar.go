package agentstxt

import (
	"strings"
	"time"

	"github.com/agentready/agentready/config"
)

type blockKind uint8

const (
	noBlock blockKind = iota
	capBlock
	agentBlock
	// skipBlock swallows the indented lines of a block whose header was
	// unusable, so they do not attach to the block before it.
	skipBlock
)

// carParser reads the draft-car grammar (2.2-2.7, 3.2).
type carParser struct {
	f      *File
	w      *warner
	top    scope
	block  blockKind
	idx    int // index of the current Capability or Agent
	start  int // line of the current block's header
	in     scope
	capIDs map[string]int // capability ID -> line, for duplicates
	agents map[string]int // lower-cased agent name -> line
}

func parseDraftCar(src string, f *File, w *warner) {
	p := &carParser{f: f, w: w, top: scope{w: w}, in: scope{w: w}}
	each(src, w, func(l *line) bool {
		p.line(l)
		return true
	})
	p.closeBlock()
	for _, req := range [...]field{fSpecVersion, fSiteName, fSiteURL} {
		if !p.top.seen.has(req) {
			w.add(0, req.String()+" missing (REQUIRED, draft-car 2.3/2.4)")
		}
	}
}

func (p *carParser) line(l *line) {
	if l.indented {
		switch p.block {
		case noBlock:
			p.w.add(l.num, "indented "+quote(l.key)+" outside a Capability or Agent block ignored")
		case capBlock:
			p.capField(l)
		case agentBlock:
			p.agentField(l)
		}
		return
	}
	// An unindented line ends the block (2.2).
	p.closeBlock()
	s := &p.f.Site
	switch l.fld {
	case fSpecVersion:
		if p.top.take(l) {
			p.f.SpecVersion = l.value
			if l.value != "1.0" {
				p.w.add(l.num, "Spec-Version "+quote(l.value)+" is not 1.0; read as 1.0")
			}
		}
	case fGeneratedAt:
		if p.top.take(l) {
			t, err := time.Parse(time.RFC3339, l.value)
			if err != nil {
				p.w.add(l.num, "Generated-At "+quote(l.value)+" is not an RFC 3339 timestamp; ignored")
			} else {
				s.GeneratedAt = t.UTC()
			}
		}
	case fDeclarationType:
		if p.top.take(l) {
			dt, known := canonDeclarationType(l.value)
			if !known {
				p.w.add(l.num, "Declaration-Type "+quote(l.value)+" is not platform or agent")
			}
			s.DeclarationType = dt
		}
	case fOperatesOn:
		if nonEmpty(p.w, l) {
			s.OperatesOn = append(s.OperatesOn, l.value)
		}
	case fSiteName:
		if p.top.take(l) {
			s.Name = l.value
		}
	case fSiteURL:
		if p.top.take(l) {
			s.URL = l.value
		}
	case fSiteDescription:
		if p.top.take(l) {
			s.Description = l.value
		}
	case fSiteContact:
		if p.top.take(l) {
			s.Contact = l.value
		}
	case fSitePrivacyPolicy:
		if p.top.take(l) {
			s.PrivacyPolicy = l.value
		}
	case fAgentsJSON:
		if p.top.take(l) {
			s.AgentsJSONURL = l.value
		}
	case fAllow:
		if nonEmpty(p.w, l) {
			s.Access.Allow = append(s.Access.Allow, l.value)
		}
	case fDisallow:
		if nonEmpty(p.w, l) {
			s.Access.Disallow = append(s.Access.Disallow, l.value)
		}
	case fCapability:
		p.openCapability(l)
	case fAgent:
		p.openAgent(l)
	case fUnknown:
		unknownField(p.w, l)
	case fEndpoint, fMethod, fProtocol, fAuth, fAuthEndpoint, fAuthDocs, fScopes,
		fRateLimit, fDescription, fOpenAPI, fParam, fSessionEndpoint, fCapabilities, fAgentDeclaration,
		fProvenRateLimit, fProvenCapabilities:
		p.w.add(l.num, l.fld.String()+" is a block field but is not indented; ignored")
	default:
		p.w.add(l.num, l.fld.String()+" is not a draft-car field (v0.1.0?); ignored")
	}
}

func (p *carParser) openCapability(l *line) {
	if l.value == "" {
		p.w.add(l.num, "Capability without an identifier; block ignored")
		p.block = skipBlock
		return
	}
	if p.capIDs == nil {
		p.capIDs = map[string]int{}
	}
	if first, dup := p.capIDs[l.value]; dup {
		p.w.add(l.num, "duplicate Capability "+quote(l.value)+" (first on line "+itoa(first)+")")
	} else {
		p.capIDs[l.value] = l.num
	}
	p.f.Site.Capabilities = append(p.f.Site.Capabilities, config.Capability{ID: l.value})
	p.open(capBlock, len(p.f.Site.Capabilities)-1, l.num)
}

func (p *carParser) openAgent(l *line) {
	if l.value == "" {
		p.w.add(l.num, "Agent without an identifier; block ignored")
		p.block = skipBlock
		return
	}
	if p.agents == nil {
		p.agents = map[string]int{}
	}
	// Agent identifiers match case-insensitively (2.7, 4.2).
	key := strings.ToLower(l.value)
	if first, dup := p.agents[key]; dup {
		p.w.add(l.num, "duplicate Agent "+quote(l.value)+" (first on line "+itoa(first)+")")
	} else {
		p.agents[key] = l.num
	}
	p.f.Site.Agents = append(p.f.Site.Agents, config.AgentPolicy{Name: l.value})
	p.open(agentBlock, len(p.f.Site.Agents)-1, l.num)
}

func (p *carParser) open(k blockKind, idx, num int) {
	p.block, p.idx, p.start = k, idx, num
	p.in.seen = 0
}

// closeBlock ends the current block, reporting its missing required fields.
func (p *carParser) closeBlock() {
	if p.block == capBlock {
		c := &p.f.Site.Capabilities[p.idx]
		for _, req := range [...]field{fEndpoint, fProtocol} {
			if !p.in.seen.has(req) {
				p.w.add(p.start, "Capability "+quote(c.ID)+": "+req.String()+" missing (REQUIRED, 2.5)")
			}
		}
	}
	p.block = noBlock
}

func (p *carParser) capField(l *line) {
	c := &p.f.Site.Capabilities[p.idx]
	switch l.fld {
	case fEndpoint:
		if p.in.take(l) {
			c.Endpoint = l.value
		}
	case fMethod:
		if p.in.take(l) {
			c.Method = strings.ToUpper(l.value)
		}
	case fProtocol:
		if p.in.take(l) {
			proto, known := canonProtocol(l.value)
			if !known {
				p.w.add(l.num, "Protocol "+quote(l.value)+" is not one of REST, MCP, A2A, GraphQL, WebSocket")
			}
			c.Protocol = proto
		}
	case fAuth:
		if p.in.take(l) {
			a, known := canonAuth(l.value)
			if !known {
				p.w.add(l.num, "Auth "+quote(l.value)+" is not one of none, api-key, bearer-token, oauth2, hmac")
			}
			c.Auth.Type = a
		}
	case fAuthEndpoint:
		if p.in.take(l) {
			c.Auth.TokenEndpoint = l.value
		}
	case fAuthDocs:
		if p.in.take(l) {
			c.Auth.DocsURL = l.value
		}
	case fScopes:
		if p.in.take(l) {
			if sc := splitList(l.value); len(sc) > 0 {
				c.Auth.Scopes = sc
			}
		}
	case fRateLimit:
		if p.in.take(l) {
			c.RateLimit = p.rate(l)
		}
	case fDescription:
		if p.in.take(l) {
			c.Description = l.value
		}
	case fOpenAPI:
		if p.in.take(l) {
			c.OpenAPI = l.value
		}
	case fSessionEndpoint:
		if p.in.take(l) && l.value != "" {
			c.RequiresSession = true
			p.f.Site.Session.Endpoint = l.value
		}
	case fParam:
		if !nonEmpty(p.w, l) {
			return
		}
		prm, problem, note := parseParam(l.value)
		if problem != "" {
			p.w.add(l.num, "Param skipped: "+problem)
			return
		}
		if note != "" {
			p.w.add(l.num, "Param: "+note)
		}
		c.Params = append(c.Params, prm)
	default:
		p.w.add(l.num, "field "+quote(l.key)+" unknown in a Capability block; ignored")
	}
}

func (p *carParser) agentField(l *line) {
	a := &p.f.Site.Agents[p.idx]
	switch l.fld {
	case fRateLimit:
		if p.in.take(l) {
			a.RateLimit = p.rate(l)
		}
	case fCapabilities:
		// An empty list is meaningful: no capability is permitted (2.7).
		if p.in.once(l) {
			a.Capabilities = splitList(l.value)
		}
	case fAgentDeclaration:
		if p.in.take(l) {
			a.AgentDeclaration = l.value
		}
	case fProvenRateLimit:
		// agentready's extension (fields.go): the proven form's grant.
		if p.in.take(l) {
			proven(a).RateLimit = p.rate(l)
		}
	case fProvenCapabilities:
		if p.in.once(l) {
			proven(a).Capabilities = splitList(l.value)
		}
	default:
		p.w.add(l.num, "field "+quote(l.key)+" unknown in an Agent block; ignored")
	}
}

// proven is a's proven grant, made on its first Proven- field.
func proven(a *config.AgentPolicy) *config.Grant {
	if a.Proven == nil {
		a.Proven = &config.Grant{}
	}
	return a.Proven
}

func (p *carParser) rate(l *line) config.Rate { return parseRate(p.w, l) }
