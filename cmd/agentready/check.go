package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentstxt"
	"github.com/agentready/agentready/internal/publish/robotstxt"
	"github.com/agentready/agentready/internal/specschemas"
)

// finding is one result of check.
type finding struct {
	Document string `json:"document"` // the path checked
	Spec     string `json:"spec"`     // the draft it is checked against
	Level    string `json:"level"`    // pass, warn (a SHOULD) or fail (a MUST)
	Message  string `json:"message"`
}

// checkBodyLimit bounds what check reads of one document.
const checkBodyLimit = 1 << 20

// checker fetches a site's documents and checks them.
type checker struct {
	base     *url.URL
	client   *http.Client
	findings []finding
}

func (c *checker) add(doc, spec, level, format string, args ...any) {
	c.findings = append(c.findings, finding{Document: doc, Spec: spec, Level: level, Message: fmt.Sprintf(format, args...)})
}

// fetch GETs path; ok is false (and a finding recorded when required) when
// it is not served.
func (c *checker) fetch(path, spec string, required bool) (body []byte, h http.Header, ok bool) {
	u := *c.base
	u.Path, u.RawQuery = path, ""
	res, err := c.client.Get(u.String())
	if err != nil {
		c.add(path, spec, "fail", "cannot fetch: %v", err)
		return nil, nil, false
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		if required {
			c.add(path, spec, "fail", "answers %s", res.Status)
		}
		return nil, nil, false
	}
	body, err = io.ReadAll(io.LimitReader(res.Body, checkBodyLimit+1))
	if err != nil {
		c.add(path, spec, "fail", "reading the body: %v", err)
		return nil, nil, false
	}
	if len(body) > checkBodyLimit {
		c.add(path, spec, "fail", "larger than %d bytes", checkBodyLimit)
		return nil, nil, false
	}
	return body, res.Header, true
}

// contentType checks the media type (and charset, when want names one).
func (c *checker) contentType(path, spec string, h http.Header, wantType, wantCharset string) {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	switch {
	case err != nil || mt != wantType:
		c.add(path, spec, "fail", "Content-Type %q, want %s", h.Get("Content-Type"), wantType)
	case wantCharset != "" && !strings.EqualFold(params["charset"], wantCharset):
		c.add(path, spec, "fail", "Content-Type %q lacks charset=%s", h.Get("Content-Type"), wantCharset)
	}
}

