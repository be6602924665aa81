package config

import (
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/format/pathpattern"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/webbotauth"
)

// capIndex maps each capability ID to the index of its first declaration.
func (r *report) capIndex() map[string]int {
	if r.ids == nil {
		r.ids = make(map[string]int, len(r.site.Capabilities))
		for i, c := range r.site.Capabilities {
			if _, ok := r.ids[c.ID]; !ok {
				r.ids[c.ID] = i
			}
		}
	}
	return r.ids
}

// capabilityRef reports a reference to an undeclared capability ID.
func (r *report) capabilityRef(field, id string) {
	if _, ok := r.capIndex()[id]; !ok || id == "" {
		r.addf(field, "", "%q is not the ID of a declared capability", id)
	}
}

// agents checks the per-agent policies (draft-car 2.7).
func (r *report) agents() {
	seen := map[string]int{}
	def := -1
	for i, a := range r.site.Agents {
		p := at("Agents", i)
		r.verification(p+".Verify", &a)
		switch {
		case a.Name == "":
			// the required tag reports it
		case a.Name == "*":
			if def >= 0 {
				r.addf(p+".Name", fmtDraftCar, `is a second default policy "*"; %s is already the default (draft-car 2.7)`, ref(at("Agents", def)))
			} else {
				def = i
			}
		case strings.Contains(a.Name, "*"):
			r.addf(p+".Name", fmtDraftCar, `%q is not a pattern: names are matched exactly against User-Agent product tokens, and "*" alone is the default policy (draft-car 2.7)`, a.Name)
		case !isToken(a.Name):
			r.addf(p+".Name", fmtDraftCar, "%q is not a User-Agent product token (RFC 9110 5.6.2: no spaces, '/', ';', '(', ')', ',' ...), so no User-Agent can match it (draft-car 4.2)", a.Name)
		default:
			key := strings.ToLower(a.Name)
			if j, ok := seen[key]; ok {
				r.addf(p+".Name", fmtDraftCar, "%q duplicates %s (%q): agent names are matched case-insensitively (draft-car 4.2)", a.Name, ref(at("Agents", j)), r.site.Agents[j].Name)
			} else {
				seen[key] = i
			}
		}
		if err := a.RateLimit.Validate(); err != nil {
			r.add(p+".RateLimit", "", err.Error()+rateRule)
		}
		for k, id := range a.Capabilities {
			r.capabilityRef(at(p+".Capabilities", k), id)
		}
		r.webURL(p+".AgentDeclaration", a.AgentDeclaration, webSchemes)
	}
}

// requiresCycles rejects cycles among Capability.Requires: AWP 11 says
// prerequisites run first, which no order can do around a cycle.
func (r *report) requiresCycles() {
	caps := r.site.Capabilities
	g := depGraph{names: make([]string, len(caps)), edges: make([][]depEdge, len(caps))}
	idx := r.capIndex()
	for i, c := range caps {
		g.names[i] = c.ID
		if idx[c.ID] != i {
			continue // a duplicate ID, reported elsewhere
		}
		for k, req := range c.Requires {
			if j, ok := idx[req]; ok {
				g.edges[i] = append(g.edges[i], depEdge{to: j, field: at(at("Capabilities", i)+".Requires", k)})
			}
		}
	}
	for _, cy := range g.cycles() {
		r.addf(cy.field, "", "dependency cycle %s: no order runs every prerequisite first (AWP 11)", strings.Join(cy.path, " -> "))
	}
}

// depGraph is a dependency graph whose edges remember the field that
// declares them.
type depGraph struct {
	names []string
	edges [][]depEdge
}

type depEdge struct {
	to    int
	field string
}

type depCycle struct {
	field string   // the field declaring the edge that closes the cycle
	path  []string // node names, first repeated at the end
}

