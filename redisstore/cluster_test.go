package redisstore_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/audit/audittest"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/ratelimit/ratelimittest"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/session/sessiontest"
)

// TestRedisCluster runs the three conformance suites against a Redis
// Cluster of three masters started on loopback: no CROSSSLOT, MOVED or
// NOSCRIPT error reaches a caller, and every store behaves as on one node.
func TestRedisCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	c := clusterClient(t, cluster)
	t.Run("limits", func(t *testing.T) {
		ratelimittest.Run(t, ratelimittest.Harness{
			New: func(t *testing.T) ratelimit.Store {
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
	t.Run("sessions spread", func(t *testing.T) {
		// Sessions of many agents and clients must not all land on one
		// master: that master would hold every session and count of the site.
		ctx := context.Background()
		prefix := redistest.Prefix(t)
		st, err := redisstore.NewSessionStore(c, redisstore.WithKeyPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for i := range 64 {
			s := &session.Session{
				ID:        fmt.Sprintf("s%d", i),
				Agent:     fmt.Sprintf("agent-%d", i%8),
				Client:    netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), 32),
				CreatedAt: now,
				ExpiresAt: now.Add(time.Minute),
			}
			if err := st.Create(ctx, sessionmgr.HashToken(s.ID), s, 1); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		perMaster := map[string]int{}
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			keys, err := m.Keys(ctx, "*"+prefix+"session*").Result()
			mu.Lock()
			perMaster[m.Options().Addr] = len(keys)
			mu.Unlock()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for addr, n := range perMaster {
			if n == 0 {
				t.Errorf("master %s holds no session key: %v", addr, perMaster)
			}
		}
		t.Logf("session keys per master: %v", perMaster)
	})
	t.Run("prefetch", func(t *testing.T) {
		// A session's lookup sent with its limits' script: their keys are
		// on different slots, so the pipeline goes to two masters at once.
		ctx := context.Background()
		prefix := redistest.Prefix(t)
		ss, err := redisstore.NewSessionStore(c, redisstore.WithKeyPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		ls, err := redisstore.NewLimitStore(c, redisstore.WithKeyPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		mgr := sessionmgr.MustNew(sessionmgr.Config{Store: ss})
		client := netip.MustParsePrefix("192.0.2.9/32")
		limits := []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{Net: client}, Rate: 3, Period: time.Hour}}
		token, h, err := sessionmgr.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		if err := ss.Create(ctx, h, &session.Session{ID: "c1", Agent: "a", Client: client, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}, 0); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set(session.HeaderSession, token)
			pctx, p := mgr.Prefetch(r)
			var res [1]ratelimit.Result
			err := ls.Allow(pctx, limits, res[:])
			s, lerr := p.Lookup("a", client)
			if err != nil || !res[0].Allowed || res[0].Remaining != 2-i || lerr != nil || s.ID != "c1" {
				t.Errorf("request %d: allow %v %+v, lookup %v %+v", i, err, res[0], lerr, s)
			}
		}
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
