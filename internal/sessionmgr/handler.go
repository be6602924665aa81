package sessionmgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/rs/cors"

	"github.com/agentready/agentready/session"
)

// MaxBodyBytes caps the create body (16 KiB): it holds three short
// strings.
const MaxBodyBytes = 16 << 10

// allowHeader lists the endpoint's methods, for 405 and OPTIONS answers.
const allowHeader = "DELETE, OPTIONS, POST"

// corsMaxAge is how long browsers may cache a preflight answer (seconds).
const corsMaxAge = 600

// newCORS allows browser agents on any origin to create and end sessions
// and to send the token header (v0.1.0 interaction API). No credentials:
// the token travels in a header, never in a cookie, so a page cannot ride
// on one.
func newCORS() *cors.Cors {
	return cors.New(cors.Options{
		AllowedOrigins: []string{"*"},
		AllowedMethods: []string{http.MethodPost, http.MethodDelete, http.MethodOptions},
		AllowedHeaders: []string{"Content-Type", session.HeaderSession},
		ExposedHeaders: []string{"Retry-After"},
		MaxAge:         corsMaxAge,
	})
}

// Handler serves the session endpoint; mount it at the site's session
// endpoint path (config.Session.Endpoint, by default
// /.well-known/agents/api/session). It does not look at
// the path. identify tells who is calling: sessions are created for, and
// ended only by, the identity it returns. Build the handler once.
//
//   - POST, optional JSON body {agent_name, agent_version, purpose} (at most
//     16 KiB; unknown members are ignored): 201 {"ok":true,"data":
//     {"session_token","session_id","expires_at","capabilities"}}; 400 for
//     malformed JSON, 413 for a larger body, 403 when Identify fails, 429
//     with Retry-After (seconds until the soonest of the identity's sessions
//     expires) beyond MaxSessions.
//   - DELETE with X-Agent-Session: 200 {"ok":true,"data":{"session_id",
//     "ended_at","audit_artifact_url"}}. Unlike the companion document's
//     example, the token is NOT echoed (a secret does not belong in more
//     responses than necessary); session_id names the session instead.
//     audit_artifact_url is omitted without Config.AuditURL. 401 for a
//     missing, unknown, expired, ended or foreign token; 503 when
//     Config.BeforeEnd fails (the session stays live).
//   - OPTIONS: CORS preflight, or 204 with Allow; any other method: 405
//     with Allow.
//
// Bodies are {"ok":false,"error":"..."} on failure, with Cache-Control:
// no-store on every answer (a token is a secret), 503 when the store fails.
// CORS (github.com/rs/cors) allows any origin, POST and DELETE, the
// Content-Type and X-Agent-Session request headers, and exposes
// Retry-After.
func (m *Manager) Handler(identify Identify) http.Handler {
	return newCORS().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.serve(w, r, identify)
	}))
}

// createRequest is the optional create body.
type createRequest struct {
	AgentName    string `json:"agent_name"`
	AgentVersion string `json:"agent_version"`
	Purpose      string `json:"purpose"`
}

type createData struct {
	SessionToken string   `json:"session_token"`
	SessionID    string   `json:"session_id"`
	ExpiresAt    string   `json:"expires_at"`
	Capabilities []string `json:"capabilities"`
}

type endData struct {
	SessionID        string `json:"session_id"`
	EndedAt          string `json:"ended_at"`
	AuditArtifactURL string `json:"audit_artifact_url,omitempty"`
}

type okEnvelope struct {
	OK   bool `json:"ok"`
	Data any  `json:"data"`
}

type errEnvelope struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// Messages of the failure answers.
const (
	msgNoToken      = "missing " + session.HeaderSession + " header"
	msgNotFound     = "unknown or expired session"
	msgForeign      = "session belongs to another agent or client"
	msgUnidentified = "the caller's agent identity could not be determined"
	msgTooMany      = "too many live sessions for this agent; retry after the soonest expires"
	msgStore        = "session store unavailable"
	msgNotRecorded  = "the audit trail could not record the end of the session; it is still live, retry the DELETE"
	msgMethod       = "method not allowed: POST creates a session, DELETE ends one"
	msgTooLarge     = "request body exceeds 16384 bytes"
)

