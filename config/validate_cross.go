// The rules that tie fields of a Site together: references to declared
// capabilities, the Requires graph, agent policies and their proofs,
// the tools of MCP capabilities and the grants of single tools, and the
// access rules. Every cross-field rule of the declaration is in this
// file; the formats' own cross-field rules are in their packages
// (internal/publish/<format>/check.go).

package config

import (
	"cmp"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/format/pathpattern"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/webbotauth"
)

// capIndex maps each capability ID to the index of its first declaration.
func capIndex(s *Site) map[string]int {
	ids := make(map[string]int, len(s.Capabilities))
	for i, c := range s.Capabilities {
		if _, ok := ids[c.ID]; !ok {
			ids[c.ID] = i
		}
	}
	return ids
}

// agents checks what the per-agent policies refer to (draft-car 2.7);
// how a policy names its agent is the dialect's rule.
func (r *report) agents() {
	for i, a := range r.site.Agents {
		p := at("Agents", i)
		r.verification(p+".Verify", &a)
		if err := a.RateLimit.Validate(); err != nil {
			r.Add(p+".RateLimit", "", err.Error()+rateRule)
		}
		for k, id := range a.Capabilities {
			r.grantRef(at(p+".Capabilities", k), id)
		}
		r.WebURL(p+".AgentDeclaration", a.AgentDeclaration, fieldcheck.WebSchemes)
	}
}

// requiresCycles rejects cycles among Capability.Requires: AWP 11 says
// prerequisites run first, which no order can do around a cycle.
func (r *report) requiresCycles() {
	caps := r.site.Capabilities
	g := fieldcheck.Graph{Names: make([]string, len(caps)), Edges: make([][]fieldcheck.Edge, len(caps))}
	idx := r.IDs
	for i, c := range caps {
		g.Names[i] = c.ID
		if idx[c.ID] != i {
			continue // a duplicate ID, reported elsewhere
		}
		for k, req := range c.Requires {
			if j, ok := idx[req]; ok {
				g.Edges[i] = append(g.Edges[i], fieldcheck.Edge{To: j, Field: at(at("Capabilities", i)+".Requires", k)})
			}
		}
	}
	for _, cy := range g.Cycles() {
		r.Addf(cy.Field, "", "dependency cycle %s: no order runs every prerequisite first (AWP 11)", strings.Join(cy.Path, " -> "))
	}
}

// grant checks an agent policy's Proven grant: its limit and the
// capabilities it names.
func (r *report) grant(p string, g *Grant) {
	if err := g.RateLimit.Validate(); err != nil {
		r.Add(p+".RateLimit", "", err.Error()+rateRule)
	}
	for j, id := range g.Capabilities {
		r.grantRef(at(p+".Capabilities", j), id)
	}
}

// verification checks an agent policy's Verify and Proven. Whether a verified-only
// policy has a source for a method it accepts is checked by agentready.New,
// which knows the known-agent data.
func (r *report) verification(p string, a *AgentPolicy) {
	v := &a.Verify
	switch {
	case a.Name == "*" && v.Required:
		r.Add(p+".Required", "", `the default policy "*" is what an unverified claim falls back to; it cannot itself require verification`)
	case a.Name == "*" && (len(v.Methods)+len(v.IPRanges)+len(v.ReverseDNS) > 0 || v.Card != "" || v.FallBack):
		r.Add(p, "", `on the default policy "*", only `+alt("SignatureAgents", "signature_agents")+` (key directories whose signed agents count as proven) has a meaning: "*" names no agent to check addresses or host names against`)
	case a.Name == "*" && len(v.SignatureAgents) > 0 && a.Proven == nil:
		r.Add(p+".SignatureAgents", "", `trusts key directories for agents the site does not declare, and "*" gives proven agents nothing of their own: set `+alt("Proven", "proven")+` beside it`)
	case !v.Required && a.Proven == nil && (len(v.Methods)+len(v.SignatureAgents)+len(v.IPRanges)+len(v.ReverseDNS) > 0 || v.Card != "" || v.FallBack):
		r.Add(p+".Required", "", "is false and the policy sets no "+alt("Proven", "proven")+", so the methods, sources and "+alt("FallBack", "fall_back")+" set beside it have no effect: set "+alt("Required", "required: true")+" to make the policy verified-only, or "+alt("Proven", "proven")+" to grade it")
	case !v.Required && v.FallBack:
		r.Add(p+".FallBack", "", "serves a refused claim as \"*\", and without "+alt("Required", "required: true")+" an unproven claim is not refused: it gets the policy's own grants")
	}
	if a.Proven != nil {
		r.grant(p[:len(p)-len(".Verify")]+".Proven", a.Proven)
	}
	for i, m := range v.Methods {
		switch m {
		case VerifySignature, VerifyIPRange, VerifyReverseDNS:
		default:
			r.Addf(at(p+".Methods", i), "", "%q is not one of signature, ip-range, reverse-dns", m)
		}
	}
	for i, o := range v.SignatureAgents {
		// draft-ietf-webbotauth-httpsig-protocol-01 5.2.1: the URL of the
		// agent's JWK Set, or (as deployed agents still send) the origin
		// whose key directory is at the well-known URI.
		_, err := webbotauth.AgentURL(o)
		if u, _ := url.Parse(o); err != nil || u == nil {
			r.Addf(at(p+".SignatureAgents", i), "", "%q is not a Signature-Agent URL (the https URL of a JWK Set, or the origin of a key directory): %v", o, err)
		} else if !fetchable(u) {
			r.Addf(at(p+".SignatureAgents", i), "", "%q: a key directory is fetched over https (plain http only from a loopback host, with verify.Options.AllowHTTPLoopback)", o)
		}
	}
	if v.Card != "" {
		if u, err := url.Parse(v.Card); err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
			r.Addf(p+".Card", "", "%q is not the https URL of a Signature Agent Card (its client_id, draft-meunier-webbotauth-registry-04 3.1.1)", v.Card)
		} else if !fetchable(u) {
			r.Addf(p+".Card", "", "%q: a card is fetched over https (plain http only from a loopback host, with verify.Options.AllowHTTPLoopback)", v.Card)
		}
	}
	for i, s := range v.IPRanges {
		if u, err := url.Parse(s); err != nil || u.Host == "" || u.User != nil || (u.Scheme != "https" && u.Scheme != "http") {
			r.Addf(at(p+".IPRanges", i), "", "%q is not an http(s) URL of an IP range list", s)
		} else if !fetchable(u) {
			r.Addf(at(p+".IPRanges", i), "", "%q: an IP range list is fetched over https (plain http only from a loopback host, with verify.Options.AllowHTTPLoopback)", s)
		}
	}
	for i, d := range v.ReverseDNS {
		if _, ok := httpsyntax.DomainName(d); !ok {
			r.Addf(at(p+".ReverseDNS", i), "", "%q is not a domain name with at least two labels (a PTR name must end in it)", d)
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
				r.Add(at(list.name, i), "", err.Error()+" (draft-car 2.6: robots.txt path syntax)")
			}
		}
	}
}

