package agenturi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsontest"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// descriptorAt is the descriptor URL rule the tests assume: the site origin
// plus /agents/{name}/agent.json.
func descriptorAt(s *config.Site) func(string) string {
	return func(name string) string { return resolve.Origin(s) + "/agents/" + name + "/agent.json" }
}

// TestRegistryFixtures renders the registry of every fixture (whatever its
// agents.json mode: the registry is what an agent:// resolver fetches) and
// validates it.
func TestRegistryFixtures(t *testing.T) {
	for _, f := range fixtures.All() {
		t.Run(f.Name, func(t *testing.T) {
			doc, err := Registry(&f.Site, descriptorAt(&f.Site))
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, registrySchema, doc)
			got := jsontest.Decode(t, doc)["agents"].(map[string]any)
			if len(got) != len(f.Site.PublishedAgents()) {
				t.Errorf("%d agents, want %d:\n%s", len(got), len(f.Site.PublishedAgents()), doc)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	planner := fixtures.Planner()
	outdoor := fixtures.OutdoorSupply()
	two := config.Site{Name: "Two", URL: "https://two.example", HostedAgents: []config.HostedAgent{
		{Name: "translator", Version: "1.0.0"}, {Name: "planner", Version: "1.0.0"},
	}}
	tests := []struct {
		name string
		site *config.Site
		want string
	}{
		{"hosted agent", &planner,
			`{"agents": {"planner.example.com": "https://planner.example.com/agents/planner.example.com/agent.json"}}`},
		{"site as one agent, with updated", &outdoor, `{"updated": "2026-02-01T00:00:00Z",
			"agents": {"outdoorsupply.example": "https://outdoorsupply.example/agents/outdoorsupply.example/agent.json"}}`},
		{"several agents", &two, `{"agents": {"planner": "https://two.example/agents/planner/agent.json",
			"translator": "https://two.example/agents/translator/agent.json"}}`},
		{"nothing to publish", &config.Site{Name: "None", URL: "https://none.example"}, `{"agents": {}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Registry(tt.site, descriptorAt(tt.site))
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, registrySchema, doc)
			jsontest.AssertSame(t, doc, tt.want)
		})
	}
}

func TestRegistryErrors(t *testing.T) {
	ok := func(name string) string { return "https://x.example/" + name }
	dup := config.Site{Name: "x", URL: "https://x.example", HostedAgents: []config.HostedAgent{{Name: "a"}, {Name: "a"}}}
	tests := []struct {
		name string
		site *config.Site
		url  func(string) string
		want string
	}{
		{"nil site", nil, ok, "nil site"},
		{"nil url function", &dup, nil, "nil descriptor URL function"},
		{"no url", &config.Site{Name: "x", URL: "https://x.example", HostedAgents: []config.HostedAgent{{Name: "a"}}},
			func(string) string { return "" }, `no descriptor URL for agent "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Registry(tt.site, tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q (doc %s)", err, tt.want, doc)
			}
		})
	}
}

func TestRegistryUpdatedIsUTC(t *testing.T) {
	s := fixtures.Planner()
	s.GeneratedAt = time.Date(2026, 5, 6, 9, 30, 0, 500_000_000, time.FixedZone("EST", -5*3600))
	doc, err := Registry(&s, descriptorAt(&s))
	if err != nil {
		t.Fatal(err)
	}
	schematest.Validate(t, registrySchema, doc)
	if got := jsontest.Decode(t, doc)["updated"]; got != "2026-05-06T14:30:00.5Z" {
		t.Errorf("updated = %v", got)
	}
}

// ExampleRegistry publishes the Appendix A agent and points the registry at
// its descriptor.
func ExampleRegistry() {
	site := fixtures.Planner()
	doc, err := Registry(&site, func(name string) string {
		return resolve.Origin(&site) + "/agents/" + name + "/agent.json"
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(doc))
	// Output:
	// {
	//   "agents": {
	//     "planner.example.com": "https://planner.example.com/agents/planner.example.com/agent.json"
	//   }
	// }
}

// TestDefaultAgentNameIsRegistryKey: the default agent is named after the
// site's host, and every host a site may have (a port, an IPv6 literal for
// local development) must give a name the registry schema accepts.
func TestDefaultAgentNameIsRegistryKey(t *testing.T) {
	for _, u := range []string{"https://shop.example", "http://localhost:8080", "http://127.0.0.1:3000", "http://[::1]:8080", "http://[::1]"} {
		t.Run(u, func(t *testing.T) {
			s := config.Site{Name: "Dev", URL: u, Capabilities: []config.Capability{{ID: "ping", Description: "Ping", Endpoint: u + "/ping"}}}
			doc, err := Registry(&s, descriptorAt(&s))
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, registrySchema, doc)
			d, err := Descriptor(s.PublishedAgents()[0])
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, descriptorSchema, d)
		})
	}
}
