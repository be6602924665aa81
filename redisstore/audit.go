package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/agentready/agentready/audit"

	"github.com/redis/go-redis/v9"
)

var (
	_ audit.Store       = (*AuditStore)(nil)
	_ audit.EventCopier = (*AuditStore)(nil)
)

// DefaultAuditPrefix starts every key an AuditStore writes.
const DefaultAuditPrefix = "agentready:audit:"

// AuditStore is a Store in Redis, so that a session's log survives
// restarts and is shared by every replica of a site. Events are kept
// unlinked, each appended by one script call that reads nothing back (see
// audit_script.go): concurrent appends from any number of replicas form
// one chain without retries, however slowly the server persists. The
// client links the chain when it reads the events back, to seal them.
// audit.Sealed artifacts are kept with a TTL of the retention (default 30
// days).
type AuditStore struct {
	c         redis.UniversalClient
	prefix    string
	redact    audit.Redactor
	retention string // in ms, as the scripts take it
}

// NewAuditStore returns an audit.Store on c. Options: WithKeyPrefix,
// WithRedactor, WithRetention.
func NewAuditStore(c redis.UniversalClient, opts ...Option) (*AuditStore, error) {
	cfg, err := apply("NewAuditStore", DefaultAuditPrefix, kindAudit, opts)
	if c == nil {
		err = errors.Join(err, errors.New("redisstore: NewAuditStore: nil client"))
	}
	if err != nil {
		return nil, err
	}
	return &AuditStore{c: c, prefix: cfg.prefix, redact: cfg.redactor,
		retention: strconv.FormatInt(cfg.retention.Milliseconds(), 10)}, nil
}

// CopiesEvents implements audit.EventCopier: an event is serialised within
// Append, Begin and Complete, and nothing of it is kept.
func (s *AuditStore) CopiesEvents() bool { return true }

type redisKeys struct {
	list [4]string // log, ts, out, state: the scripts' KEYS
	art  string
}

func (s *AuditStore) keys(sessionID string) redisKeys {
	base := s.prefix + "{" + sessionID + "}:"
	return redisKeys{list: [4]string{base + "log", base + "ts", base + "out", base + "state"}, art: base + "art"}
}

// Append implements Store: one round trip.
func (s *AuditStore) Append(ctx context.Context, sessionID string, e audit.Event) error {
	_, err := s.add(ctx, sessionID, &e, true)
	return err
}

// Begin implements Store: one round trip.
func (s *AuditStore) Begin(ctx context.Context, sessionID string, e audit.Event) (int, error) {
	return s.add(ctx, sessionID, &e, false)
}

