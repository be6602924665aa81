package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/mcpsession"
)

// The session store NewSessionStore returns also keeps the bindings of
// MCP sessions to their owners (internal/mcpsession), so that the replicas
// of a site sharing its v0.1.0 sessions share these, and a session opened
// through one replica is its owner's, and nobody else's, on all of them.
// It adds no exported name: the middleware asks the store it is given
// (agentready.WithSessions) for them.
var _ mcpsession.Provider = (*sessionStore)(nil)

// MCPSessions implements mcpsession.Provider: the bindings live under the
// session store's prefix and clock (WithKeyPrefix, WithClock).
func (r *sessionStore) MCPSessions() mcpsession.Store {
	return &mcpSessionStore{client: r.client, prefix: r.prefix + "mcp:", now: r.now}
}

// mcpSessionStore is an mcpsession.Store in Redis. A binding is one key,
//
//	<prefix>session:mcp:<sha256 of the session id, hex>
//
// a string "<deadline ms> <owner>" (the owner an mcpsession.Owner digest),
// so that a dump of the store holds no session id a client could present,
// and no subject or address. The id is checked (mcpsession.ValidID) before
// it is hashed. The key has no hash tag: bindings spread over a Cluster's
// slots, and each command touches one key.
//
// As for v0.1.0 sessions (sessions_script.go), liveness is judged by the
// store's clock against the deadline in the value, and the key's Redis
// lifetime, set relative (PX, the deadline less the store's now), only
// collects garbage: Redis's own clock decides nothing.
type mcpSessionStore struct {
	client redis.UniversalClient
	prefix string // "<prefix>session:mcp:"
	now    func() time.Time
}

func (m *mcpSessionStore) key(id string) string {
	h := mcpsession.HashID(id)
	return m.prefix + hex.EncodeToString(h[:])
}

// mcpBindScript: KEYS the binding; ARGV owner, deadline ms, now ms. Binds
// unless the key holds a live binding of another owner; 1 when bound, 0
// when refused. A value it cannot read (not written by this store) is no
// binding.
var mcpBindScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
	local sp = string.find(v, ' ', 1, true)
	local d = sp and tonumber(string.sub(v, 1, sp - 1))
	local o = sp and string.sub(v, sp + 1)
	if d and o ~= '' and d > tonumber(ARGV[3]) and o ~= ARGV[1] then
		return 0
	end
end
redis.call('SET', KEYS[1], ARGV[2] .. ' ' .. ARGV[1], 'PX', math.max(1, tonumber(ARGV[2]) - tonumber(ARGV[3])))
return 1
`)

// Bind implements mcpsession.Store, in one script call: two replicas
// binding one id at once never both win.
func (m *mcpSessionStore) Bind(ctx context.Context, id, owner string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := mcpsession.CheckBind(id, owner, ttl); err != nil {
		return err
	}
	if strings.ContainsRune(owner, ' ') {
		// Owners are hex digests; a space would end the owner's field early.
		return fmt.Errorf("%w: an owner with a space", mcpsession.ErrInvalid)
	}
	now := m.now()
	n, err := mcpBindScript.Run(ctx, m.client, []string{m.key(id)}, owner, ceilMillis(now.Add(ttl)), floorMillis(now)).Int64()
	if err != nil {
		return fmt.Errorf("redisstore: mcp sessions: %w", err)
	}
	if n != 1 {
		return mcpsession.ErrBound
	}
	return nil
}

// Owner implements mcpsession.Store.
func (m *mcpSessionStore) Owner(ctx context.Context, id string) (string, time.Time, error) {
	if err := ctx.Err(); err != nil {
		return "", time.Time{}, err
	}
	if !mcpsession.ValidID(id) {
		return "", time.Time{}, mcpsession.ErrInvalid
	}
	v, err := m.client.Get(ctx, m.key(id)).Result()
	if errors.Is(err, redis.Nil) {
		return "", time.Time{}, mcpsession.ErrNotFound
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("redisstore: mcp sessions: %w", err)
	}
	ms, owner, ok := strings.Cut(v, " ")
	d, perr := strconv.ParseInt(ms, 10, 64)
	if !ok || perr != nil || owner == "" {
		return "", time.Time{}, fmt.Errorf("redisstore: mcp sessions: undecodable binding of %d bytes", len(v))
	}
	deadline := time.UnixMilli(d)
	if !m.now().Before(deadline) {
		return "", time.Time{}, mcpsession.ErrNotFound
	}
	return owner, deadline, nil
}

// Forget implements mcpsession.Store.
func (m *mcpSessionStore) Forget(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !mcpsession.ValidID(id) {
		return mcpsession.ErrInvalid
	}
	if err := m.client.Del(ctx, m.key(id)).Err(); err != nil {
		return fmt.Errorf("redisstore: mcp sessions: %w", err)
	}
	return nil
}
