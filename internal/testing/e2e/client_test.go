package e2e_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/testing/redistest"
)

// redisClient returns a client of srv, closed when the test ends. Request
// deadlines bound its socket reads (ContextTimeoutEnabled), as the stores
// require. (redistest starts servers only: it belongs to the library's
// module, which links no Redis client.)
func redisClient(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
