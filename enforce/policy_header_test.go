package enforce

import (
	"testing"

	"github.com/agentready/agentready/config"
)

func TestPolicyHeaderThreeLimits(t *testing.T) {
	site, _ := NewLimit("site", config.PerHour(1000))
	agent, _ := NewLimit("agent", config.PerMinute(200))
	capability, _ := NewLimit("capability:product-search", config.PerSecond(10))
	h, err := policyHeader([]Limit{site, agent, capability})
	if want := `"site";q=1000;w=3600, "agent";q=200;w=60, "capability:product-search";q=10;w=1`; h != want || err != nil {
		t.Errorf("policyHeader = %q, %v, want %q", h, err, want)
	}
}
