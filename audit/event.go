package audit

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/agentready/agentready/internal/auditparams"
)

// timeLayout is the layout of every timestamp in an artifact: RFC 3339 in
// UTC with exactly three fractional digits, so that a timestamp has one
// spelling and hashes the same wherever it is re-serialised.
const timeLayout = "2006-01-02T15:04:05.000Z"

// StatusUnrecorded is the response_status of an event recorded before its
// action ran (Store.Begin) whose status was never bound to it: the action
// may have happened, and the agent got 503.
const StatusUnrecorded = 0

// Decisions a PolicyResult records.
const (
	Allow = "allow"
	Deny  = "deny"
)

// Event is one entry of a session's audit log: one capability call.
type Event struct {
	// EventID identifies the event within its session (crypto/rand.Text makes
	// one).
	EventID string `json:"event_id"`
	// Timestamp is when the call was handled, as FormatTime writes it.
	Timestamp string `json:"timestamp"`
	// Capability is the capability called, e.g. "cart.add".
	Capability string `json:"capability"`
	// Method is the HTTP method of the call.
	Method string `json:"method"`
	// Params are the call's parameters. Stores keep a redacted copy in
	// the JSON data model, where integers beyond 2^53 lose precision
	// (RFC 8785 §3.2.2.3): pass such values as strings.
	Params map[string]any `json:"params"`
	// Query are more parameters as a URL query carries them, recorded as
	// members of params grouped by name (allParams). Input only: events
	// read back hold all their parameters in Params.
	Query []Param `json:"-"`
	// Target is what the call addressed, recorded as the params member
	// "$request"; nil but from the middleware. Input only, like Query.
	Target Target `json:"-"`
	// PolicyResult is the policy decision on the call.
	PolicyResult PolicyResult `json:"policy_result"`
	// ResponseStatus is the HTTP status answered, or StatusUnrecorded.
	ResponseStatus int `json:"response_status"`
	// PrevHash is the previous event's EventHash, "" for the first. The
	// stores assign it.
	PrevHash string `json:"prev_hash"`
}

// Param is one parameter of Event.Query: a name and a string value.
type Param struct {
	Name, Value string
}

// Target is what a call addressed besides its query and body: the
// middleware's, recorded through Prepare (docs/audit-format.md).
type Target interface {
	Check() error                                           // what its producer got wrong
	Value(r func(key string, value any) any) map[string]any // the member, redacted by r
}

// allParams returns the parameters e records before redaction: the Query
// parameters grouped by name (a string, or an array for a repeated name),
// the members of Params over them, and the Target as auditparams.TargetMember.
func (e *Event) allParams() map[string]any { return e.withTarget(e.queryParams(), nil) }

// paramsToRecord is allParams with the Target's path and query redacted
// by r (Target.Value); a Params or Query member of the Target's name
// beside a Target is refused.
func (e *Event) paramsToRecord(r Redactor) (map[string]any, error) {
	m := e.queryParams()
	if _, ok := m[auditparams.TargetMember]; ok && e.Target != nil {
		return nil, fmt.Errorf("%w: the params member %q is reserved for the event's Target", errParams, auditparams.TargetMember)
	}
	return e.withTarget(m, r), nil
}

// withTarget returns a copy of m with the Target, redacted by r, as
// auditparams.TargetMember; m itself when e has no Target.
func (e *Event) withTarget(m map[string]any, r Redactor) map[string]any {
	if e.Target == nil {
		return m
	}
	out := make(map[string]any, len(m)+1)
	maps.Copy(out, m)
	out[auditparams.TargetMember] = e.Target.Value(r)
	return out
}

// queryParams is allParams without the Target.
func (e *Event) queryParams() map[string]any {
	if len(e.Query) == 0 {
		return e.Params
	}
	m := make(map[string]any, len(e.Query)+len(e.Params))
	for _, p := range e.Query {
		switch old := m[p.Name].(type) {
		case nil:
			m[p.Name] = p.Value
		case string:
			m[p.Name] = []any{old, p.Value}
		case []any:
			m[p.Name] = append(old, p.Value)
		}
	}
	maps.Copy(m, e.Params)
	return m
}

// PolicyResult is the policy decision recorded with an event.
type PolicyResult struct {
	// Decision is Allow or Deny.
	Decision string `json:"decision"`
	// Rule names the rule that decided, "" when none did.
	Rule string `json:"rule"`
}

// Agent is the agent a session was created for (the optional body of the
// session-creation request).
type Agent struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Purpose string `json:"purpose"`
}

// Meta is what an artifact says about its session besides the events; all
// of it is signed.
type Meta struct {
	// SessionID identifies the session (not its secret token).
	SessionID string
	// Site identifies the site, conventionally its canonical URL (the
	// agents.txt URL field).
	Site string
	// CreatedAt and EndedAt bound the session, as FormatTime writes them.
	CreatedAt string
	EndedAt   string
	Agent     Agent
}

