package enforce

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/session"
)

// This file records the audit events of session-bound requests (see
// session.go): the event of a request, what it targeted, and the writer
// that binds the response status to the event before any byte reaches
// the agent.

// newEvent starts the audit event of r in aw.ev: everything but the
// status. now is its timestamp. It reads and records the body; the error
// is the body limit it exceeds, with the status to refuse it with, in
// which case the event records no body.
func (e *Enforcer) newEvent(r *http.Request, d *Decision, aw *auditWriter, now time.Time) (int, error) {
	ev := &aw.ev
	limit := int64(resolve.DefaultBodyLimit)
	if d.cap1 > 0 {
		limit = resolve.BodyLimit(e.p.Capabilities[d.cap1-1].Decl)
	}
	aw.query = queryParams(r.URL.RawQuery, aw.query[:0])
	// The query is recorded as sent in the target, so a query parameter of
	// the target's reserved name loses nothing by leaving the members.
	aw.query = slices.DeleteFunc(aw.query, func(p audit.Param) bool { return p.Name == audit.TargetMember })
	var params map[string]any
	var status int
	var err error
	if d.Outcome == Allow || d.ReportOnly {
		// Only what will act is read and recorded: a denied request's body
		// reaches no handler, and recording it would let any agent with a
		// session store a megabyte a refused request.
		params, aw.bodyLen, status, err = readBody(r, limit)
	}
	aw.target = e.targetOf(r, d, aw.target)
	ev.Target = &aw.target
	if collides(aw.query, params) {
		// A query parameter and a body member of the same name: the
		// handler may read either, so the trail keeps both, the query's
		// under QueryMember.
		q := (&audit.Event{Query: aw.query}).AllParams()
		params[QueryMember] = q
		aw.query = aw.query[:0]
	}
	ev.Query, ev.Params = aw.query, params
	if e.auditOwned {
		// The package stores serialise the event during Begin, Append and
		// Complete and keep none of it, and aw outlives them: the id, the
		// timestamp and the query params can live in aw's buffers.
		ev.EventID, ev.Timestamp = idAndTimeInto(&aw.idts, now)
	} else {
		// Another Store may not know Query, and may keep what it is
		// given: it gets strings and a map of its own.
		ev.EventID, ev.Timestamp = idAndTime(now)
		ev.Params, ev.Query = ev.AllParams(), nil
		// Its Redactor reaches members only: the target's path and query
		// are redacted here, as the package stores redact them.
		ev.Params[audit.TargetMember], ev.Target = ev.Target.Value(audit.DefaultRedactor), nil
	}
	ev.Capability, ev.Method = d.Capability, r.Method
	ev.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: d.Rule}
	if ev.Capability == "" {
		// Not a declared capability: the audit log names the path called.
		ev.Capability = r.URL.Path
	}
	if d.Outcome == Allow || d.ReportOnly {
		// A report-only denial is served: the trail records what happened.
		ev.PolicyResult.Decision = audit.Allow
	}
	return status, err
}

// errBodyReserved refuses a JSON body with a member of a name the audit
// trail records something else under (reservedMembers).
var errBodyReserved = errors.New("the JSON body has a member of a name the audit trail reserves")

// reservedMembers are the params names the trail records the target
// (audit.TargetMember), a query that collides with the body (QueryMember)
// and a body not recorded member by member (BodyMember) under.
var reservedMembers = [...]string{audit.TargetMember, QueryMember, BodyMember}

// targetOf fills t, reusing its slices, with what r targeted: its path
// and query as sent, and the declared path and header params of the
// capability d resolved. A path param is recorded when the path has the
// endpoint's shape (its literal segments, ignoring case, and a trailing
// slash); a route bound at another path records the path alone.
func (e *Enforcer) targetOf(r *http.Request, d *Decision, t audit.Target) audit.Target {
	t.Path, t.Query = r.URL.EscapedPath(), r.URL.RawQuery
	t.PathParams, t.Headers = t.PathParams[:0], t.Headers[:0]
	if d.cap1 == 0 {
		return t
	}
	c := &e.p.Capabilities[d.cap1-1]
	shaped := -1 // unknown until a path param asks
	for i := range c.Decl.Params {
		p := &c.Decl.Params[i]
		switch p.In {
		case config.InHeader:
			for _, v := range r.Header.Values(p.Name) {
				t.Headers = append(t.Headers, audit.Param{Name: p.Name, Value: v})
			}
		case config.InPath:
			if shaped < 0 {
				shaped = 0
				if sameShape(c.Path, t.Path) {
					shaped = 1
				}
			}
			if seg := templateSegment(c.Path, p.Name); shaped == 1 && seg > 0 {
				t.PathParams = append(t.PathParams, audit.PathParam{Name: p.Name, Segment: seg})
			}
		}
	}
	return t
}

