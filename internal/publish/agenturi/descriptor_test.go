package agenturi

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsontest"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

const (
	descriptorSchema = "agent-uri_agent-descriptor.schema.json"
	registrySchema   = "agent-uri_agents-registry.schema.json"
)

// appendixA is the example descriptor of draft-narvaneni-agent-uri-03
// Appendix A (Figure 8), verbatim.
const appendixA = `{
"name": "planner.example.com",
"description": "Agent helps in researching & planning itineraries",
"url": "agent://planner.example.com/",
"status": "active",
"conformanceLevel": 3,
"environment": "production",
"provider": {
"organization": "Example AI Org",
"url": "https://example.com"
},
"documentationUrl": "https://planner.example.com/docs",
"interactionModel": ["agent2agent", "mcp"],
"version": "3.1.4",
"supportedVersions": {
"3.0.0": "/v3/",
"2.1.2": "/olderversion/v2.1.2/"
},
"transport": {
"endpoint": "https://planner.example.com/api",
"https": "https://planner.example.com/api",
"wss": "wss://planner.example.com/ws"
},
"skills": [
{
"id": "gen-iti",
"name": "Generate Itinerary",
"version": "2.1.5",
"description": "Creates a travel itinerary for a given city.",
"tags": ["travel", "planning"],
"input": {
"type": "object",
"properties": { "city": { "type": "string" } },
"required": ["city"]
},
"output": {
"type": "object",
"properties": { "itinerary": { "type": "array" } }
},
"streaming": true,
"streamingFormat": "sse",
"idempotent": true,
"contentTypes": {
"accepts": ["application/json", "application/ld+json"],
"produces": ["application/json"]
},
"depends": [
{
"uri": "agent://translator.example.com/translate",
"relation": "invokes",
"versionConstraint": "^2.0.0"
}
]
}
],
"authentication": {
"schemes": ["Bearer"],
"authorizationServer": "https://auth.example.com",
"protectedResourceMetadata": "https://planner.example.com/.well-known/oauth-protected-resource"
}
}`

func TestDescriptorAppendixA(t *testing.T) {
	doc, err := Descriptor(fixtures.Planner().HostedAgents[0])
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, descriptorSchema, doc)
	jsontest.AssertSame(t, doc, appendixA)
	// Members in the appendix's order, "&" unescaped.
	if !jsontest.InOrder(string(doc), `"name"`, `"description": "Agent helps in researching & planning itineraries"`, `"url"`, `"status"`,
		`"conformanceLevel"`, `"environment"`, `"provider"`, `"documentationUrl"`, `"interactionModel"`, `"version": "3.1.4"`,
		`"supportedVersions"`, `"transport"`, `"skills"`, `"id"`, `"name"`, `"version"`, `"description"`, `"tags"`, `"input"`,
		`"output"`, `"streaming"`, `"streamingFormat"`, `"idempotent"`, `"contentTypes"`, `"depends"`, `"authentication"`) {
		t.Errorf("members are not in the order of Appendix A:\n%s", doc)
	}
}

// TestFixturesValidate renders the descriptor of every agent every fixture
// publishes, including the site-as-one-agent default
// (config.Site.PublishedAgents), and validates it.
func TestFixturesValidate(t *testing.T) {
	n := 0
	for _, f := range fixtures.All() {
		if !f.Formats.Serves(config.DocDescriptors) {
			continue
		}
		for _, a := range f.Site.PublishedAgents() {
			n++
			t.Run(f.Name+"/"+a.Name, func(t *testing.T) {
				doc, err := Descriptor(a)
				if err != nil {
					t.Fatal(err)
				}
				schematest.Validate(t, descriptorSchema, doc)
				if !bytes.HasSuffix(doc, []byte("}\n")) {
					t.Error("document does not end with a newline")
				}
			})
		}
	}
	if n < 2 {
		t.Fatalf("only %d descriptors rendered", n)
	}
}

