package redisstore_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
	"github.com/agentready/agentready/session"
)

// A session's lookup sent with the limits' script (redisstore/prefetch.go)
// answers what the two calls made in turn answered, failures included.

// pfAgent and pfClient are the identity the test's session is bound to.
const pfAgent = "*/Claude-User"

var pfClient = netip.MustParsePrefix("192.0.2.7/32")

// pfEnv is a session store, a limit store and a Manager on one Redis.
type pfEnv struct {
	rs       *redistest.Server
	client   *redis.Client
	trips    *tripCounter
	sessions session.Store
	limits   ratelimit.Store
	mgr      *sessionmgr.Manager
	limit    []ratelimit.Limit
	token    string // a live session's
}

// newPFEnv starts a private Redis and stores on it, with a live session;
// separate gives the limit store a client of its own.
func newPFEnv(t *testing.T, separate bool) *pfEnv {
	t.Helper()
	e := &pfEnv{rs: redistest.StartLocal(t)}
	e.client = redisClient(t, e.rs)
	prefix := redistest.Prefix(t)
	e.trips = &tripCounter{prefix: prefix}
	e.client.AddHook(e.trips)
	lc := e.client
	if separate {
		lc = redisClient(t, e.rs)
		lc.AddHook(e.trips)
	}
	var err error
	if e.sessions, err = redisstore.NewSessionStore(e.client, redisstore.WithKeyPrefix(prefix)); err != nil {
		t.Fatal(err)
	}
	if e.limits, err = redisstore.NewLimitStore(lc, redisstore.WithKeyPrefix(prefix)); err != nil {
		t.Fatal(err)
	}
	e.mgr = sessionmgr.MustNew(sessionmgr.Config{Store: e.sessions})
	e.limit = []ratelimit.Limit{{Name: "site", Key: ratelimit.Key{Net: pfClient}, Rate: 5, Period: time.Hour}}
	token, h, err := sessionmgr.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	s := &session.Session{ID: "s1", Agent: pfAgent, Client: pfClient, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := e.sessions.Create(context.Background(), h, s, 0); err != nil {
		t.Fatal(err)
	}
	e.token = token
	// Load the script and dial the pipelines' connection, so that a test
	// counts its own round trips only.
	var res [1]ratelimit.Result
	ctx, _ := e.mgr.Prefetch(e.request(e.token))
	if err := e.limits.Allow(ctx, []ratelimit.Limit{{Name: "warm", Key: e.limit[0].Key, Rate: 1, Period: time.Hour}}, res[:]); err != nil {
		t.Fatal(err)
	}
	return e
}

// request is a request carrying token.
func (e *pfEnv) request(token string) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	if token != "" {
		r.Header.Set(session.HeaderSession, token)
	}
	return r
}

// outcome is what a request's two reads answered.
type outcome struct {
	allowErr  error
	res       ratelimit.Result
	s         *session.Session
	lookupErr error
	trips     []string
}

// together takes the limits through store with the lookup of r's session
// prefetched, and finishes the lookup as identity.
func (e *pfEnv) together(store ratelimit.Store, r *http.Request, agent string) outcome {
	var o outcome
	o.trips = e.trips.count(func() {
		ctx, p := e.mgr.Prefetch(r)
		var res [1]ratelimit.Result
		o.allowErr = store.Allow(ctx, e.limit, res[:])
		o.res = res[0]
		o.s, o.lookupErr = p.Lookup(agent, pfClient)
	})
	return o
}

// remaining is the site limit's tokens left, read without consuming.
func (e *pfEnv) remaining(t *testing.T) int {
	t.Helper()
	var res [1]ratelimit.Result
	if err := e.limits.(ratelimit.Peeker).Peek(context.Background(), e.limit, res[:]); err != nil {
		t.Fatal(err)
	}
	return res[0].Remaining + 1 // Peek answers as if a token were taken
}

