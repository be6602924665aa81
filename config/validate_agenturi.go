package config

import (
	"regexp"
	"strings"

	"github.com/agentready/agentready/internal/endpoint"
)

// agentNamePattern is the registry's propertyNames pattern for agent names.
var agentNamePattern = regexp.MustCompile(`^[A-Za-z0-9_\-./]+$`)

// maxDependsDepth is the traversal bound agent:// 7.1.4 recommends for
// tooling that resolves depends chains.
const maxDependsDepth = 16

// agentURI checks the agent:// registry and descriptors: the hosted agents,
// or, when there are none, the agent derived from the site.
func (r *report) agentURI() {
	if !r.on.uri {
		return
	}
	s := r.site
	if len(s.HostedAgents) > 0 {
		r.hostedAgents()
	} else if len(s.Capabilities) > 0 {
		// defaultAgent maps the host onto the registry alphabet; this
		// keeps the registry valid should that mapping ever change.
		if name := s.defaultAgent().Name; name != "" && !agentNamePattern.MatchString(name) {
			r.addf("URL", fmtAgentURI, "names the derived agent:// agent %q after the site's host, which is not a registry name (^[A-Za-z0-9_\\-./]+$)", name)
		}
	}
	r.dependsGraph()
}

func (r *report) hostedAgents() {
	seen := map[string]int{}
	for i := range r.site.HostedAgents {
		h := &r.site.HostedAgents[i]
		p := at("HostedAgents", i)
		if h.Name != "" {
			r.agentName(p+".Name", h.Name)
			if j, ok := seen[h.Name]; ok {
				r.addf(p+".Name", fmtAgentURI, "%q is already the name of %s (agent:// registry names are keys)", h.Name, ref(at("HostedAgents", j)))
			} else {
				seen[h.Name] = i
			}
		}
		if h.Version != "" && !semVer.MatchString(h.Version) {
			r.addf(p+".Version", fmtAgentURI, "%q is not a SemVer 2.0.0 version (agent:// 7.1.1)", h.Version)
		}
		r.agentURIField(p+".URL", h.URL)
		r.transport(p+".Transport", &h.Transport)
		r.agentAuth(p+".Authentication", h.Authentication)
		if h.Provider != nil {
			r.webURL(p+".Provider.URL", h.Provider.URL, webSchemes)
		}
		r.webURL(p+".DocumentationURL", h.DocumentationURL, webSchemes)
		if r.webURL(p+".Successor", h.Successor, webSchemes) != nil {
			// Sent in a Link header as <Successor> (RFC 8288 3.1): a URI
			// (RFC 3986) has no '<', '>', '"', space or control byte, which
			// would end the target and add links of the sender's choosing.
			if i := strings.IndexFunc(h.Successor, notURIChar); i >= 0 {
				r.addf(p+".Successor", fmtAgentURI, "%q holds %q at byte %d, which a URI does not: agent:// 7.1.3 sends it in a Link header (percent-encode it)", h.Successor, h.Successor[i], i)
			}
		}
		for k, c := range h.Context {
			r.webURL(at(p+".Context", k), c, webSchemes)
		}
		skills := map[string]int{}
		for k := range h.Skills {
			sk := &h.Skills[k]
			q := at(p+".Skills", k)
			if sk.ID != "" {
				if j, ok := skills[sk.ID]; ok {
					r.addf(q+".ID", fmtAgentURI, "%q is already the ID of %s (agent:// 7.1.4 skill ids)", sk.ID, ref(at(p+".Skills", j)))
				} else {
					skills[sk.ID] = k
				}
			}
			if sk.Version != "" && !semVer.MatchString(sk.Version) {
				r.addf(q+".Version", fmtAgentURI, "%q is not a SemVer 2.0.0 version (agent:// 7.1.4)", sk.Version)
			}
			r.agentAuth(q+".Authentication", sk.Authentication)
			for d, dep := range sk.Depends {
				r.agentURIField(at(q+".Depends", d)+".URI", dep.URI)
			}
		}
	}
}

// agentName checks a hosted agent's name: the registry pattern, and path
// segments that keep its descriptor under /agents/{name}/.
func (r *report) agentName(field, name string) {
	if !agentNamePattern.MatchString(name) {
		r.addf(field, fmtAgentURI, "%q is not a registry name (agent:// registry: ^[A-Za-z0-9_\\-./]+$)", name)
		return
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			r.addf(field, fmtAgentURI, "%q has an empty, \".\" or \"..\" path segment, which would move its agent:// descriptor out of /agents/{name}/", name)
			return
		}
	}
}

// transport checks agent:// transport metadata (7.1.2): each value is a
// URI appropriate to its transport; mqtt, local and unix are free-form.
func (r *report) transport(p string, t *Transport) {
	if t.Endpoint != "" {
		r.transportURL(p+".Endpoint", t.Endpoint)
	}
	r.webURL(p+".HTTPS", t.HTTPS, webSchemes)
	r.webURL(p+".WSS", t.WSS, wssSchemes)
	r.webURL(p+".GRPC", t.GRPC, grpcSchemes)
}

