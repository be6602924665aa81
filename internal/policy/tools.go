package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentready/agentready/config"
)

// Tool is one compiled tool of an MCP capability (config.Tool).
type Tool struct {
	Name  string
	Limit Limit // the tool's own, "tool/CAPABILITY/NAME"
	// Decl is the capability as a call of the tool needs it: its auth's
	// scopes are the capability's and the tool's, which is what the
	// site's Authenticator is given to check.
	Decl            *config.Capability
	RequiresSession bool
	// Rule is the declaration line a refusal of the tool names.
	Rule string
	// Calls is the index of the capability a gateway's tool calls
	// (config.Tool.Calls), -1 for any other tool.
	Calls int
}

// compileTools compiles the tools of c, the capability at ci of p.
func (p *Policy) compileTools(cc *Capability, c *config.Capability) {
	if len(c.Tools) == 0 {
		return
	}
	cc.tools = make(map[string]int, len(c.Tools))
	names := make([]string, len(c.Tools))
	for k := range c.Tools {
		names[k] = c.Tools[k].Name
	}
	cc.ToolsRule = "Capability: " + c.ID + " / Tools: " + strings.Join(names, ", ")
	for k := range c.Tools {
		t := &c.Tools[k]
		decl := *c
		if len(t.Auth.Scopes) > 0 {
			decl.Auth.Scopes = append(slices.Clip(c.Auth.Scopes), t.Auth.Scopes...)
		}
		limit := limitOf("tool/"+c.ID+"/"+t.Name, t.RateLimit)
		limit.Cost = t.Cost
		cc.Tools = append(cc.Tools, Tool{
			Name:            t.Name,
			Limit:           limit,
			Decl:            &decl,
			RequiresSession: t.RequiresSession,
			Rule:            "Capability: " + c.ID + " / Tool: " + t.Name,
			Calls:           -1, // Compile resolves it once every capability is known
		})
		if _, dup := cc.tools[t.Name]; !dup {
			cc.tools[t.Name] = k
		}
	}
}

// Tool returns the index of the tool named name, matched exactly, and
// whether the capability lists it. A capability that lists no tools
// (Tools empty) decides no call per tool.
func (c *Capability) Tool(name string) (int, bool) {
	i, ok := c.tools[name]
	return i, ok
}

// ToolPermitted reports whether the agent may call tool ti of capability
// ci: the capability is granted whole, or the tool is granted
// (CAPABILITY/TOOL).
func (a *Agent) ToolPermitted(ci, ti int) bool {
	if !a.Permitted[ci] {
		return false
	}
	return a.tools == nil || a.tools[ci] == nil || a.tools[ci][ti]
}

// grantTool records the grant "CAPABILITY/TOOL" (split at the first "/")
// in ag: the capability becomes reachable (its other methods, such as
// tools/list, are held to the capability), and of its tools only those
// granted, unless it is granted whole too.
func (p *Policy) grantTool(ag *Agent, whole []bool, id string) error {
	capID, name, _ := strings.Cut(id, "/")
	j, ok := p.ids[capID]
	if !ok {
		return fmt.Errorf("unknown capability %q", capID)
	}
	ti, ok := p.Capabilities[j].Tool(name)
	if !ok {
		return fmt.Errorf("capability %q lists no tool %q", capID, name)
	}
	ag.Permitted[j] = true
	if whole[j] {
		return nil
	}
	if ag.tools == nil {
		ag.tools = make([][]bool, len(p.Capabilities))
	}
	if ag.tools[j] == nil {
		ag.tools[j] = make([]bool, len(p.Capabilities[j].Tools))
	}
	ag.tools[j][ti] = true
	return nil
}

// RequiresSession reports whether a call of c needs a v0.1.0 session: the
// capability requires one, or the tool a tools/call names does.
func (c *Capability) RequiresSession(tool string) bool {
	if c.Decl.RequiresSession {
		return true
	}
	ti, ok := c.Tool(tool)
	return ok && tool != "" && c.Tools[ti].RequiresSession
}
