// Package trail records the requests of v0.1.0 sessions, above the
// enforcement pipeline: it reads the enforce.Decision the pipeline made,
// checks the request's session, reads and normalises its body, appends its
// audit event before the handler runs (audit.Store.Begin) and binds the
// response status to it before any byte reaches the agent
// (audit.Store.Complete), answering 503 when it cannot. It runs no part
// of the pipeline again: it is the recording layer after the enforcer's
// stages, which agentready wires as enforcer.Config.Recorder.
package trail

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/reqbody"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/session"
)

// Config configures a Trail. Policy and Sessions are required.
type Config struct {
	// Policy is the compiled declaration the Enforcer enforces.
	Policy *policy.Policy
	// Sessions looks sessions up and ends them after a human handoff. Its
	// clock (sessionmgr.Config.Now) dates the audit events too.
	Sessions *sessionmgr.Manager
	// Audit, when set, records every request carrying a valid session as
	// one audit event; a request whose event cannot be recorded fails
	// closed with 503. The store's Redactor applies. Without it, sessions
	// are checked and nothing is recorded.
	Audit audit.Store
	// Removed, when set, names the capability a reload removed (and when)
	// that a request (method, path) addressed: a request the current
	// declaration routes to no capability, carrying a session created
	// before the removal, is refused (DenyCapability), and the refusal
	// recorded in its audit trail.
	Removed func(method, path string) (id string, at time.Time, ok bool)
	// Logger receives store failures. Default slog.Default().
	Logger *slog.Logger
}

// Trail is the Recorder of an enforcer.Config.
type Trail struct {
	p        *policy.Policy
	sessions *sessionmgr.Manager
	audit    audit.Store
	removed  func(method, path string) (string, time.Time, bool)
	log      *slog.Logger
}

// New returns the Trail of cfg.
func New(cfg Config) (*Trail, error) {
	if cfg.Policy == nil || cfg.Sessions == nil {
		return nil, errors.New("trail: Config.Policy and Config.Sessions are required")
	}
	t := &Trail{p: cfg.Policy, sessions: cfg.Sessions, audit: cfg.Audit, removed: cfg.Removed, log: cfg.Logger}
	if t.log == nil {
		t.log = slog.Default()
	}
	return t, nil
}

// capIndex is the index of d's capability, -1 for none (or one a reload
// removed).
func (t *Trail) capIndex(d *enforce.Decision) int {
	if d.Capability == "" {
		return -1
	}
	ci, ok := t.p.CapabilityIndex(d.Capability)
	if !ok {
		return -1
	}
	return ci
}

// Check looks up the session r carries, for a request the enforcer's
// stages decided as d, and returns d as the session amends it and the
// session, nil when there is no valid one: a session-required capability
// without a valid session is refused (DenySession), and so is any request
// whose session the store cannot check; a capability a reload removed is
// refused to the sessions created before the removal (DenyCapability).
func (t *Trail) Check(r *http.Request, d enforce.Decision, agent string, client netip.Prefix, pending *sessionmgr.Pending) (enforce.Decision, *session.Session) {
	s := t.check(r, &d, agent, client, pending)
	if s != nil && t.capIndex(&d) < 0 && t.removed != nil {
		// Whatever the rules now say of its path (this only refuses); the
		// refusal is recorded like any decision. Session times are kept to
		// the second: a session of the reload's own second counts as
		// created after it.
		if id, at, gone := t.removed(r.Method, r.URL.Path); gone && s.CreatedAt.Before(at.Truncate(time.Second)) {
			d.Outcome, d.Status, d.Capability, d.Rule = enforce.DenyCapability, http.StatusForbidden, id, "capability "+id+" was removed from the declaration"
		}
	}
	return d, s
}

// Prefetch starts the lookup of r's session for Check to finish, and
// returns the context the enforcer takes r's limits with, which carries
// it (sessionmgr.Manager.Prefetch).
func (t *Trail) Prefetch(r *http.Request) (context.Context, *sessionmgr.Pending) {
	return t.sessions.Prefetch(r)
}

