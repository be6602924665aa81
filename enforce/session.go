package enforce

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/problem"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/session"
)

// This file is the v0.1.0 session and audit part of the pipeline. It runs
// only for agent requests that carry X-Agent-Session or address a
// session-required capability, so the path of every other request is the
// one enforcer.go describes, unchanged and allocation-free.

// Rule names for session decisions (Decision.Rule).
const (
	// RuleRequiresSession: the capability declares requires_session and the
	// request has no valid X-Agent-Session (v0.1.0: 401).
	RuleRequiresSession = "requires_session"
	// RuleSessionStore: the request presents an X-Agent-Session that the
	// session store could not look up (it is down): 503, whatever the
	// capability, since a valid session's action must be recorded.
	RuleSessionStore = "session store unavailable"
)

// Identify returns who is calling, the way sessions are bound: the agent
// identity is the declared agent policy the User-Agent names ("claude");
// for any other agent, which falls under the default policy "*" (or
// none), it is "*/" and the known agent or generic client name it was
// classified as ("*/ClaudeBot", "*/curl"), else the first product token
// of its User-Agent ("*/ShopAgent"), or "*" when it has none. The client
// is clientKey of the client address (trusted proxies honoured; an IPv6
// client's /64). ok is false for browsers: only agents hold sessions. A
// session's token is refused from any other identity. max_sessions counts
// the sessions of every "*" identity of one client together
// (session.CountedAs): the name is the client's to choose.
func (e *Enforcer) Identify(r *http.Request) (agent string, client netip.Prefix, ok bool) {
	c := e.classify(r)
	if !c.Agent() {
		return "", netip.Prefix{}, false
	}
	return e.agentIdentity(r, c), clientKey(e.ip.Addr(r)), true
}

// identityOf is Identify from a decision already made for r: the class is
// d's, and the client network is the one the rate limits used when they
// were keyed by it.
func (e *Enforcer) identityOf(r *http.Request, d *Decision) (string, netip.Prefix) {
	client := d.client.Net
	if e.key != nil || e.byAgent || !client.IsValid() {
		client = clientKey(e.ip.Addr(r))
	}
	return e.agentIdentity(r, d.Class), client
}

// agentIdentity is the agent a session is bound to (see Identify).
func (e *Enforcer) agentIdentity(r *http.Request, c policy.Class) (agent string) {
	if c.Kind == policy.Declared && c.Policy >= 0 && c.Policy < len(e.p.Agents) {
		return e.p.Agents[c.Policy].Name
	}
	if c.Name != "" {
		return starName(c.Name)
	}
	var ua string
	if v := r.Header["User-Agent"]; len(v) > 0 {
		ua = v[0]
	}
	tokens := policy.ProductTokens(ua)
	if name, ok := tokens.Next(); ok {
		return "*/" + name[:min(len(name), maxProductLen)]
	}
	return "*"
}

// maxProductLen bounds the product token an unknown agent's session
// identity keeps.
const maxProductLen = 64

// starNames holds "*/"+name for the known and generic names the
// classifier returned (its table's canonical strings, a bounded set), so
// that a session-bound request of a known agent builds no string.
var starNames struct {
	sync.RWMutex
	m map[string]string
}

// starName returns "*/"+name, from starNames.
func starName(name string) string {
	starNames.RLock()
	s, ok := starNames.m[name]
	starNames.RUnlock()
	if ok {
		return s
	}
	s = "*/" + name
	starNames.Lock()
	if starNames.m == nil {
		starNames.m = make(map[string]string)
	}
	if len(starNames.m) < maxStarNames {
		starNames.m[name] = s
	}
	starNames.Unlock()
	return s
}

// maxStarNames bounds starNames, whatever names a classifier holds.
const maxStarNames = 4096

// wantsSession reports whether the session part runs for d: an agent
// request with a session header, or one addressing a session-required
// capability.
func (e *Enforcer) wantsSession(r *http.Request, d *Decision) bool {
	if e.sessions == nil || d.Outcome == Pass {
		return false
	}
	if _, ok := r.Header[session.HeaderSession]; ok {
		return true
	}
	return d.cap1 > 0 && e.p.Capabilities[d.cap1-1].Decl.RequiresSession
}