func (m *Manager) serve(w http.ResponseWriter, r *http.Request, identify Identify) {
	switch r.Method {
	case http.MethodPost:
		m.serveCreate(w, r, identify)
	case http.MethodDelete:
		m.serveDelete(w, r, identify)
	case http.MethodOptions:
		// rs/cors answered a preflight already; this is a plain OPTIONS.
		w.Header().Set("Allow", allowHeader)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", allowHeader)
		writeError(w, http.StatusMethodNotAllowed, msgMethod)
	}
}

func (m *Manager) serveCreate(w http.ResponseWriter, r *http.Request, identify Identify) {
	agent, client, ok := identify(r)
	if !ok {
		writeError(w, http.StatusForbidden, msgUnidentified)
		return
	}
	body, status, msg := readCreateBody(w, r)
	if status != 0 {
		writeError(w, status, msg)
		return
	}
	s, token, err := m.create(r.Context(), agent, client, body)
	if err != nil {
		var le *session.LimitError
		if errors.As(err, &le) {
			w.Header().Set("Retry-After", strconv.FormatInt(retryAfter(le.Soonest, m.now()), 10))
			writeError(w, http.StatusTooManyRequests, msgTooMany)
			return
		}
		writeError(w, http.StatusServiceUnavailable, msgStore)
		return
	}
	writeJSON(w, http.StatusCreated, okEnvelope{OK: true, Data: createData{
		SessionToken: token,
		SessionID:    s.ID,
		ExpiresAt:    formatTime(s.ExpiresAt),
		Capabilities: s.Capabilities,
	}})
}

func (m *Manager) serveDelete(w http.ResponseWriter, r *http.Request, identify Identify) {
	s, err := (*session.Session)(nil), error(ErrUnidentified)
	if agent, client, ok := identify(r); ok {
		s, err = m.Lookup(r, agent, client)
	}
	if err == nil {
		s, err = m.End(r.Context(), r, s, Deleted)
	}
	if err != nil {
		status, msg := ErrorStatus(err)
		writeError(w, status, msg)
		return
	}
	data := endData{SessionID: s.ID, EndedAt: formatTime(s.EndedAt)}
	if m.auditURL != nil {
		data.AuditArtifactURL = m.auditURL(s.ID)
	}
	writeJSON(w, http.StatusOK, okEnvelope{OK: true, Data: data})
}

// ErrorStatus maps an error of Lookup or End to the status and message
// the endpoint answers with: 401 for session.ErrNoToken, ErrNotFound and
// ErrForeign (v0.1.0: missing, unknown or expired token), 403 for
// ErrUnidentified, 503 for ErrNotRecorded and anything else (a store
// failure). The enforcing middleware answers session-required
// capabilities the same way.
func ErrorStatus(err error) (int, string) {
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.Is(err, session.ErrNoToken):
		return http.StatusUnauthorized, msgNoToken
	case errors.Is(err, session.ErrNotFound):
		return http.StatusUnauthorized, msgNotFound
	case errors.Is(err, session.ErrForeign):
		return http.StatusUnauthorized, msgForeign
	case errors.Is(err, ErrUnidentified):
		return http.StatusForbidden, msgUnidentified
	case errors.Is(err, ErrNotRecorded):
		return http.StatusServiceUnavailable, msgNotRecorded
	}
	return http.StatusServiceUnavailable, msgStore
}

// readCreateBody decodes the optional body; a non-zero status is the
// failure answer.
func readCreateBody(w http.ResponseWriter, r *http.Request) (createRequest, int, string) {
	var req createRequest
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return req, http.StatusRequestEntityTooLarge, msgTooLarge
		}
		return req, http.StatusBadRequest, "reading request body: " + err.Error()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return req, 0, ""
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return req, http.StatusBadRequest, "malformed JSON body: " + err.Error()
	}
	return req, 0, ""
}

// retryAfter is the whole seconds until soonest, at least 1: a client
// retrying then finds a free slot.
func retryAfter(soonest, now time.Time) int64 {
	d := soonest.Sub(now)
	if d <= 0 {
		return 1
	}
	return max(1, int64(math.Ceil(d.Seconds())))
}

// formatTime renders RFC 3339 in UTC, with the fraction only when there is
// one (the Manager's times are in milliseconds).
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // strings and string slices always marshal
		writeError(w, http.StatusInternalServerError, "encoding response: "+err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errEnvelope{OK: false, Error: msg}) // an errEnvelope always marshals
}
