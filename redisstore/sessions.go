package redisstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready/session"
)

// reapBatch is how many sessions one reap script claims: it bounds the
// script's run time and reply.
const reapBatch = 256

// sessionStore is the session.Store NewSessionStore returns.
type sessionStore struct {
	client redis.UniversalClient
	prefix string // "<prefix>session:"
	now    func() time.Time
	shards [sessionShards]string // the shards' key prefixes, their hash tags: "{<prefix>session:<k>}:"
	exp    [sessionShards]string // the shards' expiry index keys
}

// sessionShards is how many hash tags a session store spreads identities
// over: enough to use every master of a Cluster, few enough for Reap to
// visit each.
const sessionShards = 16

// record is a session as stored in Redis: JSON, times in RFC 3339 with
// nanoseconds, so a session reads back exactly as it was created.
type record struct {
	ID           string       `json:"id"`
	Agent        string       `json:"agent"`
	Client       netip.Prefix `json:"client"`
	AgentName    string       `json:"agent_name,omitempty"`
	AgentVersion string       `json:"agent_version,omitempty"`
	Purpose      string       `json:"purpose,omitempty"`
	Capabilities []string     `json:"capabilities,omitempty"`
	CreatedAt    time.Time    `json:"created_at"`
	ExpiresAt    time.Time    `json:"expires_at"`
}

// NewSessionStore returns a session.Store in Redis on client (give it to
// agentready.WithSessions), so that replicas of a site share sessions, and
// sessions survive a restart of the middleware: a new store on the same
// Redis and prefix sees the sessions of the old one.
//
// A session is stored under its token hash (never the token) with
// a Redis lifetime lasting until its deadline, a key of its own with no hash tag, so the
// sessions spread over a Cluster's slots. Each identity (agent and client)
// belongs to one of sessionShards shards, a hash tag holding the
// identity's live sessions (a sorted set scored by deadline) and the
// shard's expiry index (the sessions not yet ended, with their record, so
// that an expired session is still reported by Reap after Redis has
// dropped its key). One script per shard checks the identity's count
// against the max and adds the session, so concurrent creates on any
// number of replicas never exceed the max. A session ends exactly once:
// by the Delete whose DEL removes its key and then its index entry, or by
// the Reap that takes it from its shard's index at its deadline.
// See sessions_script.go for the key layout.
//
// Liveness is judged by the store's clock (WithClock), in milliseconds:
// replicas' clocks should agree to well under a second, as NTP keeps them.
//
// It does not retry or time out by itself: configure the client's
// timeouts. The store does not own the client: close it yourself.
//
// client is a *redis.Client, a Sentinel failover client or a
// *redis.ClusterClient (redis.NewUniversalClient makes any of them).
// Options: WithKeyPrefix (default "agentready:"; the keys are
// "<prefix>session:t:<hash>" for a session and
// "{<prefix>session:<shard>}:..." for a shard's identities and expiry
// index), WithClock. Nothing is sent to Redis until the first call. It
// reports every problem at once.
func NewSessionStore(client redis.UniversalClient, opts ...Option) (session.Store, error) {
	cfg, err := apply("NewSessionStore", defaultPrefix, kindSession, opts)
	if client == nil {
		err = errors.Join(err, errors.New("redisstore: NewSessionStore: nil client"))
	}
	if err != nil {
		return nil, err
	}
	r := &sessionStore{client: client, prefix: cfg.prefix + "session:", now: cfg.now}
	for k := range r.shards {
		r.shards[k] = "{" + r.prefix + strconv.Itoa(k) + "}:"
		r.exp[k] = r.shards[k] + "exp"
	}
	return r, nil
}

func (r *sessionStore) tokenKey(hexHash string) string { return r.prefix + "t:" + hexHash }

