package audit

import (
	"crypto/rand"
	"errors"
	"fmt"
	"time"
)

// TimeLayout is the layout of every timestamp in an artifact: RFC 3339 in
// UTC with exactly three fractional digits, so that a timestamp has one
// spelling and hashes the same wherever it is re-serialised.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// StatusUnrecorded is the response_status of an event whose outcome could
// not be recorded: the store recorded the event before the action ran
// (Store.Begin), and the status was never bound to it (Store.Complete
// failed, or the session was sealed first). The action may have happened;
// the agent was not told it did (it got 503). A verifier tells a completed
// action (an HTTP status) from one whose outcome is unknown (0); an action
// is never missing from the trail.
const StatusUnrecorded = 0

// Decisions a PolicyResult records.
const (
	Allow = "allow"
	Deny  = "deny"
)

// Event is one entry of a session's audit log: one capability call.
type Event struct {
	// EventID identifies the event within its session (NewEventID makes
	// one).
	EventID string `json:"event_id"`
	// Timestamp is when the call was handled, in TimeLayout (FormatTime).
	Timestamp string `json:"timestamp"`
	// Capability is the capability called, e.g. "cart.add".
	Capability string `json:"capability"`
	// Method is the HTTP method of the call.
	Method string `json:"method"`
	// Params are the call's parameters. Stores and Chain keep a redacted
	// copy in the JSON data model (objects, arrays, strings, float64
	// numbers, booleans, null); integers beyond 2^53 lose precision there
	// (RFC 8785 §3.2.2.3), so pass such values as strings.
	Params map[string]any `json:"params"`
	// Query are more parameters, in the form a URL query carries them:
	// names with string values, a name repeated for each of its values.
	// They are recorded as members of params the way url.ParseQuery
	// groups them (a string, or for a repeated name an array of its
	// strings in order), a member of Params of the same name winning
	// (AllParams). Query costs a store less to record than the same
	// parameters in a map, and is input only: events read back from a
	// store or an artifact hold all their parameters in Params.
	Query []Param `json:"-"`
	// Target is what the call addressed besides its query and body: the
	// request path, the query as sent, and the declared path and header
	// params. It is recorded as the params member TargetMember, beside
	// the others. Input only, like Query.
	Target *Target `json:"-"`
	// PolicyResult is the policy decision on the call.
	PolicyResult PolicyResult `json:"policy_result"`
	// ResponseStatus is the HTTP status answered, or StatusUnrecorded (0)
	// when the outcome of an action recorded before it ran could not be
	// recorded.
	ResponseStatus int `json:"response_status"`
	// PrevHash is the lowercase hex SHA-256 of the previous event's
	// canonical serialisation, "" for the first event. Chain and the
	// stores assign it; a caller's value is ignored.
	PrevHash string `json:"prev_hash"`
}

// Param is one parameter of Event.Query: a name and a string value.
type Param struct {
	Name, Value string
}

// AllParams returns the parameters e records before redaction: Params
// when there is no Query and no Target, else a new map of the Query
// parameters grouped by name (a string, or an array of strings for a
// repeated name) with the members of Params over them, and the Target as
// the member TargetMember (Target.Value(nil)).
func (e *Event) AllParams() map[string]any {
	m := e.queryParams()
	if e.Target == nil {
		return m
	}
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[TargetMember] = e.Target.Value(nil)
	return out
}

// queryParams is AllParams without the Target.
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
	for k, v := range e.Params {
		m[k] = v
	}
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
	// CreatedAt and EndedAt bound the session, in TimeLayout.
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
	// the package documentation).
	RootHash string `json:"root_hash"`
	// Signature is the standard base64 Ed25519 signature over the
	// artifact's signing payload (see the package documentation).
	Signature string `json:"signature"`
	// PublicKey is the standard base64 Ed25519 public key that signed.
	PublicKey string `json:"public_key"`
}

// Meta returns the artifact's session metadata.
func (a *Artifact) Meta() Meta {
	return Meta{SessionID: a.SessionID, Site: a.Site, CreatedAt: a.CreatedAt, EndedAt: a.EndedAt, Agent: a.Agent}
}

// FormatTime renders t in TimeLayout (UTC, milliseconds, truncated).
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeLayout)
}

// NewEventID returns a random event identifier: 26 base32 characters from
// the operating system's CSPRNG (128 bits).
func NewEventID() string {
	return rand.Text()
}

// ErrInvalidEvent reports an event or metadata a chain or store refuses to
// record or seal.
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
		return fmt.Errorf("%w: timestamp %q is not in the layout %s", ErrInvalidEvent, e.Timestamp, TimeLayout)
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
		return checkTarget(e.Target)
	}
	return nil
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
		return fmt.Errorf("%w: created_at %q is not in the layout %s", ErrInvalidEvent, m.CreatedAt, TimeLayout)
	case !validTime(m.EndedAt):
		return fmt.Errorf("%w: ended_at %q is not in the layout %s", ErrInvalidEvent, m.EndedAt, TimeLayout)
	case m.EndedAt < m.CreatedAt: // fixed-width UTC: string order is time order
		return fmt.Errorf("%w: ended_at %s is before created_at %s", ErrInvalidEvent, m.EndedAt, m.CreatedAt)
	}
	return nil
}

// validTime reports whether s is a real instant spelled in TimeLayout. It
// is checked by hand, because time.Parse would be a sizeable part of an
// append's budget.
func validTime(s string) bool {
	// 2006-01-02T15:04:05.000Z
	// 0123456789012345678901234
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
		s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return false
	}
	digit := func(i int) (int, bool) {
		d := int(s[i]) - '0'
		return d, d >= 0 && d <= 9
	}
	num := func(i, j int) (n int, ok bool) {
		for ; i < j; i++ {
			d, ok := digit(i)
			if !ok {
				return 0, false
			}
			n = n*10 + d
		}
		return n, true
	}
	year, okY := num(0, 4)
	month, okM := num(5, 7)
	day, okD := num(8, 10)
	h, okH := num(11, 13)
	mi, okMi := num(14, 16)
	sec, okS := num(17, 19)
	_, okMs := num(20, 23)
	if !(okY && okM && okD && okH && okMi && okS && okMs) {
		return false
	}
	return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && h < 24 && mi < 60 && sec < 60
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
