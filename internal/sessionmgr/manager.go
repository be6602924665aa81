// Package sessionmgr creates, checks and ends the sessions of agents.txt
// v0.1.0 for the middleware. The rules (package session states the model):
//
//   - The token is 43 base64url characters from crypto/rand and is a
//     secret: stores keep only its SHA-256 (session.Hash). Tokens are never
//     compared as strings; a lookup hashes the presented token and finds
//     the digest, so its timing says nothing useful about any stored token.
//   - The TTL is a hard deadline from creation, never extended by activity.
//   - A session is bound to the agent identity and client that created it;
//     the same token from another agent or client is session.ErrForeign.
//   - An agent identity may hold at most MaxSessions live sessions
//     (agents.json rate_limit.max_sessions); beyond that the create call
//     answers 429 with Retry-After.
//   - Every session ends exactly once, as Deleted, Expired or Handoff, and
//     Config.OnEnd hears of it, so the audit trail can be sealed. Expiry is
//     observed by Reap (called a little on every create, and by Run
//     periodically); stores hand each expired session to one reaper only,
//     also across replicas sharing a redisstore.NewSessionStore.
//   - Config.AfterCreate runs when a new session is stored, before its
//     token is handed out, and can refuse (the session is deleted, the
//     endpoint answers 503): the middleware records the creation in the
//     audit trail there, failing closed.
//   - Config.BeforeEnd runs before a DELETE or handoff ends a session and
//     can refuse (the session stays live, the endpoint answers 503): the
//     middleware records the DELETE in the audit trail there, failing
//     closed.
package sessionmgr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/session"
)

// reapPerCreate is how many expired sessions each create reaps: more than
// the one session a create adds, so the backlog of a store shrinks while
// sessions are being created, without a long pause on any one request.
const reapPerCreate = 16

// Config configures a Manager.
type Config struct {
	// Store keeps the sessions. Nil: a new session.MemoryStore on Now.
	Store session.Store
	// TTL is the hard session lifetime (v0.1.0 Session-TTL). Zero: the
	// default of 1800 s.
	TTL time.Duration
	// MaxSessions caps the live sessions of one agent identity and client
	// (agents.json rate_limit.max_sessions), agents under the default
	// policy counted together per client (session.CountedAs). Zero: no
	// cap.
	MaxSessions int
	// Capabilities are the names of the session-required capabilities,
	// announced in the create response and kept on each Session.
	Capabilities []string
	// AuditURL returns the URL of a session's audit artifact, for the
	// DELETE response's audit_artifact_url. Nil: no audit, field omitted.
	AuditURL func(id string) string
	// Now is the clock (default time.Now). Give the Store the same one.
	Now func() time.Time
	// OnEnd hears of every session's end exactly once, with EndedAt set:
	// Deleted (DELETE on the endpoint), Expired (found by Reap) and
	// Handoff (End). This is where the audit artifact is sealed. It is
	// called synchronously, from any goroutine, and must be safe for
	// concurrent use. Optional.
	OnEnd func(s *session.Session, reason EndReason)
	// AfterCreate runs when the store holds a new session, before its
	// token is handed out. An error deletes the session again, and the
	// creation fails (503). This is where the creation is recorded in the
	// audit trail, so that every session has a log from its first moment.
	// Optional.
	AfterCreate func(ctx context.Context, s *session.Session) error
	// BeforeEnd runs in End (DELETE on the endpoint, a handoff) before the
	// session is removed from the store. An error keeps the session live:
	// End returns it wrapped in ErrNotRecorded and the endpoint answers 503.
	// This is where the DELETE itself is recorded in the audit trail, so
	// that no session ends by a request its log does not hold. Two
	// concurrent DELETEs of one session may both pass it; one ends the
	// session, the other then gets session.ErrNotFound. Optional.
	BeforeEnd func(ctx context.Context, s *session.Session, reason EndReason) error
	// OnError hears of store errors no caller receives: those of the
	// reaping done while creating sessions and in Run. Optional.
	OnError func(err error)
}

