package config_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

func TestKey(t *testing.T) {
	for name, want := range map[string]string{
		"URL": "url", "RateLimit": "rate_limit", "AgentsJSONURL": "agents_json_url", "IPRanges": "ip_ranges",
		"RequiresSession": "requires_session", "TokenEndpoint": "token_endpoint", "OpenAPI": "open_api",
		"MCP": "mcp", "TTL": "ttl", "AIInput": "ai_input", "DocsURL": "docs_url", "HostedAgents": "hosted_agents",
		"ConformanceLevel": "conformance_level", "SignatureAgents": "signature_agents", "JWKSURI": "jwks_uri", "ID": "id", "AWP": "awp", "PerMinuteX": "per_minute_x", "HostedAgent": "hosted_agent", "XYZ": "xyz",
	} {
		if got := config.Key(name); got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestParseSiteAppendixA: the Appendix A declaration written as YAML, and
// as JSON, decodes to the fixture declared in Go.
func TestParseSiteAppendixA(t *testing.T) {
	want := fixtures.OutdoorSupply()
	got, lines, err := config.ParseSite([]byte(fixtures.OutdoorSupplyYAML))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("YAML:\n got %+v\nwant %+v", got, want)
	}
	if lines.Line("Capabilities[1].Auth.TokenEndpoint") != 23 || lines.Line("Agents[1].RateLimit") != 30 || lines.Line("Agents[1].RateLimit.Requests") != 30 {
		t.Errorf("lines: %v", lines)
	}
	js := `{"name": "Outdoor Supply Co.", "url": "https://outdoorsupply.example", "description": "Gear for outdoor adventures",
 "contact": "agents@outdoorsupply.example", "generated_at": "2026-02-01T00:00:00Z",
 "capabilities": [{"id": "product-search", "description": "Search the product catalog", "endpoint": "https://outdoorsupply.example/api/search",
   "method": "GET", "protocol": "REST", "auth": {"type": "none"}, "rate_limit": "60/minute",
   "params": [{"name": "q", "in": "query", "type": "string", "required": true, "description": "Search query"},
     {"name": "limit", "in": "query", "type": "integer", "description": "Max results, default 20", "default": 20},
     {"name": "category", "in": "query", "type": "string", "description": "Filter by category"}]},
  {"id": "store-assistant", "description": "Full store interaction via MCP", "endpoint": "https://outdoorsupply.example/mcp",
   "protocol": "MCP", "auth": {"type": "bearer-token", "token_endpoint": "https://outdoorsupply.example/auth/token"}}],
 "access": {"allow": ["/api/*", "/mcp"], "disallow": ["/admin/*", "/internal/*"]},
 "agents": [{"name": "*"}, {"name": "claude", "rate_limit": "200/minute", "capabilities": ["product-search", "store-assistant"]}]}`
	got, _, err = config.ParseSite([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON:\n got %+v\nwant %+v", got, want)
	}
}

// TestParseSiteErrors: unknown keys and wrong types are reported, all of
// them, each with its line and field path.
func TestParseSiteErrors(t *testing.T) {
	src := "name: x\nurl: https://x.example\nrateLimit: 60/minute\ncapabilities:\n  - id: a\n    rate_limit: sixty\n    requires_session: maybe\nsession:\n  ttl: forever\n"
	_, _, err := config.ParseSite([]byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`line 3: unknown key "rateLimit"`, "rate_limit", `line 6: capabilities[0].rate_limit: rate "sixty"`,
		`line 7: capabilities[0].requires_session: "maybe" is not a bool`, `line 9: session.ttl: "forever" is not a duration`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	var fe *config.FileError
	if !errors.As(err, &fe) || fe.Line == 0 {
		t.Errorf("not a *FileError with a line: %v", err)
	}
	if _, _, err := config.ParseSite([]byte("{not yaml")); err == nil {
		t.Error("garbage accepted")
	}
}

// TestParseSiteHostile: duplicate keys, a second document, complex keys
// and an alias bomb are refused, quickly.
func TestParseSiteHostile(t *testing.T) {
	for name, src := range map[string]string{
		"duplicate key":    "name: Reviewed\nurl: https://x.example\nname: Evil\n",
		"duplicate block":  "name: x\naccess:\n  allow: [/a]\naccess:\n  disallow: [/b]\n",
		"second document":  "name: x\n---\nname: y\n",
		"complex key":      "name: x\n? [a, b]\n: c\n",
		"duplicate map":    "name: x\nmetadata:\n  a: \"1\"\n  a: \"2\"\n",
		"broken second":    "name: x\n---\n: [\n",
		"self alias":       "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        default: &a [*a]\n",
		"self alias map":   "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        default: &a {k: *a}\n",
		"alias chain":      "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        default: {" + aliasChain(100) + "}\n",
		"deep nesting":     "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        default: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
		"bool yes":         "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        required: yes\n",
		"bool quoted":      "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        required: \"on\"\n",
		"duplicate in any": "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        default: {a: 1, a: 2}\n",
		// "<<" merge keys copy keys in unseen: refused in a struct, a
		// value of type any and a map (found by review: a map took "<<"
		// as a key).
		"merge in struct": "name: x\n<<: {url: https://x.example}\n",
		"merge in any":    "name: x\ncapabilities:\n  - id: c\n    params:\n      - name: p\n        default: {<<: {a: b}}\n",
		"merge in map":    "name: x\ncapabilities:\n  - id: c\n    output: {<<: {a: b}}\n",
	} {
		if _, _, err := config.ParseSite([]byte(src)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// An alias bomb: each level refers to the one below ten times.
	var b strings.Builder
	b.WriteString("name: x\nflows:\n  - &a0 {name: f, steps: [s]}\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  - &a%d [", i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	_, _, err := config.ParseSite([]byte(b.String()))
	if err == nil {
		t.Error("an alias bomb was accepted")
	}
	// Well-typed bombs, each expanding to a million values or more: a
	// thousand copies of a capability with a thousand tags, and a thousand
	// parameters whose default (a value of any type) is a list of a
	// thousand (yaml.v3, decoding each default apart, saw one alias each).
	list := "[" + strings.TrimSuffix(strings.Repeat("t, ", 1000), ", ") + "]"
	refs := "[" + strings.TrimSuffix(strings.Repeat("*c, ", 1000), ", ") + "]"
	for name, src := range map[string]string{
		"typed": "name: x\nmetadata: {k: &c {id: c, tags: " + list + "}}\ncapabilities: " + refs + "\n",
		"default": "name: x\nmetadata: {k: &c " + list + "}\ncapabilities:\n  - id: c\n    params: [" +
			strings.TrimSuffix(strings.Repeat("{name: p, default: *c}, ", 1000), ", ") + "]\n",
	} {
		_, _, err := config.ParseSite([]byte(src))
		if err == nil || !strings.Contains(err.Error(), "expands to more than") {
			t.Errorf("%s bomb (%d bytes): %v", name, len(src), err)
		}
	}
}

// TestLocate: Validate's problems placed at the lines of their fields;
// another error comes back as it is.
func TestLocate(t *testing.T) {
	src := "name: x\nurl: https://x.example\ncapabilities:\n  - id: search\n    description: Search\n    endpoint: /search\n    rate_limit: 60/minute\n"
	site, lines, err := config.ParseSite([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	err = lines.Locate(publish.Validate(&site, config.Formats{}))
	var fe *config.FileError
	found := false
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if errors.As(e, &fe) && fe.Field == "capabilities[0].endpoint" {
			found = fe.Line == 6
		}
	}
	if !found {
		t.Errorf("no problem of capabilities[0].endpoint at line 6 in:\n%v", err)
	}
	other := errors.New("other")
	if lines.Locate(other) != other {
		t.Error("another error was changed")
	}
}

// aliasChain writes n mapping entries, each a list holding the one before
// by alias: a0: &a0 [0], a1: &a1 [*a0], ...
func aliasChain(n int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [0]")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ", a%d: &a%d [*a%d]", i, i, i-1)
	}
	return b.String()
}

// TestParseFile: a program's own keys beside the Site's, decoded by the
// Site's rules, their mistakes reported with their lines like any other,
// and the Site's field paths unchanged by them.
func TestParseFile(t *testing.T) {
	var f struct {
		config.Site
		Upstream struct {
			Strict         bool
			PathParameters string
		}
	}
	src := "name: x\nurl: https://x.example\nupstream:\n  strict: true\ncapabilities:\n  - id: a\n"
	lines, err := config.ParseFile([]byte(src), &f)
	if err != nil || !f.Upstream.Strict || f.Name != "x" || len(f.Capabilities) != 1 {
		t.Fatalf("%+v %v", f, err)
	}
	if lines.Line("Capabilities[0].ID") != 6 || lines.Line("Upstream.Strict") != 4 {
		t.Errorf("lines: %v", lines)
	}
	for src, want := range map[string]string{
		"name: x\nupstream:\n  strict: yes\n":   `line 3: upstream.strict: "yes" is not a bool`,
		"name: x\nupstream:\n  strcit: true\n":  `line 3: upstream: unknown key "strcit" (keys: strict, path_parameters)`,
		"name: x\nupstream: true\n":             `line 2: upstream: want a mapping`,
		"name: x\nupstream: {}\nupstream: {}\n": `key "upstream" is already set on line 2`,
		"name: x\nserve: {}\n":                  `line 2: unknown key "serve"`,
	} {
		f.Upstream.Strict = false
		if _, err := config.ParseFile([]byte(src), &f); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	var embedded struct {
		*config.Site
		Extra struct{ On bool }
	}
	if _, err := config.ParseFile([]byte("name: x\nextra: {on: true}\n"), &embedded); err != nil || embedded.Site == nil || embedded.Name != "x" || !embedded.Extra.On {
		t.Errorf("an embedded *Site: %+v %v", embedded, err)
	}
	var bad struct{ C chan int }
	if _, err := config.ParseFile([]byte("c: 1\n"), &bad); err == nil || !strings.Contains(err.Error(), "line 1: c: a chan int is not read from a file") {
		t.Errorf("a channel: %v", err)
	}
	for _, v := range []any{f, nil, (*config.Site)(nil), new(int)} {
		if _, err := config.ParseFile([]byte("name: x\n"), v); err == nil {
			t.Errorf("%T accepted", v)
		}
	}
}

// TestParseSiteServeKeys: "upstream" and "serve" are agentready serve's
// keys (cmd/agentready/internal/settings checks them): ParseSite accepts
// them whatever they hold, and refuses any other key beside the Site's,
// naming them among the keys.
func TestParseSiteServeKeys(t *testing.T) {
	for _, src := range []string{
		"name: x\nurl: https://x.example\nupstream:\n  strict: true\ncapabilities:\n  - id: a\n",
		"name: x\nupstream:\n  strict: yes\n",
		"name: x\nupstream: {path_parameters: servlet}\n",
		"name: x\nupstream: true\n",
		"name: x\nserve:\n",
		"name: x\nserve: {robots: yes, tokens: x, trusted_proxies: [nope]}\n",
	} {
		site, lines, err := config.ParseSite([]byte(src))
		if err != nil || site.Name != "x" {
			t.Errorf("%q: %+v %v", src, site, err)
		}
		if strings.Contains(src, "capabilities") && (len(site.Capabilities) != 1 || lines.Line("Capabilities[0].ID") != 6) {
			t.Errorf("%q: the Site's paths: %v", src, lines)
		}
	}
	for src, want := range map[string]string{
		"name: x\nupstream: {}\nupstream: {}\n": `line 3: key "upstream" is already set on line 2`,
		"name: x\nsite:\n  name: y\n":           `line 2: unknown key "site" (keys: name, `,
		"name: x\nServe: {}\n":                  `unknown key "Serve"`,
	} {
		if _, _, err := config.ParseSite([]byte(src)); err == nil || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "upstream, serve)") && strings.Contains(want, "keys:") {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
