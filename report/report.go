package report

import (
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentready/agentready/enforce"
)

// slots is how many slots the window is kept in: each covers Window/slots.
const slots = 60

// maxKey is the longest name, rule or path kept, in bytes: a longer one is
// cut at a character boundary and marked, so that a hostile path of a
// megabyte is held as 256 bytes.
const maxKey = 256

// Options configure a Report. The zero value is a 1-hour window of 20 rows
// a table.
type Options struct {
	// Window is how far back the report counts; default 1h. It is kept in
	// 60 slots of Window/60 (at least a millisecond each): a count leaves
	// the report when its slot is 60 slots old, so the page covers between
	// 59 and 60 slots' time, and says which.
	Window time.Duration
	// Rows is how many rows each table lists before its "other" row;
	// default 20.
	Rows int
	// Now is the clock; default time.Now (tests give their own).
	Now func() time.Time
}

// Report is a live, bounded count of the enforcement decisions of one
// replica. Its methods are safe for concurrent use.
type Report struct {
	res   time.Duration // a slot's span
	rows  int           // rows a table lists before "other"
	limit int           // distinct keys a slot's table keeps (4*rows)
	now   func() time.Time

	mu    sync.Mutex
	slots [slots]slot
}

// New returns an empty Report.
func New(o Options) *Report {
	if o.Window <= 0 {
		o.Window = time.Hour
	}
	if o.Rows <= 0 {
		o.Rows = 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Report{res: max(o.Window/slots, time.Millisecond), rows: o.Rows, limit: 4 * o.Rows, now: o.Now}
	for i := range r.slots {
		r.slots[i].epoch = -1 // never current: a clock may start at the epoch's 0
	}
	return r
}

// counts are one row's requests by what became of them. A request is
// counted once, in exactly one of allowed, denied and limited; reportOnly
// counts those of denied and limited that report-only mode did not apply.
type counts struct {
	allowed, denied, limited, reportOnly int64
}

func (c *counts) add(o counts) {
	c.allowed += o.allowed
	c.denied += o.denied
	c.limited += o.limited
	c.reportOnly += o.reportOnly
}

// agentKey is an agent row: who (the name the proof or the User-Agent
// gives), under which policy, how proven, for what purpose.
type agentKey struct{ name, policy, grade, purpose string }

// table is one slot's counts of a table, bounded: it keeps at most limit
// distinct keys. A key first seen when it is full is counted in other, so
// that every request a slot sees is in exactly one of rows and other: the
// table's sum is exact whatever the number of distinct keys, and only
// which key a count belongs to is lost. Rows are indexed, not pointed to,
// so that counting a key already present allocates nothing.
type table[K comparable] struct {
	idx   map[K]int32
	keys  []K
	rows  []counts
	other counts
}

func (t *table[K]) add(k K, c counts, limit int) {
	if i, ok := t.idx[k]; ok {
		t.rows[i].add(c)
		return
	}
	if len(t.keys) >= limit {
		t.other.add(c)
		return
	}
	if t.idx == nil {
		t.idx = make(map[K]int32, limit)
	}
	t.idx[k] = int32(len(t.keys))
	t.keys = append(t.keys, k)
	t.rows = append(t.rows, c)
}

func (t *table[K]) reset() {
	clear(t.idx)
	clear(t.keys) // drop the old strings, keep the capacity
	t.keys, t.rows, t.other = t.keys[:0], t.rows[:0], counts{}
}

// slot is the counts of one Window/60 of time.
type slot struct {
	epoch int64 // the slot's start, in resolutions since the Unix epoch

	total                      counts // every agent request
	passed, degraded, failures int64
	sessions, artifacts        int64
	agents                     table[agentKey]
	rules, paths, reasons      table[string]
}

// current returns the slot for t, emptied first when it last counted an
// older span. r.mu is held.
func (r *Report) current(t time.Time) *slot {
	e := t.UnixNano() / int64(r.res)
	s := &r.slots[e%slots]
	if e < 0 {
		s = &r.slots[(e%slots+slots)%slots]
	}
	if s.epoch != e {
		s.epoch = e
		s.total, s.passed, s.degraded, s.failures, s.sessions, s.artifacts = counts{}, 0, 0, 0, 0, 0
		s.agents.reset()
		s.rules.reset()
		s.paths.reset()
		s.reasons.reset()
	}
	return s
}

// Observe counts one decision; it is a decision hook
// (agentready.WithOnDecision, or agentready.WithReport, which also reports
// sessions and audit artifacts). A Pass is a browser's or an
// infrastructure probe's: it is counted in the passed total only, not as
// an agent, except a link preview's (Rule enforce.RuleLinkPreview), an
// agent the site serves as a browser, which is an agent row's allowed
// request. A report-only denial counts as the denial it would have been,
// and in ReportOnly.
func (r *Report) Observe(d enforce.Decision) {
	var c counts
	agent, refused := true, false
	switch d.Outcome {
	case enforce.Pass:
		agent = d.Rule == enforce.RuleLinkPreview
		c.allowed = 1
	case enforce.Allow:
		c.allowed = 1
	case enforce.DenyRate:
		c.limited, refused = 1, true
	default:
		c.denied, refused = 1, true
	}
	if refused && d.ReportOnly {
		c.reportOnly = 1
	}
	var k agentKey
	if agent {
		k = agentKey{name: agentName(d), policy: clip(d.Agent), grade: clip(d.Grade), purpose: clip(d.Class.Purpose)}
	}
	rule := d.Rule
	if rule == "" {
		rule = d.Outcome.String()
	}
	rule, path, reason := clip(rule), clip(d.Path), clip(d.Identity.Reason)

	now := r.now()
	r.mu.Lock()
	s := r.current(now)
	if d.Degraded {
		s.degraded++
	}
	if reason != "" {
		s.failures++
		s.reasons.add(reason, c, r.limit)
	}
	if !agent {
		s.passed++
		r.mu.Unlock()
		return
	}
	s.total.add(c)
	s.agents.add(k, c, r.limit)
	if refused {
		s.rules.add(rule, c, r.limit)
		s.paths.add(path, c, r.limit)
	}
	r.mu.Unlock()
}

// SessionOpened counts a v0.1.0 session created.
func (r *Report) SessionOpened() {
	now := r.now()
	r.mu.Lock()
	r.current(now).sessions++
	r.mu.Unlock()
}

// ArtifactSealed counts an audit artifact sealed.
func (r *Report) ArtifactSealed() {
	now := r.now()
	r.mu.Lock()
	r.current(now).artifacts++
	r.mu.Unlock()
}

// agentName is the name an agent row shows: the agent a proof names
// (docs/verified-agents.md: a signature decides who the client is,
// whatever its User-Agent says), else the name its User-Agent matched,
// else its kind in parentheses ("(unknown)").
func agentName(d enforce.Decision) string {
	if d.Grade == enforce.GradeProven && d.Identity.Agent != "" {
		return clip(d.Identity.Agent)
	}
	if d.Class.Name != "" {
		return clip(d.Class.Name)
	}
	switch d.Class.Kind {
	case enforce.KindBrowser:
		return "(browser)"
	case enforce.KindDeclared:
		return "(declared)"
	case enforce.KindKnown:
		return "(known)"
	case enforce.KindGeneric:
		return "(generic)"
	case enforce.KindUnknown, "":
		return "(unknown)"
	}
	return clip("(" + d.Class.Kind + ")")
}

// clip cuts s to maxKey bytes at a character boundary. The cut string is
// copied, so that the key holds only what it shows, not the request's
// whole path.
func clip(s string) string {
	if len(s) <= maxKey {
		return s
	}
	n := maxKey - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

var _ http.Handler = (*Report)(nil)