// cycles finds cycles by depth-first search in node order, one per back
// edge, so the report is deterministic.
func (g *depGraph) cycles() []depCycle {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.names))
	var stack []int
	var out []depCycle
	var visit func(n int)
	visit = func(n int) {
		color[n] = grey
		stack = append(stack, n)
		for _, e := range g.edges[n] {
			switch color[e.to] {
			case white:
				visit(e.to)
			case grey:
				start := len(stack) - 1
				for stack[start] != e.to {
					start--
				}
				var path []string
				for _, m := range stack[start:] {
					path = append(path, g.names[m])
				}
				out = append(out, depCycle{field: e.field, path: append(path, g.names[e.to])})
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for n := range g.names {
		if color[n] == white {
			visit(n)
		}
	}
	return out
}

// depths returns, for each node, the number of edges of the longest chain
// starting there (-1 when a cycle is reachable) and the edge that starts it.
func (g *depGraph) depths() ([]int, []int) {
	depth := make([]int, len(g.names))
	next := make([]int, len(g.names)) // index into edges[n] of the deepest edge
	state := make([]uint8, len(g.names))
	var walk func(n int) int
	walk = func(n int) int {
		switch state[n] {
		case 1:
			return -1
		case 2:
			return depth[n]
		}
		state[n] = 1
		best, via := 0, -1
		for k, e := range g.edges[n] {
			d := walk(e.to)
			if d < 0 {
				best = -1
				break
			}
			if d+1 > best {
				best, via = d+1, k
			}
		}
		state[n] = 2
		depth[n], next[n] = best, via
		return best
	}
	for n := range g.names {
		walk(n)
	}
	return depth, next
}

// grant checks an agent policy's Proven grant: its limit and the
// capabilities it names.
func (r *report) grant(p string, g *Grant) {
	if err := g.RateLimit.Validate(); err != nil {
		r.add(p+".RateLimit", "", err.Error()+rateRule)
	}
	for j, id := range g.Capabilities {
		r.capabilityRef(at(p+".Capabilities", j), id)
	}
}

// verification checks an agent policy's Verify and Proven. Whether a verified-only
// policy has a source for a method it accepts is checked by agentready.New,
// which knows the known-agent data.
func (r *report) verification(p string, a *AgentPolicy) {
	v := &a.Verify
	switch {
	case a.Name == "*" && v.Required:
		r.add(p+".Required", "", `the default policy "*" is what an unverified claim falls back to; it cannot itself require verification`)
	case a.Name == "*" && (len(v.Methods)+len(v.IPRanges)+len(v.ReverseDNS) > 0 || v.Card != "" || v.FallBack):
		r.add(p, "", `on the default policy "*", only `+alt("SignatureAgents", "signature_agents")+` (key directories whose signed agents count as proven) has a meaning: "*" names no agent to check addresses or host names against`)
	case a.Name == "*" && len(v.SignatureAgents) > 0 && a.Proven == nil:
		r.add(p+".SignatureAgents", "", `trusts key directories for agents the site does not declare, and "*" gives proven agents nothing of their own: set `+alt("Proven", "proven")+` beside it`)
	case !v.Required && a.Proven == nil && (len(v.Methods)+len(v.SignatureAgents)+len(v.IPRanges)+len(v.ReverseDNS) > 0 || v.Card != "" || v.FallBack):
		r.add(p+".Required", "", "is false and the policy sets no "+alt("Proven", "proven")+", so the methods, sources and "+alt("FallBack", "fall_back")+" set beside it have no effect: set "+alt("Required", "required: true")+" to make the policy verified-only, or "+alt("Proven", "proven")+" to grade it")
	case !v.Required && v.FallBack:
		r.add(p+".FallBack", "", "serves a refused claim as \"*\", and without "+alt("Required", "required: true")+" an unproven claim is not refused: it gets the policy's own grants")
	}
	if a.Proven != nil {
		r.grant(p[:len(p)-len(".Verify")]+".Proven", a.Proven)
	}
	for i, m := range v.Methods {
		switch m {
		case VerifySignature, VerifyIPRange, VerifyReverseDNS:
		default:
			r.addf(at(p+".Methods", i), "", "%q is not one of signature, ip-range, reverse-dns", m)
		}
	}
	for i, o := range v.SignatureAgents {
		// draft-ietf-webbotauth-httpsig-protocol-01 5.2.1: the URL of the
		// agent's JWK Set, or (as deployed agents still send) the origin
		// whose key directory is at the well-known URI.
		_, err := webbotauth.AgentURL(o)
		if u, _ := url.Parse(o); err != nil || u == nil {
			r.addf(at(p+".SignatureAgents", i), "", "%q is not a Signature-Agent URL (the https URL of a JWK Set, or the origin of a key directory): %v", o, err)
		} else if !fetchable(u) {
			r.addf(at(p+".SignatureAgents", i), "", "%q: a key directory is fetched over https (plain http only from a loopback host, with verify.Options.AllowHTTPLoopback)", o)
		}
	}
	if v.Card != "" {
		if u, err := url.Parse(v.Card); err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
			r.addf(p+".Card", "", "%q is not the https URL of a Signature Agent Card (its client_id, draft-meunier-webbotauth-registry-04 3.1.1)", v.Card)
		} else if !fetchable(u) {
			r.addf(p+".Card", "", "%q: a card is fetched over https (plain http only from a loopback host, with verify.Options.AllowHTTPLoopback)", v.Card)
		}
	}
	for i, s := range v.IPRanges {
		if u, err := url.Parse(s); err != nil || u.Host == "" || u.User != nil || (u.Scheme != "https" && u.Scheme != "http") {
			r.addf(at(p+".IPRanges", i), "", "%q is not an http(s) URL of an IP range list", s)
		} else if !fetchable(u) {
			r.addf(at(p+".IPRanges", i), "", "%q: an IP range list is fetched over https (plain http only from a loopback host, with verify.Options.AllowHTTPLoopback)", s)
		}
	}
	for i, d := range v.ReverseDNS {
		if _, ok := httpsyntax.DomainName(d); !ok {
			r.addf(at(p+".ReverseDNS", i), "", "%q is not a domain name with at least two labels (a PTR name must end in it)", d)
		}
	}
}

// fetchable reports whether package verify fetches a verification source
// from u, an http(s) URL: over https, or plain http from a loopback host
// (which verify also needs AllowHTTPLoopback for, an option this file does
// not hold).
func fetchable(u *url.URL) bool {
	return u.Scheme == "https" || httpsyntax.IsLoopbackHost(u.Hostname())
}

// access checks every Allow and Disallow pattern.
func (r *report) access() {
	for _, list := range []struct {
		name     string
		patterns []string
	}{{"Access.Allow", r.site.Access.Allow}, {"Access.Disallow", r.site.Access.Disallow}} {
		for i, p := range list.patterns {
			if err := pathpattern.Check(p); err != nil {
				r.add(at(list.name, i), "", err.Error()+" (draft-car 2.6: robots.txt path syntax)")
			}
		}
	}
}
