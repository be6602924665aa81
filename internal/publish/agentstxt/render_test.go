package agentstxt

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/format/linetext"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

var dialects = []config.Dialect{config.DialectIETFDraft, config.DialectV010}

func TestRenderSpecExamples(t *testing.T) {
	tests := []struct {
		name    string
		site    config.Site
		dialect config.Dialect
		want    string
	}{
		{"draft-car Appendix A", fixtures.OutdoorSupply(), config.DialectIETFDraft, appendixA},
		{"v0.1.0 Full Example", fixtures.AcmeCeramics(), config.DialectV010, fullExample},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(&tt.site, tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Render mismatch\n--- got\n%s--- want\n%s", got, tt.want)
			}
		})
	}
}

// TestRenderFixtures holds every fixture to the properties any rendered
// file must have, in both dialects.
func TestRenderFixtures(t *testing.T) {
	for _, fx := range fixtures.All() {
		for _, d := range dialects {
			t.Run(fx.Name+"/"+d.String(), func(t *testing.T) {
				b, err := Render(&fx.Site, d)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := Render(&fx.Site, d)
				if !bytes.Equal(b, again) {
					t.Error("two renders differ")
				}
				p := Project(&fx.Site, d)
				if fromProjection, err := Render(&p, d); err != nil || !bytes.Equal(b, fromProjection) {
					t.Errorf("Render(Project(s)) differs from Render(s) (err %v)", err)
				}
				s := string(b)
				switch {
				case !strings.HasSuffix(s, "\n"):
					t.Error("no final newline")
				case strings.HasSuffix(s, "\n\n"):
					t.Error("trailing blank line")
				case strings.Contains(s, "\n\n\n"):
					t.Error("two blank lines in a row")
				case strings.Contains(s, " \n"):
					t.Error("trailing space")
				}
				f, err := Parse(b)
				if err != nil {
					t.Fatal(err)
				}
				if f.Dialect != d {
					t.Errorf("Parse detected %v, rendered %v", f.Dialect, d)
				}
			})
		}
	}
}

func TestRenderLayout(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name    string
		dialect config.Dialect
		site    config.Site
		want    string
	}{
		{
			name:    "draft-car agent declaration",
			dialect: config.DialectIETFDraft,
			site: config.Site{
				Name:            "  Helper Bot ",
				URL:             "https://bot.example",
				PrivacyPolicy:   "https://bot.example/privacy",
				DeclarationType: "Agent",
				OperatesOn:      []string{"https://shop.example", "https://news.example"},
				GeneratedAt:     time.Date(2026, 3, 1, 1, 30, 15, 999, berlin),
				AgentsJSONURL:   "https://bot.example/.well-known/agents.json",
			},
			want: `# agents.txt
Spec-Version: 1.0
Generated-At: 2026-03-01T00:30:15Z
Declaration-Type: agent
Operates-On: https://shop.example
Operates-On: https://news.example

Site-Name: Helper Bot
Site-URL: https://bot.example
Site-Privacy-Policy: https://bot.example/privacy
Agents-JSON: https://bot.example/.well-known/agents.json
`,
		},
		{
			name:    "draft-car platform is the default and not written",
			dialect: config.DialectIETFDraft,
			site:    config.Site{Name: "S", URL: "https://s.example", DeclarationType: config.DeclarationPlatform},
			want:    "# agents.txt\nSpec-Version: 1.0\n\nSite-Name: S\nSite-URL: https://s.example\n",
		},
		{
			name:    "draft-car capability fields and agent blocks",
			dialect: config.DialectIETFDraft,
			site: config.Site{
				Name: "S", URL: "https://s.example",
				Capabilities: []config.Capability{
					{
						ID: "orders", Endpoint: "https://s.example/graphql", Protocol: "graphql", Method: "post",
						Auth: config.Auth{
							Type: "OAuth2", TokenEndpoint: "https://s.example/token", DocsURL: "https://s.example/docs/auth",
							Scopes: []string{"orders:read", " orders:write "}, Header: "X-Not-Published",
						},
						RateLimit: config.PerHour(1000), Description: "Orders", OpenAPI: "https://s.example/openapi.json",
						Params: []config.Param{
							{Name: "id", In: config.InPath, Type: config.TypeInteger, Required: true},
							{Name: "X-Trace", In: config.InHeader, Type: config.TypeBoolean},
							{Name: "total", In: config.InBody, Type: config.TypeNumber, Description: "Sum - in cents", Default: 5},
						},
					},
					{ID: "feed", Endpoint: "wss://s.example/feed", Protocol: config.ProtocolWebSocket},
				},
				Agents: []config.AgentPolicy{
					{Name: "gptbot", Capabilities: []string{}},
					{Name: "helper", RateLimit: config.PerDay(5000), AgentDeclaration: "https://bot.example/.well-known/agents.txt"},
				},
			},
			want: `# agents.txt
Spec-Version: 1.0

Site-Name: S
Site-URL: https://s.example

Capability: orders
  Endpoint: https://s.example/graphql
  Method: POST
  Protocol: GraphQL
  Auth: oauth2
  Auth-Endpoint: https://s.example/token
  Auth-Docs: https://s.example/docs/auth
  Scopes: orders:read, orders:write
  Rate-Limit: 1000/hour
  Description: Orders
  OpenAPI: https://s.example/openapi.json
  Param: id (path, integer, required)
  Param: X-Trace (header, boolean)
  Param: total (body, number) - Sum - in cents

Capability: feed
  Endpoint: wss://s.example/feed
  Protocol: WebSocket
  Auth: none

Agent: gptbot
  Capabilities:

Agent: helper
  Rate-Limit: 5000/day
  Agent-Declaration: https://bot.example/.well-known/agents.txt
`,
		},
		{
			name:    "v0.1.0 defaults",
			dialect: config.DialectV010,
			site: config.Site{
				Name: "Shop", URL: "https://shop.example/store/",
				Capabilities: []config.Capability{{ID: "search"}, {ID: "cart.add", RequiresSession: true}},
				Flows: []config.Flow{
					{Name: "buy", Steps: []string{"search", "cart.add"}},
					{Name: "look", Steps: []string{"search"}, Description: "Just looking"},
				},
				RateLimit: config.PerSecond(2),
				Audit:     config.Audit{Enabled: true},
			},
			want: `# agents.txt - Shop
# https://shop.example/store/

Site: Shop
URL: https://shop.example/store/

Agents-JSON: https://shop.example/.well-known/agents.json

# Capabilities
Allow: search
Allow: cart.add

# Suggested Flows
Flow: buy → search, cart.add
Flow: look → search
Flow-Description: Just looking

Rate-Limit: 120/minute
Session-TTL: 1800s
Audit: true
Audit-Endpoint: https://shop.example/.well-known/agents/api/audit/:session_id
`,
		},
		{
			name:    "v0.1.0 rounds limits up to what the grammar holds",
			dialect: config.DialectV010,
			site: config.Site{
				Name: "S", URL: "https://s.example", AgentsJSONURL: "https://cdn.example/agents.json",
				RateLimit: config.PerHour(90),
				Session:   config.Session{TTL: 90*time.Second + time.Millisecond},
			},
			want: `# agents.txt - S
# https://s.example

Site: S
URL: https://s.example

Agents-JSON: https://cdn.example/agents.json

Rate-Limit: 2/minute
Session-TTL: 91s
`,
		},
		{
			name:    "empty site",
			dialect: config.DialectV010,
			site:    config.Site{},
			want:    "# agents.txt\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(&tt.site, tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Render mismatch\n--- got\n%s--- want\n%s", got, tt.want)
			}
		})
	}
}

