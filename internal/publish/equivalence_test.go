package publish_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/publish/agentstxt"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// facts are what an agent learns from one document: the capabilities
// (endpoint path, method, auth, limit), the access rules and the agent
// policies. A format that cannot carry a kind of fact leaves it nil, and
// is not compared on it (docs/documents.md, "What each format carries").
type facts struct {
	caps   map[string]capFacts
	allow  []string
	deny   []string
	agents map[string]string // name -> "limit | capabilities"
}

type capFacts struct {
	path, method, auth, limit string
}

// declared is what the declaration says, in each format's terms: the
// method an agent should use (REST's default GET; POST for an MCP or A2A
// endpoint without one, when the format writes a method at all), and auth
// as "required" or "none" where the format says no more.
func declared(s *config.Site, authTypes, methodForAll bool) facts {
	f := facts{caps: map[string]capFacts{}, allow: s.Access.Allow, deny: s.Access.Disallow, agents: map[string]string{}}
	for _, c := range s.Capabilities {
		cf := capFacts{path: pathOf(c.Endpoint), limit: c.RateLimit.String()}
		switch {
		case c.Method != "" || resolve.Protocol(&c) == config.ProtocolREST:
			cf.method = resolve.Method(&c)
		case methodForAll && (c.Protocol == config.ProtocolMCP || c.Protocol == config.ProtocolA2A):
			cf.method = "POST"
		}
		cf.auth = string(resolve.AuthType(c.Auth))
		if !authTypes {
			cf.auth = map[bool]string{true: "required", false: "none"}[resolve.AuthRequired(c.Auth)]
		}
		f.caps[c.ID] = cf
	}
	for _, a := range s.Agents {
		f.agents[a.Name] = agentFacts(a.RateLimit.String(), a.Capabilities)
	}
	return f
}

func agentFacts(limit string, caps []string) string {
	c := slices.Clone(caps)
	sort.Strings(c)
	return limit + " | " + strings.Join(c, ",")
}

func pathOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Path
	}
	return endpoint
}

// readDraftCarTxt reads agents.txt with the agentstxt parser.
func readDraftCarTxt(t *testing.T, b []byte) facts {
	file, err := agentstxt.ParseDialect(b, config.DialectIETFDraft)
	if err != nil {
		t.Fatal(err)
	}
	return declared(&file.Site, true, false)
}

