package redisstore_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/audit/audittest"
	"github.com/agentready/agentready/internal/testing/auditdata"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/redisstore"
)

// newAuditStore returns an audit store under prefix on c.
func newAuditStore(t testing.TB, c redis.UniversalClient, prefix string) audit.Store {
	t.Helper()
	s, err := redisstore.NewAuditStore(c, redisstore.WithKeyPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAuditConformance(t *testing.T) {
	c := startRedis(t)
	audittest.Run(t, func(t *testing.T) audit.Store {
		return newAuditStore(t, c, redistest.Prefix(t))
	})
}

// TestRedisStoreRestart: a new store on a new client (a restarted or
// another replica of the middleware) continues the chain the previous
// one recorded, and reads the artifact it sealed.
func TestAuditRestart(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	connect := func() audit.Store {
		return newAuditStore(t, redisClient(t, srv), prefix)
	}

	first := connect()
	for i := range 3 {
		if err := first.Append(ctx, "s1", auditdata.Event(i)); err != nil {
			t.Fatal(err)
		}
	}
	second := connect()
	for i := 3; i < 5; i++ {
		if err := second.Append(ctx, "s1", auditdata.Event(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, st, err := second.Artifact(ctx, "s1"); err != nil || st != audit.Active {
		t.Fatalf("state on the second store = %v, %v", st, err)
	}
	a, err := audit.SealSession(ctx, second, auditdata.Key, auditdata.Meta("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Events) != 5 {
		t.Fatalf("sealed %d events, want 5", len(a.Events))
	}

	third := connect()
	got, st, err := third.Artifact(ctx, "s1")
	if err != nil || st != audit.Sealed {
		t.Fatalf("state on the third store = %v, %v", st, err)
	}
	if err := audit.Verify(got, auditdata.Key.Public().(ed25519.PublicKey)); err != nil {
		t.Fatalf("artifact read back does not verify: %v", err)
	}
	if got.Events[4].EventID != "evt-4" || got.RootHash != a.RootHash {
		t.Fatal("artifact read back differs from the one sealed")
	}
	ev, err := third.Events(ctx, "s1")
	if err != nil || len(ev) != 5 {
		t.Fatalf("events on the third store: %d, %v", len(ev), err)
	}
}

// TestRedisStoreKeys pins the key layout and checks the TTLs: 30 days for
// an artifact, refreshed on every append for an active log.
func TestAuditKeys(t *testing.T) {
	ctx := context.Background()
	c := startRedis(t)
	prefix := redistest.Prefix(t)
	s := newAuditStore(t, c, prefix)
	if err := s.Append(ctx, "s1", auditdata.Event(0)); err != nil {
		t.Fatal(err)
	}
	base := prefix + "{s1}:"
	if n, err := c.LLen(ctx, base+"log").Result(); err != nil || n != 1 {
		t.Fatalf("LLEN log = %d, %v", n, err)
	}
	raw, err := c.LIndex(ctx, base+"log", 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := s.Events(ctx, "s1")
	canonical, _ := audit.CanonicalEvent(ev[0])
	if head, _, _ := strings.Cut(string(canonical), `"prev_hash":`); raw != head+`"prev_hash":` {
		t.Fatalf("stored event is not the head of its canonical JSON:\n%s\n%s", raw, canonical)
	}
	if ts := c.LIndex(ctx, base+"ts", 0).Val(); ts != ev[0].Timestamp {
		t.Fatalf("stored timestamp %q, want %q", ts, ev[0].Timestamp)
	}
	if out := c.LIndex(ctx, base+"out", 0).Val(); out != strconv.Itoa(ev[0].ResponseStatus) {
		t.Fatalf("stored status %q, want %d", out, ev[0].ResponseStatus)
	}
	for _, k := range []string{"log", "ts", "out", "state"} {
		if ttl := c.PTTL(ctx, base+k).Val(); ttl < audit.MinRetention-time.Minute || ttl > audit.MinRetention {
			t.Fatalf("TTL of %s = %v, want about %v", k, ttl, audit.MinRetention)
		}
	}
	if _, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1")); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, base+"art").Val(); ttl < audit.MinRetention-time.Minute || ttl > audit.MinRetention {
		t.Fatalf("TTL of the artifact = %v, want about %v", ttl, audit.MinRetention)
	}
	if n := c.Exists(ctx, base+"log").Val(); n != 0 {
		t.Fatal("the log outlives sealing; the artifact holds the events")
	}
}

// TestRedisStoreCorrupt: a log that lost an event (eviction, a hand edit)
// or a sealed session that lost its artifact is an error, never a chain
// silently restarted or an empty answer.
func TestAuditCorrupt(t *testing.T) {
	ctx := context.Background()
	c := startRedis(t)
	prefix := redistest.Prefix(t)
	s := newAuditStore(t, c, prefix)
	for i := range 3 {
		if err := s.Append(ctx, "lossy", auditdata.Event(i)); err != nil {
			t.Fatal(err)
		}
	}
	c.RPop(ctx, prefix+"{lossy}:log")
	if err := s.Append(ctx, "lossy", auditdata.Event(9)); !errors.Is(err, audit.ErrCorrupt) {
		t.Fatalf("Append to a log that lost an event: %v, want ErrCorrupt", err)
	}
	if _, err := s.Events(ctx, "lossy"); !errors.Is(err, audit.ErrCorrupt) {
		t.Fatalf("Events of a log that lost an event: %v, want ErrCorrupt", err)
	}

	if err := s.Append(ctx, "sealed", auditdata.Event(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("sealed")); err != nil {
		t.Fatal(err)
	}
	c.Del(ctx, prefix+"{sealed}:art")
	if _, _, err := s.Artifact(ctx, "sealed"); !errors.Is(err, audit.ErrCorrupt) {
		t.Fatalf("Artifact of a sealed session without one: %v, want ErrCorrupt", err)
	}

	if err := s.Append(ctx, "garbled", auditdata.Event(0)); err != nil {
		t.Fatal(err)
	}
	c.LSet(ctx, prefix+"{garbled}:log", 0, `{"event_id":"x","extra":1}`)
	if _, err := s.Events(ctx, "garbled"); !errors.Is(err, audit.ErrCorrupt) {
		t.Fatalf("Events of a garbled log: %v, want ErrCorrupt", err)
	}
}

// TestRedisStoreDown: with Redis gone every call fails; nothing is
// dropped silently.
func TestAuditDown(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartLocal(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	s := newAuditStore(t, c, redistest.Prefix(t))
	if err := s.Append(ctx, "s1", auditdata.Event(0)); err != nil {
		t.Fatal(err)
	}
	srv.Stop(t)
	if err := s.Append(ctx, "s1", auditdata.Event(1)); err == nil {
		t.Fatal("Append succeeded with Redis down")
	}
	if _, err := s.Events(ctx, "s1"); err == nil {
		t.Fatal("Events succeeded with Redis down")
	}
	if _, _, err := s.Artifact(ctx, "s1"); err == nil {
		t.Fatal("Artifact succeeded with Redis down")
	}
	if _, err := audit.SealSession(ctx, s, auditdata.Key, auditdata.Meta("s1")); err == nil {
		t.Fatal("SealSession succeeded with Redis down")
	}
}

func TestNewAuditStoreErrors(t *testing.T) {
	if _, err := redisstore.NewAuditStore(nil); err == nil {
		t.Fatal("NewAuditStore(nil) succeeded")
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	if _, err := redisstore.NewAuditStore(c, redisstore.WithKeyPrefix("x}")); err == nil {
		t.Fatal("NewAuditStore accepted a prefix with a brace")
	}
}

// TestRedisStoreReplicasRace: replicas (stores on their own clients)
// appending to one session at once form one chain, none failing: an
// append is one script call that depends on nothing read before, so no
// append waits for or retries against another, whatever the server's
// durability settings (CI runs this with appendfsync always too).
func TestAuditReplicasRace(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	const replicas, workers, each = 4, 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, replicas*workers*each)
	var last audit.Store
	for r := range replicas {
		s := newAuditStore(t, redisClient(t, srv), prefix)
		last = s
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if err := s.Append(ctx, "race", auditdata.Event((r*workers+w)*each+i)); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	a, err := audit.SealSession(ctx, last, auditdata.Key, auditdata.Meta("race"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Events) != replicas*workers*each {
		t.Fatalf("%d events sealed, want %d", len(a.Events), replicas*workers*each)
	}
}
