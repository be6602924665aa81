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

// TestV010AcmeCeramics is the v0.1.0 full example with the agents.json
// details of its companion documents (sessions-audit notes).
func TestV010AcmeCeramics(t *testing.T) {
	s := fixtures.AcmeCeramics()
	doc, err := V010(&s)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "agents-protocol_agents.schema.json", doc)
	const api = "/.well-known/agents/api/"
	jsontest.AssertSame(t, doc, `{
  "protocol_version": "0.1.0",
  "site": {"name": "Acme Ceramics", "url": "https://acmeceramics.example.com",
    "description": "Handmade ceramic mugs, bowls, and vases", "contact": "support@acmeceramics.example.com"},
  "capabilities": [
    {"name": "search", "description": "Search for items or content.", "endpoint": "`+api+`search", "method": "GET",
     "params": {"q": {"type": "string", "description": "Search query", "required": true},
                "limit": {"type": "integer", "description": "Max results", "default": 20}}},
    {"name": "browse", "description": "List items with pagination.", "endpoint": "`+api+`browse", "method": "GET",
     "params": {"category": {"type": "string", "description": "Category to list", "enum": ["mugs", "bowls", "vases"]},
                "page": {"type": "integer", "description": "Page number", "default": 1}}},
    {"name": "detail", "description": "Get detailed information about a specific item.", "endpoint": "`+api+`detail", "method": "GET",
     "params": {"id": {"type": "string", "description": "Item ID", "required": true}}},
    {"name": "cart.add", "description": "Add an item to a cart.", "endpoint": "`+api+`cart/add", "method": "POST",
     "params": {"id": {"type": "string", "description": "Item ID", "required": true},
                "quantity": {"type": "integer", "description": "Quantity", "default": 1}},
     "requires_session": true},
    {"name": "cart.view", "description": "View the current cart.", "endpoint": "`+api+`cart", "method": "GET",
     "requires_session": true},
    {"name": "cart.update", "description": "Update a cart item's quantity.", "endpoint": "`+api+`cart/update", "method": "PATCH",
     "params": {"id": {"type": "string", "description": "Item ID", "required": true},
                "quantity": {"type": "integer", "description": "New quantity", "required": true}},
     "requires_session": true},
    {"name": "cart.remove", "description": "Remove an item from the cart.", "endpoint": "`+api+`cart/remove", "method": "DELETE",
     "params": {"id": {"type": "string", "description": "Item ID", "required": true}},
     "requires_session": true},
    {"name": "checkout", "description": "Initiate checkout and receive a human-handoff URL.", "endpoint": "`+api+`checkout",
     "method": "POST", "requires_session": true, "human_handoff": true}
  ],
  "session": {"endpoint": "/.well-known/agents/api/session", "ttl": 3600},
  "rate_limit": {"max_requests_per_minute": 60, "max_sessions": 5},
  "audit": {"enabled": true, "endpoint": "/.well-known/agents/api/audit", "public_key": "`+fixtures.AcmeCeramicsPublicKey+`"},
  "docs_url": "https://acmeceramics.example.com/docs/agents"
}`)
	// params keep the declaration's order (a map would sort "q" after
	// "limit").
	if i, j := strings.Index(string(doc), `"q": {`), strings.Index(string(doc), `"limit": {`); i < 0 || j < i {
		t.Errorf("params are not in declaration order:\n%s", doc)
	}
}

