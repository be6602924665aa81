package trail

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/session"
)

// recording is the ResponseWriter of a session-bound request: it records
// the request's audit event. For an allowed request the event is appended
// before the handler runs (begin); when the response's status is decided
// (the handler's first WriteHeader or Write, or its return without
// writing), before any byte reaches the client, the status is bound to it
// (commit). A denial is recorded whole at commit. If the event cannot be
// recorded the response is replaced with 503 and the handler's writes are
// discarded: the action may have run, but it is not confirmed to the
// agent, and the trail holds it with audit.StatusUnrecorded (or with its
// status, when the store applied a write whose reply never came back: a
// timed-out write's outcome is unknown). Without an audit store it only
// observes the status.
type recording struct {
	w   http.ResponseWriter
	t   *Trail
	s   *session.Session
	ctx context.Context
	ev  audit.Event
	seq int // the event's position once begun, -1 before
	// ci is the capability the event is of: the one Wrap resolved, or the
	// one a route binding behind named (Bind); -1 for none.
	ci int
	// query and body are the members recorded of the query and the body;
	// bodyLen the bytes of body read, with the limit of the capability
	// Wrap resolved; target what the request targeted.
	query, body map[string]any
	bodyLen     int64
	target      auditparams.Target
	amended     bool // a route binding changed the event after it was begun
	status      int
	served      bool // the request goes to the handler (Start)
	decided     bool
	failed      bool
	discard     http.Header
}

func (a *recording) Header() http.Header {
	if a.failed {
		if a.discard == nil {
			a.discard = http.Header{}
		}
		return a.discard
	}
	return a.w.Header()
}

func (a *recording) WriteHeader(code int) {
	if a.decided {
		if !a.failed {
			a.w.WriteHeader(code) // net/http reports the superfluous call
		}
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		a.w.WriteHeader(code) // informational: the status is still to come
		return
	}
	a.commit(code)
	if !a.failed {
		a.w.WriteHeader(code)
	}
}

func (a *recording) Write(b []byte) (int, error) {
	if !a.decided {
		a.WriteHeader(http.StatusOK)
	}
	if a.failed {
		return len(b), nil
	}
	return a.w.Write(b)
}

// Flush implements http.Flusher when the underlying writer does.
func (a *recording) Flush() {
	if !a.decided {
		a.WriteHeader(http.StatusOK)
	}
	if a.failed {
		return
	}
	if f, ok := a.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer, for
// deadlines and full duplex; Hijack stops at this writer.
func (a *recording) Unwrap() http.ResponseWriter { return a.w }

// Hijack refuses: a session's audited request answers through this writer,
// which binds its status to the event before the first byte reaches the
// agent; over a hijacked connection the handler would answer what the
// trail cannot see. http.ResponseController.Hijack finds this method
// before Unwrap, so it refuses too.
func (a *recording) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, fmt.Errorf("%w: a request recorded in a session's audit trail cannot take over its connection", http.ErrNotSupported)
}

// bind makes the event that of the capability a route binding resolved,
// with the binding's decision; the change reaches the store with the
// status (audit.Store.Complete's amend).
func (a *recording) bind(d *enforce.Decision) {
	if a.decided {
		return // the handler wrote before the binding ran: recorded as it was
	}
	a.ev.Capability = d.Capability
	if d.Outcome != enforce.Allow && !d.ReportOnly {
		a.ev.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: d.Rule}
	}
	if d.Outcome == enforce.DenyBody {
		// A body over the bound capability's limit reaches no handler, and
		// the event keeps none of it, as at the endpoint (the query's
		// parameters stay).
		q, collided := a.ev.Params[QueryMember]
		a.body, a.ev.Params = nil, nil
		if collided {
			a.ev.Params = map[string]any{QueryMember: q}
		} else if a.query != nil {
			a.ev.Params = copyMap(a.query)
		}
	}
	a.amended = a.seq >= 0
}

// storeCtx is the context of a store call: the request's, detached (the
// action ran, or is about to: it is recorded even if the agent has gone
// away).
func (a *recording) storeCtx() context.Context { return context.WithoutCancel(a.ctx) }

// begin appends the event before the handler runs. On failure it answers
// 503, nothing having run, and reports false.
func (a *recording) begin() bool {
	seq, err := a.t.audit.Begin(a.storeCtx(), a.s.ID, a.ev)
	if err == nil {
		a.seq = seq
		return true
	}
	a.decided, a.failed, a.status = true, true, http.StatusServiceUnavailable
	a.t.log.Error("agentready: the audit trail could not record an action before it ran; answering 503",
		"session", a.s.ID, "capability", a.ev.Capability, "method", a.ev.Method, "err", err)
	a.unavailable("the audit trail could not record this action, which did not run")
	return false
}

// unavailable answers 503 in the handler's place.
func (a *recording) unavailable(msg string) {
	h := a.w.Header()
	clear(h) // whatever the handler set belongs to the response it does not get
	h.Set("Retry-After", "1")
	_ = problem.Write(a.w, problem.Problem{Status: http.StatusServiceUnavailable, Detail: msg + "; retry",
		Extra: map[string]any{"ok": false, "error": msg}})
}

// finish decides the status of a handler that returned without writing.
func (a *recording) finish() {
	if !a.decided {
		a.WriteHeader(http.StatusOK)
	}
}

// commit records the response status: bound to the event begun before
// the handler ran, or with the whole event for a denial. On failure it
// answers 503 in the handler's place.
func (a *recording) commit(code int) {
	a.decided, a.status = true, code
	st := a.t.audit
	if st == nil {
		return
	}
	var err error
	if a.seq >= 0 {
		var amend *audit.Event
		if a.amended {
			amend = &a.ev
		}
		err = st.Complete(a.storeCtx(), a.s.ID, a.seq, code, amend)
	} else {
		a.ev.ResponseStatus = code
		err = st.Append(a.storeCtx(), a.s.ID, a.ev)
	}
	if err == nil {
		return
	}
	a.failed = true
	a.t.log.Error("agentready: the audit trail could not record an action's outcome; answering 503",
		"session", a.s.ID, "capability", a.ev.Capability, "method", a.ev.Method, "status", code, "err", err)
	a.unavailable("the audit trail could not record the outcome of this action; it is not confirmed")
}
