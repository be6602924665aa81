package config_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// TestValidateAccepts holds declarations that look suspicious but are
// valid, mostly because the format that would reject them is not served.
func TestValidateAccepts(t *testing.T) {
	registry := config.Formats{AgentsJSON: config.AgentsJSONRegistry}
	tests := []struct {
		name    string
		site    func() config.Site
		formats config.Formats
	}{
		{"http on localhost", with(fixtures.TechBlog, func(s *config.Site) { s.URL = "http://localhost:8080" }), config.Formats{}},
		{"http on 127.0.0.2", with(fixtures.TechBlog, func(s *config.Site) { s.URL = "http://127.0.0.2" }), config.Formats{}},
		{"http on [::1]", with(fixtures.TechBlog, func(s *config.Site) { s.URL = "http://[::1]:8080/" }), config.Formats{}},
		{"http with AllowHTTP", with(fixtures.TechBlog, func(s *config.Site) { s.URL = "http://myblog.example" }), config.Formats{AllowHTTP: true}},
		{"wss endpoint for WebSocket", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[1].Protocol = config.ProtocolWebSocket
			s.Capabilities[1].Endpoint = "wss://outdoorsupply.example/ws"
		}), config.Formats{}},
		{"array param in v0.1.0", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities[0].Params[0].Type = config.TypeArray }), config.Formats{Dialect: config.DialectV010}},
		{"description only needed by agents.json", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Description = "" }), only(config.DocAgentsTxt)},
		{"newline in metadata value", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Metadata = map[string]string{"note": "two\nlines"} }), config.Formats{}},
		{"newline in a JSON schema", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Skills[0].Input["description"] = "line one\nline two"
		}), registry},
		{"newline without line-based formats", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Description = "Gear\nfor adventures" }), only(config.DocAgentsJSON | config.DocAWP | config.DocDescriptors)},
		{"AWP problems when AWP is not served", with(fixtures.Flights, func(s *config.Site) {
			s.AWP.Protocols["mcp"] = config.AWPProtocol{}
			s.AWP.Capabilities.Pagination = "infinite"
			s.Capabilities[0].Via = "a2a"
		}), config.Formats{Dialect: config.DialectV010, Disabled: config.DocAWP}},
		{"agent:// problems when agent:// is not served", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Version = "three"
			s.HostedAgents[0].Skills[0].Name = ""
		}), config.Formats{Disabled: config.DocDescriptors}},
		{"agents.md problems when agents.md is not served", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Transport = "websocket" }), config.Formats{Disabled: config.DocAgentsMD}},
		{"v0.1.0 ids when only AWP is served", fixtures.AcmeCeramics, only(config.DocAWP)},
		{"depends chain of 16 hops", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities = chain(17); s.Agents = nil }), config.Formats{}},
		{"depends on other sites", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Skills[0].Depends = append(s.HostedAgents[0].Skills[0].Depends,
				config.Depends{URI: "agent://did%3Aweb%3Aexample.com%3Aagent%3Aresearcher/get-article"},
				config.Depends{URI: "agent+grpc://inference.example.com/model/predict"})
		}), registry},
		{"depends on a sibling skill", with(fixtures.Planner, func(s *config.Site) {
			a := &s.HostedAgents[0]
			a.Skills = append(a.Skills, config.Skill{ID: "summarise", Name: "Summarise", Description: "Summarises.",
				Depends: []config.Depends{{URI: "agent://planner.example.com/gen-iti"}}})
		}), registry},
		{"uuid and url scopes", with(fixtures.TechMart, func(s *config.Site) {
			s.Capabilities[0].Auth.Scopes = []string{"0c2a1c3e-1234-4d5e-9f00-123456789abc", "https://www.googleapis.com/auth/cloud-platform", "sk-read", "CatalogReadWriteAllProductsEverywhere"}
		}), config.Formats{}},
		{"token endpoint with an id path", with(fixtures.TechMart, func(s *config.Site) {
			s.Capabilities[0].Auth.TokenEndpoint = "https://login.microsoftonline.example/0c2a1c3e1234ad5e9f00123456789abc/oauth2/v2.0/token"
		}), config.Formats{}},
		{"mcp endpoint on a subdomain", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Endpoint = "https://mcp.weather.example/mcp" }), config.Formats{}},
		{"url contact in v0.1.0", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Contact = "https://acmeceramics.example.com/contact" }), config.Formats{Dialect: config.DialectV010}},
		{"mailto contact in agents.md", with(fixtures.TechBlog, func(s *config.Site) { s.Contact = "mailto:hello@myblog.example" }), only(config.DocAgentsMD)},
		{"agent declaration", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.DeclarationType = config.DeclarationAgent
			s.OperatesOn = []string{"https://shop.example"}
		}), config.Formats{}},
		{"patterns", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Access.Allow = []string{"/", "*", "/*.pdf$", "/a%20b", "/ü", "/$"}
		}), config.Formats{}},
		{"grpc transport", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Transport.GRPC = "grpcs://planner.example.com:443" }), registry},
		{"agent transport endpoint", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Transport.Endpoint = "agent+https://planner.example.com/api" }), registry},
		{"nothing published", fixtures.OutdoorSupply, config.Formats{Disabled: config.AllDocuments}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.site()
			if err := publish.Validate(&s, tt.formats); err != nil {
				t.Fatalf("Validate = \n%v\nwant nil", err)
			}
		})
	}
}

