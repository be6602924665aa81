package agentsmd_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/agentsmd"
)

// TestBehaviorGraded: agents.md's Behavior, prose, says every grade of a
// graded policy (issue 26): what a client naming the agent gets, what a
// proven one gets, what an unproven claim gets under a verified-only
// policy, and what "*" gives an undeclared agent whose operator is proven.
func TestBehaviorGraded(t *testing.T) {
	s := config.Site{
		Name: "Shop", URL: "https://shop.example",
		Capabilities: []config.Capability{{ID: "search", Description: "Search"}, {ID: "cart", Description: "Cart"}},
		Access:       config.Access{Allow: []string{"/"}},
		Agents: []config.AgentPolicy{
			{Name: "*", RateLimit: config.PerMinute(30), Proven: &config.Grant{RateLimit: config.PerMinute(120)}},
			{Name: "GPTBot", RateLimit: config.PerMinute(10), Capabilities: []string{"search"},
				Proven: &config.Grant{RateLimit: config.PerMinute(600), Capabilities: []string{"search", "cart"}}},
			{Name: "ClaudeBot", Proven: &config.Grant{}, Verify: config.Verification{Required: true, FallBack: true}},
			{Name: "Bingbot", RateLimit: config.PerMinute(60), Verify: config.Verification{Required: true}},
		},
	}
	got, err := agentsmd.Render(&s)
	if err != nil {
		t.Fatal(err)
	}
	const want = "## Behavior\n" +
		"- Agents without their own policy: 30 requests/minute\n" +
		"- Agents without their own policy whose operator is proven: 120 requests/minute\n" +
		"- Agent GPTBot: 10 requests/minute; capabilities search\n" +
		"- Agent GPTBot, proven: 600 requests/minute; capabilities search, cart\n" +
		"- Agent ClaudeBot, proven: no limit; every capability\n" +
		"- Agent ClaudeBot, unproven: served as agents without their own policy\n" +
		"- Agent Bingbot, proven: 60 requests/minute\n" +
		"- Agent Bingbot, unproven: refused\n" +
		"- Identify in User-Agent header\n"
	if !strings.Contains(string(got), want) {
		t.Errorf("got\n%s\nwant a Behavior section\n%s", got, want)
	}
}