// templateSegment returns the index of the segment "{name}" of an
// endpoint path (1 for the one after the first '/'), 0 for none.
func templateSegment(tmpl, name string) int {
	for i := 0; tmpl != ""; i++ {
		var seg string
		seg, tmpl, _ = strings.Cut(tmpl, "/")
		if len(seg) == len(name)+2 && seg[0] == '{' && seg[len(seg)-1] == '}' && seg[1:len(seg)-1] == name {
			return i
		}
	}
	return 0
}

// sameShape reports whether the escaped path has the endpoint template's
// segments: as many (a trailing slash aside), and its literal ones equal
// once unescaped, ignoring case, each "{param}" a non-empty segment.
func sameShape(tmpl, path string) bool {
	if len(path) > 1 && strings.HasSuffix(path, "/") && !strings.HasSuffix(tmpl, "/") {
		path = path[:len(path)-1]
	}
	for {
		ts, trest, tmore := strings.Cut(tmpl, "/")
		ps, prest, pmore := strings.Cut(path, "/")
		if len(ts) >= 2 && ts[0] == '{' && ts[len(ts)-1] == '}' {
			if ps == "" {
				return false
			}
		} else if !strings.EqualFold(ts, ps) {
			u, err := url.PathUnescape(ps)
			if err != nil || !strings.EqualFold(ts, u) {
				return false
			}
		}
		if tmore != pmore {
			return false
		}
		if !tmore {
			return true
		}
		tmpl, path = trest, prest
	}
}

// QueryMember is the params member that holds a request's query
// parameters, grouped as url.ParseQuery groups them, when one of them has
// the name of a member of the request's JSON body: both are recorded, the
// body's under their names.
const QueryMember = "$query"

// collides reports whether a query parameter has the name of a body
// member.
func collides(q []audit.Param, body map[string]any) bool {
	if len(body) == 0 {
		return false
	}
	for _, p := range q {
		if _, ok := body[p.Name]; ok {
			return true
		}
	}
	return false
}

// maxPooledQuery bounds the query buffer a pooled auditWriter keeps.
const maxPooledQuery = 32

// builtinAudit reports whether st serialises an event during Append,
// Begin and Complete and retains nothing of it (audit.EventCopier): the
// audit package's MemoryStore, the Redis store of package redisstore.
func builtinAudit(st audit.Store) bool {
	c, ok := st.(audit.EventCopier)
	return ok && c.CopiesEvents()
}

// auditWriter records a session-bound request's audit event. For an
// allowed request the event is appended before the handler runs (begin);
// when the response's status is decided (the handler's first WriteHeader
// or Write, or its return without writing), before any byte reaches the
// client, the status is bound to it (commit). A denial is recorded whole
// at commit. If the event cannot be recorded the response is replaced with
// 503 and the handler's writes are discarded: the action may have run, but
// it is not confirmed to the agent, and the trail holds it with
// audit.StatusUnrecorded. Without an audit store it only observes the
// status.
type auditWriter struct {
	w       http.ResponseWriter
	e       *Enforcer
	s       *session.Session
	ctx     context.Context
	ev      audit.Event
	seq     int   // the event's position once begun, -1 before
	bodyLen int64 // the bytes of body read, with the limit of the capability Wrap resolved
	amended bool  // a route binding changed the event after it was begun
	status  int
	decided bool
	failed  bool
	discard http.Header
	idts    [64]byte      // the event id and timestamp, for the package stores
	query   []audit.Param // the buffer of ev.Query
	target  audit.Target  // ev.Target's, its slices reused
}

// auditWriters recycles auditWriters: one is needed for every
// session-bound request, and a ResponseWriter may not be used after
// ServeHTTP returns, so serveSession can reuse it then.
var auditWriters = sync.Pool{New: func() any { return new(auditWriter) }}

// release clears a and returns it to auditWriters, keeping its query
// buffer unless it grew large. It is called once the handler has returned
// and the status is decided.
func (a *auditWriter) release() {
	clear(a.query) // no strings of this request kept alive
	q := a.query[:0]
	if cap(q) > maxPooledQuery {
		q = nil
	}
	clear(a.target.Headers)
	pp, hs := a.target.PathParams[:0], a.target.Headers[:0]
	*a = auditWriter{query: q, target: audit.Target{PathParams: pp, Headers: hs}}
	auditWriters.Put(a)
}

func (a *auditWriter) Header() http.Header {
	if a.failed {
		if a.discard == nil {
			a.discard = http.Header{}
		}
		return a.discard
	}
	return a.w.Header()
}

