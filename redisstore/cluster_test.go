package redisstore_test

import (
	"testing"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/audit/audittest"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/enforce/storetest"
	"github.com/agentready/agentready/internal/redistest"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/session/sessiontest"
)

// TestRedisCluster runs the three conformance suites against a Redis
// Cluster of three masters started on loopback: no CROSSSLOT, MOVED or
// NOSCRIPT error reaches a caller, and every store behaves as on one node.
func TestRedisCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	c := cluster.Client(t)
	t.Run("limits", func(t *testing.T) {
		storetest.Run(t, storetest.Harness{
			New: func(t *testing.T) enforce.Store {
				s, err := redisstore.NewLimitStore(c, redisstore.WithKeyPrefix(redistest.Prefix(t)))
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			Advance:       func(_ *testing.T, d time.Duration) { time.Sleep(d) },
			Period:        500 * time.Millisecond,
			Tolerance:     50 * time.Millisecond,
			OneKeyPerCall: true, // one client's limits share a hash tag; the enforcer never mixes clients
		})
	})
	t.Run("sessions", func(t *testing.T) {
		sessiontest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
			s, err := redisstore.NewSessionStore(c, redisstore.WithKeyPrefix(redistest.Prefix(t)), redisstore.WithClock(now))
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
	t.Run("audit", func(t *testing.T) {
		audittest.Run(t, func(t *testing.T) audit.Store {
			s, err := redisstore.NewAuditStore(c, redisstore.WithKeyPrefix(redistest.Prefix(t)))
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
}
