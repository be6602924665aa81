package agentready

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/sessionmgr"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/session"
)

// This file wires the v0.1.0 sessions and audit trail into the Middleware:
// the session endpoint, the audit endpoint, sealing at session end.

// capabilitySessionCreate names the audit event recorded when a session is
// created. It is the first event of every session's log, so that the log
// exists (the audit endpoint answers 425, not 404) from the session's start,
// and it carries what is needed to seal the log after a restart: the
// deadline and what the agent said about itself.
const capabilitySessionCreate = "session.create"

// capabilitySessionDelete names the audit event recorded for a DELETE on
// the session endpoint, the last event of a session its agent ended: the
// request carries the session, so it is recorded like any other (v0.1.0
// audit notes), before the log is sealed. If it cannot be recorded the
// DELETE answers 503 and the session stays live.
const capabilitySessionDelete = "session.delete"

// sessionLayer is the session and audit part of a Middleware; nil when the
// declaration uses neither.
type sessionLayer struct {
	mgr       *sessionmgr.Manager
	audit     audit.Store // nil without audit
	key       ed25519.PrivateKey
	site      string // the site URL, for artifacts
	endpoint  string // session endpoint path
	auditBase string // audit path with a trailing "/", "" without audit
	log       *slog.Logger
	report    *report.Report // nil without WithReport
}

// prepareAudit checks the audit key against the declaration and fills in
// Site.Audit.PublicKey, before the documents are rendered, so that
// agents.json audit.public_key carries it.
func prepareAudit(site *config.Site, st *settings) error {
	if !site.Audit.Enabled {
		return nil
	}
	// Problems of the declaration's fields, so that a declaration file's
	// report places them at their lines.
	if st.auditKey == nil {
		return &config.ValidationError{Errors: []*config.FieldError{{Field: "Audit.Enabled",
			Msg: "needs the key that signs the artifacts: agentready.WithAudit (agentready serve: serve: {audit_key_file: FILE})"}}}
	}
	pub := base64.StdEncoding.EncodeToString(st.auditKey.Public().(ed25519.PublicKey))
	switch site.Audit.PublicKey {
	case "":
		site.Audit.PublicKey = pub
	case pub:
	default:
		return &config.ValidationError{Errors: []*config.FieldError{{Field: "Audit.PublicKey",
			Msg: fmt.Sprintf("%q is not the public half of the key that signs the artifacts (%s)", site.Audit.PublicKey, pub)}}}
	}
	return nil
}

// newSessionLayer builds the session Manager and audit store, or returns nil
// when the site declares neither sessions nor audit.
func newSessionLayer(site *config.Site, st *settings) (*sessionLayer, error) {
	if !resolve.NeedsSession(site) && site.Session.Endpoint == "" && site.Session.TTL == 0 && !site.Audit.Enabled {
		return nil, nil
	}
	log := st.log()
	s := &sessionLayer{site: site.URL, endpoint: resolve.SessionEndpoint(site), log: log, key: st.auditKey, report: st.report}
	var auditURL func(string) string
	var afterCreate func(context.Context, *session.Session) error
	if site.Audit.Enabled {
		s.audit = st.auditStore
		if s.audit == nil {
			ms, err := audit.NewMemoryStore(audit.MemoryConfig{Now: st.clock})
			if err != nil {
				return nil, err
			}
			s.audit = ms
		}
		tmpl := resolve.AuditEndpoint(site)
		p := tmpl
		if u, err := url.Parse(tmpl); err == nil {
			p = u.Path
		}
		s.auditBase = strings.TrimSuffix(strings.TrimSuffix(p, ":session_id"), "/") + "/"
		auditURL = func(id string) string { return strings.Replace(tmpl, ":session_id", id, 1) }
		afterCreate = s.recordCreate
	}
	if s.report != nil {
		afterCreate = s.counted(afterCreate)
	}
	var caps []string
	for i := range site.Capabilities {
		if site.Capabilities[i].RequiresSession {
			caps = append(caps, site.Capabilities[i].ID)
		}
	}
	mgr, err := sessionmgr.New(sessionmgr.Config{
		Store:        st.sessionStore, // nil: the Manager's MemoryStore, on its clock
		TTL:          resolve.SessionTTL(site),
		MaxSessions:  site.Session.MaxSessions,
		Capabilities: caps,
		AuditURL:     auditURL,
		Now:          st.clock, // nil: time.Now
		OnEnd:        s.onEnd,
		AfterCreate:  afterCreate,
		BeforeEnd:    s.beforeEnd,
		OnError:      func(err error) { log.Error("agentready: session store", "err", err) },
	})
	if err != nil {
		return nil, err
	}
	s.mgr = mgr
	return s, nil
}

