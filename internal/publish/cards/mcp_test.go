package cards_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/awp"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

const serverCardSchema = "mcp_server-card.schema.json#/$defs/ServerCard"

// TestServerCardSchemaExamples: the schema kept in internal/specschemas
// accepts the upstream repository's valid examples and refuses its invalid
// ones (testdata/server-card/SOURCE.md), so a card it accepts is one the
// upstream schema accepts.
func TestServerCardSchemaExamples(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "server-card", dir, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s examples", dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := schematest.Check(t, serverCardSchema, b); (err == nil) != (dir == "valid") {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}

// cardOf is what the tests read of a card.
type cardOf struct {
	Name    string `json:"name"`
	Remotes []struct {
		URL      string   `json:"url"`
		Versions []string `json:"supportedProtocolVersions"`
	} `json:"remotes"`
}

// TestMCPCardsEveryHost: for every form of host a site can declare, each
// card validates against the schema, its name is the host in reverse-DNS
// order (A-labels for an internationalized name, the reverse-DNS name of
// an IP literal), and the card the site serves has its path and an
// absolute URL with the host in ASCII.
func TestMCPCardsEveryHost(t *testing.T) {
	for _, tc := range []struct{ site, ns, origin string }{
		{"https://outdoorsupply.example", "example.outdoorsupply", "https://outdoorsupply.example"},
		{"https://OutdoorSupply.Example.:8443", "example.outdoorsupply", "https://outdoorsupply.example:8443"},
		{"https://bücher.example", "example.xn--bcher-kva", "https://xn--bcher-kva.example"},
		{"https://BÜCHER.example", "example.xn--bcher-kva", "https://xn--bcher-kva.example"},
		{"https://bu\u0308cher.example", "example.xn--bcher-kva", "https://xn--bcher-kva.example"},
		{"https://xn--bcher-kva.example", "example.xn--bcher-kva", "https://xn--bcher-kva.example"},
		{"https://例え.テスト", "xn--zckzah.xn--r8jz45g", "https://xn--r8jz45g.xn--zckzah"},
		{"https://192.0.2.1", "arpa.in-addr.192.0.2.1", "https://192.0.2.1"},
		{"https://192.0.2.1:8443", "arpa.in-addr.192.0.2.1", "https://192.0.2.1:8443"},
		{"https://[2001:db8::1]", "arpa.ip6.2.0.0.1.0.d.b.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1", "https://[2001:db8::1]"},
		{"https://[2001:db8::1]:8443", "arpa.ip6.2.0.0.1.0.d.b.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1", "https://[2001:db8::1]:8443"},
		{"https://[fe80::1%25eth0]", "arpa.ip6.f.e.8.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1", "https://[fe80::1]"},
		{"http://localhost:8080", "localhost", "http://localhost:8080"},
		{"http://127.0.0.1:8080", "arpa.in-addr.127.0.0.1", "http://127.0.0.1:8080"},
		{"http://[::1]:8080", "arpa.ip6.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1", "http://[::1]:8080"},
		{"https://my_site.example", "example.my-site", "https://my_site.example"},
	} {
		t.Run(tc.site, func(t *testing.T) {
			s := fixtures.OutdoorSupply()
			s.URL = tc.site
			for i := range s.Capabilities {
				if p, ok := strings.CutPrefix(s.Capabilities[i].Endpoint, "https://outdoorsupply.example"); ok {
					s.Capabilities[i].Endpoint = tc.site + p
				}
				if p, ok := strings.CutPrefix(s.Capabilities[i].Auth.TokenEndpoint, "https://outdoorsupply.example"); ok {
					s.Capabilities[i].Auth.TokenEndpoint = tc.site + p
				}
			}
			s.Capabilities = append(s.Capabilities, config.Capability{ID: "remote-tools", Description: "Tools on another host",
				Endpoint: "https://mcp.other.example/tools", Protocol: config.ProtocolMCP})
			if err := publish.Validate(&s, config.Formats{}); err != nil {
				t.Fatalf("the site does not validate: %v", err)
			}
			mcp, err := cards.MCPCards(&s)
			if err != nil || len(mcp) != 2 {
				t.Fatalf("MCPCards: %d cards, %v", len(mcp), err)
			}
			for _, c := range mcp {
				schematest.Validate(t, serverCardSchema, c.Body)
				var card cardOf
				if err := json.Unmarshal(c.Body, &card); err != nil {
					t.Fatal(err)
				}
				if card.Name != tc.ns+"/"+c.Capability {
					t.Errorf("name %q, want %q", card.Name, tc.ns+"/"+c.Capability)
				}
			}
			if mcp[0].Path != "/mcp/server-card" || mcp[0].URL != tc.origin+"/mcp/server-card" {
				t.Errorf("the site's card: path %q, URL %q", mcp[0].Path, mcp[0].URL)
			}
			if mcp[1].Path != "" || mcp[1].URL != "" {
				t.Errorf("the card of a server on another host is served here: %q %q", mcp[1].Path, mcp[1].URL)
			}
		})
	}
}

// TestMCPCardPaths: a card is at its endpoint's path plus "/server-card",
// one trailing slash dropped, and its URL keeps the endpoint's escaping.
func TestMCPCardPaths(t *testing.T) {
	s := fixtures.OutdoorSupply()
	s.Capabilities = []config.Capability{
		{ID: "root", Description: "At the root", Endpoint: "https://outdoorsupply.example", Protocol: config.ProtocolMCP},
		{ID: "slash", Description: "With a slash", Endpoint: "https://outdoorsupply.example/tools/", Protocol: config.ProtocolMCP},
		{ID: "cafe", Description: "Escaped", Endpoint: "https://outdoorsupply.example/api/caf%C3%A9", Protocol: config.ProtocolMCP},
		{ID: "query", Description: "With a query", Endpoint: "https://outdoorsupply.example/q?tenant=1", Protocol: config.ProtocolMCP},
	}
	mcp, err := cards.MCPCards(&s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"root":  {"/server-card", "https://outdoorsupply.example/server-card"},
		"slash": {"/tools/server-card", "https://outdoorsupply.example/tools/server-card"},
		"cafe":  {"/api/café/server-card", "https://outdoorsupply.example/api/caf%C3%A9/server-card"},
		"query": {"/q/server-card", "https://outdoorsupply.example/q/server-card"},
	}
	for _, c := range mcp {
		if w := want[c.Capability]; c.Path != w[0] || c.URL != w[1] {
			t.Errorf("%s: %q %q, want %q %q", c.Capability, c.Path, c.URL, w[0], w[1])
		}
	}
}

// TestMCPCardProtocolVersions: the remote's supportedProtocolVersions is
// the version the declaration gives the server in AWP.Protocols (through
// Via, the endpoint, or an "mcp" entry without one), else AWP's default,
// the version agent.json publishes.
func TestMCPCardProtocolVersions(t *testing.T) {
	versions := func(s *config.Site) map[string]string {
		mcp, err := cards.MCPCards(s)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range mcp {
			var card cardOf
			if err := json.Unmarshal(c.Body, &card); err != nil || len(card.Remotes) != 1 {
				t.Fatalf("%s: %s", c.Capability, c.Body)
			}
			out[c.Capability] = strings.Join(card.Remotes[0].Versions, ",")
		}
		return out
	}
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities,
		config.Capability{ID: "via", Description: "Named by Via", Endpoint: "https://outdoorsupply.example/v", Protocol: config.ProtocolMCP, Via: "tools"},
		config.Capability{ID: "matched", Description: "Matched by endpoint", Endpoint: "https://outdoorsupply.example/m", Protocol: config.ProtocolMCP})
	if got := versions(&s); got["store-assistant"] != awp.MCPVersion || got["via"] != awp.MCPVersion || got["matched"] != awp.MCPVersion {
		t.Errorf("undeclared: %v, want %s each", got, awp.MCPVersion)
	}
	s.AWP.Protocols = map[string]config.AWPProtocol{
		"tools": {Version: "2025-11-25"},
		"other": {Version: "2026-07-28", Endpoint: "https://outdoorsupply.example/m"},
		"mcp":   {Version: "2025-03-26"},
	}
	if got := versions(&s); got["via"] != "2025-11-25" || got["matched"] != "2026-07-28" || got["store-assistant"] != "2025-03-26" {
		t.Errorf("declared: %v", got)
	}
}

// TestServerCardHasNoTools: the card of an MCP capability that lists its
// tools names none (SEP-2127 keeps the server card tool-free: a client
// lists the tools from the server, filtered by what it may call).
func TestServerCardHasNoTools(t *testing.T) {
	s := fixtures.MCPStore()
	cards, err := cards.MCPCards(&s)
	if err != nil || len(cards) != 1 {
		t.Fatalf("%d cards, %v", len(cards), err)
	}
	for _, tool := range s.Capabilities[0].Tools {
		if strings.Contains(string(cards[0].Body), tool.Name) {
			t.Errorf("the card names the tool %q: %s", tool.Name, cards[0].Body)
		}
	}
	var card map[string]any
	if err := json.Unmarshal(cards[0].Body, &card); err != nil || card["tools"] != nil {
		t.Errorf("the card has tools: %s", cards[0].Body)
	}
}
