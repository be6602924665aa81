package agentsjson

import (
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsontest"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// TestDraftCarGraded: a graded policy keeps rateLimit and capabilities
// for what a client naming the agent gets (draft-car 2.7, 4.2) and carries
// its proven form in "proven", agentready's extension (2.5), which the
// draft's agents.json schema admits; {} is a proven form with no limit.
// Verify is the server's business and is not published.
func TestDraftCarGraded(t *testing.T) {
	s := config.Site{
		Name: "S", URL: "https://s.example",
		Capabilities: []config.Capability{{ID: "search", Description: "Search", Endpoint: "https://s.example/search"},
			{ID: "cart", Description: "Cart", Endpoint: "https://s.example/cart"}},
		Agents: []config.AgentPolicy{
			{Name: "*", RateLimit: config.PerMinute(30), Proven: &config.Grant{RateLimit: config.PerMinute(120)},
				Verify: config.Verification{SignatureAgents: []string{"https://agents.signer.example"}}},
			{Name: "GPTBot", RateLimit: config.PerMinute(10), Capabilities: []string{"search"},
				Proven: &config.Grant{RateLimit: config.PerMinute(600), Capabilities: []string{"search", "cart"}},
				Verify: config.Verification{Required: true, FallBack: true}},
			{Name: "Quiet", Proven: &config.Grant{Capabilities: []string{}}},
			{Name: "Open", RateLimit: config.PerMinute(5), Proven: &config.Grant{}},
		},
	}
	doc, err := DraftCar(&s)
	if err != nil {
		t.Fatal(err)
	}
	jsontest.AssertSame(t, doc, `{
  "specVersion": "1.0",
  "site": {"name": "S", "url": "https://s.example"},
  "capabilities": [
    {"id": "search", "description": "Search", "endpoint": "https://s.example/search", "method": "GET", "protocol": "REST", "auth": {"type": "none"}},
    {"id": "cart", "description": "Cart", "endpoint": "https://s.example/cart", "method": "GET", "protocol": "REST", "auth": {"type": "none"}}
  ],
  "access": {"allow": [], "disallow": []},
  "agents": {
    "*": {"rateLimit": {"requests": 30, "window": "minute"}, "proven": {"rateLimit": {"requests": 120, "window": "minute"}}},
    "GPTBot": {"rateLimit": {"requests": 10, "window": "minute"}, "capabilities": ["search"],
      "proven": {"rateLimit": {"requests": 600, "window": "minute"}, "capabilities": ["search", "cart"]}},
    "Quiet": {"proven": {"capabilities": []}},
    "Open": {"rateLimit": {"requests": 5, "window": "minute"}, "proven": {}}
  }
}`)
	schematest.Validate(t, "draft-car_agents-json.schema.json", doc)
}
