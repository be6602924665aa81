package gatewaydecl

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// Prompt is a v0.1.0 flow (config.Flow) as an MCP prompt: prompts/list
// gives its Name and Description, prompts/get one user message of Text.
// It takes no arguments.
type Prompt struct {
	// Name is the flow's name as agents.txt v0.1.0 publishes it ("Flow:
	// <name> → <steps>"; the v0.1.0 agents.json has no flows), trimmed as
	// that line is.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Text        string `json:"text"`
	Steps       []Step `json:"steps"`
}

// Step is one step of a flow: the capability, and the tool of the gateway
// that calls it ("" when none does).
type Step struct {
	Capability  string `json:"capability"` // its ID
	Name        string `json:"name"`       // its Name, else its ID
	Description string `json:"description,omitempty"`
	Tool        string `json:"tool,omitempty"`
}

// prompts are the site's flows as prompts of the gateway gw.
func prompts(s *config.Site, gw *config.Capability) []Prompt {
	caps := map[string]*config.Capability{}
	for i := range s.Capabilities {
		caps[s.Capabilities[i].ID] = &s.Capabilities[i]
	}
	tools := map[string]string{}
	for _, t := range gw.Tools {
		if _, ok := tools[t.Calls]; !ok && t.Calls != "" {
			tools[t.Calls] = t.Name // the first tool that calls it
		}
	}
	var out []Prompt
	for _, f := range s.Flows {
		p := Prompt{Name: strings.TrimSpace(f.Name), Description: strings.TrimSpace(f.Description)}
		for _, id := range f.Steps {
			id = strings.TrimSpace(id)
			st := Step{Capability: id, Name: id, Tool: tools[id]}
			if c := caps[id]; c != nil {
				st.Name, st.Description = cmp.Or(c.Name, c.ID), c.Description
			}
			p.Steps = append(p.Steps, st)
		}
		p.Text = promptText(s, caps, &p)
		out = append(out, p)
	}
	return out
}

// promptText is the message a flow's prompt returns: what the flow is
// for, then its steps in order, each with the tool to call.
func promptText(s *config.Site, caps map[string]*config.Capability, p *Prompt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s suggests the workflow %q", s.Name, p.Name)
	if p.Description != "" {
		fmt.Fprintf(&b, ": %s", strings.TrimSuffix(p.Description, "."))
	}
	b.WriteString(".\n\nTake these steps in order:\n")
	for i, st := range p.Steps {
		fmt.Fprintf(&b, "%d. %s", i+1, st.Name)
		if st.Name != st.Capability {
			fmt.Fprintf(&b, " (%s)", st.Capability)
		}
		if st.Description != "" {
			fmt.Fprintf(&b, ": %s", strings.TrimSuffix(st.Description, "."))
		}
		switch c := caps[st.Capability]; {
		case st.Tool != "":
			fmt.Fprintf(&b, ". Call the tool %s.\n", st.Tool)
		case c != nil:
			fmt.Fprintf(&b, ". No tool of this server calls it: it is %s %s on the site.\n", resolve.Method(c), resolve.RelativeEndpoint(s, c.Endpoint))
		default:
			b.WriteString(".\n")
		}
	}
	return b.String()
}
