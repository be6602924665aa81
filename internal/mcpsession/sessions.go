package mcpsession

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// DefaultTTL is how long a binding lives unused (Sessions' default): MCP
// sets no session lifetime, and an hour idle is long for an agent between
// two calls yet short enough that abandoned sessions leave the store. A
// client back after longer gets a 404 and opens a new session.
const DefaultTTL = time.Hour

// Verdict is what Check found.
type Verdict uint8

// Verdicts. Only None and Owned let the request through; the others are
// answered 404, all alike.
const (
	// None: the request carries no Mcp-Session-Id; nothing to check (an
	// initialize, a 2026-07-28 request, a server without sessions).
	None Verdict = iota
	// Owned: the session is bound to the request's owner.
	Owned
	// Malformed: the Mcp-Session-Id is repeated, empty, longer than
	// MaxIDLen or has a byte outside 0x21-0x7E: no server minted it.
	Malformed
	// Unbound: agentready holds no binding for the id: it never saw it
	// created (it predates agentready, or a memory store's restart), the
	// binding expired or was evicted, or the session was deleted.
	Unbound
	// Foreign: the session is bound to another owner.
	Foreign
)

var verdictNames = [...]string{"none", "owned", "malformed", "unbound", "foreign"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "unknown"
}

// Unknown reports whether the request must be answered as a session the
// server does not have: HTTP 404 (MCP 2025-11-25 "Session Management",
// item 3), the same answer for every such verdict, so that a 404 never
// says whether a session id exists. The verdict itself is for logs.
func (v Verdict) Unknown() bool { return v >= Malformed }

// Presented is what Check found on a request, to hand to Answered with
// the response.
type Presented struct {
	// ID is the request's session id, "" when it carries none or a
	// malformed one.
	ID string
	// Verdict is the session's verdict.
	Verdict Verdict
	// renew is set when an Owned binding has less than half its lifetime
	// left: Answered renews it once the server has answered, so that a
	// session in use never expires and a store is written at most twice
	// per lifetime per session.
	renew bool
}

// Sessions is the binding flow: Check on the request, Answered on its
// response. It is safe for concurrent use.
type Sessions struct {
	store Store
	ttl   time.Duration
	now   func() time.Time
}

// New returns the flow over store, binding for ttl (DefaultTTL when 0),
// with now the clock Check reads deadlines by (time.Now when nil; the
// store's own clock judges expiry).
func New(store Store, ttl time.Duration, now func() time.Time) (*Sessions, error) {
	if store == nil {
		return nil, errors.New("mcpsession: New: nil store")
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if ttl < time.Second {
		return nil, fmt.Errorf("mcpsession: New: a session lifetime of %v is under a second", ttl)
	}
	return &Sessions{store: store, ttl: ttl, now: clock.Or(now)}, nil
}

// Check judges the Mcp-Session-Id of a request to the MCP endpoint whose
// owner (Owner) is owner. Call it on every request to an MCP capability
// (POST, GET and DELETE alike) once the request's identity and
// credentials are established, before the request reaches the server. An
// error is the store's (the caller fails closed: 503); an unknown verdict
// is answered 404.
func (s *Sessions) Check(ctx context.Context, h http.Header, owner string) (Presented, error) {
	id, present, ok := fromHeader(h)
	switch {
	case !present:
		return Presented{Verdict: None}, nil
	case !ok:
		return Presented{Verdict: Malformed}, nil
	}
	got, expires, err := s.store.Owner(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return Presented{ID: id, Verdict: Unbound}, nil
	case err != nil:
		return Presented{ID: id}, fmt.Errorf("mcpsession: %w", err)
	case got != owner:
		return Presented{ID: id, Verdict: Foreign}, nil
	}
	return Presented{ID: id, Verdict: Owned, renew: expires.Sub(s.now()) < s.ttl/2}, nil
}

// Answered updates the bindings once the server has answered a request
// Check let through: call it when the response's status and header are
// final (the wrapped ResponseWriter's WriteHeader, or its first Write),
// with the request's method and owner, the Presented Check returned, the
// status and the response header.
//
//   - A 2xx answer to a POST that carries an Mcp-Session-Id other than
//     the request's (the server created a session: the answer to an
//     initialize) binds it to owner. ErrBound then means the server handed
//     out a session someone else owns: the caller must not deliver the
//     answer (502).
//   - A 2xx answer to a DELETE of an owned session (MCP "Session
//     Management", item 5: the client ends it), or a 404 to a request with
//     an owned session (the server ended it), forgets the binding.
//   - Any other answer to an owned session renews a binding past half its
//     lifetime.
//
// A request whose verdict is unknown (served only in report-only mode)
// changes nothing: only a server's creation binds a session. Other errors
// are the store's, for the log: a binding not written makes the session
// unknown at its next use, and its client opens another.
func (s *Sessions) Answered(ctx context.Context, method string, p Presented, owner string, status int, h http.Header) error {
	if p.Verdict.Unknown() {
		return nil
	}
	ok2xx := status >= 200 && status < 300
	owned := p.Verdict == Owned
	switch {
	case owned && (status == http.StatusNotFound || method == http.MethodDelete && ok2xx):
		return s.store.Forget(ctx, p.ID)
	case method == http.MethodPost && ok2xx:
		id, present, ok := fromHeader(h)
		if !present || owned && id == p.ID {
			break
		}
		if !ok {
			return fmt.Errorf("%w: the server's %s is repeated or not visible ASCII of at most %d bytes", ErrInvalid, Header, MaxIDLen)
		}
		return s.store.Bind(ctx, id, owner, s.ttl)
	}
	if owned && p.renew && status != http.StatusNotFound {
		return s.store.Bind(ctx, p.ID, owner, s.ttl)
	}
	return nil
}