// tools checks the tools of each capability: only an MCP capability has
// them, each named as MCP names tools and once, its scopes added to an
// auth that carries scopes, its cost within its limit.
func (r *report) tools() {
	for i := range r.site.Capabilities {
		c := &r.site.Capabilities[i]
		p := at("Capabilities", i)
		if len(c.Tools) > 0 && c.Protocol != ProtocolMCP {
			r.Addf(p+".Tools", "", "lists tools, which only a capability of %s MCP has", alt("Protocol", "protocol:"))
		}
		seen := make(map[string]int, len(c.Tools))
		for k := range c.Tools {
			r.tool(at(p+".Tools", k), c, k, seen)
		}
	}
}

func (r *report) tool(p string, c *Capability, k int, seen map[string]int) {
	t := &c.Tools[k]
	if t.Name != "" && !fieldcheck.ToolName.MatchString(t.Name) {
		r.Addf(p+".Name", "", "%q is not an MCP tool name: 1 to 128 of A-Z a-z 0-9 _ - . (MCP 2025-11-25 Tools, tool names; matched exactly, case and all)", t.Name)
	}
	if j, ok := seen[t.Name]; ok && t.Name != "" {
		r.Addf(p+".Name", "", "%q is already the name of %s", t.Name, ref(at(p[:strings.LastIndexByte(p, '[')], j)))
	} else {
		seen[t.Name] = k
	}
	if err := t.RateLimit.Validate(); err != nil {
		r.Add(p+".RateLimit", "", err.Error()+rateRule)
	}
	switch {
	case t.Cost > 0 && t.RateLimit.IsZero():
		r.Addf(p+".Cost", "", "is %d tokens of a limit the tool does not declare: set %s", t.Cost, alt("RateLimit", "rate_limit"))
	case t.Cost > t.RateLimit.Requests && !t.RateLimit.IsZero():
		r.Addf(p+".Cost", "", "is %d tokens, more than the %d of %s: no call could ever pass", t.Cost, t.RateLimit.Requests, alt("RateLimit", "rate_limit"))
	}
	if len(t.Auth.Scopes) > 0 {
		switch c.Auth.Type {
		case AuthOAuth2, AuthBearerToken:
		default:
			r.Addf(p+".Auth.Scopes", "", "adds scopes to the capability's auth, which is %q: scopes need %s oauth2 or bearer-token on the capability", cmp.Or(c.Auth.Type, AuthNone), alt("Auth.Type", "auth: {type:"))
		}
	}
	r.scopes(p+".Auth.Scopes", t.Auth.Scopes)
}

// grantRef checks one entry of an agent policy's Capabilities: a
// capability ID, or CAPABILITY/TOOL (split at the first "/") naming a
// tool the capability lists, exactly.
func (r *report) grantRef(field, id string) {
	capID, tool, isTool := strings.Cut(id, "/")
	if !isTool {
		r.CapabilityRef(field, id)
		return
	}
	i, ok := r.IDs[capID]
	if !ok {
		r.Addf(field, "", "%q names the tool %q of %q, which is not the ID of a declared capability", id, tool, capID)
		return
	}
	c := &r.site.Capabilities[i]
	for _, t := range c.Tools {
		if t.Name == tool {
			return
		}
	}
	switch {
	case len(c.Tools) == 0:
		r.Addf(field, "", "%q grants a single tool of %q, which lists no tools: grant %q whole, or list its tools", id, capID, capID)
	case !fieldcheck.ToolName.MatchString(tool):
		r.Addf(field, "", "%q names the tool %q, which is not an MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .; matched exactly)", id, tool)
	default:
		r.Addf(field, "", "%q names the tool %q, which %q does not list (tool names are matched exactly, case and all)", id, tool, capID)
	}
}
