package agentstxt

import (
	"reflect"
	"testing"

	"github.com/agentready/agentready/config"
)

// TestRenderGraded: a graded policy's Agent block keeps Rate-Limit and
// Capabilities for what a client naming the agent gets (draft-car 2.7,
// 4.2) and adds the proven form as agentready's extension fields
// (Proven-Rate-Limit, Proven-Capabilities; 2.5: fields not defined MUST be
// ignored by parsers); an empty proven grant has no line.
func TestRenderGraded(t *testing.T) {
	s := config.Site{
		Name: "S", URL: "https://s.example",
		Capabilities: []config.Capability{{ID: "search", Endpoint: "https://s.example/search"}, {ID: "cart", Endpoint: "https://s.example/cart"}},
		Agents: []config.AgentPolicy{
			{Name: "*", RateLimit: config.PerMinute(30), Proven: &config.Grant{RateLimit: config.PerMinute(120)}},
			{Name: "GPTBot", RateLimit: config.PerMinute(10), Capabilities: []string{"search"},
				Proven: &config.Grant{RateLimit: config.PerMinute(600), Capabilities: []string{"search", "cart"}},
				Verify: config.Verification{Required: true, FallBack: true}},
			{Name: "Quiet", Proven: &config.Grant{Capabilities: []string{}}},
			{Name: "Open", RateLimit: config.PerMinute(5), Proven: &config.Grant{}},
		},
	}
	const want = `# agents.txt
Spec-Version: 1.0

Site-Name: S
Site-URL: https://s.example

Capability: search
  Endpoint: https://s.example/search
  Method: GET
  Protocol: REST
  Auth: none

Capability: cart
  Endpoint: https://s.example/cart
  Method: GET
  Protocol: REST
  Auth: none

Agent: *
  Rate-Limit: 30/minute
  Proven-Rate-Limit: 120/minute

Agent: GPTBot
  Rate-Limit: 10/minute
  Capabilities: search
  Proven-Rate-Limit: 600/minute
  Proven-Capabilities: search, cart

Agent: Quiet
  Proven-Capabilities:

Agent: Open
  Rate-Limit: 5/minute
`
	b, err := Render(&s, config.DialectIETFDraft)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
	got := f.Site.Agents
	if !reflect.DeepEqual(got[1].Proven, s.Agents[1].Proven) || !reflect.DeepEqual(got[2].Proven, &config.Grant{Capabilities: []string{}}) || got[3].Proven != nil {
		t.Errorf("parsed proven grants: %+v %+v %+v", got[1].Proven, got[2].Proven, got[3].Proven)
	}
	// Verify is the server's business: nothing of it is published.
	if got[1].Verify.Required || got[1].Verify.FallBack {
		t.Errorf("verify published: %+v", got[1].Verify)
	}
}
