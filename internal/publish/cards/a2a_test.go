package cards_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/cards"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// The card definitions of the schemas: A2A v1.0.1's, generated from
// a2a.proto (internal/specschemas/a2agen), and v0.3.0's.
const (
	schemaA2A10 = "a2a_v1.0.1_a2a.json#/definitions/Agent%20Card"
	schemaA2A03 = "a2a_v0.3.0_a2a.json#/definitions/AgentCard"
)

// -update rewrites the golden cards; publish's golden test names the same
// flag, and this package may come to.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
}

func updating() bool { return flag.Lookup("update").Value.String() == "true" }

// a2aCase is a declaration and how its card is rendered. Its golden card
// is internal/publish/testdata/golden/<name>/agent-card.json, beside the
// golden documents of the publish fixtures.
type a2aCase struct {
	name string
	site config.Site
	opts cards.A2AOptions
}

// testKey is a fixed P-256 key: the signed card's signature is
// deterministic (RFC 6979), so its golden file is stable.
func testKey(t testing.TB) *ecdsa.PrivateKey {
	d := sha256.Sum256([]byte("agentready A2A card test key"))
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

const testKID = "a2a-test-key"

// everyAuthSite declares A2A capabilities with each auth kind over three
// endpoints, one of them HTTP+JSON by the declaration's a2a protocol entry.
func everyAuthSite() config.Site {
	ep := func(p string) string { return "https://agents.example" + p }
	return config.Site{
		Name: "Example Agents", URL: "https://agents.example", Description: "Bookings, orders and settlement by agent",
		Contact: "agents@agents.example", DocsURL: "https://agents.example/docs", Version: "2.1.0",
		Capabilities: []config.Capability{
			{ID: "concierge", Description: "Answers questions", Endpoint: ep("/a2a"), Protocol: config.ProtocolA2A,
				Method: "POST", Streaming: true, Tags: []string{"questions", "help"}},
			{ID: "orders", Name: "Order desk", Description: "Takes orders", Endpoint: ep("/a2a"), Protocol: config.ProtocolA2A,
				Method: "POST", Auth: config.Auth{Type: config.AuthBearerToken, TokenEndpoint: ep("/auth/token"), DocsURL: ep("/docs/auth")}},
			{ID: "inventory", Description: "Checks stock", Endpoint: ep("/a2a/inventory"), Protocol: config.ProtocolA2A,
				Method: "POST", Auth: config.Auth{Type: config.AuthAPIKey, Header: "X-Partner-Key"}},
			{ID: "bookings", Description: "Books rooms", Endpoint: ep("/a2a/bookings"), Protocol: config.ProtocolA2A, Method: "POST",
				Auth: config.Auth{Type: config.AuthOAuth2, TokenEndpoint: ep("/oauth/token"), AuthorizationServer: "https://agents.example/oauth",
					Scopes: []string{"bookings.read", "bookings.write"}}},
			{ID: "refunds", Description: "Refunds bookings", Endpoint: ep("/a2a/bookings"), Protocol: config.ProtocolA2A, Method: "POST",
				Auth: config.Auth{Type: config.AuthOAuth2, TokenEndpoint: ep("/oauth/token"), AuthorizationServer: "https://agents.example/oauth",
					Scopes: []string{"bookings.write", "refunds"}}},
			{ID: "settlement", Description: "Settles partner invoices", Endpoint: ep("/a2a/inventory"), Protocol: config.ProtocolA2A,
				Method: "POST", Auth: config.Auth{Type: config.AuthHMAC, DocsURL: ep("/docs/signing")}},
			{ID: "search", Description: "Searches the catalog", Endpoint: ep("/api/search"), Auth: config.Auth{Type: config.AuthAPIKey}},
		},
		AWP: config.AWP{Protocols: map[string]config.AWPProtocol{
			"a2a": {Version: "1.0", Endpoint: ep("/a2a/bookings"), Extra: map[string]string{"transport": "HTTP+JSON"}},
		}},
	}
}

// openSite's one A2A capability needs no credential.
func openSite() config.Site {
	s := fixtures.OutdoorSupply()
	s.Capabilities = append(s.Capabilities, config.Capability{ID: "gear-advisor", Description: "Recommends gear for a trip",
		Endpoint: "https://outdoorsupply.example/a2a", Protocol: config.ProtocolA2A, Method: "POST", Tags: []string{"gear"}})
	return s
}

// a2aTravelSite is travelSite, every capability described as the
// declaration's formats require.
func a2aTravelSite() config.Site {
	s := travelSite()
	for i := range s.Capabilities {
		if s.Capabilities[i].Description == "" {
			s.Capabilities[i].Description = "Checks stock"
		}
	}
	return s
}

func a2aCases(t testing.TB) []a2aCase {
	signed := cards.A2AOptions{Key: testKey(t), KeyID: testKID}
	return []a2aCase{
		{"a2a-travel", a2aTravelSite(), cards.A2AOptions{}},
		{"a2a-every-auth", everyAuthSite(), cards.A2AOptions{}},
		{"a2a-every-auth-v0.3", everyAuthSite(), cards.A2AOptions{Version: cards.A2AVersion03}},
		{"a2a-open-signed", openSite(), signed},
		{"a2a-every-auth-signed", everyAuthSite(), signed},
	}
}

func render(t testing.TB, c a2aCase) []byte {
	t.Helper()
	b, err := cards.A2ACardWith(&c.site, c.opts)
	if err != nil || b == nil {
		t.Fatalf("%s: A2ACardWith: %q, %v", c.name, b, err)
	}
	return b
}

// TestA2AGolden: the cards are valid against their version's schema and
// equal to their golden files (go test ./internal/publish/cards -update).
func TestA2AGolden(t *testing.T) {
	for _, c := range a2aCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if err := publish.Validate(&c.site, config.Formats{}); err != nil {
				t.Fatalf("the declaration does not validate: %v", err)
			}
			b := render(t, c)
			if c.opts.Version == cards.A2AVersion03 {
				schematest.Validate(t, schemaA2A03, b)
			} else {
				schematest.Validate(t, schemaA2A10, b)
			}
			path := filepath.Join("..", "testdata", "golden", c.name, "agent-card.json")
			if updating() {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./internal/publish/cards -update)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("differs from %s:\n--- got\n%s\n--- want\n%s", path, b, want)
			}
			again := render(t, c)
			if !bytes.Equal(b, again) {
				t.Error("rendering is not deterministic")
			}
		})
	}
}

