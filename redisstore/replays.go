package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/verify"
)

// replayCache records signature nonces in Redis. Each nonce is one key,
// "<prefix>nonce:<sha256 of the key, hex>", set with SET NX and a
// lifetime of the signature's expiry less the verifier's now: one round
// trip per signed request, and Redis forgets a nonce when it could no
// longer be replayed anyway. The lifetime is relative (PX, not EXAT), so
// the verifier's clock decides how long a nonce lives and Redis's own
// clock only counts it down. Keys are spread over Cluster slots (no hash
// tag).
type replayCache struct {
	client redis.UniversalClient
	prefix string
}

// NewReplayCache returns a verify.ReplayCache in Redis on client, so that a
// signature replayed to any replica within its lifetime is refused: give
// it to verify.Options.Replays. It takes WithKeyPrefix (default
// "agentready:").
func NewReplayCache(client redis.UniversalClient, opts ...Option) (verify.ReplayCache, error) {
	cfg, err := apply("NewReplayCache", defaultPrefix, 0, opts)
	if client == nil {
		err = errors.Join(err, errors.New("redisstore: NewReplayCache: nil client"))
	}
	if err != nil {
		return nil, err
	}
	return &replayCache{client: client, prefix: cfg.prefix + "nonce:"}, nil
}

// Seen records key until the given time, as the verifier's clock (now)
// reads it, and reports whether it was recorded already. The key (key id
// and nonce, chosen by the client) is hashed, so that its length and bytes
// never reach Redis as they are. A time already past records nothing and
// reports false: such a signature is refused as expired before its nonce
// is asked about.
func (c *replayCache) Seen(ctx context.Context, key string, now, until time.Time) (bool, error) {
	ttl := until.Sub(now)
	if ttl <= 0 {
		return false, nil
	}
	h := sha256.Sum256([]byte(key))
	// PX counts milliseconds: a lifetime under one is kept one.
	ttl = max(ttl, time.Millisecond)
	ok, err := c.client.SetArgs(ctx, c.prefix+hex.EncodeToString(h[:]), "1", redis.SetArgs{Mode: "NX", TTL: ttl}).Result()
	if errors.Is(err, redis.Nil) {
		return true, nil // NX refused: the key exists
	}
	if err != nil {
		return false, err
	}
	return ok != "OK", nil
}
