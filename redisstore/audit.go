package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/agentready/agentready/audit"

	"github.com/redis/go-redis/v9"
)

var _ audit.Store = (*auditStore)(nil)

// errSessionID refuses an empty session id, as every audit.Store does.
var errSessionID = fmt.Errorf("%w: empty session id", audit.ErrInvalidEvent)

// defaultAuditPrefix starts every key an audit store writes, unless
// WithKeyPrefix says otherwise.
const defaultAuditPrefix = "agentready:audit:"

// auditStore is an audit.Store in Redis, so that a session's log survives
// restarts and is shared by every replica of a site. Events are kept
// unlinked, each appended by one script call that reads nothing back (see
// audit_script.go): concurrent appends from any number of replicas form
// one chain without retries, however slowly the server persists. The
// client links the chain when it reads the events back, to seal them.
// audit.Sealed artifacts are kept with a TTL of the retention (default 30
// days).
type auditStore struct {
	c         redis.UniversalClient
	prefix    string
	redact    audit.Redactor
	retention string // in ms, as the scripts take it
}

// NewAuditStore returns an audit.Store in Redis on c, so that a session's
// log survives restarts and is shared by every replica of a site. Its keys
// start with "agentready:audit:" (WithKeyPrefix), a sealed artifact is
// kept for the retention (WithRetention, default and minimum
// audit.MinRetention), params are redacted with audit.DefaultRedactor
// (WithRedactor).
func NewAuditStore(c redis.UniversalClient, opts ...Option) (audit.Store, error) {
	cfg, err := apply("NewAuditStore", defaultAuditPrefix, kindAudit, opts)
	if c == nil {
		err = errors.Join(err, errors.New("redisstore: NewAuditStore: nil client"))
	}
	if err != nil {
		return nil, err
	}
	return &auditStore{c: c, prefix: cfg.prefix, redact: cfg.redactor,
		retention: strconv.FormatInt(cfg.retention.Milliseconds(), 10)}, nil
}

type redisKeys struct {
	list [4]string // log, ts, out, state: the scripts' KEYS
	art  string
}

func (s *auditStore) keys(sessionID string) redisKeys {
	base := s.prefix + "{" + sessionID + "}:"
	return redisKeys{list: [4]string{base + "log", base + "ts", base + "out", base + "state"}, art: base + "art"}
}

// Append implements Store: one round trip.
func (s *auditStore) Append(ctx context.Context, sessionID string, e audit.Event) error {
	_, err := s.add(ctx, sessionID, &e, true)
	return err
}

// Begin implements Store: one round trip.
func (s *auditStore) Begin(ctx context.Context, sessionID string, e audit.Event) (int, error) {
	return s.add(ctx, sessionID, &e, false)
}

