package demo

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

// Redis returns the rate-limit store of a demo replica that shares its
// limits with the other replicas through the Redis at addr (host:port): a
// RedisStore behind a Failover, which counts in memory, per replica, while
// Redis is down and returns to Redis when it answers again. Start two
// demos on two ports with the same -redis and their limits are one.
// close releases the Redis client.
func Redis(addr string, log *slog.Logger) (store ratelimit.Store, close func() error, err error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, nil, fmt.Errorf("-redis %q: want host:port: %w", addr, err)
	}
	client := redis.NewClient(&redis.Options{
		Addr: addr,
		// Request deadlines (the Failover's timeout) bound socket reads.
		ContextTimeoutEnabled: true,
	})
	rs, err := redisstore.NewLimitStore(client)
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	f, err := ratelimit.NewFailover(rs, ratelimit.FailoverConfig{Logger: log})
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	// Say at start whether Redis answers; the Failover copes either way.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		log.Warn("redis does not answer yet: limits are per replica until it does", "addr", addr, "err", err)
	} else {
		log.Info("rate limits are shared through redis", "addr", addr)
	}
	return f, client.Close, nil
}
