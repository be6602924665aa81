package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/redis/go-redis/v9"
)

var _ Store = (*RedisStore)(nil)

// DefaultKeyPrefix starts every key a RedisStore writes.
const DefaultKeyPrefix = "agentready:audit:"

// RedisStore is a Store in Redis, so that a session's log survives
// restarts and is shared by every replica of a site. Events are kept
// unlinked, each appended by one script call that reads nothing back (see
// redis_script.go): concurrent appends from any number of replicas form
// one chain without retries, however slowly the server persists. The
// client links the chain when it reads the events back, to seal them.
// Sealed artifacts are kept with a TTL of the retention (default 30
// days).
type RedisStore struct {
	c         redis.UniversalClient
	prefix    string
	redact    redaction
	retention string // in ms, as the scripts take it
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
	return &RedisStore{c: c, prefix: o.prefix, redact: redactWith(o.redactor),
		retention: strconv.FormatInt(o.retention.Milliseconds(), 10)}, nil
}

type redisKeys struct {
	list [4]string // log, ts, out, state: the scripts' KEYS
	art  string
}

func (s *RedisStore) keys(sessionID string) redisKeys {
	base := s.prefix + "{" + sessionID + "}:"
	return redisKeys{list: [4]string{base + "log", base + "ts", base + "out", base + "state"}, art: base + "art"}
}

// Append implements Store: one round trip.
func (s *RedisStore) Append(ctx context.Context, sessionID string, e Event) error {
	_, err := s.add(ctx, sessionID, &e, true)
	return err
}

// Begin implements Store: one round trip.
func (s *RedisStore) Begin(ctx context.Context, sessionID string, e Event) (int, error) {
	return s.add(ctx, sessionID, &e, false)
}

func (s *RedisStore) add(ctx context.Context, sessionID string, e *Event, final bool) (int, error) {
	if sessionID == "" {
		return 0, ErrSessionID
	}
	r, err := prepareUnlinked(e, s.redact, final)
	if err != nil {
		return 0, err
	}
	k := s.keys(sessionID)
	reply, err := appendScript.Run(ctx, s.c, k.list[:], r.head, string(r.ts[:]), r.status, s.retention).StringSlice()
	if err != nil {
		return 0, fmt.Errorf("audit: redis: appending to session %q: %w", sessionID, err)
	}
	switch reply[0] {
	case "ok":
		if seq, err := strconv.Atoi(at(reply, 1)); err == nil {
			return seq, nil
		}
	case "sealed":
		return 0, fmt.Errorf("%w: session %q", ErrSealed, sessionID)
	case "corrupt":
		return 0, fmt.Errorf("%w: session %q counts %s events, its log holds %s", ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
	}
	return 0, fmt.Errorf("audit: redis: unexpected script reply %q", reply)
}

// Complete implements Store: one round trip.
func (s *RedisStore) Complete(ctx context.Context, sessionID string, seq, status int, amend *Event) error {
	head, err := prepareOutcome(sessionID, status, amend, s.redact)
	if err != nil {
		return err
	}
	k := s.keys(sessionID)
	reply, err := completeScript.Run(ctx, s.c, k.list[:], seq, status, s.retention, head).StringSlice()
	if err != nil {
		return fmt.Errorf("audit: redis: completing event %d of session %q: %w", seq, sessionID, err)
	}
	switch reply[0] {
	case "ok":
		return nil
	case "sealed":
		return fmt.Errorf("%w: session %q", ErrSealed, sessionID)
	case "notpending":
		return fmt.Errorf("%w: session %q, event %d", ErrNotPending, sessionID, seq)
	case "corrupt":
		return fmt.Errorf("%w: session %q counts %s events, its log holds %s", ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
	}
	return fmt.Errorf("audit: redis: unexpected script reply %q", reply)
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
		log, ts, out *redis.StringSliceCmd
		st           *redis.SliceCmd
		art          *redis.StringCmd
	)
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		log = p.LRange(ctx, k.list[0], 0, -1)
		ts = p.LRange(ctx, k.list[1], 0, -1)
		out = p.LRange(ctx, k.list[2], 0, -1)
		st = p.HMGet(ctx, k.list[3], "n", "sealed")
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
	heads, tss, outs := log.Val(), ts.Val(), out.Val()
	if n, _ := st.Val()[0].(string); n != strconv.Itoa(len(heads)) && !(n == "" && len(heads) == 0) || len(tss) != len(heads) || len(outs) != len(heads) {
		return nil, fmt.Errorf("%w: session %q counts %q events, its lists hold %d, %d and %d", ErrCorrupt, sessionID, n, len(heads), len(tss), len(outs))
	}
	var bad error
	events, err := relink(func(yield func(record) bool) {
		for i, h := range heads {
			status, err := strconv.Atoi(outs[i])
			if err != nil || len(tss[i]) != len(TimeLayout) {
				bad = fmt.Errorf("status %q or timestamp %q of event %d", outs[i], tss[i], i)
				return
			}
			r := record{head: []byte(h), status: status}
			copy(r.ts[:], tss[i])
			if !yield(r) {
				return
			}
		}
	}, len(heads))
	if bad != nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("%w: session %q: %v", ErrCorrupt, sessionID, err)
	}
	return events, nil
}

// Seal implements Store.
func (s *RedisStore) Seal(ctx context.Context, sessionID string, a *Artifact) error {
	fingerprint, err := checkSeal(sessionID, a)
	if err != nil {
		return err
	}
	body, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err) // unreachable: Verify normalised nothing it could not hash
	}
	k := s.keys(sessionID)
	reply, err := sealScript.Run(ctx, s.c, append(k.list[:], k.art),
		len(a.Events), fingerprint, body, s.retention).StringSlice()
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
		st = p.HMGet(ctx, k.list[3], "n", "sealed")
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
