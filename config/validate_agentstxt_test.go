package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// The agents.txt renderer writes only validated sites: these cases, once
// refused by agentstxt.Render, are refused by Validate, naming the field.

// agentsTxtBase is a site both dialects publish.
func agentsTxtBase() config.Site {
	return config.Site{
		Name: "S", URL: "https://s.example",
		Capabilities: []config.Capability{{ID: "search", Endpoint: "https://s.example/search", Params: []config.Param{{Name: "q"}}}},
		Agents:       []config.AgentPolicy{{Name: "*"}},
		Flows:        []config.Flow{{Name: "f", Steps: []string{"search"}}},
		Audit:        config.Audit{Enabled: true, Endpoint: "https://s.example/audit/:session_id"},
	}
}

func txtOnly(d config.Dialect) config.Formats {
	f := only(config.DocAgentsTxt)
	if d == config.DialectV010 {
		f = only(config.DocAgentsTxt | config.DocAgentsJSON) // audit needs agents.json
	}
	f.Dialect = d
	return f
}

// reportsField fails unless err has a problem for field.
func reportsField(t *testing.T, err error, field string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains("\n"+err.Error(), "\n"+field+":") {
		t.Errorf("error %q does not name %s", err, field)
	}
}

func TestValidateRefusesAgentsTxtInjection(t *testing.T) {
	payloads := fixtures.LineInjections
	mutations := fixtures.AgentsTxtTextFields()
	v1 := config.DialectV010
	for _, m := range mutations {
		for pname, payload := range payloads {
			t.Run(m.Dialect.String()+"/"+m.Name+"/"+pname, func(t *testing.T) {
				s := agentsTxtBase()
				m.Set(&s, payload)
				reportsField(t, publish.Validate(&s, txtOnly(m.Dialect)), m.Path)
			})
		}
	}
	t.Run("url host decoded into a line break", func(t *testing.T) {
		s := agentsTxtBase()
		s.URL = "https://a%c2%85b.example" // the host decodes to a NEL
		reportsField(t, publish.Validate(&s, txtOnly(v1)), "URL")
	})
}

func TestValidateRefusesAgentsTxtInexpressible(t *testing.T) {
	dc, v1 := config.DialectIETFDraft, config.DialectV010
	tests := []struct {
		name    string
		dialect config.Dialect
		set     func(s *config.Site)
		path    string
	}{
		{"empty capability id", dc, func(s *config.Site) { s.Capabilities[0].ID = "  " }, "Capabilities[0].ID"},
		{"empty capability name", v1, func(s *config.Site) { s.Capabilities[0].ID = "" }, "Capabilities[0].ID"},
		{"empty agent", dc, func(s *config.Site) { s.Agents[0].Name = "" }, "Agents[0].Name"},
		{"empty allow", dc, func(s *config.Site) { s.Access.Allow = []string{"/a", " "} }, "Access.Allow[1]"},
		{"empty disallow", dc, func(s *config.Site) { s.Access.Disallow = []string{""} }, "Access.Disallow[0]"},
		{"empty operates-on", dc, func(s *config.Site) { s.OperatesOn = []string{""} }, "OperatesOn[0]"},
		{"comma in scope", dc, func(s *config.Site) { s.Capabilities[0].Auth.Scopes = []string{"a,b"} }, "Capabilities[0].Auth.Scopes[0]"},
		{"empty scope", dc, func(s *config.Site) { s.Capabilities[0].Auth.Scopes = []string{""} }, "Capabilities[0].Auth.Scopes[0]"},
		{"comma in agent capability", dc, func(s *config.Site) { s.Agents[0].Capabilities = []string{"a, b"} }, "Agents[0].Capabilities[0]"},
		{"empty param name", dc, func(s *config.Site) { s.Capabilities[0].Params[0].Name = "" }, "Capabilities[0].Params[0].Name"},
		{"paren in param name", dc, func(s *config.Site) { s.Capabilities[0].Params[0].Name = "q(x)" }, "Capabilities[0].Params[0].Name"},
		{"unknown location", dc, func(s *config.Site) { s.Capabilities[0].Params[0].In = "cookie" }, "Capabilities[0].Params[0].In"},
		{"array type", dc, func(s *config.Site) { s.Capabilities[0].Params[0].Type = config.TypeArray }, "Capabilities[0].Params[0].Type"},
		{"capability rate", dc, func(s *config.Site) { s.Capabilities[0].RateLimit = config.Rate{Requests: 5, Window: "week"} }, "Capabilities[0].RateLimit"},
		{"agent rate", dc, func(s *config.Site) { s.Agents[0].RateLimit = config.PerMinute(-1) }, "Agents[0].RateLimit"},
		{"generated-at year", dc, func(s *config.Site) { s.GeneratedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, "GeneratedAt"},
		{"flow name", v1, func(s *config.Site) { s.Flows[0].Name = "" }, "Flows[0].Name"},
		{"arrow in flow name", v1, func(s *config.Site) { s.Flows[0].Name = "a -> b" }, "Flows[0].Name"},
		{"unicode arrow in flow name", v1, func(s *config.Site) { s.Flows[0].Name = "a→b" }, "Flows[0].Name"},
		{"flow without steps", v1, func(s *config.Site) { s.Flows[0].Steps = nil }, "Flows[0].Steps"},
		{"comma in step", v1, func(s *config.Site) { s.Flows[0].Steps = []string{"a,b"} }, "Flows[0].Steps[0]"},
		{"empty step", v1, func(s *config.Site) { s.Flows[0].Steps = []string{"search", " "} }, "Flows[0].Steps[1]"},
		{"site rate", v1, func(s *config.Site) { s.RateLimit = config.Rate{Requests: 1} }, "RateLimit"},
		{"site rate overflow", v1, func(s *config.Site) { s.RateLimit = config.PerSecond(1 << 40) }, "RateLimit"},
		{"negative ttl", v1, func(s *config.Site) { s.Session.TTL = -time.Second }, "Session.TTL"},
	}
	for _, tt := range tests {
		t.Run(tt.dialect.String()+"/"+tt.name, func(t *testing.T) {
			s := agentsTxtBase()
			if err := publish.Validate(&s, txtOnly(tt.dialect)); err != nil {
				t.Fatalf("base site: %v", err)
			}
			tt.set(&s)
			reportsField(t, publish.Validate(&s, txtOnly(tt.dialect)), tt.path)
		})
	}
}

func TestValidateReportsEveryAgentsTxtProblem(t *testing.T) {
	s := config.Site{
		Name:         "a\nb",
		URL:          "https://s.example",
		Capabilities: []config.Capability{{ID: ""}, {ID: "x", Description: "\r"}},
	}
	err := publish.Validate(&s, txtOnly(config.DialectIETFDraft))
	for _, want := range []string{"Name", "Capabilities[0].ID", "Capabilities[1].Description"} {
		reportsField(t, err, want)
	}
}