func TestPrefetchOneRoundTrip(t *testing.T) {
	e := newPFEnv(t, false)
	o := e.together(e.limits, e.request(e.token), pfAgent)
	if o.allowErr != nil || o.lookupErr != nil || o.s == nil || o.s.ID != "s1" {
		t.Fatalf("allow %v, lookup %v %+v", o.allowErr, o.lookupErr, o.s)
	}
	if !o.res.Allowed || o.res.Remaining != 4 {
		t.Errorf("limits %+v, want allowed with 4 left", o.res)
	}
	if len(o.trips) != 1 || !strings.HasPrefix(o.trips[0], "evalsha ") || !strings.Contains(o.trips[0], "+get session:t:") {
		t.Errorf("round trips %q, want one pipeline: the limits' script, then the session's GET", o.trips)
	}
}

// A request refused for its session has consumed its limit token, as when
// the session was read after the limits.
func TestPrefetchRefusedSessionConsumes(t *testing.T) {
	e := newPFEnv(t, false)
	other, _, _ := sessionmgr.NewToken()
	tests := []struct {
		name  string
		token string
		agent string
		want  error
		trips int
	}{
		{"unknown token", other, pfAgent, session.ErrNotFound, 1},
		{"another agent's", e.token, "*/Other", session.ErrForeign, 1},
		{"not a token of ours", "short", pfAgent, session.ErrNotFound, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := e.together(e.limits, e.request(tt.token), tt.agent)
			if !errors.Is(o.lookupErr, tt.want) || o.allowErr != nil {
				t.Errorf("lookup %v, allow %v; want %v", o.lookupErr, o.allowErr, tt.want)
			}
			if got, want := e.remaining(t), 5-(i+1); got != want {
				t.Errorf("%d tokens left, want %d: the limits were taken", got, want)
			}
			if len(o.trips) != tt.trips {
				t.Errorf("round trips %q, want %d", o.trips, tt.trips)
			}
		})
	}
}

// Without a call to the limit store (limits refused before it, or none),
// the lookup is made alone; on another client, after the limits.
func TestPrefetchSequentialFallbacks(t *testing.T) {
	t.Run("no limits call", func(t *testing.T) {
		e := newPFEnv(t, false)
		var s *session.Session
		var err error
		trips := e.trips.count(func() {
			_, p := e.mgr.Prefetch(e.request(e.token))
			s, err = p.Lookup(pfAgent, pfClient)
		})
		if err != nil || s.ID != "s1" || len(trips) != 1 || !strings.HasPrefix(trips[0], "get ") {
			t.Errorf("lookup %v %+v, round trips %q", err, s, trips)
		}
	})
	t.Run("separate clients", func(t *testing.T) {
		e := newPFEnv(t, true)
		o := e.together(e.limits, e.request(e.token), pfAgent)
		if o.allowErr != nil || o.lookupErr != nil || o.s.ID != "s1" || !o.res.Allowed {
			t.Fatalf("allow %v %+v, lookup %v", o.allowErr, o.res, o.lookupErr)
		}
		if len(o.trips) != 2 || !strings.HasPrefix(o.trips[0], "evalsha ") || !strings.HasPrefix(o.trips[1], "get ") {
			t.Errorf("round trips %q, want the script, then the GET", o.trips)
		}
	})
}

