package redisstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/mcpsession"
	"github.com/agentready/agentready/internal/mcpsession/mcpsessiontest"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/redistest"
)

// mcpSessionsAt returns the MCP session bindings of a session store under
// prefix on c, reached as the middleware reaches them: through
// mcpsession.Provider.
func mcpSessionsAt(t testing.TB, c redis.UniversalClient, now func() time.Time, prefix string) mcpsession.Store {
	t.Helper()
	p, ok := newSessionStoreAt(t, c, now, prefix).(mcpsession.Provider)
	if !ok {
		t.Fatal("the Redis session store is not an mcpsession.Provider")
	}
	return p.MCPSessions()
}

func TestMCPSessionConformance(t *testing.T) {
	client := startRedis(t)
	mcpsessiontest.Run(t, func(t *testing.T, now func() time.Time) mcpsession.Store {
		return mcpSessionsAt(t, client, now, redistest.Prefix(t))
	})
}

// Two replicas, each with its own client and store, on one redis-server:
// a session opened through one is its owner's on the other, replayed by
// anyone else it is unknown on both, and its DELETE through one ends it on
// both.
func TestMCPSessionReplicas(t *testing.T) {
	srv := redistest.Start(t)
	c1, c2 := redisClient(t, srv), redisClient(t, srv)
	mcpsessiontest.RunFlow(t, func(t *testing.T, now func() time.Time) [2]mcpsession.Store {
		prefix := redistest.Prefix(t)
		return [2]mcpsession.Store{mcpSessionsAt(t, c1, now, prefix), mcpSessionsAt(t, c2, now, prefix)}
	})
}

// The sites of two prefixes on one Redis share no binding.
func TestMCPSessionPrefixes(t *testing.T) {
	ctx := context.Background()
	client := startRedis(t)
	a := mcpSessionsAt(t, client, time.Now, redistest.Prefix(t))
	b := mcpSessionsAt(t, client, time.Now, redistest.Prefix(t))
	if err := a.Bind(ctx, "sess", "owner-a", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Owner(ctx, "sess"); !errors.Is(err, mcpsession.ErrNotFound) {
		t.Fatalf("another prefix's Owner: %v", err)
	}
	if err := b.Bind(ctx, "sess", "owner-b", time.Minute); err != nil {
		t.Fatalf("another prefix's Bind: %v", err)
	}
}

// A dump of the store reveals no live session id, subject or address: the
// key is the id's SHA-256, the value a deadline and an owner digest, and
// the key's Redis lifetime is the binding's.
func TestMCPSessionKeys(t *testing.T) {
	ctx := context.Background()
	client := startRedis(t)
	prefix := redistest.Prefix(t)
	c := testclock.New(time.Now().Truncate(time.Second))
	st := mcpSessionsAt(t, client, c.Now, prefix)
	s, err := mcpsession.New(st, time.Hour, c.Now)
	if err != nil {
		t.Fatal(err)
	}
	const id = "7DGGQ5ZSECRETSESSIONID"
	owner := mcpsession.Owner(mcpsession.Identity{Subject: "alice@example.com", Issuer: "https://as.example"})
	p, _ := s.Check(ctx, http.Header{}, owner)
	if err := s.Answered(ctx, http.MethodPost, p, owner, http.StatusOK, http.Header{mcpsession.Header: {id}}); err != nil {
		t.Fatal(err)
	}
	keys, err := client.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte(id))
	want := prefix + "session:mcp:" + hex.EncodeToString(h[:])
	if len(keys) != 1 || keys[0] != want {
		t.Fatalf("keys %q, want [%q]", keys, want)
	}
	v, err := client.Get(ctx, want).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{id, "alice", "example"} {
		if strings.Contains(v, secret) || strings.Contains(keys[0], secret) {
			t.Errorf("the store holds %q: key %q, value %q", secret, keys[0], v)
		}
	}
	if ttl, err := client.PTTL(ctx, want).Result(); err != nil || ttl <= 0 || ttl > time.Hour {
		t.Fatalf("PTTL = %v, %v; want the binding's lifetime", ttl, err)
	}
}

// A value under the prefix the store did not write is an error to Owner
// (the caller fails closed), never a panic or a pass, and a Bind replaces
// it.
func TestMCPSessionForeignValue(t *testing.T) {
	ctx := context.Background()
	client := startRedis(t)
	prefix := redistest.Prefix(t)
	st := mcpSessionsAt(t, client, time.Now, prefix)
	h := sha256.Sum256([]byte("sess"))
	key := prefix + "session:mcp:" + hex.EncodeToString(h[:])
	for _, v := range []string{"garbage", " owner", "12x owner", "99999999999999 ", ""} {
		if err := client.Set(ctx, key, v, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if o, _, err := st.Owner(ctx, "sess"); err == nil || errors.Is(err, mcpsession.ErrNotFound) {
			t.Errorf("Owner over %q = %q, %v; want an error", v, o, err)
		}
		if err := st.Bind(ctx, "sess", "owner-a", time.Minute); err != nil {
			t.Errorf("Bind over %q: %v", v, err)
		}
	}
	if err := st.Bind(ctx, "sess", "owner with space", time.Minute); !errors.Is(err, mcpsession.ErrInvalid) {
		t.Errorf("Bind of an owner with a space: %v", err)
	}
}

// A Redis that does not answer fails the lookup: Check reports an error
// and passes nothing.
func TestMCPSessionRedisDown(t *testing.T) {
	srv := redistest.StartLocal(t)
	client := redisClient(t, srv)
	st := mcpSessionsAt(t, client, time.Now, redistest.Prefix(t))
	ctx := context.Background()
	if err := st.Bind(ctx, "sess", "owner-a", time.Minute); err != nil {
		t.Fatal(err)
	}
	srv.Stop(t)
	s, err := mcpsession.New(st, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Check(ctx, http.Header{mcpsession.Header: {"sess"}}, "owner-a")
	if err == nil || p.Verdict == mcpsession.Owned {
		t.Fatalf("Check with Redis down: %+v, %v", p, err)
	}
}

// On a Redis Cluster the bindings behave as on one node, and spread over
// the masters.
func TestMCPSessionCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	c := clusterClient(t, cluster)
	mcpsessiontest.Run(t, func(t *testing.T, now func() time.Time) mcpsession.Store {
		return mcpSessionsAt(t, c, now, redistest.Prefix(t))
	})
	t.Run("spread", func(t *testing.T) {
		ctx := context.Background()
		prefix := redistest.Prefix(t)
		st := mcpSessionsAt(t, c, time.Now, prefix)
		for i := range 64 {
			if err := st.Bind(ctx, fmt.Sprintf("sess-%d", i), "owner", time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		perMaster := map[string]int{}
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			keys, err := m.Keys(ctx, prefix+"session:mcp:*").Result()
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
				t.Errorf("master %s holds no binding: %v", addr, perMaster)
			}
		}
	})
}
