package config_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

// only serves exactly the given documents.
func only(d config.Document) config.Formats {
	return config.Formats{Disabled: config.AllDocuments &^ d}
}

// with returns a fixture changed by f.
func with(base func() config.Site, f func(s *config.Site)) func() config.Site {
	return func() config.Site {
		s := base()
		if f != nil {
			f(&s)
		}
		return s
	}
}

// fieldErrors returns the problems err reports for field.
func fieldErrors(t *testing.T, err error, field string) []*config.FieldError {
	t.Helper()
	var ve *config.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a *ValidationError", err, err)
	}
	var out []*config.FieldError
	for _, fe := range ve.Errors {
		if fe.Field == field {
			out = append(out, fe)
		}
	}
	return out
}

func TestValidateFixtures(t *testing.T) {
	for _, fx := range fixtures.All() {
		t.Run(fx.Name, func(t *testing.T) {
			s := fx.Site
			if err := publish.Validate(&s, fx.Formats); err != nil {
				t.Fatalf("fixture %s does not validate with its formats:\n%v", fx.Name, err)
			}
		})
	}
}

func TestValidateNil(t *testing.T) {
	err := publish.Validate(nil, config.Formats{})
	var ve *config.ValidationError
	if !errors.As(err, &ve) || len(ve.Errors) != 1 || !strings.Contains(ve.Errors[0].Msg, "nil") {
		t.Fatalf("Validate(nil) = %v, want one problem saying the site is nil", err)
	}
}