// TestA2ASchemas: the generated v1.0 schema holds the specification's
// REQUIRED rules (A2A 1.0 5.7), and the two versions' cards are not
// interchangeable.
func TestA2ASchemas(t *testing.T) {
	v10 := render(t, a2aCases(t)[1])
	v03 := render(t, a2aCases(t)[2])
	if schematest.Check(t, schemaA2A10, v03) == nil {
		t.Error("the v1.0 schema accepts a v0.3 card")
	}
	if schematest.Check(t, schemaA2A03, v10) == nil {
		t.Error("the v0.3 schema accepts a v1.0 card")
	}
	// Each REQUIRED member removed, and each required array emptied, makes
	// the card invalid.
	for _, path := range []string{"name", "description", "supportedInterfaces", "version", "capabilities",
		"defaultInputModes", "defaultOutputModes", "skills", "supportedInterfaces.0.protocolVersion",
		"supportedInterfaces.0.protocolBinding", "skills.0.tags", "provider.url",
		"securitySchemes.bearer.httpAuthSecurityScheme.scheme", "securitySchemes.oauth2.oauth2SecurityScheme.flows",
		"securitySchemes.oauth2.oauth2SecurityScheme.flows.clientCredentials.scopes"} {
		if schematest.Check(t, schemaA2A10, edit(t, v10, path, nil)) == nil {
			t.Errorf("valid without %s", path)
		}
	}
	for _, path := range []string{"supportedInterfaces", "skills", "skills.0.tags", "defaultInputModes"} {
		if schematest.Check(t, schemaA2A10, edit(t, v10, path, []any{})) == nil {
			t.Errorf("valid with an empty %s", path)
		}
	}
}

// edit returns doc with the member at a dotted path removed (v nil) or
// set to v.
func edit(t testing.TB, doc []byte, path string, v any) []byte {
	t.Helper()
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(path, ".")
	cur := root
	for _, k := range keys[:len(keys)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k]
		case []any:
			cur = c[int(k[0]-'0')]
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("%s: no object at its parent", path)
	}
	if _, ok := m[keys[len(keys)-1]]; !ok {
		t.Fatalf("%s: no such member in %s", path, doc)
	}
	if v == nil {
		delete(m, keys[len(keys)-1])
	} else {
		m[keys[len(keys)-1]] = v
	}
	b, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// card10 is what the tests read of a v1.0 card.
