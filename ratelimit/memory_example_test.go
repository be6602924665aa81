package ratelimit_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/agentready/agentready/ratelimit"
)

// A site-wide limit and an agent's limit, both per client: the agent limit
// runs out first, and the denied request takes nothing from the site limit.
func ExampleMemoryStore() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now } // a clock the example moves
	store, err := ratelimit.NewMemoryStore(ratelimit.MemoryConfig{MaxEntries: 1 << 16, Now: clock})
	if err != nil {
		panic(err)
	}
	site := ratelimit.Limit{Name: "site", Rate: 600, Period: time.Minute}
	agent := ratelimit.Limit{Name: "agent", Rate: 2, Period: time.Minute}

	key := netip.MustParsePrefix("203.0.113.7/32") // the client
	limits := []ratelimit.Limit{site, agent}
	for i := range limits {
		limits[i].Key.Net = key
	}
	res := make([]ratelimit.Result, len(limits))
	for range 3 {
		if err := store.Allow(context.Background(), limits, res); err != nil {
			panic(err)
		}
		fmt.Printf("allowed=%v site remaining=%d agent remaining=%d\n", ratelimit.Allowed(res), res[0].Remaining, res[1].Remaining)
	}
	fmt.Println("agent retry after:", res[1].RetryAfter)

	now = now.Add(30 * time.Second) // one agent token: 2 per minute
	_ = store.Allow(context.Background(), limits, res)
	fmt.Println("after 30s allowed:", ratelimit.Allowed(res))
	// Output:
	// allowed=true site remaining=599 agent remaining=1
	// allowed=true site remaining=598 agent remaining=0
	// allowed=false site remaining=598 agent remaining=0
	// agent retry after: 30s
	// after 30s allowed: true
}
