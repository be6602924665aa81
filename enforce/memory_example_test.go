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

	key := netip.MustParsePrefix("203.0.113.7/32") // the client
	limits := []enforce.Limit{site, agent}
	for i := range limits {
		limits[i].Key.Net = key
	}
	res := make([]enforce.Result, len(limits))
	for range 3 {
		if err := store.Allow(context.Background(), limits, res); err != nil {
			panic(err)
		}
		fmt.Printf("allowed=%v site remaining=%d agent remaining=%d\n", enforce.Allowed(res), res[0].Remaining, res[1].Remaining)
	}
	fmt.Println("agent retry after:", res[1].RetryAfter)

	clock.Advance(30 * time.Second) // one agent token: 2 per minute
	_ = store.Allow(context.Background(), limits, res)
	fmt.Println("after 30s allowed:", enforce.Allowed(res))
	// Output:
	// allowed=true site remaining=599 agent remaining=1
	// allowed=true site remaining=598 agent remaining=0
	// allowed=false site remaining=598 agent remaining=0
	// agent retry after: 30s
	// after 30s allowed: true
}