// serveSession finishes a request wantsSession selected: it checks the
// session, answers 401 for a session-required capability without a valid
// one, records the audit event of a request with a valid session, and ends
// the session after a successful human-handoff capability.
//
// A recorded request is recorded before it acts: its body is read and
// normalised (a body over the limits is refused, DenyBody, and the
// refusal recorded), and its event is appended (audit.Store.Begin) before
// the handler runs, so a store failure answers 503 before any side effect.
// The status is bound to the event (audit.Store.Complete) before any byte
// of the response reaches the agent; if that fails the agent gets 503 and
// the trail keeps the action with audit.StatusUnrecorded.
//
// st, when not nil, is what a Capability binding behind needs to know
// (serve); it goes into the request's context with the session.
func (e *Enforcer) serveSession(w http.ResponseWriter, r *http.Request, next http.Handler, d *Decision, ci int, st *state) {
	// One reading of the sessions' clock serves the expiry check and the
	// audit timestamp.
	now := e.sessions.Now()
	s := e.checkSession(r, d, now)
	if s != nil && ci < 0 && e.removed != nil {
		// A capability a reload removed is refused to the sessions created
		// before it, whatever the rules now say of its path (this only
		// refuses); the refusal is recorded below like any decision.
		// Session times are kept to the second: a session of the reload's
		// own second counts as created after it.
		if id, at, gone := e.removed(r.Method, r.URL.Path); gone && s.CreatedAt.Before(at.Truncate(time.Second)) {
			d.Outcome, d.Status, d.Capability, d.Rule = DenyCapability, http.StatusForbidden, id, "capability "+id+" was removed from the declaration"
		}
	}
	d.ReportOnly = e.reportOnly && d.Outcome != Allow && d.Status < 500
	if s == nil {
		if e.hook != nil {
			e.hook(*d)
		}
		if e.shadow != nil {
			e.shadow(r, *d)
		}
		switch {
		case d.Outcome == Allow || d.ReportOnly:
			if d.ReportOnly {
				setReportHeader(w, d)
			} else {
				e.setRateHeaders(w, d)
			}
			if st != nil {
				r = r.WithContext(withState(r.Context(), st))
			}
			next.ServeHTTP(w, r)
		case d.Outcome == DenySession:
			e.denySession(w, d)
		default:
			e.deny(w, r, d)
		}
		return
	}
	aw := auditWriters.Get().(*auditWriter)
	aw.w, aw.e, aw.s, aw.ctx, aw.seq = w, e, s, r.Context(), -1
	if e.audit != nil {
		if status, err := e.newEvent(r, d, aw, now); err != nil && (d.Outcome == Allow || d.ReportOnly) {
			// The body cannot be recorded: the action does not run.
			d.Outcome, d.Status, d.Err, d.ReportOnly = DenyBody, status, err, false
			d.Rule = ruleBodyLimits
			aw.ev.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: d.Rule}
		}
	}
	if e.hook != nil {
		e.hook(*d)
	}
	if e.shadow != nil {
		e.shadow(r, *d)
	}
	if d.Outcome != Allow && !d.ReportOnly {
		e.deny(aw, r, d)
		aw.finish()
		aw.release()
		return
	}
	if e.audit != nil && !aw.begin() {
		aw.release() // answered 503: nothing ran
		return
	}
	if d.ReportOnly {
		setReportHeader(w, d)
	} else {
		e.setRateHeaders(w, d)
	}
	if st != nil {
		st.aw = aw // a Capability binding behind may name the capability
	}
	r = r.WithContext(session.NewContext(withState(r.Context(), st), s))
	next.ServeHTTP(aw, r)
	aw.finish()
	handedOff := !aw.failed && aw.status >= 200 && aw.status < 300
	aw.release()
	if st != nil {
		st.aw = nil
		if st.claimed > 0 {
			// A binding behind named the capability (it may differ from the
			// one the endpoint resolved, or there was none).
			ci = st.claimed - 1
		}
	}
	if ci >= 0 && e.p.Capabilities[ci].Decl.HumanHandoff && handedOff {
		// v0.1.0: a successful human_handoff checkout may end the session;
		// ending it seals the audit trail.
		if _, err := e.sessions.End(context.WithoutCancel(r.Context()), r, s, sessionmgr.Handoff); err != nil && !errors.Is(err, session.ErrNotFound) {
			e.log.Error("agentready: ending the session after a human handoff", "session", s.ID, "err", err)
		}
	}
}

