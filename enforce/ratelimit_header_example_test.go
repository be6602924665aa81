package enforce_test

import (
	"fmt"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
)

func ExamplePolicyHeader() {
	site, _ := enforce.NewLimit("site", config.PerHour(1000))
	agent, _ := enforce.NewLimit("agent", config.PerMinute(200))
	capability, _ := enforce.NewLimit("capability:product-search", config.PerSecond(10))
	h, err := enforce.PolicyHeader([]enforce.Limit{site, agent, capability})
	fmt.Println(h, err)
	// Output:
	// "site";q=1000;w=3600, "agent";q=200;w=60, "capability:product-search";q=10;w=1 <nil>
}