// Artifact is a sealed session log: the document the audit endpoint serves
// and anyone can verify offline (Verify, VerifyJSON).
type Artifact struct {
	SessionID string  `json:"session_id"`
	Site      string  `json:"site"`
	CreatedAt string  `json:"created_at"`
	EndedAt   string  `json:"ended_at"`
	Agent     Agent   `json:"agent"`
	Events    []Event `json:"events"`
	// RootHash is the lowercase hex SHA-256 over the events' hashes (see
	// docs/audit-format.md).
	RootHash string `json:"root_hash"`
	// Signature is the standard base64 Ed25519 signature over the
	// artifact's signing payload (docs/audit-format.md).
	Signature string `json:"signature"`
	// PublicKey is the standard base64 Ed25519 public key that signed.
	PublicKey string `json:"public_key"`
}

// meta returns the artifact's session metadata.
func (a *Artifact) meta() Meta {
	return Meta{SessionID: a.SessionID, Site: a.Site, CreatedAt: a.CreatedAt, EndedAt: a.EndedAt, Agent: a.Agent}
}

// FormatTime writes t as every timestamp of an artifact is written: RFC
// 3339 in UTC, truncated to the millisecond (2025-06-01T12:00:05.250Z).
func FormatTime(t time.Time) string {
	return t.UTC().Format(timeLayout)
}

// ErrInvalidEvent reports what a store refuses to record or seal: an
// event a producer got wrong, params with no JSON form, an empty session
// id, a Complete of an event not awaiting its outcome.
var ErrInvalidEvent = errors.New("audit: invalid event")

// checkEvent validates what a producer must get right; Verify does not
// call it, because a signed artifact is authentic whatever it says. final
// says the event carries its outcome (an HTTP status); otherwise its status
// is StatusUnrecorded, to be bound later.
func checkEvent(e *Event, final bool) error {
	switch {
	case e.EventID == "":
		return fmt.Errorf("%w: empty event_id", ErrInvalidEvent)
	case !validTime(e.Timestamp):
		return fmt.Errorf("%w: timestamp %q is not in the layout %s", ErrInvalidEvent, e.Timestamp, timeLayout)
	case e.Capability == "":
		return fmt.Errorf("%w: empty capability", ErrInvalidEvent)
	case e.Method == "":
		return fmt.Errorf("%w: empty method", ErrInvalidEvent)
	case e.PolicyResult.Decision != Allow && e.PolicyResult.Decision != Deny:
		return fmt.Errorf("%w: policy_result.decision %q is neither %q nor %q", ErrInvalidEvent, e.PolicyResult.Decision, Allow, Deny)
	case final && !validStatus(e.ResponseStatus):
		return fmt.Errorf("%w: response_status %d is not an HTTP status", ErrInvalidEvent, e.ResponseStatus)
	case !final && e.ResponseStatus != StatusUnrecorded:
		return fmt.Errorf("%w: response_status %d of an event whose outcome is to come", ErrInvalidEvent, e.ResponseStatus)
	case e.Target != nil:
		if err := e.Target.Check(); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidEvent, err)
		}
	}
	return nil
}

// Prepare returns e as a Store records it, for Store implementations: it
// checks e (ErrInvalidEvent), moves its Query and Target into Params,
// redacts them with r (nil: DefaultRedactor), converts them to the JSON
// data model and clears PrevHash. The result shares nothing with e.
func Prepare(e Event, r Redactor) (Event, error) {
	if r == nil {
		r = DefaultRedactor
	}
	return prepare(e, r, e.ResponseStatus != StatusUnrecorded)
}

// prepare is Prepare for an event whose outcome is known (final: an HTTP
// status) or to come (StatusUnrecorded); r nil redacts nothing.
func prepare(e Event, r Redactor, final bool) (Event, error) {
	if err := checkEvent(&e, final); err != nil {
		return Event{}, err
	}
	params, err := e.paramsToRecord(r)
	if err != nil {
		return Event{}, err
	}
	if e.Params, err = normalizeParams(params, r, false); err != nil {
		return Event{}, err
	}
	e.Query, e.Target, e.PrevHash = nil, nil, ""
	e.EventID, e.Capability, e.Method = validString(e.EventID), validString(e.Capability), validString(e.Method)
	e.PolicyResult.Rule = validString(e.PolicyResult.Rule)
	return e, nil
}

// validStatus reports whether s is a final HTTP status.
func validStatus(s int) bool { return s >= 100 && s <= 599 }

// checkMeta validates the metadata Sign binds into the signature.
func checkMeta(m *Meta) error {
	switch {
	case m.SessionID == "":
		return fmt.Errorf("%w: empty session id", ErrInvalidEvent)
	case m.Site == "":
		return fmt.Errorf("%w: empty site", ErrInvalidEvent)
	case !validTime(m.CreatedAt):
		return fmt.Errorf("%w: created_at %q is not in the layout %s", ErrInvalidEvent, m.CreatedAt, timeLayout)
	case !validTime(m.EndedAt):
		return fmt.Errorf("%w: ended_at %q is not in the layout %s", ErrInvalidEvent, m.EndedAt, timeLayout)
	case m.EndedAt < m.CreatedAt: // fixed-width UTC: string order is time order
		return fmt.Errorf("%w: ended_at %s is before created_at %s", ErrInvalidEvent, m.EndedAt, m.CreatedAt)
	}
	return nil
}

// validTime reports whether s is a real instant spelled as FormatTime
// spells it (time.Parse also takes one-digit hours and a comma before the
// milliseconds, which the round trip refuses).
func validTime(s string) bool {
	t, err := time.Parse(timeLayout, s)
	return err == nil && FormatTime(t) == s
}
