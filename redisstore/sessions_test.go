package redisstore_test

import (
	"context"
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testclock"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
	"github.com/agentready/agentready/session/sessiontest"
)

// startRedis starts a private redis-server (or uses REDIS_ADDR) and
// returns a client on it, both closed when the test ends.
func startRedis(t testing.TB) *redis.Client {
	t.Helper()
	return redisClient(t, redistest.Start(t))
}

// newSessionStoreAt returns a session store under prefix on c.
func newSessionStoreAt(t testing.TB, c redis.UniversalClient, now func() time.Time, prefix string) session.Store {
	t.Helper()
	st, err := redisstore.NewSessionStore(c, redisstore.WithKeyPrefix(prefix), redisstore.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The single-node store passes the session.Store conformance suite (the
// cluster runs it in TestRedisCluster).
func TestSessionStoreConformance(t *testing.T) {
	client := startRedis(t)
	sessiontest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		return newSessionStoreAt(t, client, now, redistest.Prefix(t))
	})
}

func TestNewSessionStoreErrors(t *testing.T) {
	standalone := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer standalone.Close()
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer cluster.Close()
	tests := []struct {
		name   string
		client redis.UniversalClient
		opts   []redisstore.Option
		want   []string // substrings of the error; none: no error
	}{
		{"default", standalone, nil, nil},
		{"prefix standalone", standalone, []redisstore.Option{redisstore.WithKeyPrefix("site-a:")}, nil},
		{"cluster default prefix", cluster, nil, nil},
		{"cluster prefix", cluster, []redisstore.Option{redisstore.WithKeyPrefix("site-a:")}, nil},
		{"braces reserved", standalone, []redisstore.Option{redisstore.WithKeyPrefix("a{b")}, []string{"reserved for the hash tag"}},
		{"audit option", standalone, []redisstore.Option{redisstore.WithRetention(audit.MinRetention)}, []string{"audit store only"}},
		{"everything at once", nil, []redisstore.Option{redisstore.WithKeyPrefix("a{b")}, []string{"nil client", "reserved"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := redisstore.NewSessionStore(tc.client, tc.opts...)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// Records that are not ours under the prefix yield errors, never panics,
// and do not stop Reap from returning the good sessions.
func TestRedisStoreCorruptData(t *testing.T) {
	client := startRedis(t)
	clock := testclock.New(time.Now().UTC().Truncate(time.Second))
	p := redistest.Prefix(t)
	st := newSessionStoreAt(t, client, clock.Now, p)
	exp := "{" + p + "session:0}:exp" // one shard's expiry index
	ctx := context.Background()

	_, bad, _ := sessionmgr.NewToken()
	if err := client.Set(ctx, p+"session:t:"+hex.EncodeToString(bad[:]), "{not json", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, bad); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get of a corrupt record = %v, want a decoding error", err)
	}
	good := &session.Session{ID: "good", Agent: "a", CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(time.Minute)}
	_, gh, _ := sessionmgr.NewToken()
	if err := st.Create(ctx, gh, good, 0); err != nil {
		t.Fatal(err)
	}
	score := float64(clock.Now().UnixMilli())
	for _, m := range []string{"short", strings.Repeat("z", 64) + " {}", hex.EncodeToString(bad[:]) + " {broken"} {
		if err := client.ZAdd(ctx, exp, redis.Z{Score: score, Member: m}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute)
	ss, err := st.Reap(ctx, clock.Now(), 0)
	if err == nil {
		t.Error("Reap of corrupt members reported no error")
	}
	if len(ss) != 1 || ss[0].ID != "good" {
		t.Fatalf("Reap returned %d sessions, want the good one", len(ss))
	}
	if n := client.ZCard(ctx, exp).Val(); n != 0 {
		t.Fatalf("%d members left in the expiry index", n)
	}
}

// failing is a go-redis hook that fails the commands named in fail (lower
// case) while it is armed, as a Redis that drops the connection mid-call:
// before sending them, or with after set, once Redis has run them.
type failing struct {
	fail  map[string]bool
	after bool
	armed atomic.Bool
}

func (f *failing) DialHook(next redis.DialHook) redis.DialHook { return next }
func (f *failing) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (f *failing) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if f.armed.Load() && f.fail[cmd.Name()] {
			if f.after {
				_ = next(ctx, cmd)
			}
			err := errors.New("injected: connection reset by peer")
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}

// A Delete that fails part way never leaves a session that Delete
// reported ended still usable, and the session still ends exactly once:
// by a later Delete, or by Reap at its deadline. (Before the session's key
// was the claim, a failed DEL after the index claim left a session ended
// for the Manager and live for Get: a human_handoff the agent could act
// past.)
func TestSessionDeleteFailingPartWay(t *testing.T) {
	for _, cmds := range [][]string{{"del"}, {"evalsha", "eval"}} {
		t.Run(strings.Join(cmds, "+"), func(t *testing.T) {
			ctx := context.Background()
			c := startRedis(t)
			f := &failing{fail: map[string]bool{}}
			for _, name := range cmds {
				f.fail[name] = true
			}
			c.AddHook(f)
			clock := testclock.New(time.Now())
			st := newSessionStoreAt(t, c, clock.Now, redistest.Prefix(t))
			s := &session.Session{ID: "s1", Agent: "shopbot", CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(time.Minute)}
			h := sessionmgr.HashToken("token-1")
			if err := st.Create(ctx, h, s, 1); err != nil {
				t.Fatal(err)
			}
			f.armed.Store(true)
			_, err := st.Delete(ctx, h)
			f.armed.Store(false)
			if err == nil {
				t.Fatal("Delete succeeded through an injected failure")
			}
			ends := 0
			if _, gerr := st.Get(ctx, h); gerr == nil {
				// Nothing happened: the session is live and a Delete ends it.
				if _, err := st.Delete(ctx, h); err != nil {
					t.Fatalf("Delete after the failed one: %v", err)
				}
				ends++
			} else if !errors.Is(gerr, session.ErrNotFound) {
				t.Fatal(gerr)
			}
			if _, err := st.Get(ctx, h); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("Get after the session ended: %v, want ErrNotFound", err)
			}
			if _, err := st.Delete(ctx, h); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("second Delete: %v, want ErrNotFound", err)
			}
			clock.Advance(2 * time.Minute)
			reaped, err := st.Reap(ctx, clock.Now(), 0)
			if err != nil {
				t.Fatal(err)
			}
			ends += len(reaped)
			if ends != 1 {
				t.Errorf("the session ended %d times (Delete and Reap), want once", ends)
			}
		})
	}
}

// A create whose count script ran but whose reply was lost leaves no
// session behind: none holds a max_sessions slot, and Reap reports none.
func TestSessionCreateReplyLost(t *testing.T) {
	ctx := context.Background()
	c := startRedis(t)
	f := &failing{fail: map[string]bool{"evalsha": true, "eval": true}, after: true}
	c.AddHook(f)
	clock := testclock.New(time.Now())
	st := newSessionStoreAt(t, c, clock.Now, redistest.Prefix(t))
	newS := func(id string) *session.Session {
		return &session.Session{ID: id, Agent: "shopbot", CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(time.Minute)}
	}
	// Load the scripts first, so that the lost reply is EVALSHA's.
	warm := newS("warm")
	warm.Agent = "other"
	if err := st.Create(ctx, sessionmgr.HashToken("warm"), warm, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(ctx, sessionmgr.HashToken("warm")); err != nil {
		t.Fatal(err)
	}
	f.armed.Store(true)
	if err := st.Create(ctx, sessionmgr.HashToken("lost"), newS("lost"), 1); err == nil {
		t.Fatal("Create succeeded through a lost reply")
	}
	f.armed.Store(false)
	if err := st.Create(ctx, sessionmgr.HashToken("kept"), newS("kept"), 1); err != nil {
		t.Fatalf("the next Create, max 1: %v (the lost one holds the slot)", err)
	}
	clock.Advance(2 * time.Minute)
	reaped, err := st.Reap(ctx, clock.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(reaped) != 1 || reaped[0].ID != "kept" {
		var ids []string
		for _, s := range reaped {
			ids = append(ids, s.ID)
		}
		t.Errorf("reaped %v, want [kept]", ids)
	}
}

// TestSessionStoreOffsetClock: a store whose clock is a year behind or
// ahead of Redis's keeps a session exactly its TTL: its keys live the
// deadline less the store's now in Redis, never until the deadline read
// on Redis's clock (which dropped every live session of a clock behind at
// once, and kept a clock ahead's a year).
func TestSessionStoreOffsetClock(t *testing.T) {
	c := startRedis(t)
	ctx := context.Background()
	for i, off := range []time.Duration{-365 * 24 * time.Hour, 365 * 24 * time.Hour} {
		clock := testclock.New(time.Now().Add(off))
		prefix := redistest.Prefix(t)
		st := newSessionStoreAt(t, c, clock.Now, prefix)
		var h session.Hash
		h[0] = byte(i + 1)
		s := &session.Session{ID: "s" + off.String(), Agent: "ClaudeBot", Client: netip.MustParsePrefix("192.0.2.1/32"),
			CreatedAt: clock.Now(), ExpiresAt: clock.Now().Add(30 * time.Minute)}
		if err := st.Create(ctx, h, s, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, h); err != nil {
			t.Fatalf("clock %v: a live session is gone: %v", off, err)
		}
		keys, err := c.Keys(ctx, prefix+"*").Result()
		if err != nil || len(keys) == 0 {
			t.Fatalf("clock %v: keys %v %v", off, keys, err)
		}
		for _, k := range keys {
			ttl, err := c.PTTL(ctx, k).Result()
			if err != nil || ttl < 29*time.Minute || ttl > 30*time.Minute+time.Second {
				t.Errorf("clock %v: %s lives %v in Redis (%v), want the session's 30 minutes", off, k, ttl, err)
			}
		}
		// The max counts it on this clock too: a second is refused.
		var h2 session.Hash
		h2[0] = byte(i + 10)
		s2 := *s
		s2.ID += "-2"
		if err := st.Create(ctx, h2, &s2, 1); !errors.As(err, new(*session.LimitError)) {
			t.Errorf("clock %v: a second session past max 1: %v", off, err)
		}
		clock.Advance(31 * time.Minute)
		if _, err := st.Get(ctx, h); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("clock %v: an expired session: %v", off, err)
		}
	}
}
