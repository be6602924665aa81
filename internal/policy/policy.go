package policy

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/resolve"
)

// Policy is a validated declaration compiled for enforcement: path rules,
// the User-Agent classifier, the capability index and parsed rates. It is
// immutable and safe for concurrent use; the request path reads it without
// locks.
type Policy struct {
	site config.Site

	// Rules are the declared Allow/Disallow rules, or, when the site
	// declares none, the implicit rules of draft-car 2.6: the paths of the
	// capability endpoints, and nothing else.
	Rules *Rules
	// Implicit reports that Rules were derived from capability endpoints.
	Implicit bool
	// Classifier classifies User-Agents; declared names index Agents.
	Classifier *Classifier
	// Agents are the declared agent policies, in declaration order.
	Agents []Agent
	// Default is the index in Agents of the "*" policy, or -1.
	Default int
	// Capabilities are the declared capabilities, in declaration order.
	Capabilities []Capability
	// SiteLimit is the site-wide limit (v0.1.0 Rate-Limit); zero Rate when
	// none is declared.
	SiteLimit Limit
	// Usage is the compiled usage preferences (config.Usage).
	Usage *Usage

	exact     map[string][]int // endpoint path -> capability indices
	templated []int            // capabilities whose endpoint path has {params}
	ids       map[string]int
}

// Agent is one compiled agent policy.
type Agent struct {
	Name  string
	Limit Limit
	// All is true when the policy lists no Capabilities (draft-car 2.7: all
	// declared capabilities are permitted).
	All bool
	// Permitted[i] says whether Capabilities[i] may be used.
	Permitted []bool
	// Rule is the declaration line that scopes capabilities, for messages:
	// "Agent: claude / Capabilities: product-search, store-assistant".
	Rule string
	// Verified: the policy is verified-only (config.Verification.Required);
	// FallBack: an unproven claim is served under "*" instead of refused.
	Verified, FallBack bool
	// Proven is the index in Agents of the policy's proven form
	// (config.AgentPolicy.Proven), -1 for none. Proven forms follow the
	// site's own policies in Agents, each with a limit of its own.
	Proven int
	// tools[ci][ti] says which tools of capability ci the policy may call,
	// nil (or tools[ci] nil) when it is granted whole (ToolPermitted).
	tools [][]bool
}

