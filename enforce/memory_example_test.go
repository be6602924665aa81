package enforce_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
)

// A site-wide limit and an agent's limit, both per client: the agent limit
// runs out first, and the denied request takes nothing from the site limit.
func ExampleMemoryStore() {
	clock := enforce.NewFakeClock(time.Time{})
	store, err := enforce.NewMemoryStore(enforce.WithClock(clock.Now))
	if err != nil {
		panic(err)
	}
	site, _ := enforce.NewLimit("site", config.PerMinute(600))
	agent, _ := enforce.NewLimit("agent", config.PerMinute(2))

	key := enforce.ClientKey(netip.MustParseAddr("203.0.113.7"))
	limits := []enforce.Limit{site, agent}
	for i := range limits {
		limits[i].Key.Net = key
	}
	res := make([]enforce.Result, len(limits))
	var buf []byte
	for range 3 {
		if err := store.Allow(context.Background(), limits, res); err != nil {
			panic(err)
		}
		buf = enforce.AppendRateLimit(buf[:0], limits, res)
		fmt.Printf("allowed=%v RateLimit: %s\n", enforce.Allowed(res), buf)
	}
	fmt.Println("Retry-After:", enforce.RetryAfterSeconds(enforce.MaxRetryAfter(res)))

	clock.Advance(30 * time.Second) // one agent token: 2 per minute
	_ = store.Allow(context.Background(), limits, res)
	fmt.Println("after 30s allowed:", enforce.Allowed(res))
	// Output:
	// allowed=true RateLimit: "site";r=599;t=1, "agent";r=1;t=30
	// allowed=true RateLimit: "site";r=598;t=1, "agent";r=0;t=30
	// allowed=false RateLimit: "site";r=598;t=1, "agent";r=0;t=30
	// Retry-After: 30
	// after 30s allowed: true
}
