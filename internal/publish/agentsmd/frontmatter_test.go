package agentsmd_test

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentsmd"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// splitFrontMatter follows agents.md 2, parsing rule 1: a file starting
// with "---" holds YAML up to the closing "---" line.
func splitFrontMatter(t testing.TB, doc []byte) (fm, body []byte) {
	t.Helper()
	rest, ok := bytes.CutPrefix(doc, []byte("---\n"))
	if !ok {
		t.Fatalf("document does not start with ---:\n%s", doc)
	}
	fm, body, ok = bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		t.Fatalf("front matter is not closed:\n%s", doc)
	}
	return append(fm, '\n'), body
}

// TestFrontMatterParseBack parses the emitted front matter with a YAML
// decoder and checks every field, key order and types, including endpoints
// a hand-written template would have broken.
func TestFrontMatterParseBack(t *testing.T) {
	long := "https://a.example/" + strings.Repeat("segment --- ", 30)
	tests := []struct {
		name string
		gw   *config.MCPGateway
		want agentsmd.MCP
	}{
		{"weather-api", fixtures.WeatherAPI().AgentsMD.MCP,
			agentsmd.MCP{Endpoint: "https://weather.example/.well-known/mcp", Transport: "streamable-http", Auth: "none"}},
		{"techmart", fixtures.TechMart().AgentsMD.MCP,
			agentsmd.MCP{Endpoint: "https://techmart.example/.well-known/mcp", Transport: "streamable-http", Auth: "oauth2"}},
		{"defaults", &config.MCPGateway{Endpoint: "https://a.example/mcp"},
			agentsmd.MCP{Endpoint: "https://a.example/mcp", Transport: "streamable-http", Auth: "none"}},
		{"api-key and sse", &config.MCPGateway{Endpoint: "https://a.example/mcp", Transport: "sse", Auth: config.AuthAPIKey},
			agentsmd.MCP{Endpoint: "https://a.example/mcp", Transport: "sse", Auth: "api_key"}},
		{"endpoint with YAML syntax", &config.MCPGateway{Endpoint: "https://a.example/mcp?x=a: b #c", Auth: config.AuthOAuth2},
			agentsmd.MCP{Endpoint: "https://a.example/mcp?x=a: b #c", Transport: "streamable-http", Auth: "oauth2"}},
		{"endpoint that looks like a document marker", &config.MCPGateway{Endpoint: "--- ... 'x' \"y\" [z] {w} &a *b !t %p @q `r"},
			agentsmd.MCP{Endpoint: "--- ... 'x' \"y\" [z] {w} &a *b !t %p @q `r", Transport: "streamable-http", Auth: "none"}},
		{"long endpoint is not folded", &config.MCPGateway{Endpoint: long},
			agentsmd.MCP{Endpoint: long, Transport: "streamable-http", Auth: "none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := config.Site{Name: "Site", URL: "https://a.example", AgentsMD: config.AgentsMD{MCP: tt.gw}}
			doc, err := agentsmd.Render(&s)
			if err != nil {
				t.Fatal(err)
			}
			fm, body := splitFrontMatter(t, doc)

			var got agentsmd.FrontMatter
			if err := yaml.Unmarshal(fm, &got); err != nil {
				t.Fatalf("front matter does not parse: %v\n%s", err, fm)
			}
			if got.Version != "1.0" || got.MCP != tt.want {
				t.Errorf("parsed %+v, want version 1.0 and %+v", got, tt.want)
			}

			// Untyped: version must be the string "1.0", not the float 1.
			var raw map[string]any
			if err := yaml.Unmarshal(fm, &raw); err != nil {
				t.Fatal(err)
			}
			if v, ok := raw["version"].(string); !ok || v != "1.0" {
				t.Errorf("version decodes as %#v, want the string \"1.0\"", raw["version"])
			}
			if len(raw) != 2 {
				t.Errorf("top-level keys %v, want version and mcp", raw)
			}

			// Key order as in agents.md 2 and Appendix B.
			var node yaml.Node
			if err := yaml.Unmarshal(fm, &node); err != nil {
				t.Fatal(err)
			}
			top := node.Content[0]
			if keys := mappingKeys(top); !equal(keys, []string{"version", "mcp"}) {
				t.Errorf("top-level key order %v", keys)
			}
			if keys := mappingKeys(top.Content[3]); !equal(keys, []string{"endpoint", "transport", "auth"}) {
				t.Errorf("mcp key order %v", keys)
			}

			if n := bytes.Count(fm, []byte("\n")); n != 5 {
				t.Errorf("front matter has %d lines, want 5:\n%s", n, fm)
			}
			if !bytes.HasPrefix(body, []byte("# Site\n")) {
				t.Errorf("body does not start with the H1 right after the front matter: %q", body)
			}
		})
	}
}

func mappingKeys(n *yaml.Node) []string {
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFormatA: no gateway, no front matter.
func TestFormatA(t *testing.T) {
	s := fixtures.TechBlog()
	doc, err := agentsmd.Render(&s)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(doc, []byte("---")) {
		t.Errorf("Format A document starts with front matter:\n%s", doc)
	}
}
