package agentsmd

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// Section titles of agents.md 3, in the order they are rendered.
const (
	SectionCan      = "Can"
	SectionCannot   = "Cannot"
	SectionBehavior = "Behavior"
	SectionContact  = "Contact"
)

// item is one line of a section and the declaration field it came from, so
// that an error names the field to fix rather than the rendered line.
type item struct {
	text  string
	field string
}

// section is one "## Title" section. Plain sections (Contact) are written as
// bare lines, the others as "- " list items.
type section struct {
	title string
	plain bool
	items []item
}

// Render renders s as agents.md: Format B (YAML front matter and Markdown)
// when s.AgentsMD.MCP is set, or when the site declares exactly one MCP
// capability (see Gateway); Format A (Markdown) otherwise. It reports every
// value that cannot be rendered safely, at once.
func Render(s *config.Site) ([]byte, error) {
	if s == nil {
		return nil, errors.New("nil site")
	}
	var p problems
	var b bytes.Buffer

	if g := Gateway(s); g != nil {
		fm := frontMatter(g, &p)
		// agents.md 2, parsing rule 1: the front matter opens the file and
		// closes with a line "---"; the H1 follows directly, as in every
		// Format B example.
		b.WriteString("---\n")
		b.Write(fm)
		b.WriteString("---\n")
	}

	p.add("Name", checkHeading(s.Name))
	b.WriteString("# ")
	b.WriteString(s.Name)
	b.WriteByte('\n')

	if s.Description != "" {
		p.add("Description", checkLine(s.Description))
		b.WriteByte('\n')
		b.WriteString(s.Description)
		b.WriteByte('\n')
	}

	for _, sec := range sections(s) {
		if len(sec.items) == 0 {
			continue
		}
		b.WriteString("\n## ")
		b.WriteString(sec.title)
		b.WriteByte('\n')
		for _, it := range sec.items {
			p.add(it.field, checkLine(it.text))
			if !sec.plain {
				b.WriteString("- ")
			}
			b.WriteString(it.text)
			b.WriteByte('\n')
		}
	}

	if err := p.err(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// sections returns the four sections of agents.md 3, overrides first,
// derived otherwise.
func sections(s *config.Site) []section {
	md := &s.AgentsMD
	return []section{
		{title: SectionCan, items: override(md.Can, "AgentsMD.Can", func() []item { return deriveCan(s) })},
		{title: SectionCannot, items: override(md.Cannot, "AgentsMD.Cannot", func() []item { return deriveCannot(s) })},
		{title: SectionBehavior, items: override(md.Behavior, "AgentsMD.Behavior", func() []item { return deriveBehavior(s) })},
		{title: SectionContact, plain: true, items: override(md.Contact, "AgentsMD.Contact", func() []item { return deriveContact(s) })},
	}
}

// override uses the site's own lines when the slice is non-nil (even empty:
// that is how a site omits a section) and derives them otherwise.
func override(lines []string, field string, derive func() []item) []item {
	if lines == nil {
		return derive()
	}
	items := make([]item, len(lines))
	for i, l := range lines {
		items[i] = item{text: l, field: fmt.Sprintf("%s[%d]", field, i)}
	}
	return items
}

// problems collects every error of one rendering, each under its field path.
type problems []error

func (p *problems) add(field string, err error) {
	if err != nil {
		*p = append(*p, fmt.Errorf("%s: %w", field, err))
	}
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return errors.Join(p...)
}

// Gateway is the MCP gateway agents.md publishes: AgentsMD.MCP when set;
// else, when the site declares exactly one MCP capability, that
// capability's endpoint over streamable-http with its auth mapped to the
// agents.md vocabulary (none; api-key; bearer-token and oauth2 as oauth2,
// a token obtained first). With several MCP capabilities, or one whose
// auth has no agents.md equivalent (hmac), there is no gateway unless
// declared: the front matter carries one endpoint.
func Gateway(s *config.Site) *config.MCPGateway {
	if s.AgentsMD.MCP != nil {
		return s.AgentsMD.MCP
	}
	var mcp *config.Capability
	for i := range s.Capabilities {
		if s.Capabilities[i].Protocol == config.ProtocolMCP {
			if mcp != nil {
				return nil
			}
			mcp = &s.Capabilities[i]
		}
	}
	if mcp == nil || mcp.Endpoint == "" {
		return nil
	}
	g := &config.MCPGateway{Endpoint: mcp.Endpoint, Transport: TransportStreamableHTTP}
	switch resolve.AuthType(mcp.Auth) {
	case config.AuthNone:
		g.Auth = config.AuthNone
	case config.AuthAPIKey:
		g.Auth = config.AuthAPIKey
	case config.AuthBearerToken, config.AuthOAuth2:
		g.Auth = config.AuthOAuth2
	default:
		return nil
	}
	return g
}