// identityKeys returns the key of an identity's sorted set and of its
// shard's expiry index; a Prefix's text has no '|', so the identity is
// unambiguous. agent is the identity's count (session.CountedAs): agents
// under the default policy share one set per client.
func (r *sessionStore) identityKeys(agent string, client netip.Prefix) []string {
	c := ""
	if client.IsValid() {
		c = client.String()
	}
	id := c + "|" + agent
	h := fnv.New32a()
	h.Write([]byte(id))
	k := int(h.Sum32() % sessionShards)
	return []string{r.shards[k] + "a:" + id, r.exp[k]}
}

// Create implements session.Store.
func (r *sessionStore) Create(ctx context.Context, h session.Hash, s *session.Session, maxPerAgent int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s == nil || s.ExpiresAt.IsZero() {
		return fmt.Errorf("%w: a session with its deadline is required", session.ErrInvalid)
	}
	rec, err := json.Marshal(toRecord(s))
	if err != nil {
		return fmt.Errorf("%w: %v", session.ErrInvalid, err)
	}
	hx := hex.EncodeToString(h[:])
	deadline := ceilMillis(s.ExpiresAt)
	// The session's own key first, with its lifetime in the same command
	// (SET NX PX, the deadline less the store's now: see
	// sessions_script.go): a hash in use is refused before the identity
	// counts it. If the count then refuses, or fails, the key is taken
	// back; a crash in between leaves a key no agent holds a token for,
	// which expires at its deadline.
	now := floorMillis(r.now())
	tk := r.tokenKey(hx)
	err = r.client.SetArgs(ctx, tk, rec, redis.SetArgs{Mode: "NX", TTL: time.Duration(max(deadline-now, 1)) * time.Millisecond}).Err()
	if errors.Is(err, redis.Nil) {
		return session.ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("redisstore: sessions: %w", err)
	}
	keys := r.identityKeys(session.CountedAs(s.Agent), s.Client)
	res, err := createScript.Run(ctx, r.client, keys,
		hx, rec, deadline, now, max(maxPerAgent, 0)).Int64Slice()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("create script answered %v", res)
	}
	if err != nil || res[0] != 0 {
		r.client.Del(context.WithoutCancel(ctx), tk) // best effort: it expires anyway
	}
	if err != nil {
		// The script may have run with its reply lost: take the session
		// back out of the count and the index too, or it would hold a
		// max_sessions slot and be reaped, though never handed out. Best
		// effort: if this fails too, both last until the deadline.
		deleteScript.Run(context.WithoutCancel(ctx), r.client, keys, hx, rec)
		return fmt.Errorf("redisstore: sessions: %w", err)
	}
	if res[0] == 1 {
		return &session.LimitError{Soonest: time.UnixMilli(res[1]).UTC()}
	}
	return nil
}

// Get implements session.Store.
func (r *sessionStore) Get(ctx context.Context, h session.Hash) (*session.Session, error) {
	s, _, err := r.get(ctx, hex.EncodeToString(h[:]))
	return s, err
}

// get returns the live session under the token hash hx (hex) and its
// record as stored.
func (r *sessionStore) get(ctx context.Context, hx string) (*session.Session, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	return r.decode(r.client.Get(ctx, r.tokenKey(hx)).Result())
}

// decode is get's answer from the GET of a session's key, v or err.
func (r *sessionStore) decode(v string, err error) (*session.Session, string, error) {
	if errors.Is(err, redis.Nil) {
		return nil, "", session.ErrNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("redisstore: sessions: %w", err)
	}
	s, err := decodeRecord(v)
	if err != nil {
		return nil, "", err
	}
	if !r.now().Before(s.ExpiresAt) {
		return nil, "", session.ErrNotFound
	}
	return s, v, nil
}

