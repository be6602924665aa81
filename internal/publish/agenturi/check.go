package agenturi

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// fmtName is the format's name in FieldError.Format.
const fmtName = "agent://"

// rules are agent://'s rules.
type rules struct{ *discovery.Check }

// served reports whether f publishes agent:// descriptors or the registry.
func served(f config.Formats) bool {
	return f.Serves(config.DocDescriptors) || (f.Serves(config.DocAgentsJSON) && f.AgentsJSON == config.AgentsJSONRegistry)
}

func (format) TagRules() map[string]fieldcheck.TagRule { return tagRules }

// tagRules explains the validate tags of what only agent:// renders.
var tagRules = map[string]fieldcheck.TagRule{
	"Capabilities.Depends.URI":            {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4: each depends entry has a uri"},
	"HostedAgents.Name":                   {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.1: a descriptor has a name"},
	"HostedAgents.Version":                {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.1: a descriptor has a SemVer version"},
	"HostedAgents.Skills":                 {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.1: one or more skills"},
	"HostedAgents.Status":                 {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.3 status"},
	"HostedAgents.ConformanceLevel":       {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.2: conformance levels 0-3"},
	"HostedAgents.Skills.ID":              {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4: every skill has an id"},
	"HostedAgents.Skills.Name":            {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4: every skill has a name"},
	"HostedAgents.Skills.Description":     {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4: every skill has a description"},
	"HostedAgents.Skills.Status":          {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4 skill status"},
	"HostedAgents.Skills.StreamingFormat": {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4 streamingFormat"},
	"HostedAgents.Skills.Depends.URI":     {Owner: fmtName, Format: fmtName, Ref: "agent:// 7.1.4: each depends entry has a uri"},
}

// Check runs agent://'s rules: the derived descriptor's version always,
// the rest when descriptors or the registry are served.
func (format) Check(c *discovery.Check) {
	r := rules{c}
	s := c.Site
	on := served(c.Formats)
	c.ReportTags(tagRules, on)
	if s.Version != "" && !fieldcheck.SemVer.MatchString(s.Version) {
		r.Addf("Version", fmtName, "%q is not a SemVer 2.0.0 version (agent:// 7.1.1: the derived descriptor's version)", s.Version)
	}
	if !on {
		return
	}
	for i := range s.Capabilities {
		cp := &s.Capabilities[i]
		p := fieldcheck.At("Capabilities", i)
		if len(s.HostedAgents) == 0 && cp.Description == "" {
			c.Require(p+".Description", "is required by %s", fmtName, "agent:// descriptors (7.1.4: every skill has a description; the capabilities are the skills of the site's derived agent)")
		}
		for k, d := range cp.Depends {
			r.agentURIField(fieldcheck.At(p+".Depends", k)+".URI", d.URI)
		}
		if len(s.HostedAgents) == 0 && cp.StreamingFormat != "" && !slices.Contains([]string{"sse", "ndjson", "grpc-stream"}, cp.StreamingFormat) {
			r.Addf(p+".StreamingFormat", fmtName, "%q is not one of sse, ndjson, grpc-stream (agent:// 7.1.4 streamingFormat of the derived agent's skill)", cp.StreamingFormat)
		}
	}
	r.agentURI()
}

// agentNamePattern is the registry's propertyNames pattern for agent names.
var agentNamePattern = regexp.MustCompile(`^[A-Za-z0-9_\-./]+$`)

// maxDependsDepth is the traversal bound agent:// 7.1.4 recommends for
// tooling that resolves depends chains.
const maxDependsDepth = 16

// agentURI checks the agent:// registry and descriptors, when served: the
// hosted agents, or, when there are none, the agent derived from the site.
func (r rules) agentURI() {
	s := r.Site
	if len(s.HostedAgents) > 0 {
		r.hostedAgents()
	} else if len(s.Capabilities) > 0 {
		// defaultAgent maps the host onto the registry alphabet; this
		// keeps the registry valid should that mapping ever change.
		if name := s.PublishedAgents()[0].Name; name != "" && !agentNamePattern.MatchString(name) {
			r.Addf("URL", fmtName, "names the derived agent:// agent %q after the site's host, which is not a registry name (^[A-Za-z0-9_\\-./]+$)", name)
		}
	}
	r.dependsGraph()
}

func (r rules) hostedAgents() {
	seen := map[string]int{}
	for i := range r.Site.HostedAgents {
		h := &r.Site.HostedAgents[i]
		p := fieldcheck.At("HostedAgents", i)
		if h.Name != "" {
			r.agentName(p+".Name", h.Name)
			if j, ok := seen[h.Name]; ok {
				r.Addf(p+".Name", fmtName, "%q is already the name of %s (agent:// registry names are keys)", h.Name, fieldcheck.Ref(fieldcheck.At("HostedAgents", j)))
			} else {
				seen[h.Name] = i
			}
		}
		if h.Version != "" && !fieldcheck.SemVer.MatchString(h.Version) {
			r.Addf(p+".Version", fmtName, "%q is not a SemVer 2.0.0 version (agent:// 7.1.1)", h.Version)
		}
		r.agentURIField(p+".URL", h.URL)
		r.transport(p+".Transport", &h.Transport)
		r.agentAuth(p+".Authentication", h.Authentication)
		if h.Provider != nil {
			r.WebURL(p+".Provider.URL", h.Provider.URL, fieldcheck.WebSchemes)
		}
		r.WebURL(p+".DocumentationURL", h.DocumentationURL, fieldcheck.WebSchemes)
		if r.WebURL(p+".Successor", h.Successor, fieldcheck.WebSchemes) != nil {
			// Sent in a Link header as <Successor> (RFC 8288 3.1): a URI
			// (RFC 3986) has no '<', '>', '"', space or control byte, which
			// would end the target and add links of the sender's choosing.
			if i := strings.IndexFunc(h.Successor, notURIChar); i >= 0 {
				r.Addf(p+".Successor", fmtName, "%q holds %q at byte %d, which a URI does not: agent:// 7.1.3 sends it in a Link header (percent-encode it)", h.Successor, h.Successor[i], i)
			}
		}
		for k, c := range h.Context {
			r.WebURL(fieldcheck.At(p+".Context", k), c, fieldcheck.WebSchemes)
		}
		skills := map[string]int{}
		for k := range h.Skills {
			sk := &h.Skills[k]
			q := fieldcheck.At(p+".Skills", k)
			if sk.ID != "" {
				if j, ok := skills[sk.ID]; ok {
					r.Addf(q+".ID", fmtName, "%q is already the ID of %s (agent:// 7.1.4 skill ids)", sk.ID, fieldcheck.Ref(fieldcheck.At(p+".Skills", j)))
				} else {
					skills[sk.ID] = k
				}
			}
			if sk.Version != "" && !fieldcheck.SemVer.MatchString(sk.Version) {
				r.Addf(q+".Version", fmtName, "%q is not a SemVer 2.0.0 version (agent:// 7.1.4)", sk.Version)
			}
			r.agentAuth(q+".Authentication", sk.Authentication)
			for d, dep := range sk.Depends {
				r.agentURIField(fieldcheck.At(q+".Depends", d)+".URI", dep.URI)
			}
		}
	}
}

// agentName checks a hosted agent's name: the registry pattern, and path
// segments that keep its descriptor under /agents/{name}/.
func (r rules) agentName(field, name string) {
	if !agentNamePattern.MatchString(name) {
		r.Addf(field, fmtName, "%q is not a registry name (agent:// registry: ^[A-Za-z0-9_\\-./]+$)", name)
		return
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			r.Addf(field, fmtName, "%q has an empty, \".\" or \"..\" path segment, which would move its agent:// descriptor out of /agents/{name}/", name)
			return
		}
	}
}

// transport checks agent:// transport metadata (7.1.2): each value is a
// URI appropriate to its transport; mqtt, local and unix are free-form.
func (r rules) transport(p string, t *config.Transport) {
	if t.Endpoint != "" {
		r.transportURL(p+".Endpoint", t.Endpoint)
	}
	r.WebURL(p+".HTTPS", t.HTTPS, fieldcheck.WebSchemes)
	r.WebURL(p+".WSS", t.WSS, fieldcheck.WSSSchemes)
	r.WebURL(p+".GRPC", t.GRPC, fieldcheck.GRPCSchemes)
}

// agentAuth checks agent:// authentication metadata (10.1).
func (r rules) agentAuth(p string, a *config.AgentAuthentication) {
	if a == nil {
		return
	}
	for k, sc := range a.Schemes {
		f := fieldcheck.At(p+".Schemes", k)
		switch {
		case fieldcheck.CredentialKind(sc, true) != "":
			r.CredentialField(f, sc)
		case !fieldcheck.IsToken(sc):
			r.Addf(f, fmtName, "%q is not an HTTP authentication scheme name (agent:// 10.1: IANA scheme names such as Bearer)", sc)
		}
	}
	r.WebURL(p+".AuthorizationServer", a.AuthorizationServer, fieldcheck.WebSchemes)
	r.WebURL(p+".ProtectedResourceMetadata", a.ProtectedResourceMetadata, fieldcheck.WebSchemes)
	r.WebURL(p+".JWKSURI", a.JWKSURI, fieldcheck.WebSchemes)
}

// dependsGraph resolves skill depends that point at this site's own
// agents, rejects cycles among them (7.1.4: tooling MUST detect and reject
// cycles) and chains deeper than the recommended traversal bound.
func (r rules) dependsGraph() {
	s := r.Site
	agents := s.PublishedAgents()
	derived := len(s.HostedAgents) == 0
	host := strings.ToLower(endpoint.Host(s.URL))
	if host == "" || len(agents) == 0 {
		return
	}

	var g fieldcheck.Graph
	first := make([]int, len(agents)) // node index of each agent's first skill
	bases := make([][]string, len(agents))
	for ai, a := range agents {
		first[ai] = len(g.Names)
		for _, sk := range a.Skills {
			g.Names = append(g.Names, a.Name+"/"+sk.ID)
		}
		if u, err := parseAgentURI(a.URL); err == nil {
			bases[ai] = append(bases[ai], u.key())
		}
		bases[ai] = append(bases[ai], "agent://"+host+"/"+strings.Trim(a.Name, "/"))
	}
	g.Edges = make([][]fieldcheck.Edge, len(g.Names))
	registry := r.Formats.Serves(config.DocAgentsJSON) && r.Formats.AgentsJSON == config.AgentsJSONRegistry

	for ai, a := range agents {
		for si, sk := range a.Skills {
			prefix := fieldcheck.At(fieldcheck.At("HostedAgents", ai)+".Skills", si) + ".Depends"
			if derived {
				prefix = fieldcheck.At("Capabilities", si) + ".Depends"
			}
			n := first[ai] + si
			for d, dep := range sk.Depends {
				u, err := parseAgentURI(dep.URI)
				if err != nil {
					continue // reported with the field
				}
				field := fieldcheck.At(prefix, d) + ".URI"
				targets := resolveLocal(agents, bases, first, u.key())
				for _, t := range targets {
					g.Edges[n] = append(g.Edges[n], fieldcheck.Edge{To: t, Field: field})
				}
				if len(targets) == 0 && registry && u.authority == host {
					r.Addf(field, fmtName, "%q is on this site's authority, but no agent or skill published here has that URI, so it does not resolve through this site's registry (agent:// 5)", dep.URI)
				}
			}
		}
	}

	for _, cy := range g.Cycles() {
		r.Addf(cy.Field, fmtName, "depends cycle %s: agent:// tooling MUST detect and reject cycles (7.1.4)", strings.Join(cy.Path, " -> "))
	}
	depth, next := g.Depths()
	reached := make([]bool, len(g.Names))
	for n, es := range g.Edges {
		if depth[n] >= 0 {
			for _, e := range es {
				reached[e.To] = true
			}
		}
	}
	for n := range g.Names {
		if depth[n] <= maxDependsDepth || reached[n] {
			continue
		}
		last := n
		for next[last] >= 0 {
			last = g.Edges[last][next[last]].To
		}
		r.Addf(g.Edges[n][next[n]].Field, fmtName, "starts a depends chain of %d hops (%s -> ... -> %s); agent:// tooling bounds traversal at %d (7.1.4)",
			depth[n], g.Names[n], g.Names[last], maxDependsDepth)
	}
}

// key is the URI without query, fragment, transport binding or trailing
// slash, for comparing references with published agents.
func (u agentURI) key() string {
	return strings.TrimSuffix("agent://"+u.authority+"/"+u.path, "/")
}

// resolveLocal returns the graph nodes a depends key refers to: every skill
// of an agent it names, or the one skill it names.
func resolveLocal(agents []config.HostedAgent, bases [][]string, first []int, key string) []int {
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
	return c >= 0x80 || !httpsyntax.URIChar(byte(c))
}

// agentScheme matches the schemes of agent:// URIs (agent:// 4.2:
// "agent" ["+" protocol], protocol = ALPHA *( ALPHA / DIGIT / "-" )).
var agentScheme = regexp.MustCompile(`^agent(\+[A-Za-z][A-Za-z0-9-]*)?$`)

// agentURI is a parsed agent:// URI. url.Parse cannot be used: it rejects
// the percent-encoded colons of DID authorities (agent:// 4.3).
type agentURI struct {
	scheme, authority, path string
}

// parseAgentURI splits an agent:// URI (agent:// 4.2) into its parts.
func parseAgentURI(s string) (agentURI, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return agentURI{}, errors.New(`is not an agent:// URI: it lacks "://"`)
	}
	if !agentScheme.MatchString(scheme) {
		return agentURI{}, errors.New(`has the scheme "` + scheme + `"; agent:// URIs use agent or agent+<protocol> (agent:// 4.2)`)
	}
	for i := 0; i < len(s); i++ {
		if !httpsyntax.URIChar(s[i]) {
			return agentURI{}, errors.New("contains " + strconv.QuoteRune(rune(s[i])) + ", which is not allowed in an agent:// URI (RFC 3986)")
		}
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	auth, path, _ := strings.Cut(rest, "/")
	if auth == "" {
		return agentURI{}, errors.New("has an empty authority (agent:// 4.2: the authority MUST NOT be empty)")
	}
	if strings.Contains(auth, "@") {
		return agentURI{}, errors.New("is an agent:// URI with user information; " + fieldcheck.CredentialRule)
	}
	return agentURI{scheme: strings.ToLower(scheme), authority: strings.ToLower(auth), path: path}, nil
}

// agentURIField checks a field that holds an agent:// URI.
func (r rules) agentURIField(field, value string) (agentURI, bool) {
	if value == "" {
		return agentURI{}, false
	}
	u, err := parseAgentURI(value)
	if err != nil {
		r.Add(field, fmtName, err.Error())
		return agentURI{}, false
	}
	rest, fragment, _ := strings.Cut(value, "#")
	_, query, _ := strings.Cut(rest, "?")
	for _, k := range fieldcheck.CredentialMembers(query, false) {
		r.Addf(field, "", "has the query parameter %q, which carries a credential; %s", k, fieldcheck.CredentialRule)
	}
	for _, k := range fieldcheck.CredentialMembers(fragment, true) {
		r.Addf(field, "", "has the fragment member %q, which carries a credential; %s", k, fieldcheck.CredentialRule)
	}
	if kind := fieldcheck.URLCredentialKind(value); kind != "" {
		r.Addf(field, "", "has %s; %s", kind, fieldcheck.CredentialRule)
	}
	return u, true
}

// transportURL checks the default transport endpoint of an agent://
// descriptor: any transport URL, or an agent+<protocol>:// URI.
func (r rules) transportURL(field, value string) {
	if strings.HasPrefix(strings.ToLower(value), "agent") {
		if scheme, _, ok := strings.Cut(value, "://"); ok && agentScheme.MatchString(scheme) {
			r.agentURIField(field, value)
			return
		}
	}
	r.WebURL(field, value, fieldcheck.TransportSchemes)
}

// Schema is agent://'s part of the file's schema: SemVer versions.
func (format) Schema() discovery.Schema {
	semVer := func() map[string]any { return map[string]any{"pattern": fieldcheck.SemVerPattern} }
	return discovery.Schema{Fields: map[string]map[string]any{
		"File.Version":        semVer(),
		"HostedAgent.Version": semVer(),
		"Skill.Version":       semVer(),
	}}
}