// agent compiles one agent policy or proven form: its limit, named
// limitName, and the capabilities it permits (all when caps is nil), with
// rule, the declaration line that scopes them. An unknown capability ID is
// an error; the others still compile.
func (p *Policy) agent(name, limitName, rule string, rate config.Rate, caps []string) (Agent, error) {
	ag := Agent{Name: name, Limit: limitOf(limitName, rate), All: caps == nil, Proven: -1, Rule: rule}
	ag.Permitted = make([]bool, len(p.Capabilities))
	var errs []error
	whole := make([]bool, len(p.Capabilities))
	for _, id := range caps {
		if strings.Contains(id, "/") {
			continue // a tool's grant, once the whole grants are known
		}
		j, ok := p.ids[id]
		if !ok {
			errs = append(errs, fmt.Errorf("unknown capability %q", id))
			continue
		}
		ag.Permitted[j], whole[j] = true, true
	}
	for _, id := range caps {
		if strings.Contains(id, "/") {
			if err := p.grantTool(&ag, whole, id); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if ag.All {
		for j := range ag.Permitted {
			ag.Permitted[j] = true
		}
	} else if len(caps) == 0 {
		ag.Rule += " / Capabilities: (none)"
	} else {
		ag.Rule += " / Capabilities: " + strings.Join(caps, ", ")
	}
	return ag, errors.Join(errs...)
}

// Checked reports whether a claim to the policy is checked: it is
// verified-only or grades its claims.
func (a *Agent) Checked() bool { return a.Verified || a.Proven >= 0 }

// Capability is one compiled capability.
type Capability struct {
	ID    string
	Index int
	// Method is the method the endpoint answers ("" for any method: a
	// non-REST capability without a declared method, such as an MCP
	// endpoint, which takes POST and GET).
	Method string
	// Path is the endpoint's path (no query); Segments its parts when it
	// holds {params}.
	Path     string
	segments []string
	Auth     config.Auth
	Limit    Limit
	// Decl is the capability itself.
	Decl *config.Capability
	// Tools are an MCP capability's tools (config.Capability.Tools),
	// tools their index by name, and ToolsRule the declaration line that
	// refuses a tool it does not list.
	Tools     []Tool
	ToolsRule string
	tools     map[string]int
}

// Limit is a declared rate limit, ready for a store: Name is the policy
// name sent in RateLimit headers, Rate requests per Period (also the burst).
type Limit struct {
	Name   string
	Rate   int
	Period time.Duration
	// Decl is the declared form ("60/minute"), for messages.
	Decl string
	// Cost is the tokens a request takes (ratelimit.Limit.Cost).
	Cost int
}

// IsZero reports whether no limit is declared.
func (l Limit) IsZero() bool { return l.Rate == 0 }

func limitOf(name string, r config.Rate) Limit {
	if r.IsZero() {
		return Limit{}
	}
	return Limit{Name: name, Rate: r.Requests, Period: r.Period(), Decl: r.String()}
}

// Compile compiles a validated declaration. Options extend or replace the
// User-Agent lists.
func Compile(s *config.Site, opts ...ClassifierOption) (*Policy, error) {
	p := &Policy{site: *s, Default: -1, exact: map[string][]int{}, ids: map[string]int{}}
	var errs []error
	var endpoints []string // canonical endpoint paths, by capability index

	for i := range p.site.Capabilities {
		c := &p.site.Capabilities[i]
		method := c.Method
		if method == "" && resolve.Protocol(c) == config.ProtocolREST {
			method = "GET"
		}
		path, _, _ := strings.Cut(endpoint.Path(c.Endpoint), "?")
		cc := Capability{
			ID:     c.ID,
			Index:  i,
			Method: strings.ToUpper(method),
			Path:   path,
			Auth:   c.Auth,
			Limit:  limitOf("capability/"+c.ID, c.RateLimit),
			Decl:   c,
		}
		// Route and the implicit rules read the same canonical form of the
		// path, so that a path is admitted exactly when it is routed to a
		// capability (and gets its auth and limits).
		p.compileTools(&cc, c)
		canon, templated := canonicalEndpoint(path)
		endpoints = append(endpoints, canon)
		if templated {
			cc.segments = strings.Split(canon, "/")
			p.templated = append(p.templated, i)
		} else if canon != "" {
			p.exact[canon] = append(p.exact[canon], i)
		}
		p.ids[c.ID] = i
		p.Capabilities = append(p.Capabilities, cc)
	}
	// A gateway's tool calls a capability that may be declared after it.
	for i := range p.Capabilities {
		for k := range p.Capabilities[i].Tools {
			t := &p.Capabilities[i].Tools[k]
			if j, ok := p.ids[p.site.Capabilities[i].Tools[k].Calls]; ok {
				t.Calls = j
			}
		}
	}

	names := make([]string, len(p.site.Agents))
	for i, a := range p.site.Agents {
		names[i] = a.Name
		ag, err := p.agent(a.Name, "agent/"+a.Name, "Agent: "+a.Name, a.RateLimit, a.Capabilities)
		if err != nil {
			errs = append(errs, fmt.Errorf("Agents[%d].Capabilities: %w", i, err))
		}
		ag.Verified, ag.FallBack = a.Verify.Required, a.Verify.FallBack
		if a.Name == "*" && p.Default < 0 {
			p.Default = i
		}
		p.Agents = append(p.Agents, ag)
	}
	// Proven forms follow the site's policies, so that a policy's index is
	// its place in the site's list (the classifier's Class.Policy).
	for i, a := range p.site.Agents {
		if g := a.Proven; g != nil {
			pf, err := p.agent(a.Name, "agent/"+a.Name+"/proven", "Agent: "+a.Name+" (proven)", g.RateLimit, g.Capabilities)
			if err != nil {
				errs = append(errs, fmt.Errorf("Agents[%d].Proven.Capabilities: %w", i, err))
			}
			p.Agents[i].Proven = len(p.Agents)
			p.Agents = append(p.Agents, pf)
		}
	}
	p.Classifier = NewClassifier(names, opts...)
	p.SiteLimit = limitOf("site", p.site.RateLimit)

	allow, disallow := p.site.Access.Allow, p.site.Access.Disallow
	if len(allow) == 0 && len(disallow) == 0 {
		// draft-car 2.6: "When no access control is declared, only paths
		// referenced by capabilities are implicitly permitted." Each
		// endpoint path admits itself, with any query, and a "{param}"
		// exactly one non-empty segment, as Route reads it: "/api/orders/
		// {id}" admits /api/orders/42, never /api/orders/42/invoice, which
		// no capability routes and so would get no capability's auth or
		// limit. Robots.txt patterns cannot say "one segment" ('*'
		// crosses '/'), so these are Endpoint rules, which only Compile
		// makes (see Rule.Endpoint).
		p.Implicit = true
		p.Rules = endpointRules(endpoints)
	} else {
		rules, err := CompileRules(allow, disallow)
		if err != nil {
			errs = append(errs, err)
		}
		p.Rules = rules
	}
	var err error
	if p.Usage, err = compileUsage(&p.site.Usage); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// canonicalEndpoint is an endpoint path as requests are compared with it:
// each segment in the canonical form of Canonical (so "/api/%7eme" is
// "/api/~me", and a literal '*', '$', '{' or '}' is escaped), except a
// segment that is a whole "{param}", kept as it is. templated reports such
// a segment: it stands for one non-empty segment (matchTemplate). A brace
// inside a segment ("/files/{name}.json") is not a param: Route compares
// it literally, so the implicit rules do too.
func canonicalEndpoint(path string) (canon string, templated bool) {
	if path == "" {
		return "", false
	}
	b := make([]byte, 0, len(path)+8)
	for i, seg := range strings.Split(path, "/") {
		if i > 0 {
			b = append(b, '/')
		}
		if isParam(seg) {
			b = append(b, seg...)
			templated = true
			continue
		}
		b = appendEscapes(b, seg, clsPath, 0)
	}
	return string(b), templated
}

// isParam reports whether a path segment is a whole template param.
func isParam(seg string) bool {
	return len(seg) >= 2 && seg[0] == '{' && seg[len(seg)-1] == '}'
}

// Names returns the product tokens c classifies as kind (Declared or
// Known), as listed up to the end of the token the classifier looks up
// ("ChatGPT" for "ChatGPT Agent", "iaskspider" for "iaskspider/2.0", see
// KnownAgents): declared names in declaration order, known names sorted.
// Names the lists held that never classify (WithoutNames, a name that
// shadows another) are not returned. A generated robots.txt names them in
// a group (robotstxt.Options.RulesFor): what the classifier matches is
// what the file addresses.
func (c *Classifier) Names(kind Kind) []string {
	var out []string
	if c == nil {
		return nil
	}
	for _, e := range c.tab.entries {
		if e.class.Kind == kind {
			out = append(out, e.class.Name[:len(e.key)])
		}
	}
	if kind != Declared {
		sort.Slice(out, func(i, j int) bool { return asciiLower(out[i]) < asciiLower(out[j]) })
	}
	return out
}

// Site returns the compiled declaration.
func (p *Policy) Site() *config.Site { return &p.site }

// CapabilityIndex returns the index of the capability with the given ID.
func (p *Policy) CapabilityIndex(id string) (int, bool) {
	i, ok := p.ids[id]
	return i, ok
}

// Route finds the capability a request addresses by its endpoint path and
// method, or -1. path is the request path without the query, as canonical
// as the endpoint paths (see Canonical). HEAD matches a GET endpoint.
func (p *Policy) Route(method, path string) int {
	ci, _ := p.RouteOthers(method, path)
	return ci
}

// RouteOthers is Route, and reports too whether path is the endpoint of a
// capability other than the one routed: one a request of another method
// would address (a method override is decided on only then).
func (p *Policy) RouteOthers(method, path string) (ci int, others bool) {
	ci = -1
	if idx, ok := p.exact[path]; ok {
		for _, i := range idx {
			if ci < 0 && p.Capabilities[i].MethodMatches(method) {
				ci = i
			} else {
				others = true
			}
		}
	}
	for _, i := range p.templated {
		if ci >= 0 && others {
			break
		}
		c := &p.Capabilities[i]
		if !matchTemplate(c.segments, path) {
			continue
		}
		if ci < 0 && c.MethodMatches(method) {
			ci = i
		} else {
			others = true
		}
	}
	return ci, others
}

// Template is the endpoint path's segments in their canonical form, a
// "{name}" segment standing for one non-empty segment; nil when the
// endpoint has no {param}.
func (c *Capability) Template() []string { return c.segments }

// MethodMatches reports whether a request of method m addresses c's
// endpoint: c declares m or no method, or m is HEAD and c declares GET.
func (c *Capability) MethodMatches(m string) bool {
	return c.Method == "" || c.Method == m || (m == "HEAD" && c.Method == "GET")
}

// matchTemplate matches a path against endpoint segments where "{name}"
// stands for one non-empty segment.
func matchTemplate(segs []string, path string) bool {
	for i, s := range segs {
		part, rest, found := strings.Cut(path, "/")
		if found != (i < len(segs)-1) {
			// As many segments as the endpoint: no more, no fewer (a
			// trailing slash is one more, empty segment).
			return false
		}
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			if part == "" {
				return false
			}
		} else if part != s {
			return false
		}
		path = rest
	}
	return true
}