// TestValidateReportsEverything shows that every problem is reported at
// once, in field order, each with its format.
func TestValidateReportsEverything(t *testing.T) {
	s := fixtures.OutdoorSupply()
	s.URL = "http://outdoorsupply.example"
	s.Capabilities[0].ID = "product.search"
	s.Capabilities[1].RateLimit = config.Rate{Requests: 10, Window: "week"}
	s.Access.Disallow = append(s.Access.Disallow, "admin")
	s.Agents[1].Capabilities = []string{"product.search", "checkout"}

	err := publish.Validate(&s, config.Formats{Disabled: config.DocAWP | config.DocDescriptors})
	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate = %v, want a *ValidationError", err)
	}
	want := []struct{ field, format string }{
		{"Access.Disallow[2]", ""},
		{"Agents[1].Capabilities[1]", ""},
		{"Capabilities[0].ID", "draft-car"},
		{"Capabilities[1].RateLimit", ""},
		{"URL", ""},
	}
	if len(ve.Errors) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ve.Errors), len(want), err)
	}
	for i, w := range want {
		if got := ve.Errors[i]; got.Field != w.field || got.Format != w.format {
			t.Errorf("problem %d = %s (format %q), want %s (format %q)", i, got.Field, got.Format, w.field, w.format)
		}
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != len(want) {
		t.Errorf("Error() has %d lines, want one per problem:\n%s", len(lines), err)
	}
	// The same declaration gives the same report, byte for byte.
	if again := publish.Validate(&s, config.Formats{Disabled: config.DocAWP | config.DocDescriptors}); again.Error() != err.Error() {
		t.Errorf("second report differs:\n%s\nvs\n%s", again, err)
	}
}

func TestValidationErrorUnwrap(t *testing.T) {
	s := fixtures.OutdoorSupply()
	s.Name = ""
	s.Capabilities[0].Endpoint = "ftp://outdoorsupply.example/api/search"
	err := fmt.Errorf("agentready: %w", publish.Validate(&s, config.Formats{}))

	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("errors.As(*ValidationError) failed on %v", err)
	}
	if len(ve.Errors) != 2 {
		t.Fatalf("got %d problems, want 2:\n%v", len(ve.Errors), ve)
	}
	var fe *config.FieldError
	if !errors.As(err, &fe) || fe != ve.Errors[0] {
		t.Fatalf("errors.As(*FieldError) = %v, want the first problem %v", fe, ve.Errors[0])
	}
	for _, want := range ve.Errors {
		if !errors.Is(err, want) {
			t.Errorf("errors.Is(err, %v) = false", want)
		}
	}
	if got := ve.Unwrap(); len(got) != 2 || got[1] != error(ve.Errors[1]) {
		t.Errorf("Unwrap() = %v, want the FieldErrors", got)
	}
	if got, want := ve.Errors[1].Error(), ve.Errors[1].Field+": "+ve.Errors[1].Msg; got != want {
		t.Errorf("FieldError.Error() = %q, want %q", got, want)
	}
}

func TestValidateDoesNotModify(t *testing.T) {
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			a, b := fx.Site, fx.Site
			_ = publish.Validate(&a, fx.Formats)
			if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
				t.Errorf("Validate modified the site")
			}
		})
	}
}

// TestValidateCyclicDefault: a Param.Default that refers to itself is an
// error, not a hang or a stack overflow.
func TestValidateCyclicDefault(t *testing.T) {
	m := map[string]any{}
	m["a"], m["b"] = m, []any{m, m}
	s := fixtures.OutdoorSupply()
	s.Capabilities[0].Params[0].Default = m
	err := publish.Validate(&s, config.Formats{})
	if fes := fieldErrors(t, err, "Capabilities[0].Params[0].Default"); len(fes) == 0 {
		t.Fatalf("no problem reported for a cyclic default:\n%v", err)
	}
}

// FuzzValidate: any string in any of a few fields never panics; the report
// is nil or a non-empty *ValidationError whose field paths stay on one line.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{"", "x", "a\nb", "https://u:p@x/?token=1", "agent://", "%", "/a$b", "\xff", "Bearer eyJ.eyJ.x"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, v string, which uint8) {
		s := fixtures.Planner()
		switch which % 8 {
		case 0:
			s.URL = v
		case 1:
			s.HostedAgents[0].Skills[0].Depends[0].URI = v
		case 2:
			s.HostedAgents[0].Name = v
		case 3:
			s.Access.Allow = []string{v}
		case 4:
			s.Agents = []config.AgentPolicy{{Name: v, Capabilities: []string{v}}}
		case 5:
			s.Contact = v
		case 6:
			s.HostedAgents[0].URL = v
		case 7:
			s.Capabilities = []config.Capability{{ID: v, Endpoint: v, Auth: config.Auth{Scopes: []string{v}, Header: v}}}
		}
		err := publish.Validate(&s, config.Formats{AgentsJSON: config.AgentsJSONRegistry, Dialect: config.Dialect(which / 8 % 2)})
		if err == nil {
			return
		}
		var ve *config.ValidationError
		if !errors.As(err, &ve) || len(ve.Errors) == 0 {
			t.Fatalf("Validate returned %T %v", err, err)
		}
		for _, fe := range ve.Errors {
			if strings.ContainsAny(fe.Field, "\r\n") {
				t.Fatalf("field path %q spans lines", fe.Field)
			}
		}
	})
}
