package agentsmd

import (
	"bytes"
	"errors"
	"fmt"

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
	fm, ok := frontMatterOf(g, p)
	if !ok {
		return nil
	}
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
// (docs/design.md collision 6).
func frontMatterOf(g *config.MCPGateway, p *problems) (FrontMatter, bool) {
	n := len(*p)
	if g.Endpoint == "" {
		p.add(mcpField+".Endpoint", errors.New("required when an MCP gateway is declared"))
	} else {
		p.add(mcpField+".Endpoint", checkText(g.Endpoint))
	}

	transport := g.Transport
	switch transport {
	case "":
		transport = TransportStreamableHTTP
	case TransportStreamableHTTP, TransportSSE:
	default:
		p.add(mcpField+".Transport", fmt.Errorf("%q is not %s or %s (agents.md 3)", g.Transport, TransportStreamableHTTP, TransportSSE))
	}

	var auth string
	switch g.Auth {
	case "", config.AuthNone:
		auth = AuthNone
	case config.AuthAPIKey:
		auth = AuthAPIKey
	case config.AuthOAuth2:
		auth = AuthOAuth2
	default:
		p.add(mcpField+".Auth", fmt.Errorf("%q has no agents.md equivalent (none, api-key or oauth2)", g.Auth))
	}

	if len(*p) > n {
		return FrontMatter{}, false
	}
	return FrontMatter{
		Version: SpecVersion,
		MCP:     MCP{Endpoint: g.Endpoint, Transport: transport, Auth: auth},
	}, true
}
