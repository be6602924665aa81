package agentstxt

import (
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// Capability identifier rules of each grammar (draft-car 2.5; v0.1.0
// agents.json capability names).
var idRules = map[config.Dialect]*regexp.Regexp{
	config.DialectIETFDraft: regexp.MustCompile(`^[a-z0-9-]+$`),
	config.DialectV010:      regexp.MustCompile(`^[a-z][a-z0-9_.]*$`),
}

// idsFit reports whether every capability ID of s is valid in d.
func idsFit(s *config.Site, d config.Dialect) bool {
	for _, c := range s.Capabilities {
		if !idRules[d].MatchString(c.ID) {
			return false
		}
	}
	return true
}

// handMade are declarations that use what the fixtures leave out.
func handMade() []fixtures.Fixture {
	berlin := time.FixedZone("CET", 3600)
	return []fixtures.Fixture{
		{Name: "agent-declaration", Site: config.Site{
			Name:            "Helper Bot",
			URL:             "https://bot.example",
			Description:     "  Books tables for people  ",
			Contact:         "ops@bot.example",
			PrivacyPolicy:   "https://bot.example/privacy",
			DeclarationType: config.DeclarationAgent,
			OperatesOn:      []string{"https://shop.example", " https://news.example "},
			GeneratedAt:     time.Date(2026, 5, 17, 9, 8, 7, 123456789, berlin),
			AgentsJSONURL:   "https://bot.example/.well-known/agents.json",
			Version:         "2.0.0",
			Metadata:        map[string]string{"not": "carried"},
		}},
		{Name: "auth-scopes-openapi", Site: config.Site{
			Name: "Orders Inc", URL: "https://orders.example",
			Capabilities: []config.Capability{
				{
					ID: "orders", Name: "Orders", Endpoint: "https://orders.example/api/orders", Method: "post",
					Auth: config.Auth{
						Type: config.AuthOAuth2, TokenEndpoint: "https://orders.example/oauth/token",
						DocsURL: "https://orders.example/docs/auth", Scopes: []string{"orders:read", "orders:write"},
						Header: "X-Key", AuthorizationServer: "https://auth.example",
					},
					RateLimit: config.PerHour(500), Description: "Place and list orders",
					OpenAPI: "https://orders.example/openapi.json",
					Params: []config.Param{
						{Name: "id", In: config.InPath, Type: config.TypeInteger, Required: true, Description: "Order (numeric) id"},
						{Name: "X-Trace", In: config.InHeader, Type: config.TypeBoolean},
						{Name: "amount", In: config.InBody, Type: config.TypeNumber, Min: new(0.0), Enum: []any{1.0, 2.0}},
						{Name: "note", Format: "text"},
					},
					Outputs: map[string]string{"id": "string"}, Tags: []string{"shop"}, RequiresSession: true,
				},
				{ID: "graph", Endpoint: "https://orders.example/graphql", Protocol: config.ProtocolGraphQL, Auth: config.Auth{Type: config.AuthAPIKey}},
				{ID: "live-feed", Endpoint: "wss://orders.example/feed", Protocol: "websocket", RateLimit: config.PerSecond(3)},
				{ID: "peer", Endpoint: "https://orders.example/a2a", Protocol: config.ProtocolA2A, Method: "POST", Auth: config.Auth{Type: config.AuthHMAC, DocsURL: "https://orders.example/hmac"}},
			},
			Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/api/admin$"}},
			Agents: []config.AgentPolicy{
				{Name: "*", RateLimit: config.PerMinute(10)},
				{Name: "helper", Capabilities: []string{"orders", "graph"}, AgentDeclaration: "https://bot.example/.well-known/agents.txt"},
				{Name: "blocked", Capabilities: []string{}},
			},
		}},
		{Name: "sessions", Site: config.Site{
			Name: "Shop", URL: "https://shop.example/store/",
			Capabilities: []config.Capability{
				{ID: "search", Endpoint: "https://shop.example/api/search"},
				{ID: "cart.add", Endpoint: "https://shop.example/api/cart", Method: "POST", RequiresSession: true},
			},
			Flows: []config.Flow{
				{Name: "buy", Steps: []string{"search", "cart.add"}, Description: "Find it, then buy it"},
				{Name: "browse only", Steps: []string{" search "}},
			},
			RateLimit: config.PerSecond(2),
			Session:   config.Session{MaxSessions: 3},
			Audit:     config.Audit{Enabled: true, PublicKey: "not carried"},
			DocsURL:   "https://shop.example/docs",
		}},
		{Name: "both-grammars", Site: config.Site{
			Name: "Tiny", URL: "https://tiny.example",
			Capabilities: []config.Capability{{ID: "search", Endpoint: "https://tiny.example/search"}, {ID: "browse", Endpoint: "https://tiny.example/browse"}},
			RateLimit:    config.PerDay(2000),
			Session:      config.Session{TTL: 61500 * time.Millisecond},
		}},
		// Graded policies (issue 26): Proven-Rate-Limit and
		// Proven-Capabilities, agentready's extension of the Agent block.
		{Name: "graded", Site: config.Site{
			Name: "Graded", URL: "https://graded.example",
			Capabilities: []config.Capability{{ID: "search", Endpoint: "https://graded.example/search"}, {ID: "cart", Endpoint: "https://graded.example/cart"}},
			Agents: []config.AgentPolicy{
				{Name: "*", RateLimit: config.PerMinute(30), Capabilities: []string{"search"}, Proven: &config.Grant{RateLimit: config.PerMinute(120)}},
				{Name: "GPTBot", RateLimit: config.PerMinute(10), Capabilities: []string{"search"},
					Proven: &config.Grant{RateLimit: config.PerMinute(600), Capabilities: []string{"search", " cart"}}},
				{Name: "Quiet", Proven: &config.Grant{Capabilities: []string{}}},
			},
		}},
		{Name: "bare", Site: config.Site{Name: "Bare", URL: "https://bare.example"}},
	}
}

// TestRoundTrip: what Render writes, Parse reads back as Project says, and
// without a single line-level warning.
func TestRoundTrip(t *testing.T) {
	tested := map[config.Dialect]int{}
	for _, fx := range append(fixtures.All(), handMade()...) {
		for _, d := range dialects {
			if !idsFit(&fx.Site, d) {
				continue
			}
			tested[d]++
			t.Run(fx.Name+"/"+d.String(), func(t *testing.T) {
				b, err := Render(&fx.Site, d)
				if err != nil {
					t.Fatal(err)
				}
				f, err := Parse(b)
				if err != nil {
					t.Fatal(err)
				}
				if f.Dialect != d {
					t.Fatalf("detected %v", f.Dialect)
				}
				want := Project(&fx.Site, d)
				if !reflect.DeepEqual(f.Site, want) {
					t.Errorf("Parse(Render(s)).Site != Project(s)\n got %+v\nwant %+v\nfile:\n%s", f.Site, want, b)
				}
				for _, w := range f.Warnings {
					if w.Line != 0 {
						t.Errorf("rendered file has a doubtful line: %v\n%s", w, b)
					}
				}
				if again := Project(&want, d); !reflect.DeepEqual(again, want) {
					t.Errorf("Project is not idempotent\n got %+v\nwant %+v", again, want)
				}
			})
		}
	}
	// The ID rules must leave real work in both grammars.
	if tested[config.DialectIETFDraft] < 8 || tested[config.DialectV010] < 8 {
		t.Errorf("too few combinations tested: %v", tested)
	}
}

// TestProjectDrops pins what each grammar cannot carry.
func TestProjectDrops(t *testing.T) {
	acme := fixtures.AcmeCeramics()
	dc := Project(&acme, config.DialectIETFDraft)
	// Of the session, draft-car carries only the endpoint a capability
	// that requires one is used through (Session-Endpoint).
	if dc.Flows != nil || !dc.RateLimit.IsZero() || dc.Session != (config.Session{Endpoint: "https://acmeceramics.example.com/.well-known/agents/api/session"}) ||
		dc.Audit != (config.Audit{}) || dc.DocsURL != "" {
		t.Errorf("draft-car carries v0.1.0 fields: %+v", dc)
	}
	if c := dc.Capabilities[0]; c.Params[1].Default != nil || c.RequiresSession {
		t.Errorf("draft-car carries %+v", c)
	}
	if c := dc.Capabilities[3]; c.ID != "cart.add" || !c.RequiresSession {
		t.Errorf("draft-car drops the session of %+v", c)
	}
	out := fixtures.OutdoorSupply()
	v := Project(&out, config.DialectV010)
	if v.Access.Allow != nil || v.Agents != nil || !v.GeneratedAt.IsZero() {
		t.Errorf("v0.1.0 carries draft-car fields: %+v", v)
	}
	if !reflect.DeepEqual(v.Capabilities, []config.Capability{{ID: "product-search"}, {ID: "store-assistant"}}) {
		t.Errorf("v0.1.0 capabilities %+v", v.Capabilities)
	}
	if got := Project(nil, config.DialectV010); !reflect.DeepEqual(got, config.Site{}) {
		t.Errorf("Project(nil) = %+v", got)
	}
	if got := Project(&out, config.Dialect(5)); !reflect.DeepEqual(got, config.Site{}) {
		t.Errorf("unknown dialect: %+v", got)
	}
}
