package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentstxt"
	"github.com/agentready/agentready/internal/publish/robotstxt"
)

// Where the drafts put the documents check looks for first.
const (
	pathAgentsTxt      = "/.well-known/agents.txt"
	pathAgentsTxtRoot  = "/agents.txt"
	pathAgentsJSON     = "/.well-known/agents.json"
	pathAgentsMD       = "/.well-known/agents.md"
	pathAgentsMDRoot   = "/agents.md"
	pathAWP            = "/agent.json"
	pathRobots         = "/robots.txt"
	descriptorTemplate = "/agents/{name}/agent.json" // agentready's default (docs/design.md, collision 3)
)

// maxLinked bounds the documents one registry or catalog sends check to:
// a site's own list is short, and check must not be made to fetch
// thousands of URLs.
const maxLinked = 50

// agentsTxt checks agents.txt and returns the agents.json URL it names
// (draft-car 3.2 Agents-JSON, v0.1.0's agents.json line), if any.
func (c *checker) agentsTxt() (agentsJSONURL string) {
	spec := "agents.txt"
	// draft-car 2.1: MUST be served at the well-known path, agents
	// SHOULD try /agents.txt as a fallback, and the well-known one takes
	// precedence; v0.1.0 serves the same path.
	body, h, path, ok := c.get(request{loc: pathAgentsTxt, what: "agents.txt", spec: spec, required: true,
		missingNote: "draft-car 2.1: it MUST be served here"})
	root, rootH, rootPath, rootOK := c.get(request{loc: pathAgentsTxtRoot, what: "agents.txt (fallback location)", spec: spec,
		missingNote: "the fallback location agents try (draft-car 2.1)"})
	switch {
	case ok && rootOK && !bytes.Equal(root, body):
		c.add(rootPath, spec, "warn", "differs from %s, which takes precedence (draft-car 2.1)", pathAgentsTxt)
	case !ok && rootOK:
		// Agents find it there (draft-car 2.1): check what they read.
		body, h, path, ok = root, rootH, rootPath, true
	}
	if !ok {
		return ""
	}
	n := len(c.findings)
	c.contentType(path, spec, h, "text/plain", "utf-8")
	f, err := agentstxt.Parse(body)
	if err != nil {
		c.add(path, spec, "fail", "does not parse: %v", err)
		return ""
	}
	spec = map[config.Dialect]string{config.DialectIETFDraft: "draft-car", config.DialectV010: "agents.txt v0.1.0"}[f.Dialect]
	for _, w := range f.Warnings {
		c.add(path, spec, "fail", "%v", w)
	}
	if h.Get("Access-Control-Allow-Origin") != "*" {
		c.add(path, spec, "warn", "no Access-Control-Allow-Origin: * (draft-car 5.2 SHOULD)")
	}
	if len(c.findings) == n {
		c.add(path, spec, "pass", "parses, %s", describeTxt(f))
	}
	field := map[config.Dialect]string{config.DialectIETFDraft: "Site-URL", config.DialectV010: "URL"}[f.Dialect]
	c.declare(path, spec, field, f.Site.URL)
	return f.Site.AgentsJSONURL
}

// agentsJSON checks agents.json, told apart by its members: the draft-car
// companion (specVersion), v0.1.0's agents.json (protocol_version) or the
// agent:// registry (agents, a name -> URL map; agent-uri-03 5). named is
// the URL agents.txt gives for it. It returns the registry when it is one.
func (c *checker) agentsJSON(named string) (registry map[string]string, registryPath string) {
	const from = "agents.txt (Agents-JSON)"
	well := request{loc: pathAgentsJSON, what: "agents.json", spec: "agents.json"}
	if named == "" {
		return c.agentsJSONAt(well)
	}
	if t, _, _, skip := c.resolve(named); skip == "" && t.Path == pathAgentsJSON {
		// agents.txt names the well-known document: it must be there.
		well.from, well.required = from, true
		return c.agentsJSONAt(well)
	}
	// Another location: the one agents.txt names, then the well-known one
	// (draft-car 3.1: it MUST be served there too).
	registry, registryPath = c.agentsJSONAt(request{loc: named, what: "agents.json", spec: "agents.json", from: from, required: true})
	well.required, well.missingNote = true, "draft-car 3.1: agents.json MUST be served here"
	if reg, p := c.agentsJSONAt(well); registryPath == "" {
		registry, registryPath = reg, p
	}
	return registry, registryPath
}

