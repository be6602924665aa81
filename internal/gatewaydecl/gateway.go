package gatewaydecl

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// Gateway is what one gateway capability serves: its tools, in declaration
// order, and the site's flows as prompts.
type Gateway struct {
	ID      string // the gateway capability's ID
	Tools   []*Tool
	Prompts []Prompt
	byName  map[string]*Tool
}

// Tool is one tool of a gateway as tools/list describes it, and how a
// tools/call of it reaches the capability it calls.
type Tool struct {
	Name        string
	Title       string // the called capability's Name, when it declares one
	Description string
	// InputSchema is the JSON Schema of the arguments: an object, a
	// property per param of the called capability, unknown properties
	// allowed (a REST call leaves unknown params alone; Call drops them).
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema of the structured result, nil when
	// the called capability declares no outputs. Where it is given, MCP
	// (2025-06-18 and 2025-11-25, Tools, "Output Schema") says servers
	// MUST return structuredContent conforming to it and clients SHOULD
	// validate it: the server returns the REST answer as structuredContent
	// only when ValidateOutput accepts it, and otherwise as an error
	// result (isError) rather than a result that breaks the schema.
	OutputSchema json.RawMessage
	Annotations  Annotations
	// Meta is the tool's _meta: MetaHumanConfirmation when the called
	// capability requires a human's confirmation, MetaRequiresSession
	// when a call needs a session; nil when empty.
	Meta map[string]any

	// Calls is the ID of the capability a call reaches, with the Method
	// and the Args it is called with.
	Calls  string
	Method string
	Args   []Arg
	// RequiresSession: a call needs an X-Agent-Session (v0.1.0), the
	// tool's or the called capability's requirement.
	RequiresSession bool

	input, output *compiled
	origin        string    // scheme://host of the called endpoint
	path          []segment // the endpoint's path, templated
	query         string    // the endpoint's own query, as written
	args          map[string]*Arg
}

// Arg is one argument of a tool: a param of the called capability, and
// where a call puts it. The schema does not say where (JSON Schema has no
// place for it); this does.
type Arg struct {
	Name     string `json:"name"`
	In       string `json:"in"`       // config.InQuery, InPath, InHeader or InBody
	Type     string `json:"type"`     // config.TypeString ... TypeObject
	Required bool   `json:"required"` // a path param always is
}

// Annotations are MCP's ToolAnnotations (2025-06-18, 2025-11-25), shaped
// as the Go SDK's mcp.ToolAnnotations: the hints whose default is false
// are plain booleans, those whose default is true pointers. Clients MUST
// treat them as untrusted unless the server is trusted (Tools, "Tool");
// agentready enforces the declaration whatever a client makes of them.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// MetaHumanConfirmation is the _meta key saying a call needs a human's
// confirmation first (config.Capability.RequiresHumanConfirmation).
//
// MCP has no annotation for it. Tools, "User Interaction Model" (2025-06-18,
// 2025-11-25) says applications SHOULD "present confirmation prompts to the
// user for operations", and "Security Considerations" that clients SHOULD
// "prompt for user confirmation on sensitive operations"; ToolAnnotations
// only hint at effects (readOnlyHint, destructiveHint), and a client may
// read destructiveHint as "confirm" or not. So the requirement is said
// twice: under this key in _meta (Basic, "_meta": a prefixed key is the
// place for an implementation's own metadata; the prefix "agentready/" is
// not reserved, only second labels modelcontextprotocol and mcp are), for a
// client that knows it, and in the description, which every client shows
// its model and many show their user.
const MetaHumanConfirmation = "agentready/requiresHumanConfirmation"

// confirmationNote ends the description of a tool whose call needs a
// human's confirmation.
const confirmationNote = "Ask the user to confirm before each call: the site requires a human's confirmation for it."

// MetaRequiresSession is the _meta key saying a call needs a v0.1.0
// session (config.Capability.RequiresSession, config.Tool's): MCP has no
// word for it, so it is said as MetaHumanConfirmation is, in _meta and in
// the description, which names the session endpoint and the header.
const MetaRequiresSession = "agentready/requiresSession"

// sessionNote ends the description of a tool whose call needs a session.
func sessionNote(s *config.Site) string {
	return "It needs a session: create one with POST " + resolve.SessionEndpointURL(s) +
		" and send its session_token in the X-Agent-Session header of each MCP request."
}

// handoffNote ends the description of a tool whose answer is a URL for a
// human to complete the action (config.Capability.HumanHandoff).
const handoffNote = "Its answer is a URL where a human completes the action: give it to the user."

