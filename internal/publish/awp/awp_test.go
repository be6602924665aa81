package awp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsontest"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

const schemaFile = "awp_agent-json_v0.2.schema.json"

// TestFixturesValidate renders the agent.json of every fixture that
// publishes one and validates it against the AWP v0.2 schema.
func TestFixturesValidate(t *testing.T) {
	n := 0
	for _, f := range fixtures.All() {
		if !f.Formats.Serves(config.DocAWP) {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			doc, err := AgentJSON(&f.Site, "")
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, schemaFile, doc)
			if !bytes.HasSuffix(doc, []byte("}\n")) {
				t.Error("document does not end with a newline")
			}
			// AWP 9: every action carries its required members.
			for _, a := range jsontest.Decode(t, doc)["actions"].([]any) {
				act := a.(map[string]any)
				for _, k := range []string{"id", "description", "auth_required", "inputs", "outputs"} {
					if _, ok := act[k]; !ok {
						t.Errorf("action %v lacks %q", act["id"], k)
					}
				}
				if _, ok := act["via"]; !ok {
					if _, ok := act["method"]; !ok {
						t.Errorf("action %v has neither via nor method", act["id"])
					}
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no fixture publishes agent.json")
	}
}

func TestDeterministic(t *testing.T) {
	for _, f := range fixtures.All() {
		t.Run(f.Name, func(t *testing.T) {
			a, err := AgentJSON(&f.Site, "")
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				site := f.Site
				b, err := AgentJSON(&site, "")
				if err != nil || !bytes.Equal(a, b) {
					t.Fatalf("two renderings differ (%v):\n%s\n%s", err, a, b)
				}
			}
		})
	}
}

// The flight example of the AWP v0.2 specification, section by section,
// verbatim. The specification shows one action (9) and an auth example (7)
// with other action ids; the fixture declares the actions its dependencies
// (11) name.
const (
	specProtocolMCP  = `{"version": "2025-06-18", "endpoint": "https://mcp.example.com", "transport": "http"}`
	specCapabilities = `{"streaming": false, "batch_actions": true, "webhooks": true, "pagination": "cursor", "idempotency": true}`
	specEntities     = `{"flight": {"fields": {"flight_number": "string", "origin": "airport_code", "destination": "airport_code",
      "departure_time": "ISO8601", "price_usd": "float", "cabin_class": "enum[economy, business, first]"}}}`
	specSearchAction = `{
    "id": "search_flights",
    "description": "Search available flights between two airports",
    "auth_required": false,
    "inputs": {
      "origin": { "type": "airport_code", "required": true },
      "destination": { "type": "airport_code", "required": true },
      "date": { "type": "ISO8601", "required": true },
      "cabin_class": {
        "type": "enum",
        "options": ["economy", "business", "first"],
        "default": "economy"
      }
    },
    "outputs": {
      "flights": "array[flight]",
      "search_token": "string"
    },
    "endpoint": "/api/flights/search",
    "method": "POST",
    "rate_limit": "30/minute",
    "idempotency": {
      "supported": true,
      "key_field": "idempotency_key",
      "window": "24h"
    },
    "execution_model": "sync"
  }`
	specErrors = `{
  "AUTH_EXPIRED": { "recovery": "call /api/auth/refresh then retry original action" },
  "RATE_LIMITED": { "recovery": "wait 60 seconds then retry" },
  "SEAT_UNAVAILABLE": { "recovery": "retry search_flights with different parameters" },
  "INVALID_AIRPORT_CODE": { "recovery": "query /api/airports?search={input} to find valid codes" }
}`
	specDependencies = `{"book_flight": ["search_flights"], "check_in": ["book_flight"], "select_seat": ["book_flight"]}`
	specHints        = `{
  "optimal_search_window": "search at least 24h before departure",
  "price_volatility": "high — cache search results max 5 minutes",
  "auth_note": "search does not require auth — only call auth when booking"
}`
	specStatus = `{"operational": true, "degraded_actions": ["book_flight"], "status_endpoint": "/api/status"}`
)

func TestFlightsMatchesSpec(t *testing.T) {
	s := fixtures.Flights()
	doc, err := AgentJSON(&s, "")
	if err != nil {
		t.Fatal(err)
	}
	got := jsontest.Decode(t, doc)
	want := func(lit string) any { return jsontest.Decode(t, []byte(`{"v":`+lit+`}`))["v"] }

	checks := []struct {
		name string
		got  any
		want any
	}{
		{"awp_version", got["awp_version"], "0.2"},
		{"domain", got["domain"], "flights.example.com"},
		{"intent", got["intent"], "Search and book flights between airports worldwide"},
		{"capabilities", got["capabilities"], want(specCapabilities)},
		{"entities", got["entities"], want(specEntities)},
		{"search_flights action", action0(got), want(specSearchAction)},
		{"errors", got["errors"], want(specErrors)},
		{"dependencies", got["dependencies"], want(specDependencies)},
		{"agent_hints", got["agent_hints"], want(specHints)},
		{"agent_status", got["agent_status"], want(specStatus)},
		// AWP 7 with this site's action ids: search is optional, the
		// actions that change a booking require oauth2.
		{"auth", got["auth"], want(`{"required_for": ["book_flight", "check_in", "select_seat"], "optional_for": ["search_flights"],
			"type": "oauth2", "token_expiry": "24h", "refresh_endpoint": "/api/auth/refresh"}`)},
		// AWP 5.5 with this site's MCP host.
		{"protocols", got["protocols"], want(`{"mcp": ` + strings.Replace(specProtocolMCP, "mcp.example.com", "mcp.flights.example.com", 1) + `}`)},
	}
	for _, c := range checks {
		if !jsontest.Equal(c.got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, c.got, c.want)
		}
	}

	// The other actions: sensitivity, confirmation, reversibility, async
	// polling and auth as AWP 9 describes them.
	byID := map[string]map[string]any{}
	for _, a := range got["actions"].([]any) {
		m := a.(map[string]any)
		byID[m["id"].(string)] = m
	}
	if len(byID) != 4 {
		t.Fatalf("actions: %v", byID)
	}
	book, seat := byID["book_flight"], byID["select_seat"]
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"book auth_required", book["auth_required"], true},
		{"book sensitivity", book["sensitivity"], "irreversible"},
		{"book confirmation", book["requires_human_confirmation"], true},
		{"book reversible", book["reversible"], false},
		{"book inputs", book["inputs"], want(`{"search_token": {"type": "string", "required": true}, "flight_number": {"type": "string", "required": true}}`)},
		{"seat execution_model", seat["execution_model"], "async"},
		{"seat poll_endpoint", seat["poll_endpoint"], "/api/jobs/{job_id}"},
		{"seat reversible", seat["reversible"], true},
		{"seat sensitivity", seat["sensitivity"], "destructive"},
		{"check_in outputs", byID["check_in"]["outputs"], want(`{"boarding_pass": "url"}`)},
	} {
		if !jsontest.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if _, ok := book["requires_human_confirmation"]; !ok {
		t.Error("requires_human_confirmation missing")
	}
	if _, ok := byID["check_in"]["sensitivity"]; ok {
		t.Error("undeclared sensitivity rendered")
	}
	// Inputs keep the declaration's order, which is the specification's.
	if !jsontest.InOrder(string(doc), `"origin": {`, `"destination": {`, `"date": {`, `"cabin_class": {`) {
		t.Errorf("inputs are not in declaration order:\n%s", doc)
	}
	if !strings.HasPrefix(string(doc), "{\n  \"awp_version\": \"0.2\",\n  \"domain\": ") {
		t.Errorf("top-level members are not in the order of AWP 5:\n%s", doc[:80])
	}
}

