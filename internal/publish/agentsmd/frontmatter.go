package agentsmd

import (
	"bytes"

	"go.yaml.in/yaml/v3"

	"github.com/agentready/agentready/config"
)

const mcpField = "AgentsMD.MCP"

// SpecVersion is the front matter "version" agentready declares (agents.md
// 8, Versioning: "1.x" is compatible with the 1.0.0-draft).
const SpecVersion = "1.0"

// Values of the front matter's mcp block (agents.md 3, Appendix B).
const (
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"

	AuthNone   = "none"
	AuthAPIKey = "api_key"
	AuthOAuth2 = "oauth2"
)

// FrontMatter is the YAML front matter of Format B. Field order is the key
// order of the spec's examples: version, then mcp with endpoint, transport,
// auth.
type FrontMatter struct {
	Version string `yaml:"version"`
	MCP     MCP    `yaml:"mcp"`
}

// MCP is the front matter's mcp block. All three keys are always written,
// defaults included, as every example of agents.md 7 does.
type MCP struct {
	Endpoint  string `yaml:"endpoint"`
	Transport string `yaml:"transport"`
	Auth      string `yaml:"auth"`
}

// frontMatter encodes the gateway as the YAML between the "---" lines. A
// real encoder does the quoting: "1.0" must stay a string, and an endpoint
// holding ": " or "#" must not turn into another mapping or a comment.
// Problems are added to p under their field paths.
func frontMatter(g *config.MCPGateway, p *problems) []byte {
	fm := frontMatterOf(g)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		p.add(mcpField, err)
		return nil
	}
	if err := enc.Close(); err != nil {
		p.add(mcpField, err)
		return nil
	}
	return b.Bytes()
}

// frontMatterOf maps the typed gateway to the agents.md vocabulary
// (docs/design.md collision 6). publish.Validate has required the endpoint
// and held the transport and auth to agents.md's (Appendix B); the YAML
// encoder quotes whatever the values hold.
func frontMatterOf(g *config.MCPGateway) FrontMatter {
	transport := g.Transport
	if transport == "" {
		transport = TransportStreamableHTTP
	}
	auth := string(g.Auth)
	switch g.Auth {
	case "", config.AuthNone:
		auth = AuthNone
	case config.AuthAPIKey:
		auth = AuthAPIKey
	case config.AuthOAuth2:
		auth = AuthOAuth2
	}
	return FrontMatter{
		Version: SpecVersion,
		MCP:     MCP{Endpoint: g.Endpoint, Transport: transport, Auth: auth},
	}
}