// TestDefaultAgentOutdoorSupply pins the site-as-one-agent descriptor of
// the draft-car example: one skill per capability, params as input schema.
func TestDefaultAgentOutdoorSupply(t *testing.T) {
	s := fixtures.OutdoorSupply()
	agents := s.PublishedAgents()
	if len(agents) != 1 {
		t.Fatalf("PublishedAgents = %d agents", len(agents))
	}
	doc, err := Descriptor(agents[0])
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, descriptorSchema, doc)
	jsontest.AssertSame(t, doc, `{
  "name": "outdoorsupply.example",
  "description": "Gear for outdoor adventures",
  "url": "agent://outdoorsupply.example/",
  "status": "active",
  "provider": {"organization": "Outdoor Supply Co.", "url": "https://outdoorsupply.example"},
  "interactionModel": ["mcp"],
  "version": "1.0.0",
  "transport": {"endpoint": "https://outdoorsupply.example"},
  "skills": [
    {"id": "product-search", "name": "product-search", "description": "Search the product catalog",
     "input": {"type": "object", "required": ["q"], "properties": {
       "q": {"type": "string", "description": "Search query"},
       "limit": {"type": "integer", "description": "Max results, default 20", "default": 20},
       "category": {"type": "string", "description": "Filter by category"}}},
     "idempotent": true},
    {"id": "store-assistant", "name": "store-assistant", "description": "Full store interaction via MCP",
     "authentication": {"schemes": ["Bearer"]}}
  ],
  "authentication": {"schemes": ["Bearer"]}
}`)
}

func TestDeterministic(t *testing.T) {
	for _, f := range fixtures.All() {
		for _, a := range f.Site.PublishedAgents() {
			t.Run(f.Name+"/"+a.Name, func(t *testing.T) {
				first, err := Descriptor(a)
				if err != nil {
					t.Fatal(err)
				}
				for range 5 {
					site := f.Site
					b, err := Descriptor(site.PublishedAgents()[0])
					if err != nil || !bytes.Equal(first, b) {
						t.Fatalf("two renderings differ (%v):\n%s\n%s", err, first, b)
					}
				}
			})
		}
	}
}

// TestDescriptorOptional: what the declaration leaves empty is not rendered;
// @context takes the string form for one URL and the array form for more.
func TestDescriptorOptional(t *testing.T) {
	minimal := config.HostedAgent{Name: "echo", Version: "0.1.0",
		Skills: []config.Skill{{ID: "echo", Name: "Echo", Description: "Echoes"}}}
	tests := []struct {
		name   string
		modify func(*config.HostedAgent)
		want   string
	}{
		{"minimal", func(*config.HostedAgent) {},
			`{"name": "echo", "version": "0.1.0", "skills": [{"id": "echo", "name": "Echo", "description": "Echoes"}]}`},
		{"empty skill description is still rendered", func(a *config.HostedAgent) {
			a.Skills = []config.Skill{{ID: "x", Name: "x"}}
		}, `{"name": "echo", "version": "0.1.0", "skills": [{"id": "x", "name": "x", "description": ""}]}`},
		{"empty provider, transport and authentication are dropped", func(a *config.HostedAgent) {
			a.Provider = &config.Provider{}
			a.Authentication = &config.AgentAuthentication{}
			a.Skills[0].Authentication = &config.AgentAuthentication{}
		}, `{"name": "echo", "version": "0.1.0", "skills": [{"id": "echo", "name": "Echo", "description": "Echoes"}]}`},
		{"one context is a string", func(a *config.HostedAgent) { a.Context = []string{"https://agent-uri.org/context/v1"} },
			`{"@context": "https://agent-uri.org/context/v1", "name": "echo", "version": "0.1.0",
			  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes"}]}`},
		{"several contexts are an array", func(a *config.HostedAgent) {
			a.Context = []string{"https://agent-uri.org/context/v1", "https://schema.org"}
		}, `{"@context": ["https://agent-uri.org/context/v1", "https://schema.org"], "name": "echo", "version": "0.1.0",
			  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes"}]}`},
		{"skill content types and status", func(a *config.HostedAgent) {
			a.Skills[0].Produces = []string{"text/plain"}
			a.Skills[0].Status = "experimental"
			a.ConformanceLevel = new(0)
			a.Transport = config.Transport{Unix: "/run/echo.sock"}
		}, `{"name": "echo", "version": "0.1.0", "conformanceLevel": 0, "transport": {"unix": "/run/echo.sock"},
			  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes",
			  "contentTypes": {"produces": ["text/plain"]}, "status": "experimental"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := minimal
			a.Skills = append([]config.Skill(nil), minimal.Skills...)
			tt.modify(&a)
			doc, err := Descriptor(a)
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, descriptorSchema, doc)
			jsontest.AssertSame(t, doc, tt.want)
		})
	}
}

func TestDescriptorErrors(t *testing.T) {
	tests := []struct {
		name  string
		agent config.HostedAgent
		want  string
	}{
		{"unencodable schema", config.HostedAgent{Name: "a", Version: "1.0.0",
			Skills: []config.Skill{{ID: "a", Name: "a", Description: "a", Input: map[string]any{"x": func() {}}}}}, "unsupported type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Descriptor(tt.agent)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q (doc %s)", err, tt.want, doc)
			}
		})
	}
}