func (c *checker) agentsJSONAt(req request) (registry map[string]string, registryPath string) {
	body, h, path, ok := c.get(req)
	if !ok {
		return nil, ""
	}
	n := len(c.findings)
	c.contentType(path, "agents.json", h, "application/json", "")
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		c.add(path, "agents.json", "fail", "not a JSON object: %v", oneLine(err))
		return nil, ""
	}
	var site struct {
		URL string `json:"url"`
	}
	switch {
	case probe["specVersion"] != nil:
		c.schema(path, "draft-car", "draft-car_agents-json.schema.json", body)
		if json.Unmarshal(probe["site"], &site) == nil {
			defer c.declare(path, "draft-car", "site.url", site.URL)
		}
	case probe["protocol_version"] != nil:
		c.schema(path, "agents.txt v0.1.0", "agents-protocol_agents.schema.json", body)
		if json.Unmarshal(probe["site"], &site) == nil {
			defer c.declare(path, "agents.txt v0.1.0", "site.url", site.URL)
		}
	case probe["agents"] != nil:
		c.schema(path, "agent://", "agent-uri_agents-registry.schema.json", body)
		registry, registryPath = c.registryURLs(path, probe["agents"]), path
	default:
		c.add(path, "agents.json", "fail", "neither a draft-car (specVersion), v0.1.0 (protocol_version) nor agent:// registry (agents) document")
	}
	if len(c.findings) == n {
		c.add(path, "agents.json", "pass", "valid")
	}
	return registry, registryPath
}

// registryURLs reads a registry's agents member: each name maps to its
// descriptor URL, or to an entry object whose url it is (the registry
// schema's simple and rich forms). A name with neither is listed as
// skipped; the schema finding says what is wrong with it.
func (c *checker) registryURLs(path string, raw json.RawMessage) map[string]string {
	var entries map[string]json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return nil
	}
	urls := make(map[string]string, len(entries))
	for name, e := range entries {
		var u string
		var rich struct {
			URL string `json:"url"`
		}
		switch {
		case json.Unmarshal(e, &u) == nil && u != "":
			urls[name] = u
		case json.Unmarshal(e, &rich) == nil && rich.URL != "":
			urls[name] = rich.URL
		default:
			c.skipped(path, "agent:// descriptor "+strconv.Quote(name), path, "the registry gives it no descriptor URL")
		}
	}
	return urls
}

// descriptors checks the agent:// descriptors where the site says they
// are: at the URLs its registry maps each agent name to (agent-uri-03 5.1
// steps 3-4, the only place the draft has resolvers find them). A site
// without a registry names no descriptor; check then looks where
// agentready serves the site's own agent, whose name is the host (and
// port) of the site URL the documents declare, not of the URL checked.
func (c *checker) descriptors(registry map[string]string, registryPath string) {
	if registryPath != "" {
		names := slices.Sorted(maps.Keys(registry))
		for i, name := range names {
			what := "agent:// descriptor " + strconv.Quote(name)
			if i == maxLinked {
				c.skipped(registryPath, fmt.Sprintf("%d more agent:// descriptors", len(names)-maxLinked), registryPath, fmt.Sprintf("check follows the first %d of a registry", maxLinked))
				break
			}
			if body, h, path, ok := c.get(request{loc: registry[name], what: what, spec: "agent://", from: registryPath, required: true,
				missingNote: "the registry maps " + strconv.Quote(name) + " here (agent-uri-03 5.1)"}); ok {
				c.checkDescriptor(path, body, h)
			}
		}
		return
	}
	site := c.siteURL
	if site == "" {
		site = c.base.String()
	}
	p, ok := defaultDescriptorPath(site)
	if !ok {
		c.skipped(descriptorTemplate, "agent:// descriptor", "", "no site URL to derive the agent's name from")
		return
	}
	if body, h, path, ok := c.get(request{loc: p, what: "agent:// descriptor (agentready's default path)", spec: "agent://", json: true,
		missingNote: "no agent:// registry names descriptors (agent-uri-03 5.1); agentready serves the site's own agent here"}); ok {
		c.checkDescriptor(path, body, h)
	}
}

// defaultDescriptorPath is where agentready serves the descriptor of the
// site's own agent: config names it (Site.PublishedAgents), so check
// derives the name as the server does.
func defaultDescriptorPath(siteURL string) (string, bool) {
	s := config.Site{URL: siteURL, Capabilities: []config.Capability{{ID: "x"}}}
	a := s.PublishedAgents()
	if len(a) == 0 || a[0].Name == "" {
		return "", false
	}
	return strings.ReplaceAll(descriptorTemplate, "{name}", a[0].Name), true
}

