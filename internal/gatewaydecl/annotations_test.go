package gatewaydecl_test

import (
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/gatewaydecl"
)

// gatewayOver is a site whose gateway "mcp" has the one tool "t" calling c
// (ID "c"), with the tool's fields from tool.
func gatewayOver(c config.Capability, tool config.Tool) config.Site {
	c.ID = "c"
	if c.Endpoint == "" {
		c.Endpoint = "https://t.example/api/c"
	}
	tool.Name, tool.Calls = "t", "c"
	return config.Site{Name: "T", URL: "https://t.example", Capabilities: []config.Capability{c,
		{ID: "mcp", Endpoint: "https://t.example/mcp", Protocol: config.ProtocolMCP, Gateway: true, Tools: []config.Tool{tool}}}}
}

func toolOver(t testing.TB, c config.Capability, tool config.Tool) *gatewaydecl.Tool {
	t.Helper()
	s := gatewayOver(c, tool)
	g, err := gatewaydecl.New(&s, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	return g.Tools[0]
}

// TestAnnotations holds the rules of the ToolAnnotations: readOnlyHint for
// GET and HEAD, destructiveHint from the sensitivity (the tool's or the
// capability's) when not read-only, idempotentHint from an Idempotency
// whose key the arguments carry or else from the method, openWorldHint
// always false, title the capability's Name.
func TestAnnotations(t *testing.T) {
	no, yes := new(false), new(true)
	key := func(supported bool, field string) *config.Idempotency {
		return &config.Idempotency{Supported: supported, KeyField: field}
	}
	for _, tc := range []struct {
		name      string
		method    string
		sens      string // the capability's
		toolSens  string
		idem      *config.Idempotency
		params    []config.Param
		readOnly  bool
		destroys  *bool
		idempot   bool
		wantTitle string
		capName   string
	}{
		{name: "GET", method: "GET", readOnly: true, idempot: true},
		{name: "default method", method: "", readOnly: true, idempot: true},
		{name: "HEAD", method: "head", readOnly: true, idempot: true},
		{name: "GET, destructive (no destructiveHint: read-only)", method: "GET", sens: config.SensitivityDestructive, readOnly: true, idempot: true},
		{name: "POST", method: "POST", destroys: no},
		{name: "POST standard", method: "POST", sens: "standard", destroys: no},
		{name: "POST destructive", method: "POST", sens: config.SensitivityDestructive, destroys: yes},
		{name: "POST irreversible", method: "POST", sens: config.SensitivityIrreversible, destroys: yes},
		{name: "POST, irreversible tool", method: "POST", toolSens: config.SensitivityIrreversible, destroys: yes},
		{name: "PUT", method: "PUT", destroys: no, idempot: true},
		{name: "DELETE", method: "DELETE", destroys: no, idempot: true},
		{name: "DELETE irreversible", method: "DELETE", sens: config.SensitivityIrreversible, destroys: yes, idempot: true},
		{name: "PATCH", method: "PATCH", destroys: no},
		{name: "POST, idempotent without a key", method: "POST", idem: key(true, ""), destroys: no, idempot: true},
		{name: "POST, idempotent by a declared key", method: "POST", idem: key(true, "idem"),
			params: []config.Param{{Name: "idem", In: config.InBody}}, destroys: no, idempot: true},
		{name: "POST, idempotent by a key no argument carries", method: "POST", idem: key(true, "idem"), destroys: no},
		{name: "PUT, idempotent by a key no argument carries (the method's)", method: "PUT", idem: key(true, "idem"), destroys: no, idempot: true},
		{name: "PUT, declared not idempotent", method: "PUT", idem: key(false, ""), destroys: no},
		{name: "a Name is the title", method: "GET", capName: "Search", wantTitle: "Search", readOnly: true, idempot: true},
		{name: "a Name equal to the ID is none", method: "GET", capName: "c", readOnly: true, idempot: true},
	} {
		tl := toolOver(t, config.Capability{Method: tc.method, Sensitivity: tc.sens, Idempotency: tc.idem, Params: tc.params, Name: tc.capName},
			config.Tool{Sensitivity: tc.toolSens})
		a := tl.Annotations
		if a.ReadOnlyHint != tc.readOnly || !sameBool(a.DestructiveHint, tc.destroys) || a.IdempotentHint != tc.idempot ||
			!sameBool(a.OpenWorldHint, no) || a.Title != tc.wantTitle || tl.Title != tc.wantTitle {
			t.Errorf("%s: %+v (destructive %v, openWorld %v), title %q; want readOnly %v, destructive %v, idempotent %v, openWorld false, title %q",
				tc.name, a, deref(a.DestructiveHint), deref(a.OpenWorldHint), tl.Title, tc.readOnly, deref(tc.destroys), tc.idempot, tc.wantTitle)
		}
	}
}

// TestHumanConfirmation: a capability requiring a human's confirmation
// says so in the tool's _meta and description; another has no _meta.
func TestHumanConfirmation(t *testing.T) {
	tl := toolOver(t, config.Capability{Method: "POST", Description: "Pay.", RequiresHumanConfirmation: true}, config.Tool{})
	if tl.Meta[gatewaydecl.MetaHumanConfirmation] != true {
		t.Errorf("_meta %v, want %s: true", tl.Meta, gatewaydecl.MetaHumanConfirmation)
	}
	if want := "Pay. Ask the user to confirm before each call: the site requires a human's confirmation for it."; tl.Description != want {
		t.Errorf("description %q, want %q", tl.Description, want)
	}
	tl = toolOver(t, config.Capability{Method: "POST", Description: "Pay"}, config.Tool{Description: "Pay now"})
	if tl.Meta != nil || tl.Description != "Pay now" {
		t.Errorf("without confirmation: _meta %v, description %q", tl.Meta, tl.Description)
	}
	tl = toolOver(t, config.Capability{Name: "Payment"}, config.Tool{})
	if tl.Description != "Calls Payment." {
		t.Errorf("no description anywhere: %q", tl.Description)
	}
}

func sameBool(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