// readDraftCarJSON reads the draft-car agents.json with encoding/json.
func readDraftCarJSON(t *testing.T, b []byte) facts {
	var doc struct {
		Capabilities []struct {
			ID, Endpoint, Method, Protocol string
			Auth                           struct{ Type string }
			RateLimit                      *struct {
				Requests int
				Window   string
			}
		}
		Access struct{ Allow, Disallow []string }
		Agents map[string]struct {
			RateLimit *struct {
				Requests int
				Window   string
			}
			Capabilities []string
			Tools        map[string][]string // agentready's extension
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	f := facts{caps: map[string]capFacts{}, allow: doc.Access.Allow, deny: doc.Access.Disallow, agents: map[string]string{}}
	for _, c := range doc.Capabilities {
		cf := capFacts{path: pathOf(c.Endpoint), method: c.Method, auth: c.Auth.Type}
		if c.RateLimit != nil {
			cf.limit = rate(c.RateLimit.Requests, c.RateLimit.Window)
		}
		f.caps[c.ID] = cf
	}
	for name, a := range doc.Agents {
		limit := ""
		if a.RateLimit != nil {
			limit = rate(a.RateLimit.Requests, a.RateLimit.Window)
		}
		caps := a.Capabilities
		for c, tools := range a.Tools {
			for _, tool := range tools {
				caps = append(caps, c+"/"+tool)
			}
		}
		f.agents[name] = agentFacts(limit, caps)
	}
	return f
}

func rate(n int, window string) string {
	r, _ := config.ParseRate(strings.Join([]string{itoa(n), window}, "/"))
	return r.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// readAWP reads the AWP agent.json with encoding/json: capabilities
// (actions) with their method, whether auth is required and their limit;
// no access rules, no agent policies.
func readAWP(t *testing.T, b []byte) facts {
	var doc struct {
		Actions []struct {
			ID, Endpoint, Method string
			AuthRequired         bool   `json:"auth_required"`
			RateLimit            string `json:"rate_limit"`
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	f := facts{caps: map[string]capFacts{}}
	for _, a := range doc.Actions {
		f.caps[a.ID] = capFacts{path: pathOf(a.Endpoint), method: a.Method,
			auth: map[bool]string{true: "required", false: "none"}[a.AuthRequired], limit: a.RateLimit}
	}
	return f
}

var (
	mdCannot   = regexp.MustCompile(`(?m)^- Access (\S+)$`)
	mdCapLimit = regexp.MustCompile(`(?m)^- ([a-z0-9.\-_]+): at most (\d+) requests/(\w+)$`)
	mdAgent    = regexp.MustCompile(`(?m)^- Agent (\S+): (.+)$`)
	mdRate     = regexp.MustCompile(`^(\d+) requests/(\w+)$`)
)

// readAgentsMD reads agents.md: the front matter with a YAML parser (the
// MCP endpoint), the Disallow rules from "Cannot", the limits and agent
// policies from "Behavior".
func readAgentsMD(t *testing.T, b []byte) (facts, string) {
	endpoint := ""
	if rest, ok := bytes.CutPrefix(b, []byte("---\n")); ok {
		fm, body, _ := bytes.Cut(rest, []byte("\n---\n"))
		var doc struct {
			MCP struct{ Endpoint string } `yaml:"mcp"`
		}
		if err := yaml.Unmarshal(fm, &doc); err != nil {
			t.Fatalf("front matter: %v", err)
		}
		endpoint, b = doc.MCP.Endpoint, body
	}
	f := facts{caps: map[string]capFacts{}, agents: map[string]string{}}
	for _, m := range mdCannot.FindAllSubmatch(b, -1) {
		f.deny = append(f.deny, string(m[1]))
	}
	for _, m := range mdCapLimit.FindAllSubmatch(b, -1) {
		f.caps[string(m[1])] = capFacts{limit: rate(atoi(m[2]), string(m[3]))}
	}
	for _, m := range mdAgent.FindAllSubmatch(b, -1) {
		limit := ""
		var caps []string
		for _, part := range strings.Split(string(m[2]), "; ") {
			if r := mdRate.FindStringSubmatch(part); r != nil {
				limit = rate(atoi([]byte(r[1])), r[2])
			} else if ids, ok := strings.CutPrefix(part, "capabilities "); ok {
				caps = append(caps, strings.Split(ids, ", ")...)
			} else if part == "no capabilities" {
				caps = []string{}
			} else if rest, ok := strings.CutPrefix(part, "tools of "); ok {
				c, names, _ := strings.Cut(rest, ": ")
				for _, n := range strings.Split(names, ", ") {
					caps = append(caps, c+"/"+n)
				}
			}
		}
		f.agents[string(m[1])] = agentFacts(limit, caps)
	}
	return f, endpoint
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestEquivalence renders every fixture in every format, reads each
// document back with an independent reader, and checks that every format
// says the same about what it can carry.
func TestEquivalence(t *testing.T) {
	for _, fx := range fixtures.All() {
		if fx.Formats.Dialect != config.DialectIETFDraft || fx.Formats.AgentsJSON != config.AgentsJSONCompanion {
			continue // the v0.1.0 and registry fixtures: see TestEquivalenceV010
		}
		t.Run(fx.Name, func(t *testing.T) {
			body := rendered(t, &fx.Site, fx.Formats)
			want := declared(&fx.Site, true, false)
			// agents.txt's Capabilities line carries no single tool's grant.
			wantTxt := declared(&fx.Site, true, false)
			for _, a := range fx.Site.Agents {
				wantTxt.agents[a.Name] = agentFacts(a.RateLimit.String(), resolve.WholeGrants(a.Capabilities))
			}
			same(t, "agents.txt", wantTxt, readDraftCarTxt(t, body["agents.txt"]))
			same(t, "agents.json", want, readDraftCarJSON(t, body["agents.json"]))

			// The derived agent:// descriptor: its skills are the capabilities.
			for name, b := range body {
				if !strings.HasPrefix(name, "descriptor ") {
					continue
				}
				var desc struct{ Skills []struct{ ID string } }
				if err := json.Unmarshal(b, &desc); err != nil {
					t.Fatal(err)
				}
				var got, want []string
				for _, sk := range desc.Skills {
					got = append(got, sk.ID)
				}
				for _, c := range fx.Site.Capabilities {
					want = append(want, c.ID)
					for _, tool := range c.Tools { // a tool is a skill of its own
						want = append(want, c.ID+"/"+tool.Name)
					}
				}
				if len(fx.Site.HostedAgents) == 0 && !slices.Equal(got, want) {
					t.Errorf("%s: skills %q, the declaration's capabilities %q", name, got, want)
				}
			}
			awpWant := declared(&fx.Site, false, true)
			awpWant.allow, awpWant.deny, awpWant.agents = nil, nil, nil
			// An MCP capability's tools are actions via "mcp" (AWP 9).
			for _, c := range fx.Site.Capabilities {
				for _, tool := range c.Tools {
					awpWant.caps[c.ID+"/"+tool.Name] = capFacts{limit: tool.RateLimit.String(),
						auth: map[bool]string{true: "required", false: "none"}[resolve.AuthRequired(c.Auth)]}
				}
			}
			same(t, "agent.json", awpWant, readAWP(t, body["agent.json"]))

			md, endpoint := readAgentsMD(t, body["agents.md"])
			if fx.Site.AgentsMD.MCP == nil {
				if g := mcpOnly(&fx.Site); g != "" && endpoint != g {
					t.Errorf("agents.md: MCP endpoint %q, want the one MCP capability's %q", endpoint, g)
				}
			}
			mdWant := facts{caps: map[string]capFacts{}, deny: fx.Site.Access.Disallow, agents: map[string]string{}}
			for _, c := range fx.Site.Capabilities {
				if !c.RateLimit.IsZero() {
					mdWant.caps[c.ID] = capFacts{limit: c.RateLimit.String()}
				}
			}
			for _, a := range fx.Site.Agents {
				if a.Name != "*" && (!a.RateLimit.IsZero() || a.Capabilities != nil) {
					mdWant.agents[a.Name] = agentFacts(a.RateLimit.String(), a.Capabilities)
				}
			}
			if fx.Site.AgentsMD.Cannot != nil || fx.Site.AgentsMD.Behavior != nil {
				return // the site wrote these sections itself
			}
			same(t, "agents.md", mdWant, md)
		})
	}
}

// mcpOnly is the endpoint of the site's one MCP capability, "" unless it
// has exactly one.
func mcpOnly(s *config.Site) string {
	ep, n := "", 0
	for _, c := range s.Capabilities {
		if c.Protocol == config.ProtocolMCP {
			ep, n = c.Endpoint, n+1
		}
	}
	if n != 1 {
		return ""
	}
	return ep
}

// same compares the facts a format carries.
func same(t *testing.T, format string, want, got facts) {
	t.Helper()
	for id, w := range want.caps {
		g, ok := got.caps[id]
		if !ok {
			t.Errorf("%s: capability %q missing", format, id)
			continue
		}
		if w != g {
			t.Errorf("%s: capability %q says %+v, the declaration %+v", format, id, g, w)
		}
	}
	for id := range got.caps {
		if _, ok := want.caps[id]; !ok {
			t.Errorf("%s: capability %q not declared", format, id)
		}
	}
	if !slices.Equal(want.allow, got.allow) || !slices.Equal(want.deny, got.deny) {
		t.Errorf("%s: access allow %q disallow %q, the declaration %q %q", format, got.allow, got.deny, want.allow, want.deny)
	}
	if len(want.agents) != len(got.agents) {
		t.Errorf("%s: agent policies %v, the declaration %v", format, got.agents, want.agents)
	}
	for name, w := range want.agents {
		if g := got.agents[name]; g != w {
			t.Errorf("%s: agent %q says %q, the declaration %q", format, name, g, w)
		}
	}
}

// TestEquivalenceV010: the v0.1.0 agents.txt names the capabilities its
// agents.json describes (endpoint, method), the same the declaration
// declares; neither carries access rules or agent policies (New says so,
// and robots.txt carries the rules).
func TestEquivalenceV010(t *testing.T) {
	for _, fx := range fixtures.All() {
		if fx.Formats.Dialect != config.DialectV010 {
			continue
		}
		t.Run(fx.Name, func(t *testing.T) {
			body := rendered(t, &fx.Site, fx.Formats)
			file, err := agentstxt.ParseDialect(body["agents.txt"], config.DialectV010)
			if err != nil {
				t.Fatal(err)
			}
			var txtIDs, declIDs []string
			for _, c := range file.Site.Capabilities {
				txtIDs = append(txtIDs, c.ID)
			}
			for _, c := range fx.Site.Capabilities {
				declIDs = append(declIDs, c.ID)
			}
			if !slices.Equal(txtIDs, declIDs) {
				t.Errorf("agents.txt capabilities %q, the declaration %q", txtIDs, declIDs)
			}
			var doc struct {
				Capabilities []struct{ Name, Endpoint, Method string }
			}
			if err := json.Unmarshal(body["agents.json"], &doc); err != nil {
				t.Fatal(err)
			}
			want := declared(&fx.Site, true, false)
			if len(doc.Capabilities) != len(want.caps) {
				t.Fatalf("agents.json: %d capabilities, the declaration %d", len(doc.Capabilities), len(want.caps))
			}
			for _, c := range doc.Capabilities {
				w := want.caps[c.Name]
				if pathOf(c.Endpoint) != w.path || (c.Method != "" && c.Method != w.method) {
					t.Errorf("agents.json: %s at %s %s, the declaration %s %s", c.Name, c.Method, c.Endpoint, w.method, w.path)
				}
			}
		})
	}
}

// TestSessionEndpointNamed: a capability that requires a session names
// the session endpoint in the draft-car agents.txt and agents.json
// (agentready's Session-Endpoint / sessionEndpoint extension; draft-car
// 2.5 has parsers ignore unknown fields), and the parser reads it back.
func TestSessionEndpointNamed(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Capabilities[0].RequiresSession = true
	docs, err := publish.Render(&site, publish.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "https://outdoorsupply.example/.well-known/agents/api/session"
	for _, d := range docs {
		switch d.Name {
		case "agents.txt":
			if !bytes.Contains(d.Body, []byte("  Session-Endpoint: "+want+"\n")) {
				t.Errorf("agents.txt:\n%s", d.Body)
			}
			file, err := agentstxt.ParseDialect(d.Body, config.DialectIETFDraft)
			if err != nil || !file.Site.Capabilities[0].RequiresSession || file.Site.Session.Endpoint != want || file.Site.Capabilities[1].RequiresSession {
				t.Errorf("agents.txt read back: %+v %v", file.Site.Capabilities, err)
			}
		case "agents.json":
			schematest.Validate(t, "draft-car_agents-json.schema.json", d.Body)
			var doc struct {
				Capabilities []struct {
					ID              string
					SessionEndpoint string `json:"sessionEndpoint"`
				}
			}
			if err := json.Unmarshal(d.Body, &doc); err != nil || doc.Capabilities[0].SessionEndpoint != want || doc.Capabilities[1].SessionEndpoint != "" {
				t.Errorf("agents.json: %s", d.Body)
			}
		}
	}
}

// rendered renders site in every format f serves, by document name.
func rendered(t *testing.T, site *config.Site, f config.Formats) map[string][]byte {
	t.Helper()
	docs, err := publish.Render(site, publish.Options{Formats: f})
	if err != nil {
		t.Fatal(err)
	}
	body := map[string][]byte{}
	for _, d := range docs {
		body[d.Name] = d.Body
	}
	return body
}