// TestValidateRules has one failing case per rule: the exact field path,
// the Format that demands the rule and phrases the message must contain
// (which name the format where one forbids it).
func TestValidateRules(t *testing.T) {
	v010 := config.Formats{Dialect: config.DialectV010}
	registry := config.Formats{AgentsJSON: config.AgentsJSONRegistry}
	draftCarOnly := only(config.DocAgentsTxt | config.DocAgentsJSON)
	v010Only := config.Formats{Dialect: config.DialectV010, Disabled: config.DocAgentsMD | config.DocAWP | config.DocDescriptors}
	long := func(n int) string { return strings.Repeat("a", n) }

	tests := []struct {
		name    string
		site    func() config.Site
		formats config.Formats
		field   string
		format  string
		msg     []string
	}{
		// Presence, every format.
		{"name required", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Name = "" }), config.Formats{},
			"Name", "", []string{"is required", "draft-car 2.4 Site-Name"}},
		{"url required", with(fixtures.OutdoorSupply, func(s *config.Site) { s.URL = "" }), config.Formats{},
			"URL", "", []string{"is required", "Site-URL"}},
		{"param inside a segment", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[0].Endpoint = "https://outdoorsupply.example/files/{name}.json"
		}), config.Formats{}, "Capabilities[0].Endpoint", "", []string{"{name}.json", "whole, named path segment"}},
		{"unnamed param", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[0].Endpoint = "https://outdoorsupply.example/files/{}"
		}), config.Formats{}, "Capabilities[0].Endpoint", "", []string{"whole, named path segment"}},
		{"capability id required", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].ID = "" }), config.Formats{},
			"Capabilities[0].ID", "", []string{"is required"}},
		{"param name required", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[1].Name = "" }), config.Formats{},
			"Capabilities[0].Params[1].Name", "", []string{"is required"}},

		// Usage preferences and verification.
		{"usage preference value", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Usage.Train = "maybe" }), config.Formats{},
			"Usage.Train", "", []string{`"maybe" is not a preference`}},
		{"usage path required", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Usage.Paths = []config.PathUsage{{Train: config.Denied}}
		}), config.Formats{}, "Usage.Paths[0].Path", "", []string{"is required"}},
		{"usage path pattern", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Usage.Paths = []config.PathUsage{{Path: "/a/../b", Train: config.Denied}}
		}), config.Formats{}, "Usage.Paths[0].Path", "", []string{"dot segment"}},
		{"usage path duplicate", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Usage.Paths = []config.PathUsage{{Path: "/a/", Train: config.Denied}, {Path: "/a/", Search: config.Denied}}
		}), config.Formats{}, "Usage.Paths[1].Path", "", []string{"is already Usage.Paths[0]"}},
		{"usage path without a preference", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Usage.Paths = []config.PathUsage{{Path: "/a/"}}
		}), config.Formats{}, "Usage.Paths[0]", "", []string{"states no preference"}},
		{"verification on *", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[0].Verify.Required = true }), config.Formats{},
			"Agents[0].Verify.Required", "", []string{`"*"`}},
		{"verification method", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{Required: true, Methods: []string{"dns"}}
		}), config.Formats{}, "Agents[1].Verify.Methods[0]", "", []string{`"dns" is not one of`}},
		// A JWK Set URL is a Signature-Agent (draft -01 5.2.1); userinfo
		// and fragments are not.
		{"verification signature agent", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: []string{"https://agent.example/keys/jwks.json", "https://user@agent.example/keys"}}
		}), config.Formats{}, "Agents[1].Verify.SignatureAgents[1]", "", []string{"is not a Signature-Agent URL"}},
		{"verification signature agent fragment", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: []string{"https://agent.example/jwks.json#k"}}
		}), config.Formats{}, "Agents[1].Verify.SignatureAgents[0]", "", []string{"is not a Signature-Agent URL"}},
		// Sources package verify refuses to fetch are refused here too, so
		// that lint accepts what New does (found by review).
		{"verification range list over http", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{Required: true, IPRanges: []string{"http://ranges.example/claude.json"}}
		}), config.Formats{}, "Agents[1].Verify.IPRanges[0]", "", []string{"fetched over https"}},
		{"verification directory over http", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{Required: true, SignatureAgents: []string{"http://agent.example"}}
		}), config.Formats{}, "Agents[1].Verify.SignatureAgents[0]", "", []string{"fetched over https"}},
		{"verification domain", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{Required: true, ReverseDNS: []string{"com"}}
		}), config.Formats{}, "Agents[1].Verify.ReverseDNS[0]", "", []string{"at least two labels"}},
		{"verification settings without Required", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Agents[1].Verify = config.Verification{IPRanges: []string{"https://ranges.example/x.json"}}
		}), config.Formats{}, "Agents[1].Verify.Required", "", []string{"have no effect"}},

		// draft-car.
		{"draft-car endpoint required", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Endpoint = "" }), draftCarOnly,
			"Capabilities[0].Endpoint", "draft-car", []string{"is required by draft-car agents.txt (2.5: Endpoint is REQUIRED)"}},
		{"endpoint required by draft-car and AWP", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Endpoint = "" }), config.Formats{},
			"Capabilities[0].Endpoint", "draft-car, AWP", []string{"draft-car agents.txt", "AWP agent.json"}},
		{"draft-car protocol", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[1].Protocol = "SOAP" }), config.Formats{},
			"Capabilities[1].Protocol", "draft-car", []string{`"SOAP" is not one of REST, MCP, A2A, GraphQL, WebSocket`, "draft-car 2.5"}},
		{"draft-car description required", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Description = "" }), draftCarOnly,
			"Capabilities[0].Description", "draft-car", []string{"is required by draft-car agents.json"}},
		{"description required by every JSON format", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Description = "" }), config.Formats{},
			"Capabilities[0].Description", "draft-car, AWP, agent://", []string{"draft-car agents.json", "AWP agent.json", "agent:// descriptors"}},
		{"draft-car site name length", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Name = long(201) }), config.Formats{},
			"Name", "draft-car", []string{"201 characters", "draft-car agents.json allows at most 200"}},
		{"draft-car site description length", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Description = long(501) }), config.Formats{},
			"Description", "draft-car", []string{"draft-car agents.json allows at most 500"}},
		{"draft-car capability description length", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[1].Description = strings.Repeat("é", 501) }), config.Formats{},
			"Capabilities[1].Description", "draft-car", []string{"501 characters", "at most 500"}},
		{"draft-car contact email", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Contact = "https://outdoorsupply.example/contact" }), config.Formats{},
			"Contact", "draft-car", []string{"is not an email address", "draft-car agents.txt", "format email"}},
		{"draft-car token endpoint", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[1].Auth.TokenEndpoint = "" }), config.Formats{},
			"Capabilities[1].Auth.TokenEndpoint", "draft-car", []string{"is required for Auth bearer-token by draft-car agents.txt", "MUST be present"}},
		{"draft-car capability id", fixtures.AcmeCeramics, config.Formats{},
			"Capabilities[3].ID", "draft-car", []string{`"cart.add" is not allowed by draft-car agents.txt (2.5: lowercase letters, digits and hyphens); serve the v0.1.0 dialect or rename it`}},
		{"draft-car capability id from agents.json", fixtures.AcmeCeramics, only(config.DocAgentsJSON),
			"Capabilities[3].ID", "draft-car", []string{"is not allowed by draft-car agents.json"}},
		{"draft-car capability id length", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].ID = long(101); s.Agents[1].Capabilities = nil }), config.Formats{},
			"Capabilities[0].ID", "draft-car", []string{"101 characters", "draft-car agents.json allows at most 100"}},
		{"draft-car param type", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[2].Type = config.TypeArray }), config.Formats{},
			"Capabilities[0].Params[2].Type", "draft-car", []string{`"array" is not allowed by draft-car agents.txt (2.5: string, integer, number or boolean)`}},
		{"draft-car param name", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[2].Name = "sort (asc)" }), config.Formats{},
			"Capabilities[0].Params[2].Name", "draft-car", []string{"draft-car agents.txt Param line"}},
		{"draft-car scope comma", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "cart:write,cart:read" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "draft-car", []string{"separates scopes in draft-car agents.txt"}},

		// v0.1.0.
		{"v0.1.0 capability id", fixtures.OutdoorSupply, v010,
			"Capabilities[0].ID", "v0.1.0", []string{`"product-search" is not allowed by v0.1.0 agents.txt`, "^[a-z][a-z0-9_.]*$", "serve the draft-car dialect"}},
		{"v0.1.0 needs a capability", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities, s.Flows = nil, nil }), v010,
			"Capabilities", "v0.1.0", []string{"v0.1.0 agents.txt needs at least one capability (Allow is required)"}},
		{"v0.1.0 endpoint required", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities[0].Endpoint = "" }), v010Only,
			"Capabilities[0].Endpoint", "v0.1.0", []string{"is required by v0.1.0 agents.json"}},
		{"v0.1.0 method", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities[0].Method = "head" }), v010Only,
			"Capabilities[0].Method", "v0.1.0", []string{`"HEAD" is not allowed by v0.1.0 agents.json (GET, POST, PUT, PATCH or DELETE)`}},
		{"v0.1.0 session ttl minimum", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Session.TTL = 30 * time.Second }), v010,
			"Session.TTL", "v0.1.0", []string{"30s is not whole seconds of at least 60", "v0.1.0 Session-TTL"}},
		{"v0.1.0 session ttl whole seconds", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Session.TTL = 90*time.Second + time.Millisecond }), v010,
			"Session.TTL", "v0.1.0", []string{"not whole seconds"}},
		{"v0.1.0 sessions need agents.json", fixtures.AcmeCeramics, config.Formats{Dialect: config.DialectV010, Disabled: config.DocAgentsJSON},
			"Capabilities[3].RequiresSession", "v0.1.0", []string{"MUST also serve agents.json"}},
		{"v0.1.0 endpoint on another origin", with(fixtures.AcmeCeramics, func(s *config.Site) {
			s.Capabilities[0].Endpoint = "https://api.acmeceramics.example.com/search"
		}), v010Only, "Capabilities[0].Endpoint", "v0.1.0", []string{"not on the site origin https://acmeceramics.example.com", "v0.1.0 agents.json"}},

		// AWP.
		{"AWP intent", with(fixtures.Flights, func(s *config.Site) { s.Description = "" }), v010,
			"AWP.Intent", "AWP", []string{"is required by AWP agent.json (5: intent is required)"}},
		{"AWP description", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[2].Description = "" }), only(config.DocAWP),
			"Capabilities[2].Description", "AWP", []string{"is required by AWP agent.json (9: every action has a description)"}},
		{"AWP endpoint unless via", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[2].Endpoint = "" }), only(config.DocAWP),
			"Capabilities[2].Endpoint", "AWP", []string{"unless via names a protocol"}},
		{"AWP method", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[2].Method = "OPTIONS" }), only(config.DocAWP),
			"Capabilities[2].Method", "AWP", []string{`"OPTIONS" is not allowed by AWP agent.json`}},
		{"AWP via", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[0].Via = "a2a" }), v010,
			"Capabilities[0].Via", "AWP", []string{`"a2a" is not a key of AWP.Protocols`, "AWP 5.5"}},
		{"AWP operation without via", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[0].Operation = "search" }), v010,
			"Capabilities[0].Operation", "AWP", []string{"without Via", "AWP 9"}},
		{"AWP protocol version", with(fixtures.Flights, func(s *config.Site) {
			s.AWP.Protocols["mcp"] = config.AWPProtocol{Endpoint: "https://mcp.flights.example.com"}
		}), v010,
			"AWP.Protocols[mcp].Version", "AWP", []string{"is required", "AWP 5.5"}},
		{"AWP protocol key", with(fixtures.Flights, func(s *config.Site) { s.AWP.Protocols["My MCP"] = config.AWPProtocol{Version: "1"} }), v010,
			"AWP.Protocols[My MCP]", "AWP", []string{"not a protocol identifier", "AWP 5.5"}},
		{"AWP pagination", with(fixtures.Flights, func(s *config.Site) { s.AWP.Capabilities.Pagination = "infinite" }), v010,
			"AWP.Capabilities.Pagination", "AWP", []string{`"infinite" is not one of cursor, offset, page, none`, "AWP 6"}},
		{"AWP auth type", with(fixtures.Flights, func(s *config.Site) { s.AWP.Auth.Type = config.AuthHMAC }), v010,
			"AWP.Auth.Type", "AWP", []string{`"hmac" has no AWP equivalent`}},
		{"AWP auth required and optional", with(fixtures.Flights, func(s *config.Site) { s.AWP.Auth.RequiredFor = []string{"search_flights"} }), v010,
			"AWP.Auth.OptionalFor[0]", "AWP", []string{"also in RequiredFor", "AWP 7"}},
		{"AWP domain", with(fixtures.Flights, func(s *config.Site) { s.AWP.Domain = "https://flights.example.com/" }), v010,
			"AWP.Domain", "AWP", []string{"is not a domain name", "AWP 3"}},
		{"AWP poll endpoint needs async", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[3].ExecutionModel = config.ExecutionSync }), v010,
			"Capabilities[3].PollEndpoint", "AWP", []string{`ExecutionModel is not "async"`, "AWP 9"}},

		// agent://.
		{"agent:// name pattern", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Name = "trip planner" }), registry,
			"HostedAgents[0].Name", "agent://", []string{`"trip planner" is not a registry name`, "^[A-Za-z0-9_\\-./]+$"}},
		{"agent:// name escapes its path", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Name = "../admin" }), registry,
			"HostedAgents[0].Name", "agent://", []string{`".." path segment`}},
		{"agent:// version required", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Version = "" }), registry,
			"HostedAgents[0].Version", "agent://", []string{"is required", "agent:// 7.1.1"}},
		{"agent:// version semver", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Version = "3.1" }), registry,
			"HostedAgents[0].Version", "agent://", []string{`"3.1" is not a SemVer 2.0.0 version`}},
		{"agent:// skill version semver", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Skills[0].Version = "v2" }), registry,
			"HostedAgents[0].Skills[0].Version", "agent://", []string{"SemVer"}},
		{"agent:// status", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Status = "retired" }), registry,
			"HostedAgents[0].Status", "agent://", []string{`"retired" is not one of active, deprecated, experimental`}},
		{"agent:// conformance level high", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].ConformanceLevel = new(4) }), registry,
			"HostedAgents[0].ConformanceLevel", "agent://", []string{"is 4; it must be at most 3"}},
		{"agent:// conformance level low", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].ConformanceLevel = new(-1) }), registry,
			"HostedAgents[0].ConformanceLevel", "agent://", []string{"is -1; it must be at least 0"}},
		{"agent:// skills required", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Skills = nil }), registry,
			"HostedAgents[0].Skills", "agent://", []string{"needs at least one entry", "agent:// 7.1.1"}},
		{"agent:// skills not empty", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Skills = []config.Skill{} }), registry,
			"HostedAgents[0].Skills", "agent://", []string{"needs at least one entry"}},
		{"agent:// skill description", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Skills[0].Description = "" }), registry,
			"HostedAgents[0].Skills[0].Description", "agent://", []string{"is required", "agent:// 7.1.4"}},
		{"agent:// skill streaming format", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Skills[0].StreamingFormat = "websocket" }), registry,
			"HostedAgents[0].Skills[0].StreamingFormat", "agent://", []string{`"websocket" is not one of sse, ndjson, grpc-stream`}},
		{"agent:// url scheme", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].URL = "https://planner.example.com/" }), registry,
			"HostedAgents[0].URL", "agent://", []string{`scheme "https"`, "agent or agent+<protocol>"}},
		{"agent:// url authority", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].URL = "agent:///planner" }), registry,
			"HostedAgents[0].URL", "agent://", []string{"empty authority"}},
		{"agent:// depends scheme", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Skills[0].Depends[0].URI = "https://translator.example.com/translate"
		}), registry,
			"HostedAgents[0].Skills[0].Depends[0].URI", "agent://", []string{"agent:// URIs use agent or agent+<protocol>"}},
		{"agent:// transport wss", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Transport.WSS = "https://planner.example.com/ws" }), registry,
			"HostedAgents[0].Transport.WSS", "", []string{`scheme "https"; want wss`}},
		{"agent:// transport endpoint", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Transport.Endpoint = "ftp://planner.example.com/" }), registry,
			"HostedAgents[0].Transport.Endpoint", "", []string{`scheme "ftp"`}},
		{"agent:// provider url", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Provider.URL = "example.com" }), registry,
			"HostedAgents[0].Provider.URL", "", []string{"not an absolute URL"}},
		{"agent:// authentication scheme", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Authentication.Schemes = []string{"Bearer;v=1"} }), registry,
			"HostedAgents[0].Authentication.Schemes[0]", "agent://", []string{"not an HTTP authentication scheme name"}},
		{"agent:// duplicate agent", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents = append(s.HostedAgents, s.HostedAgents[0]) }), registry,
			"HostedAgents[1].Name", "agent://", []string{`"planner.example.com" is already the name of HostedAgents[0]`}},
		{"agent:// duplicate skill", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Skills = append(s.HostedAgents[0].Skills, s.HostedAgents[0].Skills[0])
		}), registry, "HostedAgents[0].Skills[1].ID", "agent://", []string{`"gen-iti" is already the ID of HostedAgents[0].Skills[0]`}},
		{"agent:// derived skill description", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[1].Description = "" }), only(config.DocDescriptors),
			"Capabilities[1].Description", "agent://", []string{"agent:// descriptors (7.1.4: every skill has a description"}},
		{"agent:// derived version", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Version = "2" }), only(config.DocDescriptors),
			"Version", "agent://", []string{`"2" is not a SemVer 2.0.0 version`}},
		{"agent:// derived streaming format", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].StreamingFormat = "chunked" }), only(config.DocDescriptors),
			"Capabilities[0].StreamingFormat", "agent://", []string{`"chunked" is not one of sse, ndjson, grpc-stream`}},
		{"agent:// depends cycle", with(fixtures.Planner, func(s *config.Site) {
			a := &s.HostedAgents[0]
			a.Skills[0].Depends = append(a.Skills[0].Depends, config.Depends{URI: "agent://planner.example.com/summarise"})
			a.Skills = append(a.Skills, config.Skill{ID: "summarise", Name: "Summarise", Description: "Summarises an itinerary.",
				Depends: []config.Depends{{URI: "agent+https://planner.example.com/gen-iti?lang=en"}}})
		}), registry, "HostedAgents[0].Skills[1].Depends[0].URI", "agent://",
			[]string{"depends cycle planner.example.com/gen-iti -> planner.example.com/summarise -> planner.example.com/gen-iti", "MUST detect and reject cycles (7.1.4)"}},
		{"agent:// depends cycle between agents", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Skills[0].Depends = []config.Depends{{URI: "agent://planner.example.com/translator"}}
			s.HostedAgents = append(s.HostedAgents, config.HostedAgent{Name: "translator", Version: "1.0.0",
				Skills: []config.Skill{{ID: "translate", Name: "Translate", Description: "Translates.",
					Depends: []config.Depends{{URI: "agent://planner.example.com/gen-iti"}}}}})
		}), registry, "HostedAgents[1].Skills[0].Depends[0].URI", "agent://",
			[]string{"depends cycle planner.example.com/gen-iti -> translator/translate -> planner.example.com/gen-iti"}},
		{"agent:// depends too deep", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities = chain(18) }), only(config.DocDescriptors),
			"Capabilities[0].Depends[0].URI", "agent://", []string{"depends chain of 17 hops", "bounds traversal at 16 (7.1.4)"}},
		{"agent:// unresolved local depends", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Skills[0].Depends[0].URI = "agent://planner.example.com/nowhere"
		}), registry, "HostedAgents[0].Skills[0].Depends[0].URI", "agent://", []string{"no agent or skill published here has that URI"}},

		// agents.md.
		{"agents.md mcp endpoint required", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Endpoint = "" }), config.Formats{},
			"AgentsMD.MCP.Endpoint", "agents.md", []string{"is required", "agents.md 3"}},
		{"agents.md mcp transport", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Transport = "websocket" }), config.Formats{},
			"AgentsMD.MCP.Transport", "agents.md", []string{`"websocket" is not one of streamable-http, sse`, "agents.md Appendix B"}},
		{"agents.md mcp auth", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Auth = config.AuthBearerToken }), config.Formats{},
			"AgentsMD.MCP.Auth", "agents.md", []string{`"bearer-token" is not one of none, api-key, oauth2`, "agents.md Appendix B"}},
		{"agents.md mcp cross-site", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Endpoint = "https://mcp.weather-tools.example/mcp" }), config.Formats{},
			"AgentsMD.MCP.Endpoint", "agents.md", []string{"outside the registrable domain", "agents.md 5"}},
		{"agents.md mcp http", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Endpoint = "http://weather.example/.well-known/mcp" }), config.Formats{},
			"AgentsMD.MCP.Endpoint", "", []string{"must use https", "localhost, 127.0.0.0/8 and [::1]", "Formats.AllowHTTP"}},

		// URLs.
		{"url https", with(fixtures.OutdoorSupply, func(s *config.Site) { s.URL = "http://outdoorsupply.example" }), config.Formats{},
			"URL", "", []string{`"http://outdoorsupply.example" must use https`}},
		{"url absolute", with(fixtures.OutdoorSupply, func(s *config.Site) { s.PrivacyPolicy = "/privacy" }), config.Formats{},
			"PrivacyPolicy", "", []string{"not an absolute URL with a scheme and a host"}},
		{"url parses", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].OpenAPI = "https://outdoor supply.example/openapi.json" }), config.Formats{},
			"Capabilities[0].OpenAPI", "", []string{"is not a URL"}},
		{"url port", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Auth.DocsURL = "https://outdoorsupply.example:99999/docs" }), config.Formats{},
			"Capabilities[0].Auth.DocsURL", "", []string{`invalid port "99999"`}},
		{"url scheme", with(fixtures.AcmeCeramics, func(s *config.Site) { s.DocsURL = "ftp://acmeceramics.example.com/docs" }), v010,
			"DocsURL", "", []string{`scheme "ftp"; want https`}},
		{"url operates on", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.DeclarationType = config.DeclarationAgent
			s.OperatesOn = []string{"https://a.example", "a.example"}
		}), config.Formats{}, "OperatesOn[1]", "", []string{"not an absolute URL"}},
		{"url agents json", with(fixtures.AcmeCeramics, func(s *config.Site) { s.AgentsJSONURL = "http://acmeceramics.example.com/.well-known/agents.json" }), v010,
			"AgentsJSONURL", "", []string{"must use https"}},
		{"url agent declaration", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].AgentDeclaration = "anthropic.com/agents.txt" }), config.Formats{},
			"Agents[1].AgentDeclaration", "", []string{"not an absolute URL"}},
		{"url audit endpoint", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Audit.Endpoint = "/audit/:session_id" }), v010,
			"Audit.Endpoint", "", []string{"not an absolute URL"}},
		{"url authorization server", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.AuthorizationServer = "http://auth.techmart.example" }), config.Formats{},
			"Capabilities[0].Auth.AuthorizationServer", "", []string{"must use https"}},
		{"url documentation", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].DocumentationURL = "docs" }), registry,
			"HostedAgents[0].DocumentationURL", "", []string{"not an absolute URL"}},
		{"successor link injection", with(fixtures.Planner, func(s *config.Site) {
			s.HostedAgents[0].Status, s.HostedAgents[0].Successor = "deprecated", `https://a.example/>; rel="x", <https://b.example/`
		}), registry, "HostedAgents[0].Successor", "agent://", []string{"which a URI does not"}},
		{"successor relative", with(fixtures.Planner, func(s *config.Site) { s.HostedAgents[0].Successor = "v2" }), registry,
			"HostedAgents[0].Successor", "", []string{"not an absolute URL"}},
		{"session endpoint path", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Session.Endpoint = "https://acmeceramics.example.com/session" }), v010,
			"Session.Endpoint", "v0.1.0", []string{`must be a path starting with a single "/"`}},
		{"awp status endpoint", with(fixtures.Flights, func(s *config.Site) { s.AWP.Status.StatusEndpoint = "/api/status?verbose" }), v010,
			"AWP.Status.StatusEndpoint", "AWP", []string{"plain path, without a query"}},

		// Rates.
		{"site rate", with(fixtures.AcmeCeramics, func(s *config.Site) { s.RateLimit = config.PerMinute(0) }), v010,
			"RateLimit", "", []string{"requests must be positive", "N/minute"}},
		{"capability rate", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].RateLimit = config.Rate{Requests: 5, Window: "fortnight"} }), config.Formats{},
			"Capabilities[0].RateLimit", "", []string{`window "fortnight" is not one of second, minute, hour, day`}},
		{"agent rate", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].RateLimit = config.PerSecond(-1) }), config.Formats{},
			"Agents[1].RateLimit", "", []string{"requests must be positive, got -1"}},

		// Access patterns.
		{"access pattern start", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Access.Disallow[1] = "internal/*" }), config.Formats{},
			"Access.Disallow[1]", "", []string{`must start with "/" or "*"`, "robots.txt"}},
		{"access pattern dollar", with(fixtures.TechBlog, func(s *config.Site) { s.Access.Allow[0] = "/$x" }), config.Formats{},
			"Access.Allow[0]", "", []string{`"$" may only be the last character`}},

		// References.
		{"unknown agent capability", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].Capabilities[1] = "checkout" }), config.Formats{},
			"Agents[1].Capabilities[1]", "", []string{`"checkout" is not the ID of a declared capability`}},
		{"unknown flow step", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Flows[0].Steps[1] = "details" }), v010,
			"Flows[0].Steps[1]", "", []string{`"details" is not the ID of a declared capability`}},
		{"unknown requires", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[1].Requires = []string{"search"} }), v010,
			"Capabilities[1].Requires[0]", "", []string{`"search" is not the ID`}},
		{"unknown awp auth", with(fixtures.Flights, func(s *config.Site) { s.AWP.Auth.OptionalFor = []string{"search"} }), v010,
			"AWP.Auth.OptionalFor[0]", "", []string{`"search" is not the ID`}},
		{"unknown awp required", with(fixtures.Flights, func(s *config.Site) { s.AWP.Auth.RequiredFor = []string{"cancel"} }), v010,
			"AWP.Auth.RequiredFor[0]", "", []string{`"cancel" is not the ID`}},
		{"unknown degraded action", with(fixtures.Flights, func(s *config.Site) { s.AWP.Status.DegradedActions = []string{"book"} }), v010,
			"AWP.Status.DegradedActions[0]", "", []string{`"book" is not the ID`}},

		// Cycles.
		{"requires cycle", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[0].Requires = []string{"check_in"} }), v010,
			"Capabilities[1].Requires[0]", "", []string{"dependency cycle search_flights -> check_in -> book_flight -> search_flights", "AWP 11"}},
		{"requires itself", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[0].Requires = []string{"search_flights"} }), v010,
			"Capabilities[0].Requires[0]", "", []string{"dependency cycle search_flights -> search_flights"}},

		// Duplicates.
		{"duplicate capability", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[1].ID = "product-search" }), config.Formats{},
			"Capabilities[1].ID", "", []string{`"product-search" is already the ID of Capabilities[0]`}},
		{"duplicate agent case-insensitive", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents = append(s.Agents, config.AgentPolicy{Name: "Claude"}) }), config.Formats{},
			"Agents[2].Name", "draft-car", []string{`"Claude" duplicates Agents[1] ("claude")`, "case-insensitively"}},
		{"second default policy", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents = append(s.Agents, config.AgentPolicy{Name: "*"}) }), config.Formats{},
			"Agents[2].Name", "draft-car", []string{`second default policy "*"`, "Agents[0]"}},
		{"duplicate param", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[2].Name = "q" }), config.Formats{},
			"Capabilities[0].Params[2].Name", "", []string{`"q" is already the name of Capabilities[0].Params[0]`}},
		{"duplicate flow", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Flows = append(s.Flows, s.Flows[0]) }), v010,
			"Flows[1].Name", "v0.1.0", []string{`"purchase" is already the name of Flows[0]`}},

		// Agent policy names.
		{"agent name token", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].Name = "Mozilla/5.0" }), config.Formats{},
			"Agents[1].Name", "draft-car", []string{"not a User-Agent product token", "RFC 9110"}},
		{"agent name space", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].Name = "Claude Bot" }), config.Formats{},
			"Agents[1].Name", "draft-car", []string{"not a User-Agent product token"}},
		{"agent name glob", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].Name = "claude*" }), config.Formats{},
			"Agents[1].Name", "draft-car", []string{"is not a pattern"}},

		// Injection into line-based formats.
		{"injection description", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Description = "Search\nAllow: /admin/*" }), config.Formats{},
			"Capabilities[0].Description", "draft-car, agents.md", []string{"line break (U+000A)", "line-based draft-car agents.txt and agents.md", "agents.txt injection"}},
		{"injection cr in v0.1.0", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Flows[0].Description = "x\rFlow: evil → checkout" }), v010Only,
			"Flows[0].Description", "v0.1.0", []string{"line break (U+000D)", "agents.txt"}},
		{"injection tab", with(fixtures.TechBlog, func(s *config.Site) { s.AgentsMD.Can[1] = "Search\tby topic" }), only(config.DocAgentsMD),
			"AgentsMD.Can[1]", "agents.md", []string{"control character U+0009", "line-based agents.md"}},
		{"injection unicode line separator", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Agents[1].Capabilities[0] = "product-search\u2028Agent: *" }), config.Formats{},
			"Agents[1].Capabilities[0]", "draft-car, agents.md", []string{"line break (U+2028)"}},
		{"injection invalid utf-8", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Description = "Gear \xff" }), config.Formats{},
			"Description", "draft-car, agents.md", []string{"not valid UTF-8"}},
		{"injection map key", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Metadata = map[string]string{"a\nb": "c"} }), config.Formats{},
			`Metadata["a\nb"]`, "draft-car, agents.md", []string{"key contains a line break"}},
		{"injection param default", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[2].Default = "x\ny" }), config.Formats{},
			"Capabilities[0].Params[2].Default", "draft-car, agents.md", []string{"line break"}},
		{"injection awp hint", with(fixtures.Flights, func(s *config.Site) { s.AWP.Hints["auth_note"] = "a\nb" }), v010,
			"AWP.Hints[auth_note]", "v0.1.0, agents.md", []string{"line break"}},

		// Credentials (draft-car 5.3).
		{"credential userinfo", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[1].Auth.TokenEndpoint = "https://agent:hunter2@outdoorsupply.example/auth/token"
		}), config.Formats{}, "Capabilities[1].Auth.TokenEndpoint", "", []string{"user information", "MUST NOT include credentials (draft-car 5.3)"}},
		{"credential query", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[1].Auth.TokenEndpoint = "https://outdoorsupply.example/auth/token?client_id=x&Client_Secret=hunter2"
		}), config.Formats{}, "Capabilities[1].Auth.TokenEndpoint", "", []string{`query parameter "Client_Secret"`, "draft-car 5.3"}},
		{"credential access token", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[1].Auth.DocsURL = "https://outdoorsupply.example/docs?access_token=abc"
		}), config.Formats{}, "Capabilities[1].Auth.DocsURL", "", []string{`query parameter "access_token"`}},
		{"credential mcp endpoint", with(fixtures.WeatherAPI, func(s *config.Site) { s.AgentsMD.MCP.Endpoint = "https://weather.example/.well-known/mcp?apikey=abc" }), config.Formats{},
			"AgentsMD.MCP.Endpoint", "", []string{`query parameter "apikey"`}},
		{"credential bearer scope", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[0] = "Bearer abc.def" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[0]", "", []string{"looks like an Authorization header value", "draft-car 5.3"}},
		{"credential basic scope", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[0] = "basic dXNlcjpwYXNz" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[0]", "", []string{"Authorization header value"}},
		{"credential jwt", with(fixtures.TechMart, func(s *config.Site) {
			s.Capabilities[0].Auth.Scopes[0] = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
		}), config.Formats{}, "Capabilities[0].Auth.Scopes[0]", "", []string{"a JSON Web Token"}},
		{"credential openai key", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "sk-proj1234567890abcdefXYZ" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "", []string{"an API key (sk-...)"}},
		{"credential github token", with(fixtures.TechMart, func(s *config.Site) {
			s.Capabilities[0].Auth.Scopes[1] = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
		}), config.Formats{}, "Capabilities[0].Auth.Scopes[1]", "", []string{"an API key (ghp_...)"}},
		{"credential slack token", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "xoxb-1234567890-abcdef" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "", []string{"an API key (xoxb-...)"}},
		{"credential aws key", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "AKIAIOSFODNN7EXAMPLE" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "", []string{"an AWS access key ID"}},
		{"credential google key", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "AIzaSyA1234567890abcdefghijklmnop" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "", []string{"an API key (AIza...)"}},
		{"credential high entropy", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "", []string{"a secret (a long random-looking string)"}},
		{"credential hex secret", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[1] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[1]", "", []string{"a secret"}},
		{"credential header", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey, Header: "sk_live_abcdefghijklmnop1234"}
		}), config.Formats{}, "Capabilities[0].Auth.Header", "", []string{"an API key (sk_live_...)"}},
		{"credential message does not echo", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[0] = "Bearer SECRETVALUE" }), config.Formats{},
			"Capabilities[0].Auth.Scopes[0]", "", []string{"draft-car 5.3"}},
		{"header name", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey, Header: "X API Key"}
		}), config.Formats{},
			"Capabilities[0].Auth.Header", "", []string{`"X API Key" is not an HTTP header field name`}},
		{"scope token", with(fixtures.TechMart, func(s *config.Site) { s.Capabilities[0].Auth.Scopes[0] = `catalog "read"` }), config.Formats{},
			"Capabilities[0].Auth.Scopes[0]", "", []string{"not an OAuth scope (RFC 6749 3.3"}},

		// Params.
		{"param in", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[0].In = "cookie" }), config.Formats{},
			"Capabilities[0].Params[0].In", "draft-car", []string{`"cookie" is not one of query, path, header, body`}},
		{"param type", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities[0].Params[0].Type = "date" }), v010,
			"Capabilities[0].Params[0].Type", "", []string{`"date" is not one of string, integer, number, boolean, array, object`}},
		{"param min max", with(fixtures.OutdoorSupply, func(s *config.Site) {
			s.Capabilities[0].Params[1].Min, s.Capabilities[0].Params[1].Max = new(100.0), new(1.0)
		}), config.Formats{}, "Capabilities[0].Params[1].Min", "", []string{"100 is greater than Max 1"}},
		{"param max finite", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[1].Max = new(math.Inf(1)) }), config.Formats{},
			"Capabilities[0].Params[1].Max", "", []string{"not a finite number"}},
		{"param enum scalar", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities[1].Params[0].Enum[2] = []string{"vases"} }), v010,
			"Capabilities[1].Params[0].Enum[2]", "", []string{"[]string is not a JSON scalar"}},
		{"param enum nan", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Capabilities[1].Params[0].Enum[2] = math.NaN() }), v010,
			"Capabilities[1].Params[0].Enum[2]", "", []string{"float64 is not a JSON scalar"}},
		{"param default", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Params[1].Default = func() {} }), config.Formats{},
			"Capabilities[0].Params[1].Default", "", []string{"is not a JSON value"}},

		// Enums and their companions.
		{"auth type", with(fixtures.OutdoorSupply, func(s *config.Site) { s.Capabilities[0].Auth.Type = "basic" }), config.Formats{},
			"Capabilities[0].Auth.Type", "draft-car", []string{`"basic" is not one of none, api-key, bearer-token, oauth2, hmac`, "draft-car 2.5 Auth"}},
		{"sensitivity", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[1].Sensitivity = "dangerous" }), v010,
			"Capabilities[1].Sensitivity", "AWP", []string{`"dangerous" is not one of standard, destructive, irreversible`, "AWP 9"}},
		{"execution model", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[0].ExecutionModel = "batch" }), v010,
			"Capabilities[0].ExecutionModel", "AWP", []string{`"batch" is not one of sync, async`}},
		{"declaration type", with(fixtures.OutdoorSupply, func(s *config.Site) { s.DeclarationType = "crawler" }), config.Formats{},
			"DeclarationType", "draft-car", []string{`"crawler" is not one of platform, agent`, "draft-car 2.3"}},
		{"operates on needs agent declaration", with(fixtures.OutdoorSupply, func(s *config.Site) { s.OperatesOn = []string{"https://shop.example"} }), config.Formats{},
			"OperatesOn", "draft-car", []string{"not used in platform declarations"}},
		{"audit public key base64", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Audit.PublicKey = "not base64!" }), v010,
			"Audit.PublicKey", "v0.1.0", []string{"is not standard base64"}},
		{"audit public key length", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Audit.PublicKey = "AAAA" }), v010,
			"Audit.PublicKey", "v0.1.0", []string{"decodes to 3 bytes; an Ed25519 public key has 32"}},
		{"max sessions", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Session.MaxSessions = -1 }), v010,
			"Session.MaxSessions", "v0.1.0", []string{"is -1; it must be at least 0"}},
		{"flow steps", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Flows[0].Steps = nil }), v010,
			"Flows[0].Steps", "v0.1.0", []string{"needs at least one entry", "v0.1.0 Flow"}},
		{"flow name arrow", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Flows[0].Name = "buy → now" }), v010,
			"Flows[0].Name", "v0.1.0", []string{`"," or "→"`}},
		{"flow name comma", with(fixtures.AcmeCeramics, func(s *config.Site) { s.Flows[0].Name = "buy,now" }), v010,
			"Flows[0].Name", "v0.1.0", []string{"separate a flow's name from its steps"}},
		{"capability id comma", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[2].ID = "check_in,select_seat" }), only(config.DocAWP),
			"Capabilities[2].ID", "", []string{`contains ","`, "draft-car 2.7", "v0.1.0 Flow"}},
		{"capability id whitespace", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[2].ID = "check_in " }), only(config.DocAWP),
			"Capabilities[2].ID", "", []string{"leading or trailing whitespace"}},
		{"method token", with(fixtures.Flights, func(s *config.Site) { s.Capabilities[2].Method = "PO ST" }), only(config.DocDescriptors),
			"Capabilities[2].Method", "", []string{"is not an HTTP method"}},

		// Formats.
		{"formats dialect", fixtures.OutdoorSupply, config.Formats{Dialect: 7},
			"Formats.Dialect", "", []string{"Dialect(7) is not a dialect"}},
		{"formats agents.json mode", fixtures.OutdoorSupply, config.Formats{AgentsJSON: 9},
			"Formats.AgentsJSON", "", []string{"is not an agents.json mode"}},
		{"formats disabled bits", fixtures.OutdoorSupply, config.Formats{Disabled: 0x80},
			"Formats.Disabled", "", []string{"unknown document bits 0x80"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.site()
			err := publish.Validate(&s, tt.formats)
			if err == nil {
				t.Fatalf("Validate = nil, want a problem at %s", tt.field)
			}
			var match *config.FieldError
			for _, fe := range fieldErrors(t, err, tt.field) {
				ok := true
				for _, m := range tt.msg {
					ok = ok && strings.Contains(fe.Msg, m)
				}
				if ok {
					match = fe
					break
				}
			}
			if match == nil {
				t.Fatalf("no problem at %s containing %q; got:\n%v", tt.field, tt.msg, err)
			}
			if match.Format != tt.format {
				t.Errorf("%s: Format = %q, want %q", tt.field, match.Format, tt.format)
			}
			for _, f := range strings.Split(tt.format, ", ") {
				if f != "" && !strings.Contains(match.Msg, f) {
					t.Errorf("%s: message %q does not name the format %s", tt.field, match.Msg, f)
				}
			}
			if strings.Contains(err.Error(), "SECRETVALUE") || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error echoes a credential:\n%v", err)
			}
		})
	}
}

// chain returns n capabilities whose derived skills depend on the next one
// through the site's own agent:// authority: n-1 hops.
func chain(n int) []config.Capability {
	caps := make([]config.Capability, n)
	for i := range caps {
		id := fmt.Sprintf("step-%d", i)
		caps[i] = config.Capability{ID: id, Description: "Step " + id, Endpoint: "https://outdoorsupply.example/" + id}
		if i+1 < n {
			caps[i].Depends = []config.Depends{{URI: fmt.Sprintf("agent://outdoorsupply.example/step-%d", i+1)}}
		}
	}
	return caps
}