// TestV010Sections covers when session, rate_limit and audit appear.
func TestV010Sections(t *testing.T) {
	base := func() config.Site {
		return config.Site{Name: "S", URL: "https://s.example", Capabilities: []config.Capability{
			{ID: "search", Endpoint: "https://s.example/api/search"},
		}}
	}
	tests := []struct {
		name   string
		modify func(*config.Site)
		want   map[string]any // top-level members beyond protocol_version, site, capabilities; nil: absent
	}{
		{"no session capability omits session", func(*config.Site) {}, nil},
		{"session capability renders defaults", func(s *config.Site) { s.Capabilities[0].RequiresSession = true },
			map[string]any{"session": map[string]any{"endpoint": "/.well-known/agents/api/session", "ttl": 1800.0}}},
		{"ttl alone renders session", func(s *config.Site) { s.Session.TTL = 90 * time.Second },
			map[string]any{"session": map[string]any{"endpoint": "/.well-known/agents/api/session", "ttl": 90.0}}},
		{"session endpoint on the origin is a path", func(s *config.Site) { s.Session.Endpoint = "https://s.example/sess" },
			map[string]any{"session": map[string]any{"endpoint": "/sess", "ttl": 1800.0}}},
		{"per-second rate in minutes", func(s *config.Site) { s.RateLimit = config.PerSecond(2) },
			map[string]any{"rate_limit": map[string]any{"max_requests_per_minute": 120.0}}},
		{"per-hour rate rounds up", func(s *config.Site) { s.RateLimit = config.PerHour(30) },
			map[string]any{"rate_limit": map[string]any{"max_requests_per_minute": 1.0}}},
		{"max sessions alone", func(s *config.Site) { s.Session.MaxSessions = 3 },
			map[string]any{"rate_limit": map[string]any{"max_sessions": 3.0}}},
		{"negative max sessions ignored", func(s *config.Site) { s.Session.MaxSessions = -1 }, nil},
		{"audit default endpoint", func(s *config.Site) { s.Audit.Enabled = true },
			map[string]any{"audit": map[string]any{"enabled": true, "endpoint": "/.well-known/agents/api/audit"}}},
		{"audit endpoint without placeholder", func(s *config.Site) {
			s.Audit = config.Audit{Enabled: true, Endpoint: "https://s.example/audit/:session_id", PublicKey: "k"}
		}, map[string]any{"audit": map[string]any{"enabled": true, "endpoint": "/audit", "public_key": "k"}}},
		{"audit disabled omits audit", func(s *config.Site) { s.Audit.Endpoint = "https://s.example/audit/:session_id" }, nil},
		{"docs url", func(s *config.Site) { s.DocsURL = "https://s.example/docs" },
			map[string]any{"docs_url": "https://s.example/docs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.modify(&s)
			doc, err := V010(&s)
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, "agents-protocol_agents.schema.json", doc)
			got := jsontest.Decode(t, doc)
			delete(got, "protocol_version")
			delete(got, "site")
			delete(got, "capabilities")
			if len(got) != len(tt.want) {
				t.Fatalf("members %v, want %v\n%s", got, tt.want, doc)
			}
			for k, v := range tt.want {
				if !jsontest.Equal(got[k], v) {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

// TestV010Capability covers the capability members: only requires_session
// and human_handoff when true, the method default, endpoints relative to the
// origin with templates intact, foreign endpoints whole.
func TestV010Capability(t *testing.T) {
	s := config.Site{Name: "S", URL: "https://s.example:8443/shop", Capabilities: []config.Capability{
		{ID: "get", Endpoint: "https://s.example:8443/api/items/{id}?full=1"},
		{ID: "remote", Endpoint: "https://api.other.example/x", Method: "put"},
		{ID: "rel", Endpoint: "/api/rel", Params: []config.Param{{Name: "tags", Type: config.TypeArray, Description: "a & b"}}},
	}}
	doc, err := V010(&s)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, "agents-protocol_agents.schema.json", doc)
	jsontest.AssertSame(t, doc, `{"protocol_version": "0.1.0", "site": {"name": "S", "url": "https://s.example:8443/shop"},
  "capabilities": [
    {"name": "get", "endpoint": "/api/items/{id}?full=1", "method": "GET"},
    {"name": "remote", "endpoint": "https://api.other.example/x", "method": "PUT"},
    {"name": "rel", "endpoint": "/api/rel", "method": "GET", "params": {"tags": {"type": "array", "description": "a & b"}}}
  ]}`)
	if strings.Contains(string(doc), `\u0026`) {
		t.Errorf("HTML-escaped inside an ordered object:\n%s", doc)
	}
	if strings.Contains(string(doc), "requires_session") || strings.Contains(string(doc), "human_handoff") {
		t.Errorf("false flags rendered:\n%s", doc)
	}
}

func TestV010Errors(t *testing.T) {
	tests := []struct {
		name string
		site *config.Site
		want string
	}{
		{"nil site", nil, "nil site"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := V010(tt.site)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q (doc %s)", err, tt.want, doc)
			}
		})
	}
}
