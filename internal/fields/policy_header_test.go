package fields

import (
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/ratelimit"
)

func TestPolicyHeaderThreeLimits(t *testing.T) {
	site, _ := newLimit("site", config.PerHour(1000))
	agent, _ := newLimit("agent", config.PerMinute(200))
	capability, _ := newLimit("capability:product-search", config.PerSecond(10))
	h, err := PolicyHeader([]ratelimit.Limit{site, agent, capability})
	if want := `"site";q=1000;w=3600, "agent";q=200;w=60, "capability:product-search";q=10;w=1`; h != want || err != nil {
		t.Errorf("PolicyHeader = %q, %v, want %q", h, err, want)
	}
}