func action0(doc map[string]any) any {
	acts, _ := doc["actions"].([]any)
	if len(acts) == 0 {
		return nil
	}
	return acts[0]
}

// TestEmpty: a site without capabilities renders only the required members,
// actions as [].
func TestEmpty(t *testing.T) {
	s := config.Site{Name: "Bare", URL: "https://bare.example:8080/x", Description: "Nothing yet"}
	doc, err := AgentJSON(&s, "")
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, schemaFile, doc)
	want := `{
  "awp_version": "0.2",
  "domain": "bare.example:8080",
  "intent": "Nothing yet",
  "actions": []
}
`
	if string(doc) != want {
		t.Fatalf("got\n%s\nwant\n%s", doc, want)
	}
}

// TestAction covers the per-action members and their defaults.
func TestAction(t *testing.T) {
	s := config.Site{
		Name: "Shop", URL: "https://shop.example",
		AWP: config.AWP{
			Domain: "shop.example", Intent: "Buy things",
			Protocols: map[string]config.AWPProtocol{"a2a": {Version: "0.3", Endpoint: "https://agent.shop.example/a2a",
				Extra: map[string]string{"agent_card": "https://agent.shop.example/.well-known/agent-card.json"}}},
			Entities: map[string]config.Entity{"empty": {}},
		},
		Capabilities: []config.Capability{
			{ID: "list", Description: "List", Endpoint: "https://shop.example/api/list",
				Params: []config.Param{
					{Name: "s", Description: "text"},
					{Name: "n", Type: config.TypeInteger, Default: 0},
					{Name: "f", Type: config.TypeNumber},
					{Name: "b", Type: config.TypeBoolean, Default: false},
					{Name: "tags", Type: config.TypeArray},
					{Name: "when", Type: config.TypeString, Format: "ISO8601"},
					{Name: "size", Enum: []any{"s", "m"}},
					{Name: "code", Format: "airport_code", Enum: []any{"JFK"}},
				}},
			{ID: "products.search", Description: "Search via A2A", Via: "a2a", Operation: "product.search"},
			{ID: "checkout", Description: "Check out via A2A", Via: "a2a", Operation: "checkout.create", Method: "post",
				Endpoint: "https://payments.example/checkout", Idempotency: &config.Idempotency{}},
		},
	}
	doc, err := AgentJSON(&s, "")
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, schemaFile, doc)
	got := jsontest.Decode(t, doc)
	want := jsontest.Decode(t, []byte(`{
  "awp_version": "0.2", "domain": "shop.example", "intent": "Buy things",
  "protocols": {"a2a": {"version": "0.3", "endpoint": "https://agent.shop.example/a2a",
    "agent_card": "https://agent.shop.example/.well-known/agent-card.json"}},
  "entities": {"empty": {"fields": {}}},
  "actions": [
    {"id": "list", "description": "List", "auth_required": false, "outputs": {}, "endpoint": "/api/list", "method": "GET",
     "inputs": {
       "s": {"type": "string", "description": "text"},
       "n": {"type": "integer", "default": 0},
       "f": {"type": "float"},
       "b": {"type": "boolean", "default": false},
       "tags": {"type": "array"},
       "when": {"type": "ISO8601"},
       "size": {"type": "enum", "options": ["s", "m"]},
       "code": {"type": "airport_code", "options": ["JFK"]}}},
    {"id": "products.search", "description": "Search via A2A", "auth_required": false, "inputs": {}, "outputs": {},
     "via": "a2a", "operation": "product.search"},
    {"id": "checkout", "description": "Check out via A2A", "auth_required": false, "inputs": {}, "outputs": {},
     "endpoint": "https://payments.example/checkout", "method": "POST", "via": "a2a", "operation": "checkout.create",
     "idempotency": {"supported": false}}
  ]}`))
	if !jsontest.Equal(got, want) {
		t.Fatalf("got\n%s", doc)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		site *config.Site
		want string
	}{
		{"nil site", nil, "nil site"},
		{"unencodable default", &config.Site{Name: "x", URL: "https://x.example", Capabilities: []config.Capability{
			{ID: "a", Params: []config.Param{{Name: "q", Default: make(chan int)}}}}}, "unsupported type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := AgentJSON(tt.site, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q (doc %s)", err, tt.want, doc)
			}
		})
	}
}

// TestA2AProtocolVersion: an A2A capability's AWP protocols entry names the
// agent card version the site serves: 1.0 by default, 0.3 when the site
// serves that card.
func TestA2AProtocolVersion(t *testing.T) {
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities, config.Capability{ID: "concierge", Description: "Plans a trip.",
		Protocol: config.ProtocolA2A, Endpoint: "https://outdoor.example/a2a"})
	for version, want := range map[string]string{"": "1.0", "0.3": "0.3", "1.0": "1.0"} {
		doc, err := AgentJSON(&s, version)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := jsontest.Decode(t, doc)["protocols"].(map[string]any)
		a2a, _ := p["a2a"].(map[string]any)
		if a2a["version"] != want || a2a["endpoint"] != "https://outdoor.example/a2a" {
			t.Errorf("AgentJSON(%q): a2a = %v, want version %s", version, a2a, want)
		}
	}
}