// TestRenderNeverWritesInjection: Render writes validated sites, and
// config's tests hold Validate to refusing each of these values with its
// field path. Unvalidated, Render still never writes a line that the value
// would inject: it refuses (ErrUnsafeValue), or the value is trimmed or not
// carried.
func TestRenderNeverWritesInjection(t *testing.T) {
	payloads := fixtures.LineInjections
	v1 := config.DialectV010
	mutations := append(fixtures.AgentsTxtTextFields(), fixtures.TextField{
		Name: "url host decoded into a default", Dialect: v1, Path: "AgentsJSONURL (derived from URL)", Set: func(s *config.Site, v string) {
			s.URL = "https://a%c2%85b.example" // the host decodes to a NEL
		}})
	base := func() config.Site {
		return config.Site{
			Name: "S", URL: "https://s.example",
			Capabilities: []config.Capability{{ID: "search", Endpoint: "https://s.example/search", Params: []config.Param{{Name: "q"}}}},
			Agents:       []config.AgentPolicy{{Name: "*"}},
			Flows:        []config.Flow{{Name: "f", Steps: []string{"search"}}},
			Audit:        config.Audit{Enabled: true, Endpoint: "https://s.example/audit/:session_id"},
		}
	}
	injected := []string{"Disallow: /", "Allow: /admin", "Agent: evil", "Allow: /"}
	for _, m := range mutations {
		for pname, payload := range payloads {
			t.Run(m.Dialect.String()+"/"+m.Name+"/"+pname, func(t *testing.T) {
				s := base()
				m.Set(&s, payload)
				b, err := Render(&s, m.Dialect)
				if err != nil {
					if b != nil {
						t.Error("bytes returned with the error")
					}
					if !errors.Is(err, ErrUnsafeValue) {
						t.Errorf("error %v does not wrap ErrUnsafeValue", err)
					}
					return
				}
				for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
					if r, p := linetext.Find(l, false); p != linetext.OK {
						t.Fatalf("line %q holds %s; rendered:\n%q", l, linetext.Describe(r, p), b)
					}
					if slices.Contains(injected, l) {
						t.Fatalf("injected line %q; rendered:\n%q", l, b)
					}
				}
			})
		}
	}
}

func TestRenderBadArguments(t *testing.T) {
	if _, err := Render(nil, config.DialectIETFDraft); err == nil {
		t.Error("nil site: no error")
	}
	s := fixtures.OutdoorSupply()
	if _, err := Render(&s, config.Dialect(7)); err == nil {
		t.Error("unknown dialect: no error")
	}
	big := config.Site{Name: "S", URL: "https://s.example", Access: config.Access{Allow: []string{strings.Repeat("/a", MaxSize/2)}}}
	if _, err := Render(&big, config.DialectIETFDraft); err == nil {
		t.Error("output over MaxSize: no error")
	}
}