func (s *AuditStore) add(ctx context.Context, sessionID string, e *audit.Event, final bool) (int, error) {
	if sessionID == "" {
		return 0, audit.ErrSessionID
	}
	r, err := audit.NewRecord(*e, final, s.redact)
	if err != nil {
		return 0, err
	}
	k := s.keys(sessionID)
	reply, err := appendScript.Run(ctx, s.c, k.list[:], r.Head, r.Timestamp, r.Status, s.retention).StringSlice()
	if err != nil {
		return 0, fmt.Errorf("redisstore: audit: appending to session %q: %w", sessionID, err)
	}
	switch reply[0] {
	case "ok":
		if seq, err := strconv.Atoi(at(reply, 1)); err == nil {
			return seq, nil
		}
	case "sealed":
		return 0, fmt.Errorf("%w: session %q", audit.ErrSealed, sessionID)
	case "corrupt":
		return 0, fmt.Errorf("%w: session %q counts %s events, its log holds %s", audit.ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
	}
	return 0, fmt.Errorf("redisstore: audit: unexpected script reply %q", reply)
}

// Complete implements Store: one round trip.
func (s *AuditStore) Complete(ctx context.Context, sessionID string, seq, status int, amend *audit.Event) error {
	head, err := audit.AmendedHead(sessionID, status, amend, s.redact)
	if err != nil {
		return err
	}
	k := s.keys(sessionID)
	reply, err := completeScript.Run(ctx, s.c, k.list[:], seq, status, s.retention, head).StringSlice()
	if err != nil {
		return fmt.Errorf("redisstore: audit: completing event %d of session %q: %w", seq, sessionID, err)
	}
	switch reply[0] {
	case "ok":
		return nil
	case "sealed":
		return fmt.Errorf("%w: session %q", audit.ErrSealed, sessionID)
	case "notpending":
		return fmt.Errorf("%w: session %q, event %d", audit.ErrNotPending, sessionID, seq)
	case "corrupt":
		return fmt.Errorf("%w: session %q counts %s events, its log holds %s", audit.ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
	}
	return fmt.Errorf("redisstore: audit: unexpected script reply %q", reply)
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "?"
}

// Events implements Store.
func (s *AuditStore) Events(ctx context.Context, sessionID string) ([]audit.Event, error) {
	if sessionID == "" {
		return nil, audit.ErrSessionID
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
		return nil, fmt.Errorf("redisstore: audit: reading session %q: %w", sessionID, err)
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
		return nil, fmt.Errorf("%w: session %q counts %q events, its lists hold %d, %d and %d", audit.ErrCorrupt, sessionID, n, len(heads), len(tss), len(outs))
	}
	var bad error
	events, err := audit.Link(func(yield func(audit.Record) bool) {
		for i, h := range heads {
			status, err := strconv.Atoi(outs[i])
			if err != nil || len(tss[i]) != len(audit.TimeLayout) {
				bad = fmt.Errorf("status %q or timestamp %q of event %d", outs[i], tss[i], i)
				return
			}
			if !yield(audit.Record{Head: []byte(h), Timestamp: tss[i], Status: status}) {
				return
			}
		}
	}, len(heads))
	if bad != nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("%w: session %q: %v", audit.ErrCorrupt, sessionID, err)
	}
	return events, nil
}

// Seal implements Store.
func (s *AuditStore) Seal(ctx context.Context, sessionID string, a *audit.Artifact) error {
	fingerprint, err := audit.SealFingerprint(sessionID, a)
	if err != nil {
		return err
	}
	body, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("%w: %v", audit.ErrMalformed, err) // unreachable: Verify normalised nothing it could not hash
	}
	k := s.keys(sessionID)
	reply, err := sealScript.Run(ctx, s.c, append(k.list[:], k.art),
		len(a.Events), fingerprint, body, s.retention).StringSlice()
	if err != nil {
		return fmt.Errorf("redisstore: audit: sealing session %q: %w", sessionID, err)
	}
	switch reply[0] {
	case "ok":
		return nil
	case "sealed":
		return fmt.Errorf("%w: session %q", audit.ErrSealed, sessionID)
	case "stale":
		return fmt.Errorf("%w: session %q has %s events, the artifact covers %d", audit.ErrStale, sessionID, at(reply, 1), len(a.Events))
	case "corrupt":
		return fmt.Errorf("%w: session %q counts %s events, its log holds %s", audit.ErrCorrupt, sessionID, at(reply, 1), at(reply, 2))
	}
	return fmt.Errorf("redisstore: audit: unexpected script reply %q", reply)
}

// Artifact implements audit.Store.
func (s *AuditStore) Artifact(ctx context.Context, sessionID string) (*audit.Artifact, audit.State, error) {
	if sessionID == "" {
		return nil, audit.Unknown, audit.ErrSessionID
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
		return nil, audit.Unknown, fmt.Errorf("redisstore: audit: reading session %q: %w", sessionID, err)
	}
	switch v := st.Val(); {
	case v[1] != nil:
		a, err := s.decodeArtifact(sessionID, art)
		if err != nil {
			return nil, audit.Unknown, err
		}
		return a, audit.Sealed, nil
	case v[0] != nil:
		return nil, audit.Active, nil
	}
	return nil, audit.Unknown, nil
}

func (s *AuditStore) decodeArtifact(sessionID string, art *redis.StringCmd) (*audit.Artifact, error) {
	body, err := art.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%w: session %q is sealed but its artifact is missing: %v", audit.ErrCorrupt, sessionID, err)
	}
	a, err := audit.DecodeArtifact(body)
	if err != nil {
		return nil, fmt.Errorf("%w: session %q: %v", audit.ErrCorrupt, sessionID, err)
	}
	return a, nil
}
