package sessionmgr_test

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/session"
)

// dumpKeys returns every key under prefix and every value it holds (strings
// and sorted-set members), for the tests that look for secrets.
func dumpKeys(t *testing.T, c *redis.Client, prefix string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	iter := c.Scan(ctx, 0, redisGlob(prefix)+"*", 0).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		typ, err := c.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "string":
			out[k] = []string{c.Get(ctx, k).Val()}
		case "zset":
			out[k] = c.ZRange(ctx, k, 0, -1).Val()
		default:
			t.Fatalf("key %s has unexpected type %s", k, typ)
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// redisGlob escapes the glob metacharacters of a key prefix.
func redisGlob(p string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`).Replace(p)
}

func TestRedisStoreKeepsNoToken(t *testing.T) {
	client := newRedisClient(t)
	clock := testclock.New(time.Now().UTC().Truncate(time.Second))
	p := redistest.Prefix(t)
	st := newRedisStoreAt(t, client, clock.Now, p)
	e := newEnv(t, st, clock, nil)

	var tokens []string
	for _, agent := range []string{"shopbot", "otherbot"} {
		res := e.create(agent, "192.0.2.7", `{"agent_name":"ShopBot","purpose":"buy a mug"}`)
		tokens = append(tokens, res.data["session_token"].(string))
	}
	keys := dumpKeys(t, client, p+"session:")                 // the sessions
	for k, v := range dumpKeys(t, client, "{"+p+"session:") { // the shards
		keys[k] = v
	}
	if len(keys) == 0 {
		t.Fatal("no keys written")
	}
	for _, tok := range tokens {
		h := sessionmgr.HashToken(tok)
		for k, vals := range keys {
			if strings.Contains(k, tok) {
				t.Errorf("key %q contains a token", k)
			}
			for _, v := range vals {
				if strings.Contains(v, tok) {
					t.Errorf("value of %q contains a token: %s", k, v)
				}
			}
		}
		// The session is under its hash, expiring at its deadline.
		k := p + "session:t:" + hex.EncodeToString(h[:])
		if _, ok := keys[k]; !ok {
			t.Fatalf("no key %s among %v", k, keys)
		}
		s, err := st.Get(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		// Its Redis lifetime is the deadline less the store's now, counted
		// on Redis's clock since it was set (so at most that, and less by
		// the time this test took, a minute at most): an absolute
		// PEXPIREAT would tie it to how Redis's clock and the store's agree.
		pt, err := client.PTTL(context.Background(), k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if want := s.ExpiresAt.Sub(clock.Now()); pt > want || pt < want-time.Minute {
			t.Errorf("PTTL %v, want the deadline less the store's now, %v", pt, want)
		}
	}
}

// A new RedisStore (a restarted middleware, another replica) sees the
// sessions of the previous one: it can look them up, end them, and reap
// them.
func TestRedisStoreRestart(t *testing.T) {
	srv := redistest.Start(t)
	clock := testclock.New(time.Now().UTC().Truncate(time.Second))
	prefix := redistest.Prefix(t)

	c1 := redis.NewClient(&redis.Options{Addr: srv.Addr})
	e1 := newEnv(t, newRedisStoreAt(t, c1, clock.Now, prefix), clock, nil)
	keep := e1.create("shopbot", "192.0.2.7", "").data["session_token"].(string)
	end := e1.create("shopbot", "192.0.2.7", "").data["session_token"].(string)
	clock.Advance(time.Minute)
	expire := e1.create("shopbot", "192.0.2.7", `{"purpose":"expire"}`).data["session_token"].(string)
	e1.srv.Close()
	_ = c1.Close()

	c2 := redisClient(t, srv)
	e2 := newEnv(t, newRedisStoreAt(t, c2, clock.Now, prefix), clock, func(c *sessionmgr.Config) { c.MaxSessions = 3 })
	for _, tok := range []string{keep, end, expire} {
		if res := e2.do(http.MethodGet, "/cart", "shopbot", "192.0.2.7", tok, ""); res.status != http.StatusOK {
			t.Fatalf("after restart, lookup answered %d %v", res.status, res.body)
		}
	}
	// The max counts the previous instance's sessions.
	if res := e2.create("shopbot", "192.0.2.7", ""); res.status != http.StatusTooManyRequests {
		t.Fatalf("4th session with max 3 answered %d", res.status)
	}
	if res := e2.do(http.MethodDelete, endpoint, "shopbot", "192.0.2.7", end, ""); res.status != http.StatusOK {
		t.Fatalf("DELETE after restart answered %d %v", res.status, res.body)
	}
	clock.Advance(e2.m.TTL() - time.Minute)
	if n, err := e2.m.Reap(context.Background()); err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want the first session", n, err)
	}
	clock.Advance(time.Minute)
	if n, err := e2.m.Reap(context.Background()); err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want the third session", n, err)
	}
	ends := e2.events()
	if len(ends) != 3 || ends[0].reason != sessionmgr.Deleted || ends[1].reason != sessionmgr.Expired || ends[2].reason != sessionmgr.Expired ||
		ends[2].s.Purpose != "expire" {
		t.Fatalf("ends = %v", ends)
	}
}

// A store that cannot reach Redis reports errors; the endpoint answers 503.
func TestRedisStoreUnreachable(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond})
	defer client.Close()
	clock := testclock.New(time.Now().UTC())
	st := newRedisStoreAt(t, client, clock.Now, "agentready:")
	ctx := context.Background()
	s := &session.Session{ID: "x", ExpiresAt: clock.Now().Add(time.Minute), Client: netip.MustParsePrefix("192.0.2.1/32")}
	_, h, _ := sessionmgr.NewToken()
	if err := st.Create(ctx, h, s, 1); err == nil || errors.Is(err, session.ErrTooMany) {
		t.Fatalf("Create = %v, want a connection error", err)
	}
	if _, err := st.Get(ctx, h); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get = %v, want a connection error", err)
	}
	if _, err := st.Reap(ctx, clock.Now(), 0); err == nil {
		t.Fatal("Reap reported no error")
	}
	e := newEnv(t, st, clock, nil)
	if res := e.create("shopbot", "192.0.2.7", ""); res.status != http.StatusServiceUnavailable || res.body["error"] != "session store unavailable" {
		t.Fatalf("create answered %d %v", res.status, res.body)
	}
}