// checkDescriptor checks an agent:// descriptor (agent-uri-03 7): its
// media type (12.3), its schema (Appendix D), a signature's presence
// (10.3 SHOULD).
func (c *checker) checkDescriptor(path string, body []byte, h http.Header) {
	n := len(c.findings)
	c.contentType(path, "agent://", h, "application/agent+json", "")
	c.schema(path, "agent://", "agent-uri_agent-descriptor.schema.json", body)
	if len(c.findings) == n {
		c.add(path, "agent://", "pass", "valid")
	}
	c.descriptorSignature(path, body, h)
}

// agentsMD checks agents.md: the well-known location, or the root one
// when that is missing (agents.md 1.0.0-draft, "Discovery": check
// /.well-known/agents.md first, fall back to /agents.md).
func (c *checker) agentsMD() {
	body, h, p, ok := c.get(request{loc: pathAgentsMD, what: "agents.md", spec: "agents.md"})
	if ok {
		c.covered(pathAgentsMDRoot, "agents.md (fallback location)", pathAgentsMD+" is served, and agents read it first")
	} else if body, h, p, ok = c.get(request{loc: pathAgentsMDRoot, what: "agents.md (fallback location)", spec: "agents.md"}); !ok {
		return
	}
	n := len(c.findings)
	c.contentType(p, "agents.md", h, "text/markdown", "")
	if rest, ok := bytes.CutPrefix(body, []byte("---\n")); ok {
		fm, _, found := bytes.Cut(rest, []byte("\n---\n"))
		var doc struct {
			MCP struct{ Endpoint string } `yaml:"mcp"`
		}
		if !found {
			c.add(p, "agents.md", "fail", "front matter is not closed by a --- line")
		} else if err := yaml.Unmarshal(fm, &doc); err != nil {
			c.add(p, "agents.md", "fail", "front matter is not YAML: %v", oneLine(err))
		} else if doc.MCP.Endpoint == "" {
			c.add(p, "agents.md", "fail", "Format B front matter without mcp.endpoint")
		}
	}
	if !bytes.HasPrefix(bytes.TrimPrefix(body, []byte("---\n")), []byte("# ")) && !bytes.Contains(body, []byte("\n# ")) {
		c.add(p, "agents.md", "fail", "no H1 title")
	}
	if len(c.findings) == n {
		c.add(p, "agents.md", "pass", "well formed")
	}
}

// awp checks AWP's agent.json against its schema.
func (c *checker) awp() {
	body, h, p, ok := c.get(request{loc: pathAWP, what: "agent.json (AWP)", spec: "AWP", json: true})
	if !ok {
		return
	}
	n := len(c.findings)
	c.contentType(p, "AWP", h, "application/json", "")
	c.schema(p, "AWP", "awp_agent-json_v0.2.schema.json", body)
	if len(c.findings) == n {
		c.add(p, "AWP", "pass", "valid")
	}
}

// robots checks robots.txt. RFC 9309 2.3.1.3: a 4xx answer means there
// are no rules, so crawlers may fetch everything; 2.3.1.4: a server error
// or no answer makes crawlers assume complete disallow.
func (c *checker) robots() {
	const spec = "RFC 9309"
	body, h, p, ok := c.get(request{loc: pathRobots, what: "robots.txt", spec: spec, anyClientError: true,
		missingNote: "no rules: crawlers may fetch everything (RFC 9309 2.3.1.3)"})
	if !ok {
		if d := c.docs[len(c.docs)-1]; d.Status == docUnavailable {
			c.add(p, spec, "fail", "crawlers that cannot read it assume complete disallow (RFC 9309 2.3.1.4)")
		}
		return
	}
	n := len(c.findings)
	c.contentType(p, spec, h, "text/plain", "")
	if len(body) > robotstxt.MaxBytes {
		c.add(p, spec, "warn", "%d bytes: crawlers need read only 500 KiB (2.5)", len(body))
	}
	if len(c.findings) == n {
		var extras []string
		for _, k := range []string{"Content-Usage:", "Content-Signal:"} {
			if bytes.Contains(bytes.ToLower(body), bytes.ToLower([]byte(k))) {
				extras = append(extras, strings.TrimSuffix(k, ":"))
			}
		}
		c.add(p, spec, "pass", "served%s", prefixed(", with ", strings.Join(extras, " and ")))
	}
}

func describeTxt(f *agentstxt.File) string {
	return count(len(f.Site.Capabilities), "capability") + ", " + count(len(f.Site.Agents), "agent policy")
}
