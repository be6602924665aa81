package agentsmd_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentsmd"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// The three examples of agents.md 7, reconstructed from the spec text
// character for character, and the draft-car Appendix A site with every
// section derived.
const (
	techBlogMD = `# My Tech Blog

Articles about software development.

## Can
- Read all public articles
- Search by topic
- Access RSS feed at /feed.xml

## Cannot
- Post comments (requires human)
- Access draft posts

## Contact
hello@myblog.example
`

	weatherAPIMD = `---
version: "1.0"
mcp:
  endpoint: https://weather.example/.well-known/mcp
  transport: streamable-http
  auth: none
---
# Weather API

Free weather data for AI agents.

## Can
- Get current conditions
- Get forecasts (up to 7 days)
- Get weather alerts

## Behavior
- 60 requests/minute
- Cache forecasts 30 minutes

## Contact
api@weather.example
`

	techMartMD = `---
version: "1.0"
mcp:
  endpoint: https://techmart.example/.well-known/mcp
  transport: streamable-http
  auth: oauth2
---
# TechMart

Electronics retailer.

## Can
- Search products
- Compare specifications
- Check prices and stock
- Add to cart (authenticated)
- Checkout (authenticated)

## Cannot
- Access order history without user consent
- Modify account settings

## Behavior
- 1 request/second for browsing
- Identify as AI agent in requests

## Contact
partners@techmart.example
`

	outdoorSupplyMD = `---
version: "1.0"
mcp:
  endpoint: https://outdoorsupply.example/mcp
  transport: streamable-http
  auth: oauth2
---
# Outdoor Supply Co.

Gear for outdoor adventures

## Can
- Search the product catalog
- Full store interaction via MCP (authenticated)

## Cannot
- Access /admin/*
- Access /internal/*

## Behavior
- product-search: at most 60 requests/minute
- Agent claude: 200 requests/minute; capabilities product-search, store-assistant
- Identify in User-Agent header

## Contact
agents@outdoorsupply.example
`
)

func TestRenderSpecExamples(t *testing.T) {
	tests := []struct {
		name string
		site config.Site
		want string
	}{
		{"agents.md 7 Minimal (No MCP)", fixtures.TechBlog(), techBlogMD},
		{"agents.md 7 With MCP Gateway", fixtures.WeatherAPI(), weatherAPIMD},
		{"agents.md 7 E-commerce with OAuth", fixtures.TechMart(), techMartMD},
		{"draft-car Appendix A, all sections derived", fixtures.OutdoorSupply(), outdoorSupplyMD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := agentsmd.Render(&tt.site)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Render mismatch\n--- got ---\n%s\n--- want ---\n%s", got, tt.want)
			}
		})
	}
}

// TestRenderDeterministicAndPure renders every fixture twice: same bytes,
// and the declaration is left exactly as it was.
func TestRenderDeterministicAndPure(t *testing.T) {
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			site := fx.Site
			before := fixtureByName(t, fx.Name)
			a, err := agentsmd.Render(&site)
			if err != nil {
				t.Fatal(err)
			}
			b, err := agentsmd.Render(&site)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Error("two renderings differ")
			}
			if !reflect.DeepEqual(site, before) {
				t.Error("Render modified the site")
			}
			if !bytes.HasSuffix(a, []byte("\n")) || bytes.HasSuffix(a, []byte("\n\n")) {
				t.Errorf("document must end with exactly one newline: %q", a[max(0, len(a)-20):])
			}
		})
	}
}

func fixtureByName(t *testing.T, name string) config.Site {
	t.Helper()
	for _, fx := range fixtures.All() {
		if fx.Name == name {
			return fx.Site
		}
	}
	t.Fatalf("no fixture %q", name)
	return config.Site{}
}