// agentAuth checks agent:// authentication metadata (10.1).
func (r *report) agentAuth(p string, a *AgentAuthentication) {
	if a == nil {
		return
	}
	for k, sc := range a.Schemes {
		f := at(p+".Schemes", k)
		switch {
		case credentialKind(sc, true) != "":
			r.credentialField(f, sc)
		case !isToken(sc):
			r.addf(f, fmtAgentURI, "%q is not an HTTP authentication scheme name (agent:// 10.1: IANA scheme names such as Bearer)", sc)
		}
	}
	r.webURL(p+".AuthorizationServer", a.AuthorizationServer, webSchemes)
	r.webURL(p+".ProtectedResourceMetadata", a.ProtectedResourceMetadata, webSchemes)
	r.webURL(p+".JWKSURI", a.JWKSURI, webSchemes)
}

// dependsGraph resolves skill depends that point at this site's own
// agents, rejects cycles among them (7.1.4: tooling MUST detect and reject
// cycles) and chains deeper than the recommended traversal bound.
func (r *report) dependsGraph() {
	s := r.site
	agents := s.PublishedAgents()
	derived := len(s.HostedAgents) == 0
	host := strings.ToLower(endpoint.Host(s.URL))
	if host == "" || len(agents) == 0 {
		return
	}

	var g depGraph
	first := make([]int, len(agents)) // node index of each agent's first skill
	bases := make([][]string, len(agents))
	for ai, a := range agents {
		first[ai] = len(g.names)
		for _, sk := range a.Skills {
			g.names = append(g.names, a.Name+"/"+sk.ID)
		}
		if u, err := parseAgentURI(a.URL); err == nil {
			bases[ai] = append(bases[ai], u.key())
		}
		bases[ai] = append(bases[ai], "agent://"+host+"/"+strings.Trim(a.Name, "/"))
	}
	g.edges = make([][]depEdge, len(g.names))
	registry := r.f.Serves(DocAgentsJSON) && r.f.AgentsJSON == AgentsJSONRegistry

	for ai, a := range agents {
		for si, sk := range a.Skills {
			prefix := at(at("HostedAgents", ai)+".Skills", si) + ".Depends"
			if derived {
				prefix = at("Capabilities", si) + ".Depends"
			}
			n := first[ai] + si
			for d, dep := range sk.Depends {
				u, err := parseAgentURI(dep.URI)
				if err != nil {
					continue // reported with the field
				}
				field := at(prefix, d) + ".URI"
				targets := resolveLocal(agents, bases, first, u.key())
				for _, t := range targets {
					g.edges[n] = append(g.edges[n], depEdge{to: t, field: field})
				}
				if len(targets) == 0 && registry && u.authority == host {
					r.addf(field, fmtAgentURI, "%q is on this site's authority, but no agent or skill published here has that URI, so it does not resolve through this site's registry (agent:// 5)", dep.URI)
				}
			}
		}
	}

	for _, cy := range g.cycles() {
		r.addf(cy.field, fmtAgentURI, "depends cycle %s: agent:// tooling MUST detect and reject cycles (7.1.4)", strings.Join(cy.path, " -> "))
	}
	depth, next := g.depths()
	reached := make([]bool, len(g.names))
	for n, es := range g.edges {
		if depth[n] >= 0 {
			for _, e := range es {
				reached[e.to] = true
			}
		}
	}
	for n := range g.names {
		if depth[n] <= maxDependsDepth || reached[n] {
			continue
		}
		last := n
		for next[last] >= 0 {
			last = g.edges[last][next[last]].to
		}
		r.addf(g.edges[n][next[n]].field, fmtAgentURI, "starts a depends chain of %d hops (%s -> ... -> %s); agent:// tooling bounds traversal at %d (7.1.4)",
			depth[n], g.names[n], g.names[last], maxDependsDepth)
	}
}

// key is the URI without query, fragment, transport binding or trailing
// slash, for comparing references with published agents.
func (u agentURI) key() string {
	return strings.TrimSuffix("agent://"+u.authority+"/"+u.path, "/")
}

// resolveLocal returns the graph nodes a depends key refers to: every skill
// of an agent it names, or the one skill it names.
func resolveLocal(agents []HostedAgent, bases [][]string, first []int, key string) []int {
	var out []int
	seen := map[int]bool{}
	add := func(n int) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for ai, a := range agents {
		for _, b := range bases[ai] {
			if key == b {
				for si := range a.Skills {
					add(first[ai] + si)
				}
				continue
			}
			if rest, ok := strings.CutPrefix(key, b+"/"); ok {
				for si, sk := range a.Skills {
					if sk.ID == rest {
						add(first[ai] + si)
					}
				}
			}
		}
	}
	return out
}

// notURIChar reports a character RFC 3986 never allows in a URI (section
// 2: everything outside the unreserved, reserved and '%' characters that
// can appear in a header): controls, space, non-ASCII and <>"{}|\^`.
func notURIChar(c rune) bool {
	return c <= ' ' || c >= 0x7f || strings.ContainsRune("<>\"{}|\\^`", c)
}
