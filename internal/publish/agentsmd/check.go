package agentsmd

import (
	"net/url"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// fmtName is the format's name in FieldError.Format.
const fmtName = "agents.md"

func (format) TagRules() map[string]fieldcheck.TagRule { return tagRules }

// tagRules explains the validate tags of the MCP gateway.
var tagRules = map[string]fieldcheck.TagRule{
	"AgentsMD.MCP.Endpoint":  {Owner: fmtName, Format: fmtName, Ref: "agents.md 3 MCP gateway: endpoint is required"},
	"AgentsMD.MCP.Transport": {Owner: fmtName, Format: fmtName, Ref: "agents.md Appendix B mcp.transport"},
}

// Check runs agents.md's rules when it is served: a line-based document,
// and its MCP gateway (agents.md 3, 5, Appendix B).
func (format) Check(c *discovery.Check) {
	on := c.Formats.Serves(config.DocAgentsMD)
	c.ReportTags(tagRules, on)
	if !on {
		return
	}
	c.LineBased("agents.md", fmtName)
	m := c.Site.AgentsMD.MCP
	if m == nil {
		return
	}
	u := c.WebURL("AgentsMD.MCP.Endpoint", m.Endpoint, fieldcheck.WebSchemes)
	if site, err := url.Parse(c.Site.URL); u != nil && err == nil && site.Host != "" && !fieldcheck.SameSite(u.Hostname(), site.Hostname()) {
		c.Addf("AgentsMD.MCP.Endpoint", fmtName, "is on %s, outside the registrable domain of the site %s; agents MUST reject such an MCP endpoint (agents.md 5)", u.Hostname(), site.Hostname())
	}
	switch m.Auth {
	case "", config.AuthNone, config.AuthAPIKey, config.AuthOAuth2:
	default:
		c.Addf("AgentsMD.MCP.Auth", fmtName, "%q is not one of none, api-key, oauth2 (agents.md Appendix B mcp.auth: none, api_key, oauth2)", m.Auth)
	}
}

// Schema is agents.md's part of the file's schema: the MCP gateway.
func (format) Schema() discovery.Schema {
	return discovery.Schema{Fields: map[string]map[string]any{
		"MCPGateway.Endpoint": fieldcheck.WebURLSchema(),
		"MCPGateway.Auth":     {"enum": []any{"", config.AuthNone, config.AuthAPIKey, config.AuthOAuth2}},
	}}
}
