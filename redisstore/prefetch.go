package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/session"
)

// A request carrying a session makes two reads that depend on nothing
// from each other: its limits (limitStore.Allow) and its session's record
// (sessionStore.Get). When both stores are on one client, the session
// store's Prefetch hangs the GET on a context, and the limit store's next
// call made with that context sends it in the same pipeline as its script:
// one round trip instead of two (docs/sessions.md, "Round trips on Redis").
//
// The context carries it because the limit store is reached through
// ratelimit.NewFailover, whose timeout, circuit and failure policy must
// govern that call as any other; the Failover passes the context on. What
// the session check answers is as if both had been sent in turn:
//
//   - the limits' script runs first in the pipeline, as it ran first
//     before, and a request whose session is then refused has consumed
//     its tokens all the same;
//   - the GET reads and writes nothing else, so sending it early changes
//     no outcome; when it was not sent (the circuit was open, the limits
//     were refused before any call) or its reply is an error (Redis
//     failed, or the Failover's timeout cut the pipeline short), the
//     session is read alone, with the request's context, as before: a
//     Redis fault still fails the session closed.

// riderKey is the context key of a prefetched lookup.
type riderKey struct{}

// rider is one session GET a limit store's call may carry.
type rider struct {
	client redis.UniversalClient // the session store's
	key    string

	// mu is held by the limit store from take to done, so that reading the
	// result waits for a pipeline in flight.
	mu   sync.Mutex
	sent bool // sent in a pipeline, or alone
	val  string
	err  error
}

// take claims r for a pipeline of the limit store on client: true when it
// is to be sent there, mu then held until done.
func (r *rider) take(client redis.UniversalClient) bool {
	if r.client != client {
		return false
	}
	r.mu.Lock()
	if r.sent {
		r.mu.Unlock()
		return false
	}
	r.sent = true
	return true
}

// done records the pipeline's reply to the GET.
func (r *rider) done(val string, err error) {
	r.val, r.err = val, err
	r.mu.Unlock()
}

// result is the GET's reply: the pipeline's, or else one read alone now.
func (r *rider) result(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.sent || (r.err != nil && !errors.Is(r.err, redis.Nil)) {
		r.sent = true
		r.val, r.err = r.client.Get(ctx, r.key).Result()
	}
	return r.val, r.err
}

// errNotSent is the pipeline's answer to a GET it did not send.
var errNotSent = errors.New("redisstore: the session lookup was not sent")

// riderOf returns the lookup ctx carries for a limit store on client, nil
// for none (or one for another client).
func riderOf(ctx context.Context, client redis.UniversalClient) *rider {
	r, _ := ctx.Value(riderKey{}).(*rider)
	if r == nil || !r.take(client) {
		return nil
	}
	return r
}

// Prefetch starts the lookup of the session stored under h: it returns a
// context for the rate-limit store's call, and get, which answers as Get
// would. A limit store of this package on the same client sends the lookup
// with its script when called with ctx (or a context derived from it);
// get waits for that reply, or reads the session itself when none came.
// get may be called once the limit store's call has returned, or without
// any. internal/sessionmgr's Manager tests its store for this method.
func (r *sessionStore) Prefetch(ctx context.Context, h session.Hash) (context.Context, func() (*session.Session, error)) {
	hx := hex.EncodeToString(h[:])
	rd := &rider{client: r.client, key: r.tokenKey(hx)}
	get := func() (*session.Session, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := rd.result(ctx)
		s, _, err := r.decode(v, err)
		return s, err
	}
	return context.WithValue(ctx, riderKey{}, rd), get
}

// runAllow runs the limits' script, with the session lookup ctx carries
// for this client in the same pipeline: the script first, as when the two
// were sent in turn.
func (s *limitStore) runAllow(ctx context.Context, keys []string, args []any) (any, error) {
	rd := riderOf(ctx, s.client)
	if rd == nil {
		return allowScript.Run(ctx, s.client, keys, args...).Result()
	}
	var (
		script *redis.Cmd
		get    *redis.StringCmd
	)
	answered := false
	defer func() {
		// Deferred, so that a panicking client leaves no lookup waiting:
		// it reads the session alone.
		if answered {
			rd.done(get.Val(), get.Err())
		} else {
			rd.done("", errNotSent)
		}
	}()
	// Each command's own error is read below; Pipelined's is the first.
	_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		script = allowScript.EvalSha(ctx, p, keys, args...)
		get = p.Get(ctx, rd.key)
		return nil
	})
	answered = true
	v, err := script.Result()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		// Not loaded (a restarted or flushed Redis): the script did not
		// run, so it runs now by its text, which loads it.
		return allowScript.Eval(ctx, s.client, keys, args...).Result()
	}
	return v, err
}