// Delete implements session.Store. Deleting the session's key is the
// claim: the call whose DEL removes it ends the session, and from then on
// no Get finds it, whatever fails next. The shard's index is updated
// after; should that fail, Delete reports the error and Reap reports the
// session at its deadline (still once: a Reap that took it from the index
// first makes this Delete ErrNotFound).
func (r *sessionStore) Delete(ctx context.Context, h session.Hash) (*session.Session, error) {
	hx := hex.EncodeToString(h[:])
	s, v, err := r.get(ctx, hx)
	if err != nil {
		return nil, err
	}
	n, err := r.client.Del(ctx, r.tokenKey(hx)).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: sessions: %w", err)
	}
	if n != 1 {
		return nil, session.ErrNotFound // ended by a concurrent Delete, or expired
	}
	n, err = deleteScript.Run(context.WithoutCancel(ctx), r.client, r.identityKeys(session.CountedAs(s.Agent), s.Client), hx, v).Int64()
	if err != nil {
		return nil, fmt.Errorf("redisstore: sessions: session ended, its index not updated (Reap reports it at its deadline): %w", err)
	}
	if n != 1 {
		return nil, session.ErrNotFound // Reap took it from the index first
	}
	return s, nil
}

// Reap implements session.Store. Members it cannot decode (written by something
// else under the prefix) are removed and reported in the error, after the
// sessions it could decode.
func (r *sessionStore) Reap(ctx context.Context, now time.Time, max int) ([]*session.Session, error) {
	var (
		out  []*session.Session
		errs []error
	)
	nowMs := floorMillis(now)
	// One round trip finds the shards with a session due (the Manager
	// reaps on every create, and most of the time none is); the claiming
	// script runs only on those.
	due := make([]*redis.IntCmd, len(r.exp))
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for k, exp := range r.exp {
			due[k] = p.ZCount(ctx, exp, "-inf", strconv.FormatInt(nowMs, 10))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redisstore: sessions: %w", err)
	}
	for k, exp := range r.exp {
		if due[k].Val() == 0 {
			continue
		}
		for max <= 0 || len(out) < max {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			batch := reapBatch
			if max > 0 {
				batch = min(batch, max-len(out))
			}
			members, err := reapScript.Run(ctx, r.client, []string{exp}, nowMs, batch).StringSlice()
			if err != nil {
				errs = append(errs, fmt.Errorf("redisstore: sessions: %w", err))
				break
			}
			for _, m := range members {
				s, err := decodeMember(m)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				out = append(out, s)
			}
			if len(members) < batch {
				break
			}
		}
	}
	return out, errors.Join(errs...)
}

func toRecord(s *session.Session) record {
	return record{
		ID: s.ID, Agent: s.Agent, Client: s.Client,
		AgentName: s.AgentName, AgentVersion: s.AgentVersion, Purpose: s.Purpose,
		Capabilities: s.Capabilities, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt,
	}
}

func decodeRecord(v string) (*session.Session, error) {
	var rec record
	if err := json.Unmarshal([]byte(v), &rec); err != nil {
		return nil, fmt.Errorf("redisstore: sessions: undecodable session record: %w", err)
	}
	return &session.Session{
		ID: rec.ID, Agent: rec.Agent, Client: rec.Client,
		AgentName: rec.AgentName, AgentVersion: rec.AgentVersion, Purpose: rec.Purpose,
		Capabilities: rec.Capabilities, CreatedAt: rec.CreatedAt, ExpiresAt: rec.ExpiresAt,
	}, nil
}

// decodeMember parses an expiry index member, "<hash hex> <record>".
func decodeMember(m string) (*session.Session, error) {
	const hexLen = 2 * len(session.Hash{})
	var h session.Hash
	if len(m) <= hexLen || m[hexLen] != ' ' {
		return nil, fmt.Errorf("redisstore: sessions: malformed expiry index member of %d bytes", len(m))
	}
	if _, err := hex.Decode(h[:], []byte(m[:hexLen])); err != nil {
		return nil, fmt.Errorf("redisstore: sessions: malformed expiry index member: %w", err)
	}
	return decodeRecord(m[hexLen+1:])
}

// floorMillis and ceilMillis round so that a deadline is never judged
// passed early: a session is expired in Redis when ceil(deadline) <=
// floor(now), which implies deadline <= now.
func floorMillis(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Before(time.UnixMilli(ms)) { // UnixMilli truncates towards zero
		ms--
	}
	return ms
}

func ceilMillis(t time.Time) int64 {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}
