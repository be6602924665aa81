package sessionmgr_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
)

// newRedisClient is a client of a real redis-server for the tests that run
// against both stores (the Redis store itself is tested in redisstore).
func newRedisClient(t testing.TB) *redis.Client {
	t.Helper()
	return redisClient(t, redistest.Start(t))
}

// redisClient returns a client of srv, closed when the test ends, with
// ContextTimeoutEnabled, as the stores require. (redistest starts servers
// only: it belongs to the library's module, which links no Redis client.)
func redisClient(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newRedisStore returns a Redis session store whose keys no other test sees.
func newRedisStore(t testing.TB, c redis.UniversalClient, now func() time.Time) session.Store {
	t.Helper()
	return newRedisStoreAt(t, c, now, redistest.Prefix(t))
}

// newRedisStoreAt returns a Redis session store under prefix.
func newRedisStoreAt(t testing.TB, c redis.UniversalClient, now func() time.Time, prefix string) session.Store {
	t.Helper()
	st, err := redisstore.NewSessionStore(c, redisstore.WithKeyPrefix(prefix), redisstore.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