func (c *checker) schema(path, spec, file string, body []byte) bool {
	if err := specschemas.Validate(file, body); err != nil {
		c.add(path, spec, "fail", "does not validate against %s: %v", file, oneLine(err))
		return false
	}
	return true
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// run checks every document.
func (c *checker) run() {
	// agents.txt (draft-car 2.1: text/plain; charset=utf-8; the v0.1.0
	// format serves the same).
	if body, h, ok := c.fetch("/.well-known/agents.txt", "agents.txt", true); ok {
		n := len(c.findings)
		c.contentType("/.well-known/agents.txt", "agents.txt", h, "text/plain", "utf-8")
		f, err := agentstxt.Parse(body)
		spec := "agents.txt"
		if err != nil {
			c.add("/.well-known/agents.txt", spec, "fail", "does not parse: %v", err)
		} else {
			spec = map[config.Dialect]string{config.DialectIETFDraft: "draft-car", config.DialectV010: "agents.txt v0.1.0"}[f.Dialect]
			for _, w := range f.Warnings {
				c.add("/.well-known/agents.txt", spec, "fail", "%v", w)
			}
			if h.Get("Access-Control-Allow-Origin") != "*" {
				c.add("/.well-known/agents.txt", spec, "warn", "no Access-Control-Allow-Origin: * (draft-car 5.2 SHOULD)")
			}
		}
		if len(c.findings) == n {
			c.add("/.well-known/agents.txt", spec, "pass", "parses, %s", strings.TrimSpace(describeTxt(f)))
		}
		if root, _, ok := c.fetch("/agents.txt", spec, false); ok && !bytes.Equal(root, body) {
			c.add("/agents.txt", spec, "warn", "differs from /.well-known/agents.txt, which takes precedence (draft-car 2.1)")
		}
	}
	// agents.json: draft-car companion, v0.1.0 agents.json or agent://
	// registry, told apart by their members.
	if body, h, ok := c.fetch("/.well-known/agents.json", "agents.json", false); ok {
		n := len(c.findings)
		c.contentType("/.well-known/agents.json", "agents.json", h, "application/json", "")
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(body, &probe); err != nil {
			c.add("/.well-known/agents.json", "agents.json", "fail", "not a JSON object: %v", err)
		} else {
			switch {
			case probe["specVersion"] != nil:
				c.schema("/.well-known/agents.json", "draft-car", "draft-car_agents-json.schema.json", body)
			case probe["protocol_version"] != nil:
				c.schema("/.well-known/agents.json", "agents.txt v0.1.0", "agents-protocol_agents.schema.json", body)
			case probe["agents"] != nil:
				if c.schema("/.well-known/agents.json", "agent://", "agent-uri_agents-registry.schema.json", body) {
					c.descriptorsOf(probe["agents"])
				}
			default:
				c.add("/.well-known/agents.json", "agents.json", "fail", "neither a draft-car (specVersion), v0.1.0 (protocol_version) nor agent:// registry (agents) document")
			}
		}
		if len(c.findings) == n {
			c.add("/.well-known/agents.json", "agents.json", "pass", "valid")
		}
	}
	// The site's own derived agent:// descriptor, at the default path.
	own := "/agents/" + c.base.Hostname() + "/agent.json"
	if body, h, ok := c.peek(own); ok {
		c.checkDescriptor(own, body, h)
	}
	// agents.md: text/markdown; Format B's front matter is YAML.
	for _, p := range []string{"/.well-known/agents.md", "/agents.md"} {
		body, h, ok := c.fetch(p, "agents.md", false)
		if !ok {
			continue
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
				c.add(p, "agents.md", "fail", "front matter is not YAML: %v", err)
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
		break
	}
	// JSON documents with a schema.
	for _, d := range []struct{ path, spec, schema string }{
		{"/agent.json", "AWP", "awp_agent-json_v0.2.schema.json"},
		{"/.well-known/mcp/server-card.json", "MCP server card", "mcp_server-card.schema.json#/$defs/ServerCard"},
		{"/.well-known/agent-card.json", "A2A agent card", "a2a_v0.3.0_a2a.json#/definitions/AgentCard"},
	} {
		body, h, ok := c.fetch(d.path, d.spec, false)
		if !ok {
			continue
		}
		n := len(c.findings)
		c.contentType(d.path, d.spec, h, "application/json", "")
		c.schema(d.path, d.spec, d.schema, body)
		if len(c.findings) == n {
			c.add(d.path, d.spec, "pass", "valid")
		}
	}
	// robots.txt (RFC 9309).
	if body, h, ok := c.fetch("/robots.txt", "RFC 9309", false); ok {
		n := len(c.findings)
		c.contentType("/robots.txt", "RFC 9309", h, "text/plain", "")
		if len(body) > robotstxt.MaxBytes {
			c.add("/robots.txt", "RFC 9309", "warn", "%d bytes: crawlers need read only 500 KiB (2.5)", len(body))
		}
		if len(c.findings) == n {
			var extras []string
			for _, k := range []string{"Content-Usage:", "Content-Signal:"} {
				if bytes.Contains(bytes.ToLower(body), bytes.ToLower([]byte(k))) {
					extras = append(extras, strings.TrimSuffix(k, ":"))
				}
			}
			c.add("/robots.txt", "RFC 9309", "pass", "served%s", map[bool]string{true: ", with " + strings.Join(extras, " and "), false: ""}[len(extras) > 0])
		}
	}
}

func describeTxt(f *agentstxt.File) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("%d capabilities, %d agent policies", len(f.Site.Capabilities), len(f.Site.Agents))
}

// check fetches a site's discovery documents and reports what conforms.
func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the findings as JSON")
	sites, code := parseArgs(fs, args, stdout, stderr)
	if code >= 0 {
		return code
	}
	if len(sites) != 1 {
		fmt.Fprintf(stderr, "agentready check: want one site URL\n\n%s", usage)
		return 2
	}
	base, err := url.Parse(sites[0])
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		fmt.Fprintf(stderr, "agentready check: %q is not an http(s) URL\n", sites[0])
		return 2
	}
	c := &checker{base: base, client: &http.Client{Timeout: 10 * time.Second}}
	if !*asJSON {
		fmt.Fprintf(stderr, "checking %s ...\n", base)
	}
	c.run()
	failed := false
	for _, f := range c.findings {
		failed = failed || f.Level == "fail"
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c.findings); err != nil {
			fmt.Fprintln(stderr, err)
		}
	} else {
		for _, f := range c.findings {
			fmt.Fprintf(stdout, "%-4s %-36s %-18s %s\n", strings.ToUpper(f.Level), f.Document, f.Spec, f.Message)
		}
	}
	if failed {
		return 1
	}
	return 0
}

// peek reports whether path is served (200), without a finding.
func (c *checker) peek(path string) ([]byte, http.Header, bool) {
	return c.fetch(path, "", false)
}

// descriptorsOf checks the descriptors an agent:// registry lists, those
// on the site's own origin (a registry naming another host is not fetched:
// check that host).
func (c *checker) descriptorsOf(raw json.RawMessage) {
	var reg map[string]string
	if json.Unmarshal(raw, &reg) != nil {
		return
	}
	for name, loc := range reg {
		u, err := url.Parse(loc)
		if err != nil || !strings.EqualFold(u.Host, c.base.Host) {
			c.add("/.well-known/agents.json", "agent://", "warn", "descriptor of %q at %q is on another origin: not checked", name, loc)
			continue
		}
		c.descriptor(u.Path)
	}
}

// descriptor checks one agent:// descriptor (agent-uri-03 7): its media
// type, its schema, and a signature's presence (10.3 SHOULD).
func (c *checker) descriptor(path string) {
	if body, h, ok := c.fetch(path, "agent://", true); ok {
		c.checkDescriptor(path, body, h)
	}
}

// checkDescriptor checks the descriptor body fetched from path.
func (c *checker) checkDescriptor(path string, body []byte, h http.Header) {
	n := len(c.findings)
	c.contentType(path, "agent://", h, "application/agent+json", "")
	c.schema(path, "agent://", "agent-uri_agent-descriptor.schema.json", body)
	if len(c.findings) == n {
		c.add(path, "agent://", "pass", "valid")
	}
	if h.Get("Signature") == "" {
		c.add(path, "agent://", "warn", "unsigned (agent-uri-03 10.3: descriptors SHOULD be signed)")
	}
}
