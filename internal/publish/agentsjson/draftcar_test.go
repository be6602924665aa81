package agentsjson

import (
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsontest"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// specMinimal is the minimal agents.json of draft-car section 3.2, verbatim.
const specMinimal = `{ "specVersion": "1.0", "generatedAt":
"2026-02-01T00:00:00.000Z", "site": { "name": "Example Store", "url": "https://example.com" }, "capabilities": [ { "id": "product-search", "description": "Search the product catalog", "endpoint":
"https://example.com/api/search", "method": "GET", "protocol": "REST", "auth": { "type": "none" }, "rateLimit": { "requests": 60, "window": "minute" } } ], "access": { "allow": ["/api/*"],
"disallow": ["/admin/*"] }, "agents": { "*": {} } }`

// TestDraftCarSpecExample declares the site of the draft's minimal example
// and wants the draft's JSON back.
func TestDraftCarSpecExample(t *testing.T) {
	s := config.Site{
		Name:        "Example Store",
		URL:         "https://example.com",
		GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		Capabilities: []config.Capability{{
			ID:          "product-search",
			Description: "Search the product catalog",
			Endpoint:    "https://example.com/api/search",
			RateLimit:   config.PerMinute(60),
		}},
		Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/admin/*"}},
		Agents: []config.AgentPolicy{{Name: "*"}},
	}
	doc, err := DraftCar(&s)
	if err != nil {
		t.Fatal(err)
	}
	jsontest.AssertSame(t, doc, specMinimal)
	schematest.Validate(t, "draft-car_agents-json.schema.json", doc)
	if !strings.HasPrefix(string(doc), "{\n  \"specVersion\": \"1.0\",\n  \"generatedAt\"") {
		t.Errorf("members are not in the draft's order:\n%s", doc)
	}
}

// TestDraftCarOutdoorSupply is Appendix A as JSON: the agents.txt of the
// appendix, typed as section 3.2 says.
func TestDraftCarOutdoorSupply(t *testing.T) {
	s := fixtures.OutdoorSupply()
	doc, err := DraftCar(&s)
	if err != nil {
		t.Fatal(err)
	}
	jsontest.AssertSame(t, doc, `{
  "specVersion": "1.0",
  "generatedAt": "2026-02-01T00:00:00.000Z",
  "site": {"name": "Outdoor Supply Co.", "url": "https://outdoorsupply.example",
    "description": "Gear for outdoor adventures", "contact": "agents@outdoorsupply.example"},
  "capabilities": [
    {"id": "product-search", "description": "Search the product catalog",
     "endpoint": "https://outdoorsupply.example/api/search", "method": "GET", "protocol": "REST",
     "auth": {"type": "none"}, "rateLimit": {"requests": 60, "window": "minute"},
     "parameters": [
       {"name": "q", "in": "query", "type": "string", "required": true, "description": "Search query"},
       {"name": "limit", "in": "query", "type": "integer", "default": 20, "description": "Max results, default 20"},
       {"name": "category", "in": "query", "type": "string", "description": "Filter by category"}]},
    {"id": "store-assistant", "description": "Full store interaction via MCP",
     "endpoint": "https://outdoorsupply.example/mcp", "protocol": "MCP",
     "auth": {"type": "bearer-token", "tokenEndpoint": "https://outdoorsupply.example/auth/token"}}
  ],
  "access": {"allow": ["/api/*", "/mcp"], "disallow": ["/admin/*", "/internal/*"]},
  "agents": {"*": {}, "claude": {"rateLimit": {"requests": 200, "window": "minute"},
    "capabilities": ["product-search", "store-assistant"]}}
}`)
}

// TestDraftCarEmpty: a bare site renders the arrays and objects the schema
// requires as [] and {}, never null, and nothing optional.
func TestDraftCarEmpty(t *testing.T) {
	s := config.Site{Name: "Bare", URL: "https://bare.example"}
	doc, err := DraftCar(&s)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "draft-car_agents-json.schema.json", doc)
	want := `{
  "specVersion": "1.0",
  "site": {
    "name": "Bare",
    "url": "https://bare.example"
  },
  "capabilities": [],
  "access": {
    "allow": [],
    "disallow": []
  },
  "agents": {}
}
`
	if string(doc) != want {
		t.Fatalf("got\n%s\nwant\n%s", doc, want)
	}
}

func TestDraftCarOptionalFields(t *testing.T) {
	s := config.Site{
		Name:            "Operator",
		URL:             "https://operator.example",
		Description:     "Shopping agent <beta> & friends",
		Contact:         "ops@operator.example",
		PrivacyPolicy:   "https://operator.example/privacy",
		DeclarationType: config.DeclarationAgent,
		OperatesOn:      []string{"https://shop.example", "https://store.example"},
		GeneratedAt:     time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.FixedZone("CET", 3600)),
		Metadata:        map[string]string{"owner": "team-a", "build": "42"},
		Capabilities: []config.Capability{{
			ID:          "lookup",
			Description: "Look up an order",
			Endpoint:    "https://operator.example/api/orders/{id}",
			Method:      "post",
			Auth: config.Auth{Type: config.AuthOAuth2, TokenEndpoint: "https://operator.example/token",
				DocsURL: "https://operator.example/docs/auth", Scopes: []string{"orders:read"}, Header: "X-Secret-Header"},
			OpenAPI: "https://operator.example/openapi.json",
			Params: []config.Param{{Name: "id", In: config.InPath, Type: config.TypeInteger, Required: true,
				Min: new(1.0), Max: new(1e6), Default: 0}},
		}},
		Agents: []config.AgentPolicy{
			{Name: "*", Capabilities: []string{}},
			{Name: "partner", AgentDeclaration: "https://partner.example/.well-known/agents.txt"},
		},
	}
	doc, err := DraftCar(&s)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "draft-car_agents-json.schema.json", doc)
	jsontest.AssertSame(t, doc, `{
  "specVersion": "1.0",
  "generatedAt": "2026-03-04T04:06:07.891Z",
  "declarationType": "agent",
  "operatesOn": ["https://shop.example", "https://store.example"],
  "site": {"name": "Operator", "url": "https://operator.example", "description": "Shopping agent <beta> & friends",
    "contact": "ops@operator.example", "privacyPolicy": "https://operator.example/privacy"},
  "capabilities": [{"id": "lookup", "description": "Look up an order",
    "endpoint": "https://operator.example/api/orders/{id}", "method": "POST", "protocol": "REST",
    "auth": {"type": "oauth2", "tokenEndpoint": "https://operator.example/token",
      "docsUrl": "https://operator.example/docs/auth", "scopes": ["orders:read"]},
    "openapi": "https://operator.example/openapi.json",
    "parameters": [{"name": "id", "in": "path", "type": "integer", "required": true, "default": 0, "max": 1000000, "min": 1}]}],
  "access": {"allow": [], "disallow": []},
  "agents": {"*": {"capabilities": []}, "partner": {"agentDeclaration": "https://partner.example/.well-known/agents.txt"}},
  "metadata": {"build": "42", "owner": "team-a"}
}`)
	for _, leak := range []string{"X-Secret-Header", `\u0026`, `\u003c`} {
		if strings.Contains(string(doc), leak) {
			t.Errorf("document contains %q:\n%s", leak, doc)
		}
	}
}

// TestDraftCarDeclarationTypePlatform: platform is the default and is not
// rendered (draft-car 2.3).
func TestDraftCarDeclarationTypePlatform(t *testing.T) {
	s := config.Site{Name: "P", URL: "https://p.example", DeclarationType: config.DeclarationPlatform}
	doc, err := DraftCar(&s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "declarationType") {
		t.Errorf("platform rendered explicitly:\n%s", doc)
	}
}

func TestDraftCarErrors(t *testing.T) {
	tests := []struct {
		name string
		site *config.Site
		want string
	}{
		{"nil site", nil, "nil site"},
		{"unencodable default", &config.Site{Name: "x", URL: "https://x.example",
			Capabilities: []config.Capability{{ID: "a", Description: "a", Endpoint: "https://x.example/a",
				Params: []config.Param{{Name: "p", Default: func() {}}}}}}, "unsupported type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := DraftCar(tt.site)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q (doc %s)", err, tt.want, doc)
			}
		})
	}
}