// checkSession looks up the session r carries and returns it, nil when
// there is no valid one: d is then denied (DenySession, with the status
// sessionmgr.ErrorStatus gives) if it was allowed and its capability requires
// a session. now is a reading of the sessions' clock, or zero.
func (e *Enforcer) checkSession(r *http.Request, d *Decision, now time.Time) *session.Session {
	agent, client := e.identityOf(r, d)
	s, err := e.sessions.Lookup(r, agent, client)
	if err == nil {
		return s
	}
	if status, _ := sessionmgr.ErrorStatus(err); status >= 500 && d.Outcome == Allow {
		// A session was presented and the store cannot say whether it is
		// valid: whatever the capability, the request fails closed, or an
		// action of a live session could run unrecorded.
		d.Outcome, d.Rule, d.Err, d.Status = DenySession, RuleSessionStore, err, status
		return nil
	}
	if d.cap1 > 0 && e.p.Capabilities[d.cap1-1].Decl.RequiresSession && d.Outcome == Allow {
		d.Outcome, d.Rule, d.Err = DenySession, RuleRequiresSession, err
		d.Status, _ = sessionmgr.ErrorStatus(err)
	}
	return nil
}

// denySession answers 401 (or the status sessionmgr.ErrorStatus gives) in
// problem+json with the v0.1.0 envelope members ok and error.
func (e *Enforcer) denySession(w http.ResponseWriter, d *Decision) {
	status, msg := sessionmgr.ErrorStatus(d.Err)
	if status >= 500 {
		e.log.Error("agentready: session store failed", "err", d.Err)
		w.Header()[headerRetryAfter] = []string{"1"}
	}
	if e.link != nil {
		w.Header()[keyLink] = e.link
	}
	detail := "capability " + `"` + d.Capability + `"` + " requires a session: " + msg +
		" (create one with POST on the session endpoint and send its token in " + session.HeaderSession + ")"
	if d.Rule == RuleSessionStore {
		detail = "the session presented in " + session.HeaderSession + " cannot be checked: " + msg + "; retry"
	}
	prob := problem.Problem{Status: status, Detail: detail,
		Extra: map[string]any{"ok": false, "error": msg, "rule": d.Rule, "capability": d.Capability}}
	if d.Agent != "" {
		prob.Extra["agent"] = d.Agent
	}
	_ = problem.Write(w, prob)
}

// RuleSessionEndpoint is the Decision.Rule of an allowed request to the
// v0.1.0 session endpoint: it is exempt from path rules, and only the rate
// limits apply.
const RuleSessionEndpoint = "session endpoint (rate limits only)"

// LimitOnly returns a handler that applies only the rate limits before
// next: the site-wide limit and the agent policy's limit, no path rules,
// capability scope or auth. It is for endpoints exempt from path rules that
// must not be a way around Rate-Limit, such as the v0.1.0 session endpoint
// (creating sessions counts against the agent's limits like any other
// request). Browsers pass untouched. The decision hook hears of every
// decision, with Rule RuleSessionEndpoint when allowed.
func (e *Enforcer) LimitOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var d Decision
		e.decideLimitOnly(r, true, &d)
		e.answer(w, r, next, &d)
	})
}

// ExplainLimitOnly is Explain for a request LimitOnly would serve: the
// limits that would be checked, none consumed.
func (e *Enforcer) ExplainLimitOnly(r *http.Request) Decision {
	var d Decision
	e.decideLimitOnly(r, false, &d)
	return d
}

// decideLimitOnly classifies r and, for an agent, checks the site and
// agent limits (consume=false: lists them only).
func (e *Enforcer) decideLimitOnly(r *http.Request, consume bool, d *Decision) {
	d.Class = e.classify(r)
	if !d.Class.Agent() {
		d.Outcome = Pass
		return
	}
	ai := e.setAgent(d)
	d.Identity.Claimed = d.Class.Name
	if ai >= 0 && e.p.Agents[ai].Verified && d.Class.Kind == policy.Declared {
		// Creating a session is no way around verification: the claim is
		// checked here as on every other request.
		var ok bool
		if ai, ok = e.verifyClaim(r, ai, consume, d); !ok {
			d.Status = statusOf(d.Outcome)
			return
		}
	}
	d.Rule = RuleSessionEndpoint
	e.rateLimit(r, ai, -1, consume, d)
	d.Status = statusOf(d.Outcome)
}