func (a *auditWriter) WriteHeader(code int) {
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

func (a *auditWriter) Write(b []byte) (int, error) {
	if !a.decided {
		a.WriteHeader(http.StatusOK)
	}
	if a.failed {
		return len(b), nil
	}
	return a.w.Write(b)
}

// Flush implements http.Flusher when the underlying writer does.
func (a *auditWriter) Flush() {
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
func (a *auditWriter) Unwrap() http.ResponseWriter { return a.w }

// Hijack refuses: a session's audited request answers through this writer,
// which binds its status to the event before the first byte reaches the
// agent; over a hijacked connection the handler would answer what the
// trail cannot see. http.ResponseController.Hijack finds this method
// before Unwrap, so it refuses too.
func (a *auditWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, fmt.Errorf("%w: a request recorded in a session's audit trail cannot take over its connection", http.ErrNotSupported)
}

// bind makes the event that of the capability a route binding resolved,
// with the binding's decision; the change reaches the store with the
// status (audit.Store.Complete's amend).
func (a *auditWriter) bind(d *Decision) {
	if a.decided {
		return // the handler wrote before the binding ran: recorded as it was
	}
	a.ev.Capability = d.Capability
	if d.Outcome != Allow && !d.ReportOnly {
		a.ev.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: d.Rule}
	}
	if d.Outcome == DenyBody {
		// A body over the bound capability's limit reaches no handler, and
		// the event keeps none of it, as at the endpoint (the query's
		// parameters stay).
		q, ok := a.ev.Params[QueryMember]
		a.ev.Params = nil
		if ok {
			a.ev.Params = map[string]any{QueryMember: q}
		}
	}
	a.amended = a.seq >= 0
}

// storeCtx is the context of a store call: the request's, detached when it
// is done (the action ran, or is about to: it is recorded even if the agent
// has gone away). The MemoryStore looks at its context on entry only, so
// it needs the detached context (an allocation) only when the request's is
// done.
func (a *auditWriter) storeCtx() context.Context {
	if !a.e.auditMem || a.ctx.Err() != nil {
		return context.WithoutCancel(a.ctx)
	}
	return a.ctx
}

// begin appends the event before the handler runs. On failure it answers
// 503, nothing having run, and reports false.
func (a *auditWriter) begin() bool {
	seq, err := a.e.audit.Begin(a.storeCtx(), a.s.ID, a.ev)
	if err == nil {
		a.seq = seq
		return true
	}
	a.decided, a.failed, a.status = true, true, http.StatusServiceUnavailable
	a.e.log.Error("agentready: the audit trail could not record an action before it ran; answering 503",
		"session", a.s.ID, "capability", a.ev.Capability, "method", a.ev.Method, "err", err)
	a.unavailable("the audit trail could not record this action, which did not run")
	return false
}

// unavailable answers 503 in the handler's place.
func (a *auditWriter) unavailable(msg string) {
	h := a.w.Header()
	clear(h) // whatever the handler set belongs to the response it does not get
	h.Set("Retry-After", "1")
	_ = problem.Write(a.w, problem.Problem{Status: http.StatusServiceUnavailable, Detail: msg + "; retry",
		Extra: map[string]any{"ok": false, "error": msg}})
}

// finish decides the status of a handler that returned without writing.
func (a *auditWriter) finish() {
	if !a.decided {
		a.WriteHeader(http.StatusOK)
	}
}

// commit records the response status: bound to the event begun before
// the handler ran, or with the whole event for a denial. On failure it
// answers 503 in the handler's place.
func (a *auditWriter) commit(code int) {
	a.decided, a.status = true, code
	st := a.e.audit
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
	a.e.log.Error("agentready: the audit trail could not record an action's outcome; answering 503",
		"session", a.s.ID, "capability", a.ev.Capability, "method", a.ev.Method, "status", code, "err", err)
	a.unavailable("the audit trail could not record the outcome of this action; it is not confirmed")
}

// queryParams appends the parameters of a raw query to q in the order
// url.ParseQuery reads them, without building its url.Values (grouping
// repeated names is audit.Event.AllParams' business). Pairs that do not
// unescape are skipped, as ParseQuery skips them.
func queryParams(raw string, q []audit.Param) []audit.Param {
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		// One pass finds the '=' and whether either side needs unescaping.
		eq, escK, escV, semi := -1, false, false, false
		for i := 0; i < len(kv); i++ {
			switch kv[i] {
			case '=':
				if eq < 0 {
					eq = i
				}
			case '%', '+':
				if eq < 0 {
					escK = true
				} else {
					escV = true
				}
			case ';':
				semi = true
			}
		}
		if kv == "" || semi {
			continue
		}
		k, v := kv, ""
		if eq >= 0 {
			k, v = kv[:eq], kv[eq+1:]
		}
		var err error
		if escK {
			if k, err = url.QueryUnescape(k); err != nil {
				continue
			}
		}
		if escV {
			if v, err = url.QueryUnescape(v); err != nil {
				continue
			}
		}
		q = append(q, audit.Param{Name: k, Value: v})
	}
	return q
}