// onEnd seals the session's audit log. A failure is logged; the audit
// endpoint seals an expired log it finds unsealed.
func (s *sessionLayer) onEnd(ss *session.Session, reason sessionmgr.EndReason) {
	if s.audit == nil {
		return
	}
	m := audit.Meta{SessionID: ss.ID, Site: s.site, CreatedAt: audit.FormatTime(ss.CreatedAt), EndedAt: audit.FormatTime(ss.EndedAt),
		Agent: audit.Agent{Name: ss.AgentName, Version: ss.AgentVersion, Purpose: ss.Purpose}}
	_, err := audit.SealSession(context.Background(), s.audit, s.key, m)
	switch {
	case err == nil:
		s.sealed()
	case !errors.Is(err, audit.ErrSealed):
		s.log.Error("agentready: sealing the audit trail", "session", ss.ID, "reason", reason.String(), "err", err)
	}
}

// counted wraps the Manager's AfterCreate (nil without audit) so that the
// report hears of each session created: after the audit trail has
// recorded it, since a failure there deletes the session again (503).
func (s *sessionLayer) counted(next func(context.Context, *session.Session) error) func(context.Context, *session.Session) error {
	return func(ctx context.Context, ss *session.Session) error {
		if next != nil {
			if err := next(ctx, ss); err != nil {
				return err
			}
		}
		s.report.SessionOpened()
		return nil
	}
}

// sealed tells the report of an artifact this process sealed; one sealed
// already (audit.ErrSealed: by another replica, or before) is not counted
// again.
func (s *sessionLayer) sealed() {
	if s.report != nil {
		s.report.ArtifactSealed()
	}
}

// beforeEnd records a DELETE on the session endpoint as the session's last
// event. A handoff needs nothing here: the checkout request that ends the
// session has been recorded already.
func (s *sessionLayer) beforeEnd(ctx context.Context, ss *session.Session, reason sessionmgr.EndReason) error {
	if s.audit == nil || reason != sessionmgr.Deleted {
		return nil
	}
	ev := audit.Event{
		EventID:        rand.Text(),
		Timestamp:      audit.FormatTime(s.mgr.Now()),
		Capability:     capabilitySessionDelete,
		Method:         http.MethodDelete,
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: ruleSessionEndpoint},
		ResponseStatus: http.StatusOK,
	}
	if err := s.audit.Append(context.WithoutCancel(ctx), ss.ID, ev); err != nil {
		s.log.Error("agentready: the audit trail could not record a session's DELETE; the session stays live", "session", ss.ID, "err", err)
		return err
	}
	return nil
}

// ruleSessionEndpoint is the rule of the session endpoint's own audit
// events: it is exempt from path rules.
const ruleSessionEndpoint = "session endpoint"

// wrap routes the session and audit endpoints before enforcement: they are
// exempt from path rules. Creating and ending sessions still counts against
// the site and agent rate limits (enf.LimitOnly), so the endpoint is no way
// around Rate-Limit; creating one needs the caller to be classified as an
// agent (the Manager answers 403 otherwise). CORS preflights are answered
// without counting.
func (s *sessionLayer) wrap(enf *enforcer.Enforcer, next http.Handler) http.Handler {
	sh := s.mgr.Handler(enf.Identify)
	limited := enf.LimitOnly(sh)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == s.endpoint && r.Method == http.MethodOptions:
			sh.ServeHTTP(w, r)
		case p == s.endpoint:
			limited.ServeHTTP(w, r)
		case s.auditBase != "" && strings.HasPrefix(p, s.auditBase):
			s.serveArtifact(w, r, p[len(s.auditBase):])
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// explain is Middleware.Explain for the endpoints wrap serves itself; ok
// is false for any other path.
func (s *sessionLayer) explain(enf *enforcer.Enforcer, r *http.Request) (enforce.Decision, bool) {
	p := r.URL.Path
	switch {
	case p == s.endpoint:
		return enf.ExplainLimitOnly(r), true
	case s.auditBase != "" && strings.HasPrefix(p, s.auditBase):
		return enforce.Decision{Outcome: enforce.Allow, Rule: ruleAuditEndpoint}, true
	}
	return enforce.Decision{}, false
}

// ruleAuditEndpoint is the Decision.Rule Explain gives for the audit
// endpoint: artifacts are public, for anyone to verify (v0.1.0).
const ruleAuditEndpoint = "audit endpoint (public, always served)"

// serveArtifact answers GET <audit path>/<session_id>: 200 with the signed
// artifact, 404 for an unknown session, 425 Too Early while it is active.
func (s *sessionLayer) serveArtifact(w http.ResponseWriter, r *http.Request, id string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		envelopeProblem(w, http.StatusMethodNotAllowed, "the audit endpoint answers GET")
		return
	}
	if id == "" || strings.Contains(id, "/") {
		envelopeProblem(w, http.StatusNotFound, "no audit artifact at this path")
		return
	}
	ctx := r.Context()
	a, st, err := s.audit.Artifact(ctx, id)
	if err == nil && st == audit.Active {
		var retry time.Duration
		retry, st, a, err = s.settle(ctx, id)
		if err == nil && st == audit.Active {
			if retry > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(problem.RetryAfterSeconds(retry)))
			}
			envelopeProblem(w, http.StatusTooEarly, "session "+id+" is still active; its audit artifact is sealed when it ends")
			return
		}
	}
	if err != nil {
		s.log.Error("agentready: reading an audit artifact", "session", id, "err", err)
		w.Header().Set("Retry-After", "1")
		envelopeProblem(w, http.StatusServiceUnavailable, "the audit store is unavailable")
		return
	}
	if st != audit.Sealed {
		envelopeProblem(w, http.StatusNotFound, "no audit artifact for session "+id)
		return
	}
	b, err := audit.CanonicalArtifact(a)
	if err != nil {
		s.log.Error("agentready: serialising an audit artifact", "session", id, "err", err)
		envelopeProblem(w, http.StatusInternalServerError, "the audit artifact could not be serialised")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "public, max-age=86400") // sealed: it never changes
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}