type card10 struct {
	SupportedInterfaces  []struct{ URL, ProtocolBinding, ProtocolVersion string } `json:"supportedInterfaces"`
	Capabilities         map[string]any                                           `json:"capabilities"`
	SecuritySchemes      map[string]map[string]map[string]any                     `json:"securitySchemes"`
	SecurityRequirements []requirement                                            `json:"securityRequirements"`
	Skills               []struct {
		ID, Name             string
		Tags                 []string
		SecurityRequirements []requirement `json:"securityRequirements"`
	} `json:"skills"`
	Signatures []struct{ Protected, Signature string } `json:"signatures"`
}

type requirement struct {
	Schemes map[string]struct {
		List []string `json:"list"`
	} `json:"schemes"`
}

// String is the requirement as "scheme[scope scope]+scheme[]", "{}" when
// empty.
func (r requirement) String() string {
	if len(r.Schemes) == 0 {
		return "{}"
	}
	var parts []string
	for name, l := range r.Schemes {
		parts = append(parts, name+"["+strings.Join(l.List, " ")+"]")
	}
	return strings.Join(parts, "+")
}

func reqs(rs []requirement) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.String())
	}
	return strings.Join(s, " | ")
}

func decode10(t testing.TB, b []byte) card10 {
	t.Helper()
	var c card10
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestA2ACardV10: one interface per distinct endpoint, in declaration
// order, its binding and version from the declaration's a2a protocol entry;
// a scheme per distinct declared auth; each skill its own capability's
// requirement; the card's requirements the alternatives.
func TestA2ACardV10(t *testing.T) {
	site := everyAuthSite()
	c := decode10(t, render(t, a2aCase{site: site}))
	var ifs []string
	for _, in := range c.SupportedInterfaces {
		ifs = append(ifs, in.URL+" "+in.ProtocolBinding+" "+in.ProtocolVersion)
	}
	if want := []string{"https://agents.example/a2a JSONRPC 1.0", "https://agents.example/a2a/inventory JSONRPC 1.0",
		"https://agents.example/a2a/bookings HTTP+JSON 1.0"}; !reflect.DeepEqual(ifs, want) {
		t.Errorf("interfaces %q, want %q", ifs, want)
	}
	if c.Capabilities["streaming"] != true {
		t.Errorf("capabilities %v: concierge streams", c.Capabilities)
	}
	kinds := map[string]string{}
	for name, sc := range c.SecuritySchemes {
		for member := range sc {
			kinds[name] = member
		}
	}
	if want := map[string]string{"bearer": "httpAuthSecurityScheme", "apiKey": "apiKeySecurityScheme",
		"oauth2": "oauth2SecurityScheme", "hmac": "apiKeySecurityScheme"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("schemes %v, want %v", kinds, want)
	}
	if h := c.SecuritySchemes["hmac"]["apiKeySecurityScheme"]; h["name"] != "Signature" || h["location"] != "header" {
		t.Errorf("hmac scheme %v", h)
	}
	if k := c.SecuritySchemes["apiKey"]["apiKeySecurityScheme"]; k["name"] != "X-Partner-Key" {
		t.Errorf("api-key scheme %v", k)
	}
	o := c.SecuritySchemes["oauth2"]["oauth2SecurityScheme"]
	flow := o["flows"].(map[string]any)["clientCredentials"].(map[string]any)
	if flow["tokenUrl"] != "https://agents.example/oauth/token" || o["oauth2MetadataUrl"] != "https://agents.example/.well-known/oauth-authorization-server/oauth" ||
		!reflect.DeepEqual(flow["scopes"], map[string]any{"bookings.read": "", "bookings.write": "", "refunds": ""}) {
		t.Errorf("oauth2 scheme %v", o)
	}
	skills := map[string]string{}
	for _, sk := range c.Skills {
		skills[sk.ID] = reqs(sk.SecurityRequirements)
	}
	if want := map[string]string{"concierge": "{}", "orders": "bearer[]", "inventory": "apiKey[]",
		"bookings": "oauth2[bookings.read bookings.write]", "refunds": "oauth2[bookings.write refunds]", "settlement": "hmac[]"}; !reflect.DeepEqual(skills, want) {
		t.Errorf("skills' requirements %v, want %v", skills, want)
	}
	if got, want := reqs(c.SecurityRequirements), "bearer[] | apiKey[] | oauth2[bookings.write] | hmac[] | {}"; got != want {
		t.Errorf("card requirements %s, want %s", got, want)
	}
	if c.Skills[1].Name != "Order desk" || c.Skills[0].Name != "concierge" || !reflect.DeepEqual(c.Skills[2].Tags, []string{"inventory"}) {
		t.Errorf("skill names or tags: %+v", c.Skills)
	}
}

// TestA2ACardAuthVariants: schemes of the same kind that differ get their
// own names; an oauth2 declaration without a token endpoint is a Bearer
// token; a card whose skills all need a credential has no empty
// requirement; a site without an A2A endpoint has no card.
func TestA2ACardAuthVariants(t *testing.T) {
	site := everyAuthSite()
	site.Capabilities[1].Auth = config.Auth{Type: config.AuthAPIKey, Header: "x-partner-key"} // the same header
	site.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey, Header: "X-Other-Key"}
	site.Capabilities[3].Auth = config.Auth{Type: config.AuthOAuth2, AuthorizationServer: "https://as.example"}
	c := decode10(t, render(t, a2aCase{site: site}))
	if k := c.SecuritySchemes["apiKey-2"]["apiKeySecurityScheme"]; k["name"] != "x-partner-key" { // as first declared
		t.Errorf("apiKey-2: %v (schemes %v)", k, c.SecuritySchemes)
	}
	if len(c.SecuritySchemes) != 5 {
		t.Errorf("%d schemes: %v", len(c.SecuritySchemes), c.SecuritySchemes)
	}
	if b := c.SecuritySchemes["oauth2"]["httpAuthSecurityScheme"]; b["scheme"] != "Bearer" ||
		!strings.Contains(b["description"].(string), "https://as.example") {
		t.Errorf("oauth2 without a token endpoint: %v", c.SecuritySchemes["oauth2"])
	}
	if got, want := reqs(c.SecurityRequirements), "apiKey[] | apiKey-2[] | oauth2[] | oauth2-2[bookings.write refunds] | hmac[]"; got != want {
		t.Errorf("card requirements %s, want %s", got, want)
	}
	if b, err := cards.A2ACard(&config.Site{Name: "x", URL: "https://x.example",
		Capabilities: []config.Capability{{ID: "a", Protocol: config.ProtocolA2A}}}); b != nil || err != nil {
		t.Errorf("a site without an A2A endpoint has a card: %s %v", b, err)
	}
	if _, err := cards.A2ACardWith(&site, cards.A2AOptions{Version: "0.2"}); err == nil {
		t.Error("an unknown version renders")
	}
}

