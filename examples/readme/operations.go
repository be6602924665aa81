package main

import (
	"log"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/metrics"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/report"
)

// docs/operations.md, "Metrics".
func withMetrics(site config.Site, app http.Handler) {
	mx, err := metrics.New(prometheus.DefaultRegisterer)
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithOnDecision(mx.Observe))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/", mx.Documents(m.Handler(app), m))
	http.Handle("/metrics", promhttp.Handler())
}

// docs/operations.md, "The report of agents", and README.
func withReport(site config.Site, app http.Handler, requireStaff func(http.Handler) http.Handler) {
	rep := report.New(report.Options{Window: time.Hour})       // 20 rows a table
	m, err := agentready.New(site, agentready.WithReport(rep)) // decisions, sessions, sealed audit artifacts
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/", m.Handler(app))
	http.Handle("/internal/agents/", requireStaff(http.StripPrefix("/internal/agents", rep))) // behind the site's own auth
}

// docs/operations.md, "Limits across replicas: Redis".
func redisLimits(site config.Site) {
	client := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: []string{"redis:6379"}, // several addresses: Cluster; with MasterName: Sentinel
		// Required: lets the request's deadline bound the wait for Redis.
		ContextTimeoutEnabled: true,
	})
	defer client.Close()

	redisStore, err := redisstore.NewLimitStore(client) // keys start "agentready:" (redisstore.WithKeyPrefix)
	if err != nil {
		log.Fatal(err)
	}
	store, err := ratelimit.NewFailover(redisStore, ratelimit.FailoverConfig{
		Policy:  ratelimit.FallbackMemory, // the default
		Timeout: 200 * time.Millisecond,   // the default
	})
	if err != nil {
		log.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithStore(store))
	_, _ = m, err
}