// New reads the gateway capability id of s, which must have passed
// publish.Validate (config's gateway rules: each tool calls a declared
// REST capability on the site's origin). It refuses, with every problem
// at once, what a call could not honour: a header param a call must never
// set, a path param the endpoint does not template, a templated name no
// path param fills.
func New(s *config.Site, id string) (*Gateway, error) {
	var gw *config.Capability
	ids := map[string]*config.Capability{}
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		ids[c.ID] = c
		if c.ID == id {
			gw = c
		}
	}
	if gw == nil || !gw.Gateway {
		return nil, fmt.Errorf("gatewaydecl: %q is not a gateway capability of the site", id)
	}
	g := &Gateway{ID: id, byName: map[string]*Tool{}}
	var errs []error
	for i := range gw.Tools {
		t := &gw.Tools[i]
		c := ids[t.Calls]
		if c == nil {
			errs = append(errs, fmt.Errorf("gatewaydecl: tool %q calls %q, which is not a declared capability", t.Name, t.Calls))
			continue
		}
		tool, err := newTool(s, t, c)
		if err != nil {
			errs = append(errs, fmt.Errorf("gatewaydecl: tool %q: %w", t.Name, err))
			continue
		}
		g.Tools = append(g.Tools, tool)
		g.byName[tool.Name] = tool
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	g.Prompts = prompts(s, gw)
	return g, nil
}

// Tool is the tool named name (matched exactly, as MCP names are), nil
// when the gateway has none.
func (g *Gateway) Tool(name string) *Tool { return g.byName[name] }

func newTool(s *config.Site, t *config.Tool, c *config.Capability) (*Tool, error) {
	tool := &Tool{
		Name:            t.Name,
		Description:     cmp.Or(t.Description, c.Description, "Calls "+cmp.Or(c.Name, c.ID)+"."),
		Calls:           c.ID,
		Method:          resolve.Method(c),
		RequiresSession: t.RequiresSession || c.RequiresSession,
		args:            map[string]*Arg{},
	}
	if c.Name != "" && c.Name != c.ID {
		tool.Title = c.Name
	}
	tool.Annotations = annotations(t, c)
	note := func(key, text string) {
		if key != "" {
			if tool.Meta == nil {
				tool.Meta = map[string]any{}
			}
			tool.Meta[key] = true
		}
		tool.Description = strings.TrimSuffix(tool.Description, ".") + ". " + text
	}
	if c.RequiresHumanConfirmation {
		note(MetaHumanConfirmation, confirmationNote)
	}
	if tool.RequiresSession {
		note(MetaRequiresSession, sessionNote(s))
	}
	if c.HumanHandoff {
		note("", handoffNote)
	}
	var errs []error
	for _, p := range c.Params {
		a := Arg{Name: p.Name, In: resolve.ParamIn(p), Type: resolve.ParamType(p), Required: p.Required || resolve.ParamIn(p) == config.InPath}
		if err := checkArg(c, &a); err != nil {
			errs = append(errs, err)
		}
		if tool.args[a.Name] != nil {
			errs = append(errs, fmt.Errorf("param %q of %q is declared twice", a.Name, c.ID))
			continue
		}
		tool.Args = append(tool.Args, a)
		tool.args[a.Name] = &tool.Args[len(tool.Args)-1]
	}
	if err := tool.parseEndpoint(c); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// The pointers into Args are taken again: append may have moved it.
	for i := range tool.Args {
		tool.args[tool.Args[i].Name] = &tool.Args[i]
	}
	var err error
	if tool.InputSchema, tool.input, err = inputSchema(c.Params); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if tool.OutputSchema, tool.output, err = outputSchema(s, c); err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return tool, nil
}

// annotations are the ToolAnnotations of tool t calling capability c:
//
//   - readOnlyHint for a GET or HEAD, which RFC 9110 9.2.1 makes safe;
//   - destructiveHint (meaningful only when not read-only): true when the
//     tool or the capability is destructive or irreversible, false for a
//     standard call that is not read-only; omitted for a read-only one;
//   - idempotentHint: an Idempotency contract says, where a repeated call
//     with the same arguments carries the same key (no KeyField, or a
//     KeyField that is a declared param); otherwise the method's own
//     idempotency (GET, HEAD, PUT, DELETE: RFC 9110 9.2.2), and false;
//   - openWorldHint false: the tool calls this site's own handler, a
//     closed domain, never the open web;
//   - title: the capability's declared Name.
func annotations(t *config.Tool, c *config.Capability) Annotations {
	m := resolve.Method(c)
	a := Annotations{ReadOnlyHint: m == "GET" || m == "HEAD", OpenWorldHint: new(false)}
	if c.Name != "" && c.Name != c.ID {
		a.Title = c.Name
	}
	if !a.ReadOnlyHint {
		d := severe(t.Sensitivity) || severe(c.Sensitivity)
		a.DestructiveHint = &d
	}
	a.IdempotentHint = m == "GET" || m == "HEAD" || m == "PUT" || m == "DELETE"
	if id := c.Idempotency; id != nil {
		switch {
		case !id.Supported:
			a.IdempotentHint = false
		case id.KeyField == "" || declares(c, id.KeyField):
			a.IdempotentHint = true
		}
	}
	return a
}

// severe reports a destructive or irreversible sensitivity.
func severe(s string) bool {
	return s == config.SensitivityDestructive || s == config.SensitivityIrreversible
}

// declares reports whether c declares a param named name.
func declares(c *config.Capability, name string) bool {
	for _, p := range c.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}
