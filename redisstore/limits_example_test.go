package redisstore_test

import (
	"log"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

// Replicas that share their limits through Redis, and keep limiting (each
// on its own) while Redis is down. Not run: it needs a Redis.
func ExampleNewFailover() {
	client := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: []string{"127.0.0.1:6379"}, // several: Cluster; with MasterName: Sentinel
		// Required: the request's deadline bounds the wait for Redis.
		ContextTimeoutEnabled: true,
	})
	defer client.Close()

	redisStore, err := redisstore.NewLimitStore(client, redisstore.WithKeyPrefix("shop:"))
	if err != nil {
		log.Fatal(err)
	}
	store, err := ratelimit.NewFailover(redisStore, ratelimit.FailoverConfig{
		Policy:  ratelimit.FallbackMemory,
		Timeout: 50 * time.Millisecond,
		OnStateChange: func(e ratelimit.FailoverEvent) {
			log.Printf("rate-limit store down=%v err=%v outage=%v", e.Down, e.Err, e.Outage)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(fixtures.OutdoorSupply(),
		agentready.WithStore(store),
		agentready.WithOnDecision(func(d enforce.Decision) {
			if d.Degraded {
				log.Printf("counted per replica: %v", d.Err)
			}
		}),
	)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe(":8080", m.Handler(http.NotFoundHandler())))
}