// Manager creates, checks and ends sessions. It is safe for concurrent use.
type Manager struct {
	store    session.Store
	ttl      time.Duration
	max      int
	caps     []string
	auditURL func(string) string
	now      func() time.Time
	onEnd    func(*session.Session, EndReason)
	before   func(context.Context, *session.Session, EndReason) error
	created  func(context.Context, *session.Session) error
	onError  func(error)
}

// New validates cfg, reporting every problem at once, and returns a
// Manager.
func New(cfg Config) (*Manager, error) {
	var errs []error
	if cfg.TTL < 0 {
		errs = append(errs, fmt.Errorf("session: Config.TTL %v is negative", cfg.TTL))
	}
	if cfg.MaxSessions < 0 {
		errs = append(errs, fmt.Errorf("session: Config.MaxSessions %d is negative", cfg.MaxSessions))
	}
	for i, c := range cfg.Capabilities {
		if c == "" {
			errs = append(errs, fmt.Errorf("session: Config.Capabilities[%d] is empty", i))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m := &Manager{
		store:    cfg.Store,
		ttl:      cfg.TTL,
		max:      cfg.MaxSessions,
		caps:     append([]string{}, cfg.Capabilities...),
		auditURL: cfg.AuditURL,
		now:      cfg.Now,
		onEnd:    cfg.OnEnd,
		before:   cfg.BeforeEnd,
		created:  cfg.AfterCreate,
		onError:  cfg.OnError,
	}
	if m.ttl == 0 {
		m.ttl = resolve.DefaultSessionTTL
	}
	m.now = clock.Or(m.now)
	if m.store == nil {
		m.store = session.NewMemoryStore(session.WithClock(m.now))
	}
	return m, nil
}

// MustNew is New that panics on a configuration error, for tests whose
// configuration is a constant.
func MustNew(cfg Config) *Manager {
	m, err := New(cfg)
	if err != nil {
		panic(err)
	}
	return m
}

// Store returns the Manager's store.
func (m *Manager) Store() session.Store { return m.store }

// TTL returns the session lifetime.
func (m *Manager) TTL() time.Duration { return m.ttl }

// Now reads the Manager's clock (Config.Now).
func (m *Manager) Now() time.Time { return m.now() }

// Identify returns the caller's agent identity (the policy or agent name
// the middleware classified it as) and client key (its client network; the
// zero Prefix binds sessions to the agent alone). ok is false when the
// caller cannot be identified: the create call is then refused with 403.
// Sessions are bound to, and counted per, the (agent, client) pair.
type Identify func(r *http.Request) (agent string, client netip.Prefix, ok bool)

// tokenHash returns the hash of the token r carries in X-Agent-Session:
// session.ErrNoToken without one, session.ErrNotFound for a value no token of
// ours has the length of (not worth a store call).
func tokenHash(r *http.Request) (session.Hash, error) {
	token := r.Header.Get(session.HeaderSession)
	if token == "" {
		return session.Hash{}, session.ErrNoToken
	}
	if len(token) < minTokenLen || len(token) > maxTokenLen {
		return session.Hash{}, session.ErrNotFound
	}
	return HashToken(token), nil
}

// Lookup returns the live session named by the request's X-Agent-Session
// header, which must belong to the caller: agent and client are its
// identity, as Identify returns it. Errors: session.ErrNoToken (no header),
// session.ErrNotFound (unknown, expired or ended token), session.ErrForeign (the
// session belongs to another agent identity or client), or the store's
// error. The v0.1.0 answer to the first three is 401.
func (m *Manager) Lookup(r *http.Request, agent string, client netip.Prefix) (*session.Session, error) {
	h, err := tokenHash(r)
	if err != nil {
		return nil, err
	}
	s, err := m.store.Get(r.Context(), h)
	return owned(s, err, agent, client)
}

// owned is s, the store's answer (or err), when it belongs to the identity
// (agent, client); session.ErrForeign when it is another's.
func owned(s *session.Session, err error, agent string, client netip.Prefix) (*session.Session, error) {
	if err != nil {
		return nil, err
	}
	if s.Agent != agent || s.Client != client {
		return nil, session.ErrForeign
	}
	return s, nil
}

// End ends the live session s that Lookup found for r (r's X-Agent-Session
// must name it) and reports it to OnEnd with reason, typically Handoff after a
// successful human_handoff checkout. It returns the ended session, with
// EndedAt set; session.ErrNotFound when the session has ended already
// (ended sessions are reported once only).
func (m *Manager) End(ctx context.Context, r *http.Request, s *session.Session, reason EndReason) (*session.Session, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil session", session.ErrInvalid)
	}
	if reason != Deleted && reason != Handoff {
		return nil, fmt.Errorf("session: End with reason %v: only Deleted and Handoff end a live session", reason)
	}
	h, err := tokenHash(r)
	if err != nil {
		return nil, err
	}
	// The store keys sessions by token hash, which a Session does not
	// carry: make sure r's token names s before anything ends.
	cur, err := m.store.Get(ctx, h)
	if err != nil {
		return nil, err
	}
	if cur.ID != s.ID {
		return nil, fmt.Errorf("%w: session %q is not the one the request's %s names", session.ErrInvalid, s.ID, session.HeaderSession)
	}
	if m.before != nil {
		if err := m.before(ctx, s, reason); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotRecorded, err)
		}
	}
	ended, err := m.store.Delete(ctx, h)
	if err != nil {
		return nil, err
	}
	return m.ended(ended, reason, m.now()), nil
}

