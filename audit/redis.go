package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

var _ Store = (*RedisStore)(nil)

// DefaultKeyPrefix starts every key a RedisStore writes.
const DefaultKeyPrefix = "agentready:audit:"

// maxAppendAttempts bounds Append's compare-and-set retries when appends
// to one session race; each round lets one of the racers through.
const maxAppendAttempts = 64

// ErrContention: an append lost the race for a session's chain head
// maxAppendAttempts times in a row.
var ErrContention = errors.New("audit: too many concurrent appends to one session")

// RedisStore is a Store in Redis, so that a session's log survives
// restarts and is shared by every replica of a site. The chain is linked
// on the Redis side: a Lua script appends an event only if the log still
// ends with the event the client linked it to (see redis_script.go), so
// concurrent appends from any number of replicas form one chain. Events
// are kept as their canonical JSON in a list; sealed artifacts, with a
// TTL of the retention (default 30 days).
//
// Within one RedisStore, appends to a session take turns (a lock striped
// by session id), so they never race each other on Redis: only replicas
// do, and they retry. The stripe also remembers the head it last wrote,
// so that a session's appends from one replica cost one round trip each.
type RedisStore struct {
	c         redis.UniversalClient
	prefix    string
	redact    redaction
	retention time.Duration
	stripes   [redisStripes]stripe
}

// redisStripes is the number of append locks of a RedisStore.
const redisStripes = 256

// stripe serialises one RedisStore's appends to the sessions hashing to
// it, and caches the chain head of the last session it appended to. The
// cache is a hint: the script checks it, and replies with the real head
// when it is stale.
type stripe struct {
	turn         chan struct{} // a lock that a context can give up on
	sessionID, n string
	last         string
}

