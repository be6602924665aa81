package publish_test

import (
	"encoding/json"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish"
	"github.com/agentready/agentready/internal/publish/agentstxt"
)

// TestGradedEquivalence: of a graded policy (issue 26), agents.txt
// (Proven-Rate-Limit, Proven-Capabilities) and agents.json ("proven"),
// agentready's extensions of draft-car's agent policy (2.5: fields not
// defined MUST be ignored), say the same proven form, read back with the
// agents.txt parser and encoding/json. (robots.txt, rendered from the
// compiled policy by robots.go, names agents and nothing of their grades.)
func TestGradedEquivalence(t *testing.T) {
	site := config.Site{
		Name: "Shop", URL: "https://shop.example", Description: "Gear",
		Capabilities: []config.Capability{{ID: "search", Description: "Search", Endpoint: "https://shop.example/api/search"},
			{ID: "cart", Description: "Cart", Endpoint: "https://shop.example/api/cart", Method: "POST"}},
		Access: config.Access{Disallow: []string{"/checkout"}},
		Agents: []config.AgentPolicy{
			{Name: "*", RateLimit: config.PerMinute(30), Proven: &config.Grant{RateLimit: config.PerMinute(120)},
				Verify: config.Verification{SignatureAgents: []string{"https://agents.signer.example"}}},
			{Name: "GPTBot", RateLimit: config.PerMinute(10), Capabilities: []string{"search"},
				Proven: &config.Grant{RateLimit: config.PerMinute(600), Capabilities: []string{"search", "cart"}}},
		},
	}
	if err := publish.Validate(&site, config.Formats{}); err != nil {
		t.Fatal(err)
	}
	body := rendered(t, &site, config.Formats{})
	file, err := agentstxt.ParseDialect(body["agents.txt"], config.DialectIETFDraft)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Agents map[string]struct {
			Proven *struct {
				RateLimit *struct {
					Requests int
					Window   string
				}
				Capabilities []string
			}
		}
	}
	if err := json.Unmarshal(body["agents.json"], &doc); err != nil {
		t.Fatal(err)
	}
	for i, a := range site.Agents {
		txt := file.Site.Agents[i].Proven
		js := doc.Agents[a.Name].Proven
		if txt == nil || js == nil || js.RateLimit == nil {
			t.Fatalf("%s: proven form missing: agents.txt %+v, agents.json %+v", a.Name, txt, js)
		}
		want := agentFacts(a.Proven.RateLimit.String(), a.Proven.Capabilities)
		if got := agentFacts(txt.RateLimit.String(), txt.Capabilities); got != want {
			t.Errorf("%s: agents.txt says proven %q, want %q", a.Name, got, want)
		}
		if got := agentFacts(rate(js.RateLimit.Requests, js.RateLimit.Window), js.Capabilities); got != want {
			t.Errorf("%s: agents.json says proven %q, want %q", a.Name, got, want)
		}
	}
}