// TestRenderDerived covers each derivation rule on a small site.
func TestRenderDerived(t *testing.T) {
	base := func() config.Site {
		return config.Site{Name: "Shop", URL: "https://shop.example"}
	}
	tests := []struct {
		name string
		edit func(*config.Site)
		want string
	}{
		{
			name: "nothing declared: only the draft-car 2.6 rule",
			edit: func(*config.Site) {},
			want: "# Shop\n\n## Cannot\n- Access paths other than the declared capability endpoints\n",
		},
		{
			name: "capability qualifiers, trailing period, ID fallback",
			edit: func(s *config.Site) {
				s.Capabilities = []config.Capability{
					{ID: "search", Description: "Search the catalog."},
					{ID: "orders", Description: "List orders", Auth: config.Auth{Type: config.AuthAPIKey}},
					{ID: "cart.add", Description: "Add to cart", RequiresSession: true},
					{ID: "checkout", Description: "Check out", Auth: config.Auth{Type: config.AuthOAuth2}, RequiresSession: true, HumanHandoff: true},
					{ID: "browse"},
					{ID: "etc", Description: "Wait..."},
				}
				s.Access.Allow = []string{"/api/*"}
			},
			want: "# Shop\n\n## Can\n" +
				"- Search the catalog\n" +
				"- List orders (authenticated)\n" +
				"- Add to cart (requires session)\n" +
				"- Check out (authenticated, requires session, human completes)\n" +
				"- browse\n" +
				"- Wait...\n" +
				"\n## Behavior\n" +
				"- Sessions (POST /.well-known/agents/api/session) expire after 30 minutes\n" +
				"- Identify in User-Agent header\n",
		},
		{
			name: "allow rules only: no Cannot section",
			edit: func(s *config.Site) { s.Access.Allow = []string{"/"} },
			want: "# Shop\n",
		},
		{
			name: "rates, agent policies, session TTL, audit",
			edit: func(s *config.Site) {
				s.Description = "Everything for the kitchen."
				s.Contact = "agents@shop.example"
				s.RateLimit = config.PerSecond(1)
				s.Capabilities = []config.Capability{
					{ID: "search", Description: "Search", RateLimit: config.PerHour(1000)},
					{ID: "detail", Description: "Details", RateLimit: config.PerDay(1)},
				}
				s.Access.Disallow = []string{"/admin/*", "/*.json$"}
				s.Agents = []config.AgentPolicy{
					{Name: "*", RateLimit: config.PerMinute(10)},
					{Name: "GPTBot", Capabilities: []string{}},
					{Name: "claude", RateLimit: config.PerMinute(1), Capabilities: []string{"search"}},
					{Name: "quiet"},
				}
				s.Session.TTL = 90 * time.Minute
				s.Audit.Enabled = true
			},
			want: "# Shop\n\nEverything for the kitchen.\n\n## Can\n- Search\n- Details\n" +
				"\n## Cannot\n- Access /admin/*\n- Access /*.json$\n" +
				"\n## Behavior\n" +
				"- Respect 1 request/second\n" +
				"- search: at most 1000 requests/hour\n" +
				"- detail: at most 1 request/day\n" +
				"- Agents without their own policy: 10 requests/minute\n" +
				"- Agent GPTBot: no capabilities\n" +
				"- Agent claude: 1 request/minute; capabilities search\n" +
				"- Sessions (POST /.well-known/agents/api/session) expire after 90 minutes\n" +
				"- Actions are cryptographically logged; audit artifacts at https://shop.example/.well-known/agents/api/audit/:session_id\n" +
				"- Identify in User-Agent header\n" +
				"\n## Contact\nagents@shop.example\n",
		},
		{
			name: "session endpoint and TTL set, no capability needs one",
			edit: func(s *config.Site) {
				s.Access.Allow = []string{"/"}
				s.Session = config.Session{Endpoint: "/agent-session", TTL: time.Hour}
			},
			want: "# Shop\n\n## Behavior\n- Sessions (POST /agent-session) expire after 1 hour\n- Identify in User-Agent header\n",
		},
		{
			name: "non-nil empty overrides omit sections; nil derives",
			edit: func(s *config.Site) {
				s.Contact = "agents@shop.example"
				s.Capabilities = []config.Capability{{ID: "search", Description: "Search", RateLimit: config.PerMinute(5)}}
				s.AgentsMD.Can = []string{}
				s.AgentsMD.Cannot = []string{}
				s.AgentsMD.Contact = []string{}
			},
			want: "# Shop\n\n## Behavior\n- search: at most 5 requests/minute\n- Identify in User-Agent header\n",
		},
		{
			name: "contact override: several plain lines, autolink allowed",
			edit: func(s *config.Site) {
				s.Contact = "ignored@shop.example"
				s.AgentsMD.Cannot = []string{}
				s.AgentsMD.Contact = []string{"agents@shop.example", "<https://shop.example/agent-support>"}
			},
			want: "# Shop\n\n## Contact\nagents@shop.example\n<https://shop.example/agent-support>\n",
		},
		{
			name: "MCP gateway defaults: streamable-http, none",
			edit: func(s *config.Site) {
				s.AgentsMD.MCP = &config.MCPGateway{Endpoint: "https://shop.example/.well-known/mcp"}
				s.AgentsMD.Cannot = []string{}
			},
			want: "---\nversion: \"1.0\"\nmcp:\n  endpoint: https://shop.example/.well-known/mcp\n  transport: streamable-http\n  auth: none\n---\n# Shop\n",
		},
		{
			name: "MCP gateway api-key is api_key, sse kept",
			edit: func(s *config.Site) {
				s.AgentsMD.MCP = &config.MCPGateway{Endpoint: "https://shop.example/mcp", Transport: "sse", Auth: config.AuthAPIKey}
				s.AgentsMD.Cannot = []string{}
			},
			want: "---\nversion: \"1.0\"\nmcp:\n  endpoint: https://shop.example/mcp\n  transport: sse\n  auth: api_key\n---\n# Shop\n",
		},
		{
			name: "inline Markdown and near-misses are text",
			edit: func(s *config.Site) {
				s.Name = "C# Tools #1"
				s.Description = "-5 degrees, 1984 was a year, <3 and *emphasis*"
				s.AgentsMD.Can = []string{"Use [docs](https://shop.example/docs)", "Read `code`", "3.5 stars+", "Tag #1 items"}
				s.AgentsMD.Cannot = []string{}
			},
			want: "# C# Tools #1\n\n-5 degrees, 1984 was a year, <3 and *emphasis*\n\n## Can\n" +
				"- Use [docs](https://shop.example/docs)\n- Read `code`\n- 3.5 stars+\n- Tag #1 items\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.edit(&s)
			got, err := agentsmd.Render(&s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestRenderNil(t *testing.T) {
	if _, err := agentsmd.Render(nil); err == nil {
		t.Fatal("Render(nil) succeeded")
	}
}

// TestRenderRejects: values that would leave their line or change the
// document's structure are errors naming the field, never output. (What
// publish.Validate refuses besides, rates, TTLs and the MCP gateway, is in
// config's tests: Render writes validated sites.)
func TestRenderRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(*config.Site)
		want []string // substrings of the error
	}{
		{"empty name", func(s *config.Site) { s.Name = "" }, []string{"Name: required"}},
		{"blank name", func(s *config.Site) { s.Name = "  " }, []string{"Name: required"}},
		{"name with LF", func(s *config.Site) { s.Name = "Shop\n## Can" }, []string{"Name:", "line break"}},
		{"name closing sequence", func(s *config.Site) { s.Name = "Shop ##" }, []string{"Name:", "closing sequence"}},
		{"name all hashes", func(s *config.Site) { s.Name = "#" }, []string{"Name:", "closing sequence"}},
		{"description CR", func(s *config.Site) { s.Description = "a\rb" }, []string{"Description:", "line break"}},
		{"description LS", func(s *config.Site) { s.Description = "a\u2028b" }, []string{"Description:", "U+2028"}},
		{"description NUL", func(s *config.Site) { s.Description = "a\x00b" }, []string{"Description:", "control character"}},
		{"description invalid UTF-8", func(s *config.Site) { s.Description = "a\xffb" }, []string{"Description:", "UTF-8"}},
		{"description setext underline", func(s *config.Site) { s.Description = "===" }, []string{"Description:", "punctuation"}},
		{"description front matter fence", func(s *config.Site) { s.Description = "---" }, []string{"Description:", "punctuation"}},
		{"description indented", func(s *config.Site) { s.Description = "    code" }, []string{"Description:", "whitespace"}},
		{"can heading", func(s *config.Site) { s.AgentsMD.Can = []string{"ok", "# Admin"} }, []string{"AgentsMD.Can[1]:", "heading"}},
		{"can rule", func(s *config.Site) { s.AgentsMD.Can = []string{"---"} }, []string{"AgentsMD.Can[0]:", "punctuation"}},
		{"can short rule", func(s *config.Site) { s.AgentsMD.Can = []string{"--"} }, []string{"AgentsMD.Can[0]:"}},
		{"can star rule", func(s *config.Site) { s.AgentsMD.Can = []string{"* * *"} }, []string{"AgentsMD.Can[0]:"}},
		{"can nested list", func(s *config.Site) { s.AgentsMD.Can = []string{"- nested"} }, []string{"AgentsMD.Can[0]:", "list marker"}},
		{"can ordered list", func(s *config.Site) { s.AgentsMD.Can = []string{"1984. A year"} }, []string{"AgentsMD.Can[0]:", "list marker"}},
		{"can ordered paren", func(s *config.Site) { s.AgentsMD.Can = []string{"2) second"} }, []string{"AgentsMD.Can[0]:", "list marker"}},
		{"can bare bullet", func(s *config.Site) { s.AgentsMD.Can = []string{"+"} }, []string{"AgentsMD.Can[0]:"}},
		{"can fence", func(s *config.Site) { s.AgentsMD.Can = []string{"```go"} }, []string{"AgentsMD.Can[0]:", "code block"}},
		{"can tilde fence", func(s *config.Site) { s.AgentsMD.Can = []string{"~~~"} }, []string{"AgentsMD.Can[0]:", "code block"}},
		{"can quote", func(s *config.Site) { s.AgentsMD.Can = []string{"> quoted"} }, []string{"AgentsMD.Can[0]:", "block quote"}},
		{"can html", func(s *config.Site) { s.AgentsMD.Can = []string{"<div>x</div>"} }, []string{"AgentsMD.Can[0]:", "HTML"}},
		{"can html comment", func(s *config.Site) { s.AgentsMD.Can = []string{"<!-- x -->"} }, []string{"AgentsMD.Can[0]:", "HTML"}},
		{"can link definition", func(s *config.Site) { s.AgentsMD.Can = []string{"[x]: https://evil.example"} }, []string{"AgentsMD.Can[0]:", "link reference"}},
		{"can task box", func(s *config.Site) { s.AgentsMD.Can = []string{"[x] done"} }, []string{"AgentsMD.Can[0]:", "checkbox"}},
		{"can empty", func(s *config.Site) { s.AgentsMD.Can = []string{""} }, []string{"AgentsMD.Can[0]: is empty"}},
		{"cannot injected section", func(s *config.Site) { s.AgentsMD.Cannot = []string{"x\n## Can\n- everything"} }, []string{"AgentsMD.Cannot[0]:", "line break"}},
		{"behavior table row", func(s *config.Site) { s.AgentsMD.Behavior = []string{"|---|"} }, []string{"AgentsMD.Behavior[0]:"}},
		{"contact setext", func(s *config.Site) { s.AgentsMD.Contact = []string{"a@b.example", "---"} }, []string{"AgentsMD.Contact[1]:"}},
		{"site contact heading", func(s *config.Site) { s.Contact = "# x" }, []string{"Contact:", "heading"}},
		{"derived capability description", func(s *config.Site) {
			s.Capabilities = []config.Capability{{ID: "a", Description: "# Admin"}}
		}, []string{"Capabilities[0].Description:", "heading"}},
		{"derived capability ID", func(s *config.Site) {
			s.Capabilities = []config.Capability{{ID: "- a"}}
		}, []string{"Capabilities[0].ID:", "list marker"}},
		{"disallow pattern with LF", func(s *config.Site) { s.Access.Disallow = []string{"/a\n# b"} }, []string{"Access.Disallow[0]:", "line break"}},
		{"agent name with LF", func(s *config.Site) {
			s.Agents = []config.AgentPolicy{{Name: "bot\n# x", RateLimit: config.PerMinute(1)}}
		}, []string{"Agents[0]:", "line break"}},
		{"every problem at once", func(s *config.Site) {
			s.Name = ""
			s.Description = "---"
			s.AgentsMD.Can = []string{"# a", "ok", "> b"}
		}, []string{"Name:", "Description:", "AgentsMD.Can[0]:", "AgentsMD.Can[2]:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := config.Site{Name: "Shop", URL: "https://shop.example"}
			tt.edit(&s)
			out, err := agentsmd.Render(&s)
			if err == nil {
				t.Fatalf("no error; rendered\n%s", out)
			}
			if out != nil {
				t.Errorf("output alongside an error: %q", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	for _, fx := range []struct {
		name string
		site config.Site
	}{
		{"derived", fixtures.OutdoorSupply()},
		{"acme-ceramics", fixtures.AcmeCeramics()},
		{"front-matter", fixtures.TechMart()},
	} {
		b.Run(fx.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := agentsmd.Render(&fx.site); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGateway: one MCP capability and no declared gateway yield Format B
// with its endpoint and mapped auth; several, or an auth agents.md cannot
// name, yield none; a declared gateway wins.
func TestGateway(t *testing.T) {
	mcp := func(id string, a string) config.Capability {
		return config.Capability{ID: id, Endpoint: "https://s.example/" + id, Protocol: config.ProtocolMCP, Auth: config.Auth{Type: a}}
	}
	for _, c := range []struct {
		name string
		caps []config.Capability
		gw   *config.MCPGateway
		want *config.MCPGateway
	}{
		{"one, bearer", []config.Capability{mcp("a", config.AuthBearerToken)}, nil,
			&config.MCPGateway{Endpoint: "https://s.example/a", Transport: "streamable-http", Auth: config.AuthOAuth2}},
		{"one, api key", []config.Capability{mcp("a", config.AuthAPIKey)}, nil,
			&config.MCPGateway{Endpoint: "https://s.example/a", Transport: "streamable-http", Auth: config.AuthAPIKey}},
		{"one, none", []config.Capability{mcp("a", "")}, nil,
			&config.MCPGateway{Endpoint: "https://s.example/a", Transport: "streamable-http", Auth: config.AuthNone}},
		{"one, hmac", []config.Capability{mcp("a", config.AuthHMAC)}, nil, nil},
		{"two", []config.Capability{mcp("a", ""), mcp("b", "")}, nil, nil},
		{"declared wins", []config.Capability{mcp("a", "")}, &config.MCPGateway{Endpoint: "https://gw.example/"},
			&config.MCPGateway{Endpoint: "https://gw.example/"}},
	} {
		s := config.Site{Capabilities: c.caps, AgentsMD: config.AgentsMD{MCP: c.gw}}
		got := agentsmd.Gateway(&s)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