// formatTime is audit.FormatTime (audit.TimeLayout: UTC, milliseconds)
// without time.Format's layout interpretation: it runs on every audited
// request.
func formatTime(t time.Time) string {
	var b [24]byte
	return string(appendTime(b[:0], t))
}

// appendTime appends t as formatTime formats it. The date comes from the
// Unix day number by the civil-from-days algorithm (Howard Hinnant,
// "chrono-Compatible Low-Level Date Algorithms"), cheaper than t.Date and
// t.Clock, which each convert the time again. Measured against
// t.UTC().AppendFormat: about 25 ns against 108 on the development
// machine, some 6% of an audited request's added cost (about 1.3 µs since
// events are linked at seal rather than hashed per request), which is why
// it is hand-written (TestFormatTimeMatchesAudit holds it to
// audit.FormatTime).
func appendTime(b []byte, t time.Time) []byte {
	sec := t.Unix()
	// Years 0000 through 9999: the four digits TimeLayout writes.
	const minUnix, maxUnix = -62167219200, 253402300800
	if sec < minUnix || sec >= maxUnix {
		return append(b, audit.FormatTime(t)...)
	}
	days, rem := sec/86400, sec%86400
	if rem < 0 {
		days, rem = days-1, rem+86400
	}
	h, mi, s := int(rem/3600), int(rem/60%60), int(rem%60)
	z := days + 719468 // days since 0000-03-01
	era := z / 146097
	if z < 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], March first
	d := int(doy - (153*mp+2)/5 + 1)
	mo := int(mp + 3)
	if mo > 12 {
		mo -= 12
	}
	y := int(yoe + era*400)
	if mo <= 2 {
		y++
	}
	ms := t.Nanosecond() / 1e6
	out := [24]byte{4: '-', 7: '-', 10: 'T', 13: ':', 16: ':', 19: '.', 23: 'Z'}
	pair := func(i, n int) { out[i], out[i+1] = digitPairs[2*n], digitPairs[2*n+1] }
	pair(0, y/100)
	pair(2, y%100)
	pair(5, mo)
	pair(8, d)
	pair(11, h)
	pair(14, mi)
	pair(17, s)
	out[20] = byte('0' + ms/100)
	pair(21, ms%100)
	return append(b, out[:]...)
}

// newEventID returns 26 base32 characters (128 bits) from math/rand/v2's
// runtime generator (ChaCha8, seeded by the operating system), unlike
// audit.NewEventID, which reads the CSPRNG on every call: an event id must
// be unique within its session, not secret, and this runs on every audited
// request. Measured against crypto/rand.Text: about 23 ns against 110, some
// 6% of an audited request's added cost.
func newEventID() string {
	var b [26]byte
	return string(appendEventID(b[:0]))
}

// appendEventID appends an id as newEventID makes one: 13 base32 digits
// from each of two random 64-bit words (65 bits each, the top one zero:
// 128 bits).
func appendEventID(b []byte) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hi, lo := rand.Uint64(), rand.Uint64()
	var id [26]byte
	for i := range 13 {
		id[i] = alphabet[hi>>(5*i)&31]
		id[13+i] = alphabet[lo>>(5*i)&31]
	}
	return append(b, id[:]...)
}

// idAndTime returns a new event id and t formatted, two strings that
// share one allocation.
func idAndTime(t time.Time) (id, ts string) {
	var b [64]byte
	x := appendEventID(b[:0])
	n := len(x)
	s := string(appendTime(x, t))
	return s[:n], s[n:]
}

// idAndTimeInto is idAndTime writing into buf, without allocating: the
// strings are valid while buf is not written again.
func idAndTimeInto(buf *[64]byte, t time.Time) (id, ts string) {
	x := appendTime(appendEventID(buf[:0]), t)
	if &x[0] != &buf[0] {
		// Outgrew buf and moved (it cannot: at most 26 bytes of id and 32
		// of the widest time): strings of their own, then.
		return idAndTime(t)
	}
	s := unsafe.String(&x[0], len(x))
	return s[:26], s[26:]
}

// digitPairs holds "00" to "99", for appendTime.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