// Start begins recording r, a request of the valid session s decided as
// d, and returns the writer to answer it through and d as the recording
// amends it: the body is read and normalised first (one over the limits is
// refused, DenyBody, and the refusal recorded); the event is appended
// before the handler runs (Begin) and its status bound to it before any
// byte reaches the agent (writer.go).
func (t *Trail) Start(w http.ResponseWriter, r *http.Request, d enforce.Decision, s *session.Session) (http.ResponseWriter, enforce.Decision) {
	rec := &recording{w: w, t: t, s: s, ctx: r.Context(), seq: -1, ci: t.capIndex(&d)}
	if t.audit != nil {
		if status, err := rec.start(r, &d, t.sessions.Now()); err != nil && (d.Outcome == enforce.Allow || d.ReportOnly) {
			// The body cannot be recorded: the action does not run.
			d.Outcome, d.Status, d.Err, d.ReportOnly = enforce.DenyBody, status, err, false
			d.Rule = ruleBodyLimits
			rec.ev.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: d.Rule}
		}
	}
	rec.served = d.Outcome == enforce.Allow || d.ReportOnly
	return rec, d
}

// Begin appends the event of a request about to be served, before the
// handler runs; on failure it answers 503, nothing having run, and
// reports false.
func (a *recording) Begin() bool { return a.t.audit == nil || a.begin() }

// Finish decides the status of a handler that returned without writing
// and, after a successful human-handoff capability, ends the session.
func (a *recording) Finish(r *http.Request) {
	a.finish()
	// a.ci is the capability a route binding behind named, if one did (it
	// may differ from the one the endpoint resolved, or there was none).
	if !a.served || a.failed || a.status < 200 || a.status >= 300 || a.ci < 0 || !a.t.p.Capabilities[a.ci].Decl.HumanHandoff {
		return
	}
	// v0.1.0: a successful human_handoff checkout may end the session;
	// ending it seals the audit trail.
	if _, err := a.t.sessions.End(context.WithoutCancel(r.Context()), r, a.s, sessionmgr.Handoff); err != nil && !errors.Is(err, session.ErrNotFound) {
		a.t.log.Error("agentready: ending the session after a human handoff", "session", a.s.ID, "err", err)
	}
}

// check looks up the session r carries and returns it, nil when there is
// no valid one: d is then denied (DenySession, with the status
// sessionmgr.ErrorStatus gives) if it was allowed and its capability
// requires a session, or whatever the capability if the store failed.
func (t *Trail) check(r *http.Request, d *enforce.Decision, agent string, client netip.Prefix, pending *sessionmgr.Pending) *session.Session {
	var s *session.Session
	var err error
	if pending != nil {
		s, err = pending.Lookup(agent, client)
	} else {
		s, err = t.sessions.Lookup(r, agent, client)
	}
	if err == nil {
		return s
	}
	status, _ := sessionmgr.ErrorStatus(err)
	if status >= 500 && d.Outcome == enforce.Allow {
		// A session was presented and the store cannot say whether it is
		// valid: whatever the capability, the request fails closed, or an
		// action of a live session could run unrecorded.
		d.Outcome, d.Rule, d.Err, d.Status = enforce.DenySession, enforce.RuleSessionStore, err, status
		return nil
	}
	if ci := t.capIndex(d); ci >= 0 && t.p.Capabilities[ci].RequiresSession(d.Tool) && d.Outcome == enforce.Allow {
		d.Outcome, d.Rule, d.Err, d.Status = enforce.DenySession, enforce.RuleRequiresSession, err, status
	}
	return nil
}

// Bind makes the event the recording's request that of the capability a
// route binding behind Wrap resolved, with the binding's decision d, and
// returns d as the recording amends it. Wrap read the body with the limit
// of the capability it knew of (none: the default); a bound capability's
// own limit that is lower holds here as at its endpoint, for every
// request that would be served, report-only ones too (DenyBody).
func (a *recording) Bind(d enforce.Decision) enforce.Decision {
	t := a.t
	ci := t.capIndex(&d)
	if ci < 0 {
		return d
	}
	if (d.Outcome == enforce.Allow || d.ReportOnly) && a.bodyLen > resolve.BodyLimit(t.p.Capabilities[ci].Decl) {
		d.Outcome, d.Status, d.Err, d.ReportOnly = enforce.DenyBody, http.StatusRequestEntityTooLarge, reqbody.ErrTooLarge, false
		d.Rule = ruleBodyLimits
	}
	a.ci = ci
	if !a.decided {
		// The bound capability's path params are recorded too, where a
		// reading of the path has its template (the binding may sit at
		// another path: then there are none).
		a.target.PathParams = readSegments(a.target.Path).paramTags(a.target.PathParams, &t.p.Capabilities[ci])
	}
	a.bind(&d)
	return d
}
