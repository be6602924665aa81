package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
)

// gradedYAML is the graded GPTBot of docs/declaration.md (issue 26):
// proven 600/minute, a mere claim 10/minute, and "*" giving signed agents
// the site does not declare more than an anonymous client.
const gradedYAML = `name: Example Shop
url: https://shop.example
description: Outdoor gear
implicit_access: ai-agents
capabilities:
  - {id: search, description: Search, endpoint: "https://shop.example/api/search"}
  - {id: add-to-cart, description: Add to cart, endpoint: "https://shop.example/api/cart", method: POST}
access:
  link_previews: true
agents:
  - name: "*"
    rate_limit: 30/minute
    proven: {rate_limit: 120/minute}
    verify: {signature_agents: ["https://agents.signer.example"]}
  - name: GPTBot
    rate_limit: 10/minute
    capabilities: [search]
    proven:
      rate_limit: 600/minute
      capabilities: [search, add-to-cart]
    verify: {required: true, fall_back: true}
usage:
  train: "no"
  enforce: true
  unknown_purpose: training-crawler
  paths:
    - {path: /docs/, train: "yes", unknown_purpose: search-crawler}
`

// The JSON form of the same keys.
const gradedJSON = `{"name": "Example Shop", "url": "https://shop.example", "description": "Outdoor gear",
 "implicit_access": "ai-agents",
 "capabilities": [{"id": "search", "description": "Search", "endpoint": "https://shop.example/api/search"},
  {"id": "add-to-cart", "description": "Add to cart", "endpoint": "https://shop.example/api/cart", "method": "POST"}],
 "access": {"link_previews": true},
 "agents": [{"name": "*", "rate_limit": "30/minute", "proven": {"rate_limit": "120/minute"},
   "verify": {"signature_agents": ["https://agents.signer.example"]}},
  {"name": "GPTBot", "rate_limit": "10/minute", "capabilities": ["search"],
   "proven": {"rate_limit": "600/minute", "capabilities": ["search", "add-to-cart"]},
   "verify": {"required": true, "fall_back": true}}],
 "usage": {"train": "no", "enforce": true, "unknown_purpose": "training-crawler",
  "paths": [{"path": "/docs/", "train": "yes", "unknown_purpose": "search-crawler"}]}}`

// TestGradedKeys: proven, link_previews and unknown_purpose decode from
// YAML and JSON into the fields enforcement reads, and validate.
func TestGradedKeys(t *testing.T) {
	for name, src := range map[string]string{"yaml": gradedYAML, "json": gradedJSON} {
		t.Run(name, func(t *testing.T) {
			site, lines, err := config.ParseSite([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := publish.Validate(&site, config.Formats{}); err != nil {
				t.Fatal(lines.Locate(err))
			}
			if !site.Access.LinkPreviews {
				t.Error("access.link_previews: not read")
			}
			def, gpt := site.Agents[0], site.Agents[1]
			if def.Proven == nil || def.Proven.RateLimit.String() != "120/minute" || def.Proven.Capabilities != nil {
				t.Errorf(`"*".proven = %+v`, def.Proven)
			}
			if got := def.Verify.SignatureAgents; !reflect.DeepEqual(got, []string{"https://agents.signer.example"}) {
				t.Errorf(`"*".verify.signature_agents = %q`, got)
			}
			want := &config.Grant{RateLimit: config.Rate{Requests: 600, Window: "minute"}, Capabilities: []string{"search", "add-to-cart"}}
			if !reflect.DeepEqual(gpt.Proven, want) {
				t.Errorf("GPTBot.proven = %+v, want %+v", gpt.Proven, want)
			}
			if gpt.RateLimit.String() != "10/minute" || !gpt.Verify.Required || !gpt.Verify.FallBack {
				t.Errorf("GPTBot's claimed form: %+v", gpt)
			}
			if site.Usage.UnknownPurpose != "training-crawler" || site.Usage.Paths[0].UnknownPurpose != "search-crawler" {
				t.Errorf("unknown_purpose: %q, paths[0] %q", site.Usage.UnknownPurpose, site.Usage.Paths[0].UnknownPurpose)
			}
			if name == "yaml" && lines["Agents[1].Proven.Capabilities"] != 20 {
				t.Errorf("agents[1].proven.capabilities at line %d, want 20", lines["Agents[1].Proven.Capabilities"])
			}
		})
	}
}

// TestGradedKeyErrors: a wrong key or value within the new keys is
// reported at its line, in the file's spelling, with the keys it could be.
func TestGradedKeyErrors(t *testing.T) {
	const src = `name: Example Shop
url: https://shop.example
description: Outdoor gear
implicit_access: ai-agents
capabilities:
  - {id: search, description: Search, endpoint: "https://shop.example/api/search"}
agents:
  - name: GPTBot
    proven: {rate: 600/minute}
  - name: ClaudeBot
    proven:
      rate_limit: 600/fortnight
      capabilities: [search, checkout]
  - name: Other
    proven: 5
access: {link_previews: "yes"}
usage: {train: "no", unknown_purpose: bogus, paths: [{path: /a, unknown_purpose: 3}]}
`
	site, lines, perr := config.ParseSite([]byte(src))
	err := lines.Locate(errors.Join(perr, publish.Validate(&site, config.Formats{})))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`line 9: agents[0].proven: unknown key "rate" (keys: rate_limit, capabilities)`,
		`line 12: agents[1].proven.rate_limit: rate "600/fortnight": window "fortnight" is not one of second, minute, hour, day`,
		`line 13: agents[1].proven.capabilities[1]: "checkout" is not the ID of a declared capability`,
		`line 15: agents[2].proven: want a mapping of keys to values`,
		`line 16: access.link_previews: "yes" is not a bool`,
		`line 17: usage.unknown_purpose: "bogus" is not a purpose: "training-crawler", "search-crawler", "user-agent" or unstated`,
		`line 17: usage.paths[0].unknown_purpose: 3 is a number, not a string`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}
}