// One of the two commands fails: the other's answer stands, and the
// failed one fails as it did alone.
func TestPrefetchOneFails(t *testing.T) {
	ctx := context.Background()
	t.Run("session", func(t *testing.T) {
		e := newPFEnv(t, false)
		// The session's key holds foreign data of another type: GET
		// answers WRONGTYPE, alone as in the pipeline.
		keys, err := e.client.Keys(ctx, "*session:t:*").Result()
		if err != nil || len(keys) != 1 {
			t.Fatalf("session keys %v %v", keys, err)
		}
		e.client.Del(ctx, keys[0])
		e.client.HSet(ctx, keys[0], "x", "y")
		_, alone := e.sessions.Get(ctx, sessionmgr.HashToken(e.token))
		o := e.together(e.limits, e.request(e.token), pfAgent)
		if o.allowErr != nil || !o.res.Allowed || e.remaining(t) != 4 {
			t.Errorf("limits %v %+v, %d left; want taken", o.allowErr, o.res, e.remaining(t))
		}
		if o.lookupErr == nil || alone == nil || o.lookupErr.Error() != alone.Error() {
			t.Errorf("lookup %v, want %v as alone", o.lookupErr, alone)
		}
		if st, _ := sessionmgr.ErrorStatus(o.lookupErr); st != http.StatusServiceUnavailable {
			t.Errorf("status %d, want 503: fails closed", st)
		}
		// The pipeline, then the GET again alone, as the lookup after the
		// limits was.
		if len(o.trips) != 2 {
			t.Errorf("round trips %q", o.trips)
		}
	})
	t.Run("limits", func(t *testing.T) {
		e := newPFEnv(t, false)
		// The limits' key holds a hash: the script's GET fails.
		keys, err := e.client.Keys(ctx, "*{192.0.2.7/32}").Result()
		if err != nil || len(keys) != 1 {
			t.Fatalf("limit keys %v %v", keys, err)
		}
		e.client.Del(ctx, keys[0])
		e.client.HSet(ctx, keys[0], "x", "y")
		fo, err := ratelimit.NewFailover(e.limits, ratelimit.FailoverConfig{Policy: ratelimit.FailClosed})
		if err != nil {
			t.Fatal(err)
		}
		o := e.together(fo, e.request(e.token), pfAgent)
		var ue *ratelimit.UnavailableError
		if !errors.As(o.allowErr, &ue) {
			t.Errorf("allow %v, want the Failover's fail-closed answer", o.allowErr)
		}
		if o.lookupErr != nil || o.s.ID != "s1" {
			t.Errorf("lookup %v %+v, want the session", o.lookupErr, o.s)
		}
		if len(o.trips) != 1 {
			t.Errorf("round trips %q", o.trips)
		}
	})
}

// A Redis that does not answer fails both: the limits by their error (the
// Failover's policy), the session closed.
func TestPrefetchRedisDown(t *testing.T) {
	e := newPFEnv(t, false)
	e.rs.Stop(t)
	for _, p := range []string{ratelimit.FailClosed, ratelimit.FallbackMemory} {
		t.Run(p, func(t *testing.T) {
			fo, err := ratelimit.NewFailover(e.limits, ratelimit.FailoverConfig{Policy: p})
			if err != nil {
				t.Fatal(err)
			}
			o := e.together(fo, e.request(e.token), pfAgent)
			if o.allowErr == nil {
				t.Error("limits answered without Redis")
			}
			if st, _ := sessionmgr.ErrorStatus(o.lookupErr); o.lookupErr == nil || st != http.StatusServiceUnavailable {
				t.Errorf("lookup %v (%d), want a store error: 503", o.lookupErr, st)
			}
		})
	}
}

// A Redis that answers after the Failover's timeout: the limits degrade,
// and the session is read again, alone, with the request's own deadline,
// as it was after the limits.
func TestPrefetchFailoverTimeout(t *testing.T) {
	e := newPFEnv(t, false)
	fo, err := ratelimit.NewFailover(e.limits, ratelimit.FailoverConfig{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, p := e.mgr.Prefetch(e.request(e.token))
	e.rs.Pause(t)
	var res [1]ratelimit.Result
	err = fo.Allow(ctx, e.limit, res[:])
	e.rs.Resume(t)
	if !errors.Is(err, ratelimit.ErrDegraded) || !res[0].Allowed {
		t.Errorf("allow %v %+v, want the fallback's answer", err, res[0])
	}
	if s, err := p.Lookup(pfAgent, pfClient); err != nil || s.ID != "s1" {
		t.Errorf("lookup %v %+v, want the session", err, s)
	}
}

// A script Redis has lost (restarted, flushed) is sent again by its text:
// the limits are taken once.
func TestPrefetchNoScript(t *testing.T) {
	e := newPFEnv(t, false)
	if err := e.client.ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	o := e.together(e.limits, e.request(e.token), pfAgent)
	if o.allowErr != nil || o.lookupErr != nil || o.s.ID != "s1" {
		t.Fatalf("allow %v, lookup %v", o.allowErr, o.lookupErr)
	}
	if e.remaining(t) != 4 {
		t.Errorf("%d tokens left, want 4: taken once", e.remaining(t))
	}
	if len(o.trips) != 2 || !strings.HasPrefix(o.trips[1], "eval ") {
		t.Errorf("round trips %q, want the pipeline, then EVAL", o.trips)
	}
}