// settle handles an active log: when its session is past its deadline it
// reaps (which seals through onEnd), and seals the log itself if that did
// not (a seal that failed earlier, or a session reaped by a process that
// has since stopped). It returns the time until the deadline otherwise.
func (s *sessionLayer) settle(ctx context.Context, id string) (time.Duration, audit.State, *audit.Artifact, error) {
	evs, err := s.audit.Events(ctx, id)
	if err != nil {
		return 0, audit.Unknown, nil, err
	}
	meta, deadline, ok := createMeta(evs, id, s.site)
	now := s.mgr.Now()
	if !ok || now.Before(deadline) {
		var retry time.Duration
		if ok {
			retry = deadline.Sub(now)
		}
		return retry, audit.Active, nil, nil
	}
	if _, err := s.mgr.Reap(ctx); err != nil {
		s.log.Error("agentready: reaping expired sessions", "err", err)
	}
	a, st, err := s.audit.Artifact(ctx, id)
	if err != nil || st != audit.Active {
		return 0, st, a, err
	}
	if _, err := audit.SealSession(ctx, s.audit, s.key, meta); err == nil {
		s.sealed()
	} else if !errors.Is(err, audit.ErrSealed) {
		return 0, audit.Unknown, nil, err
	}
	a, st, err = s.audit.Artifact(ctx, id)
	return 0, st, a, err
}

// createMeta reads the session.create event: the session's metadata and
// deadline.
func createMeta(evs []audit.Event, id, site string) (audit.Meta, time.Time, bool) {
	if len(evs) == 0 || evs[0].Capability != capabilitySessionCreate {
		return audit.Meta{}, time.Time{}, false
	}
	str := func(k string) string { v, _ := evs[0].Params[k].(string); return v }
	deadline, err := time.Parse(time.RFC3339, str("expires_at"))
	if err != nil {
		return audit.Meta{}, time.Time{}, false
	}
	return audit.Meta{SessionID: id, Site: site, CreatedAt: evs[0].Timestamp, EndedAt: audit.FormatTime(deadline),
		Agent: audit.Agent{Name: str("agent_name"), Version: str("agent_version"), Purpose: str("purpose")}}, deadline, true
}

// envelopeProblem answers problem+json carrying the v0.1.0 envelope
// members ok and error.
func envelopeProblem(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Cache-Control", "no-store")
	_ = problem.Write(w, problem.Problem{Status: status, Detail: msg, Extra: map[string]any{"ok": false, "error": msg}})
}

// recordCreate records a new session's session.create event
// (sessionmgr.Config.AfterCreate): if it cannot, the session is deleted and
// its creation fails (503), so that every session has a log from its
// first moment.
func (s *sessionLayer) recordCreate(ctx context.Context, ss *session.Session) error {
	ev := audit.Event{
		EventID:    rand.Text(),
		Timestamp:  audit.FormatTime(ss.CreatedAt),
		Capability: capabilitySessionCreate,
		Method:     http.MethodPost,
		Params: map[string]any{
			"agent":         ss.Agent,
			"agent_name":    ss.AgentName,
			"agent_version": ss.AgentVersion,
			"purpose":       ss.Purpose,
			"expires_at":    audit.FormatTime(ss.ExpiresAt),
		},
		PolicyResult:   audit.PolicyResult{Decision: audit.Allow, Rule: ruleSessionEndpoint},
		ResponseStatus: http.StatusCreated,
	}
	if err := s.audit.Append(context.WithoutCancel(ctx), ss.ID, ev); err != nil {
		return fmt.Errorf("agentready: recording the session's creation in the audit trail: %w", err)
	}
	return nil
}