// ended reports the end of s to OnEnd and returns the copy it reported.
func (m *Manager) ended(s *session.Session, reason EndReason, at time.Time) *session.Session {
	c := *s
	c.EndedAt = at.UTC().Truncate(time.Millisecond)
	if m.onEnd != nil {
		m.onEnd(&c, reason)
	}
	return &c
}

// Reap ends every session whose TTL has passed, reporting each to OnEnd as
// Expired with EndedAt = ExpiresAt, and returns how many it ended. Sessions
// the store returned are reported even when it also returns an error.
func (m *Manager) Reap(ctx context.Context) (int, error) {
	return m.reap(ctx, 0)
}

func (m *Manager) reap(ctx context.Context, max int) (int, error) {
	ss, err := m.store.Reap(ctx, m.now(), max)
	for _, s := range ss {
		m.ended(s, Expired, s.ExpiresAt)
	}
	return len(ss), err
}

// Run calls Reap every interval until ctx is done, reporting errors to
// OnError, and returns ctx.Err(). Run it in a goroutine so that expiry is
// observed when no sessions are being created:
//
//	go m.Run(ctx, time.Minute)
func (m *Manager) Run(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return fmt.Errorf("session: Run interval %v is not positive", every)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if _, err := m.Reap(ctx); err != nil && ctx.Err() == nil {
				m.reportError(err)
			}
		}
	}
}

func (m *Manager) reportError(err error) {
	if m.onError != nil {
		m.onError(err)
	}
}

// create makes, stores and returns a new session and its token.
func (m *Manager) create(ctx context.Context, agent string, client netip.Prefix, body createRequest) (*session.Session, string, error) {
	token, h, err := NewToken()
	if err != nil {
		return nil, "", err
	}
	id, err := newID()
	if err != nil {
		return nil, "", err
	}
	// Milliseconds: what the Redis store's deadlines hold, and what
	// expires_at shows.
	now := m.now().UTC().Truncate(time.Millisecond)
	s := &session.Session{
		ID:           id,
		Agent:        agent,
		Client:       client,
		AgentName:    body.AgentName,
		AgentVersion: body.AgentVersion,
		Purpose:      body.Purpose,
		Capabilities: m.caps,
		CreatedAt:    now,
		ExpiresAt:    now.Add(m.ttl),
	}
	if err := m.store.Create(ctx, h, s, m.max); err != nil {
		return nil, "", err
	}
	if m.created != nil {
		if err := m.created(ctx, s); err != nil {
			if _, derr := m.store.Delete(context.WithoutCancel(ctx), h); derr != nil {
				err = errors.Join(err, derr)
			}
			return nil, "", fmt.Errorf("session: the new session could not be recorded: %w", err)
		}
	}
	if _, err := m.reap(ctx, reapPerCreate); err != nil {
		m.reportError(err)
	}
	return s, token, nil
}