// NewRedisStore returns a RedisStore on c. It honours WithRedactor,
// WithRetention and WithKeyPrefix.
func NewRedisStore(c redis.UniversalClient, opts ...Option) (*RedisStore, error) {
	if c == nil {
		return nil, errors.New("audit: NewRedisStore: nil client")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &RedisStore{c: c, prefix: o.prefix, redact: redactWith(o.redactor), retention: o.retention}
	for i := range s.stripes {
		s.stripes[i].turn = make(chan struct{}, 1)
	}
	return s, nil
}

type redisKeys struct{ log, state, art string }

func (s *RedisStore) keys(sessionID string) redisKeys {
	base := s.prefix + "{" + sessionID + "}:"
	return redisKeys{log: base + "log", state: base + "state", art: base + "art"}
}

// Append implements Store. It costs one round trip when this store made
// the session's previous append, two otherwise (read the chain head, then
// the linking script), and more when replicas race on the session.
func (s *RedisStore) Append(ctx context.Context, sessionID string, e Event) error {
	if sessionID == "" {
		return ErrSessionID
	}
	p, err := prepare(&e, s.redact)
	if err != nil {
		return err
	}
	st := &s.stripes[stripeOf(sessionID)]
	select {
	case st.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-st.turn }()
	ok := false
	defer func() {
		if !ok {
			st.sessionID = "" // whatever went wrong, read the head afresh next time
		}
	}()

	k := s.keys(sessionID)
	n, last := st.n, st.last
	if st.sessionID != sessionID {
		if n, last, err = s.head(ctx, sessionID, k); err != nil {
			return err
		}
	}
	retention := strconv.FormatInt(s.retention.Milliseconds(), 10)
	for attempt := range maxAppendAttempts {
		if attempt > 1 {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		}
		canonical, h := p.link(last)
		reply, err := appendScript.Run(ctx, s.c, []string{k.log, k.state}, n, last, canonical, h, retention).StringSlice()
		if err != nil {
			return fmt.Errorf("audit: redis: appending to session %q: %w", sessionID, err)
		}
		switch reply[0] {
		case "ok":
			count, err := strconv.Atoi(n)
			if err != nil {
				return fmt.Errorf("%w: session %q counts %q events", ErrCorrupt, sessionID, n) // unreachable: the script compared it with its own count
			}
			st.sessionID, st.n, st.last = sessionID, strconv.Itoa(count+1), h
			ok = true
			return nil
		case "sealed":
			return fmt.Errorf("%w: session %q", ErrSealed, sessionID)
		case "conflict":
			if len(reply) != 3 {
				break
			}
			n, last = reply[1], reply[2]
			continue
		case "corrupt":
			return fmt.Errorf("%w: session %q counts %s events, its log holds %s", ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
		}
		return fmt.Errorf("audit: redis: unexpected script reply %q", reply)
	}
	return fmt.Errorf("%w: session %q", ErrContention, sessionID)
}

// head reads a session's chain head: its event count and last hash.
func (s *RedisStore) head(ctx context.Context, sessionID string, k redisKeys) (n, last string, err error) {
	v, err := s.c.HMGet(ctx, k.state, "n", "last", "sealed").Result()
	if err != nil {
		return "", "", fmt.Errorf("audit: redis: reading session %q: %w", sessionID, err)
	}
	if v[2] != nil {
		return "", "", fmt.Errorf("%w: session %q", ErrSealed, sessionID)
	}
	n, last = "0", ""
	if x, ok := v[0].(string); ok {
		n = x
	}
	if x, ok := v[1].(string); ok {
		last = x
	}
	return n, last, nil
}

func stripeOf(sessionID string) uint32 { return stripeHash(sessionID) % redisStripes }

// backoff waits a little, at random, so that racing appenders spread out.
func backoff(ctx context.Context, attempt int) error {
	t := time.NewTimer(time.Duration(rand.Int64N(int64(min(attempt, 10)) * int64(200*time.Microsecond))))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "?"
}

// Events implements Store.
func (s *RedisStore) Events(ctx context.Context, sessionID string) ([]Event, error) {
	if sessionID == "" {
		return nil, ErrSessionID
	}
	k := s.keys(sessionID)
	var (
		log *redis.StringSliceCmd
		st  *redis.SliceCmd
		art *redis.StringCmd
	)
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		log = p.LRange(ctx, k.log, 0, -1)
		st = p.HMGet(ctx, k.state, "n", "sealed")
		art = p.Get(ctx, k.art)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("audit: redis: reading session %q: %w", sessionID, err)
	}
	if st.Val()[1] != nil {
		a, err := s.decodeArtifact(sessionID, art)
		if err != nil {
			return nil, err
		}
		return a.Events, nil
	}
	raw := log.Val()
	if n, _ := st.Val()[0].(string); n != strconv.Itoa(len(raw)) && !(n == "" && len(raw) == 0) {
		return nil, fmt.Errorf("%w: session %q counts %q events, its log holds %d", ErrCorrupt, sessionID, n, len(raw))
	}
	events := make([]Event, len(raw))
	for i, r := range raw {
		if err := decodeStrictJSON([]byte(r), &events[i]); err != nil {
			return nil, fmt.Errorf("%w: session %q event %d: %v", ErrCorrupt, sessionID, i, err)
		}
	}
	return events, nil
}

// Seal implements Store.
func (s *RedisStore) Seal(ctx context.Context, sessionID string, a *Artifact) error {
	last, err := checkSeal(sessionID, a)
	if err != nil {
		return err
	}
	body, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err) // unreachable: Verify normalised nothing it could not hash
	}
	k := s.keys(sessionID)
	reply, err := sealScript.Run(ctx, s.c, []string{k.log, k.state, k.art},
		len(a.Events), last, body, strconv.FormatInt(s.retention.Milliseconds(), 10)).StringSlice()
	if err != nil {
		return fmt.Errorf("audit: redis: sealing session %q: %w", sessionID, err)
	}
	switch reply[0] {
	case "ok":
		return nil
	case "sealed":
		return fmt.Errorf("%w: session %q", ErrSealed, sessionID)
	case "stale":
		return fmt.Errorf("%w: session %q has %s events, the artifact covers %d", ErrStale, sessionID, at(reply, 1), len(a.Events))
	case "corrupt":
		return fmt.Errorf("%w: session %q counts %s events, its log holds %s", ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
	}
	return fmt.Errorf("audit: redis: unexpected script reply %q", reply)
}

// Artifact implements Store.
func (s *RedisStore) Artifact(ctx context.Context, sessionID string) (*Artifact, State, error) {
	if sessionID == "" {
		return nil, Unknown, ErrSessionID
	}
	k := s.keys(sessionID)
	var (
		st  *redis.SliceCmd
		art *redis.StringCmd
	)
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		st = p.HMGet(ctx, k.state, "n", "sealed")
		art = p.Get(ctx, k.art)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, Unknown, fmt.Errorf("audit: redis: reading session %q: %w", sessionID, err)
	}
	switch v := st.Val(); {
	case v[1] != nil:
		a, err := s.decodeArtifact(sessionID, art)
		if err != nil {
			return nil, Unknown, err
		}
		return a, Sealed, nil
	case v[0] != nil:
		return nil, Active, nil
	}
	return nil, Unknown, nil
}

func (s *RedisStore) decodeArtifact(sessionID string, art *redis.StringCmd) (*Artifact, error) {
	body, err := art.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%w: session %q is sealed but its artifact is missing: %v", ErrCorrupt, sessionID, err)
	}
	a, err := DecodeArtifact(body)
	if err != nil {
		return nil, fmt.Errorf("%w: session %q: %v", ErrCorrupt, sessionID, err)
	}
	return a, nil
}

// decodeStrictJSON decodes one JSON value into v, refusing unknown
// members and trailing data.
func decodeStrictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the value")
	}
	return nil
}