// TestA2ACardV03: the v0.3 rendering keeps url and preferredTransport, lists
// every interface, and carries the same schemes, hmac included, in
// OpenAPI's shape.
func TestA2ACardV03(t *testing.T) {
	b := render(t, a2aCases(t)[2])
	var c struct {
		ProtocolVersion, URL, PreferredTransport string
		AdditionalInterfaces                     []struct{ URL, Transport string }
		SecuritySchemes                          map[string]map[string]any
		Security                                 []map[string][]string
		Skills                                   []struct {
			ID       string
			Security []map[string][]string
		}
		Signatures []any
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.ProtocolVersion != "0.3.0" || c.URL != "https://agents.example/a2a" || c.PreferredTransport != "JSONRPC" ||
		len(c.AdditionalInterfaces) != 3 || c.AdditionalInterfaces[2].Transport != "HTTP+JSON" {
		t.Errorf("interfaces: %s", b)
	}
	if c.SecuritySchemes["hmac"]["type"] != "apiKey" || c.SecuritySchemes["hmac"]["name"] != "Signature" ||
		c.SecuritySchemes["oauth2"]["type"] != "oauth2" || c.SecuritySchemes["bearer"]["scheme"] != "bearer" {
		t.Errorf("schemes: %v", c.SecuritySchemes)
	}
	if !reflect.DeepEqual(c.Skills[3].Security, []map[string][]string{{"oauth2": {"bookings.read", "bookings.write"}}}) ||
		!reflect.DeepEqual(c.Skills[0].Security, []map[string][]string{{}}) || len(c.Security) != 5 {
		t.Errorf("requirements: %v, %v", c.Skills, c.Security)
	}
	site := everyAuthSite()
	signed, err := cards.A2ACardWith(&site, cards.A2AOptions{Version: cards.A2AVersion03, Key: testKey(t), KeyID: testKID})
	if err != nil || bytes.Contains(signed, []byte(`"signatures"`)) {
		t.Errorf("a v0.3 card is signed: %v\n%s", err, signed)
	}
}