func (s *auditStore) add(ctx context.Context, sessionID string, e *audit.Event, final bool) (int, error) {
	if sessionID == "" {
		return 0, errSessionID
	}
	if final && e.ResponseStatus == audit.StatusUnrecorded {
		return 0, fmt.Errorf("%w: response_status %d is not an HTTP status", audit.ErrInvalidEvent, e.ResponseStatus)
	}
	if !final {
		e.ResponseStatus = audit.StatusUnrecorded
	}
	rec, err := audit.Prepare(*e, s.redact)
	if err != nil {
		return 0, err
	}
	head, err := eventHead(rec)
	if err != nil {
		return 0, err
	}
	k := s.keys(sessionID)
	reply, err := appendScript.Run(ctx, s.c, k.list[:], head, rec.Timestamp, rec.ResponseStatus, s.retention).StringSlice()
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
func (s *auditStore) Complete(ctx context.Context, sessionID string, seq, status int, amend *audit.Event) error {
	if sessionID == "" {
		return errSessionID
	}
	if status < 100 || status > 599 {
		return fmt.Errorf("%w: response_status %d is not an HTTP status", audit.ErrInvalidEvent, status)
	}
	var head []byte // none: the event stays as Begin recorded it
	if amend != nil {
		e := *amend
		e.ResponseStatus = status
		rec, err := audit.Prepare(e, s.redact)
		if err == nil {
			head, err = eventHead(rec)
		}
		if err != nil {
			return err
		}
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
		return fmt.Errorf("%w: no event awaiting its outcome at session %q, event %d", audit.ErrInvalidEvent, sessionID, seq)
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
func (s *auditStore) Events(ctx context.Context, sessionID string) ([]audit.Event, error) {
	if sessionID == "" {
		return nil, errSessionID
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
	events := make([]audit.Event, len(heads))
	prev := ""
	for i, h := range heads {
		e := &events[i]
		status, err := strconv.Atoi(outs[i])
		if err == nil {
			// The head closed with an empty prev_hash is an event without
			// its timestamp and status, which are kept apart.
			err = decodeStrict([]byte(h+`""}`), e)
		}
		if err == nil {
			e.PrevHash, e.ResponseStatus, e.Timestamp = prev, status, tss[i]
			prev, err = audit.EventHash(*e)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: session %q, event %d: %v", audit.ErrCorrupt, sessionID, i, err)
		}
	}
	return events, nil
}

// Seal implements Store.
func (s *auditStore) Seal(ctx context.Context, sessionID string, a *audit.Artifact) error {
	fingerprint, err := sealFingerprint(sessionID, a)
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
func (s *auditStore) Artifact(ctx context.Context, sessionID string) (*audit.Artifact, audit.State, error) {
	if sessionID == "" {
		return nil, audit.Unknown, errSessionID
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

func (s *auditStore) decodeArtifact(sessionID string, art *redis.StringCmd) (*audit.Artifact, error) {
	body, err := art.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%w: session %q is sealed but its artifact is missing: %v", audit.ErrCorrupt, sessionID, err)
	}
	var a audit.Artifact
	if err := decodeStrict(body, &a); err != nil {
		return nil, fmt.Errorf("%w: session %q: %v", audit.ErrCorrupt, sessionID, err)
	}
	return &a, nil
}

// eventHead returns what the log keeps of an event as audit.Prepare
// returns it: its canonical JSON up to the value of prev_hash, through
// `"prev_hash":`. prev_hash sorts after every member but response_status
// and timestamp, which are kept apart (the append script raises a
// timestamp, Complete binds the status), so the head holds everything
// else, and the chain's links are computed when the log is read back.
func eventHead(e audit.Event) ([]byte, error) {
	e.PrevHash = ""
	b, err := audit.CanonicalEvent(e)
	if err != nil {
		return nil, err
	}
	const member = `"prev_hash":`
	i := bytes.LastIndex(b, []byte(member+`""`))
	if i < 0 {
		return nil, fmt.Errorf("redisstore: audit: no prev_hash in %q", b) // unreachable: every event has one
	}
	return b[:i+len(member)], nil
}

// sealFingerprint checks the artifact Seal is given (it must be for the
// session and verify with its own key) and returns its fingerprint: each
// event's head, timestamp and status separated by NUL, events by 0x01
// (bytes canonical JSON never holds raw). The seal script builds the same
// from the log and seals only when they are equal: the artifact covers
// exactly the events recorded, with their timestamps and statuses.
func sealFingerprint(sessionID string, a *audit.Artifact) (string, error) {
	switch {
	case sessionID == "":
		return "", errSessionID
	case a == nil:
		return "", fmt.Errorf("%w: nil artifact", audit.ErrMalformed)
	case a.SessionID != sessionID:
		return "", fmt.Errorf("%w: the artifact is for session %q, not %q", audit.ErrInvalidEvent, a.SessionID, sessionID)
	}
	if err := audit.Verify(a, nil); err != nil {
		return "", err
	}
	var b []byte
	for i, e := range a.Events {
		head, err := eventHead(e)
		if err != nil {
			return "", fmt.Errorf("%w: event %d: %v", audit.ErrMalformed, i, err) // unreachable: Verify hashed it
		}
		if i > 0 {
			b = append(b, 1)
		}
		b = append(b, head...)
		b = append(b, 0)
		b = append(b, e.Timestamp...)
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(e.ResponseStatus), 10)
	}
	return string(b), nil
}

// decodeStrict decodes one JSON value into v, refusing unknown members
// and trailing data: what the store reads back is what it wrote, or it is
// corrupt.
func decodeStrict(b []byte, v any) error {
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
