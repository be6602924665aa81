package report

import (
	"net/http"
	"sync"
	"time"
	"unicode/utf8"
	"weak"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/refusal"
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
	// Now is the clock, for tests. By default the system clock is read by
	// a timer at each slot's start, and Observe reads none; a Now given
	// is called on every Observe.
	Now func() time.Time
	// Refresh, when set, makes the page reload itself this often
	// (<meta http-equiv="refresh">: no script), rounded to a second (under
	// half a second is none) and bounded to 5s..1h; a request's
	// ?refresh=SECONDS overrides it, ?refresh=0 turns it off.
	Refresh time.Duration
}

// Report is a live, bounded count of the enforcement decisions of one
// replica. Its methods are safe for concurrent use.
type Report struct {
	res   time.Duration    // a slot's span
	rows  int              // rows a table lists before "other"
	limit int              // distinct keys a slot's table keeps (4*rows)
	now   func() time.Time // Options.Now; nil for the ticking clock
	start time.Time        // when New made it: the window never starts before
	// refresh is Options.Refresh in seconds, bounded; 0 for none.
	refresh int

	mu     sync.Mutex
	epoch  int64 // the current slot, kept by tick when now is nil
	slots  [slots]slot
	health health // the last reload and the upstream's last failure
}

// New returns an empty Report.
func New(o Options) *Report {
	if o.Window <= 0 {
		o.Window = time.Hour
	}
	if o.Rows <= 0 {
		o.Rows = 20
	}
	r := &Report{res: max(o.Window/slots, time.Millisecond), rows: o.Rows, limit: 4 * o.Rows, now: o.Now,
		start: clock.Or(o.Now)(), refresh: refreshSeconds(int64(max(o.Refresh, o.Refresh.Round(time.Second)) / time.Second))}
	for i := range r.slots {
		r.slots[i].epoch = -1 // never current: a clock may start at the epoch's 0
	}
	if r.now == nil {
		startClock(r)
	}
	return r
}

// startClock keeps r.epoch, the slot Observe counts in, with a timer that
// fires at each slot's start, so that Observe reads no clock: reading it
// costs as much as the rest of Observe (BenchmarkObserve). The timer holds
// r weakly, so a Report nobody holds is collected and its timer stops. A
// request in the instant between a slot's start and the timer (timer
// latency, well under a resolution) is counted in the slot before: the
// counts stay exact, only their time is off by that instant.
func startClock(r *Report) {
	w := weak.Make(r)
	var tick func()
	tick = func() {
		r := w.Value()
		if r == nil {
			return
		}
		now := clock.Wall()
		e := now.UnixNano() / int64(r.res)
		r.mu.Lock()
		r.epoch = e
		r.mu.Unlock()
		next := time.Unix(0, (e+1)*int64(r.res)).Sub(now)
		r = nil // hold it weakly only, until the next tick
		time.AfterFunc(next, tick)
	}
	tick()
}

// lock locks r and returns the slot a count made now goes to. The
// caller unlocks r.mu.
func (r *Report) lock() *slot {
	if r.now == nil {
		r.mu.Lock()
		return r.current(r.epoch)
	}
	e := r.now().UnixNano() / int64(r.res) // Options.Now may be slow: called unlocked
	r.mu.Lock()
	return r.current(e)
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

// variant is what tells apart an agent's rows besides its name: the
// policy that applied, how proven, for what purpose.
type variant struct{ policy, grade, purpose string }

// ruleVariant is what tells apart a rule's rows besides its text: the
// policy and grade it refused, and the rate limit that did (its name),
// so that two policies refused by the same "Rate-Limit: 5/minute" are
// two rows. The other tables have none (struct{}).
type ruleVariant struct{ policy, grade, limit string }

// table is one slot's counts of a table, bounded: it keeps at most limit
// entries. A name (or variant) first seen when it is full is counted in
// other, so that every request a slot sees is in exactly one of its
// entries and other: the table's sum is exact whatever the number of
// distinct names, and only which name a count belongs to is lost.
//
// The map is keyed by the name alone, hashing one string rather than four
// (half of Observe's map cost, BenchmarkObserve); an agent's variants are
// chained from its first entry and told apart by comparing strings, which
// the enforcer hands over as the same constants, so compared by pointer.
// Entries are indexed, not pointed to, so that counting one already
// present allocates nothing.
type table[V comparable] struct {
	idx   map[string]int32 // name → its latest entry
	ents  []entry[V]
	other counts
}

type entry[V comparable] struct {
	name string
	v    V
	next int32 // the name's previous entry, -1 when none
	c    counts
}

func (t *table[V]) add(name string, v V, c counts, limit int) {
	head, ok := t.idx[name]
	if ok {
		for i := head; i >= 0; i = t.ents[i].next {
			if e := &t.ents[i]; e.v == v {
				e.c.add(c)
				return
			}
		}
	} else {
		head = -1
	}
	if len(t.ents) >= limit {
		t.other.add(c)
		return
	}
	if t.idx == nil {
		t.idx = make(map[string]int32, limit)
		t.ents = make([]entry[V], 0, limit)
	}
	t.idx[name] = int32(len(t.ents))
	t.ents = append(t.ents, entry[V]{name: name, v: v, next: head, c: c})
}

func (t *table[V]) reset() {
	clear(t.idx)
	clear(t.ents) // drop the old strings, keep the capacity
	t.ents, t.other = t.ents[:0], counts{}
}

// slot is the counts of one Window/60 of time.
type slot struct {
	epoch int64 // the slot's start, in resolutions since the Unix epoch

	// total counts every agent request apart from the tables, each of
	// which (rows and other) sums to it or its refusals: TestCounts,
	// TestBounded and TestConcurrent check they do.
	total                      counts
	passed, degraded, failures int64
	sessions, artifacts        int64
	agents                     table[variant]
	rules                      table[ruleVariant]
	paths, reasons             table[struct{}]
	refusals                   table[struct{}] // by refusal.Reason
	tools                      table[struct{}] // tools/call by CAPABILITY/TOOL
	capabilities               table[struct{}] // by Decision.Capability
	up                         upstreamCounts  // Upstream's
	reloads, reloadsFailed     int64
}

// current returns slot e (in resolutions since the Unix epoch), emptied
// first when it last counted an older span. r.mu is held.
func (r *Report) current(e int64) *slot {
	s := &r.slots[(e%slots+slots)%slots]
	if s.epoch != e {
		s.epoch = e
		s.total, s.passed, s.degraded, s.failures, s.sessions, s.artifacts = counts{}, 0, 0, 0, 0, 0
		s.up, s.reloads, s.reloadsFailed = upstreamCounts{}, 0, 0
		s.agents.reset()
		s.rules.reset()
		s.paths.reset()
		s.reasons.reset()
		s.refusals.reset()
		s.tools.reset()
		s.capabilities.reset()
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
	// What each table is keyed by is prepared before the lock, and only
	// for the tables the decision goes to: an allowed agent's request
	// touches the agents table alone.
	var name, rule, path, reason, why, tool, capability string
	var v variant
	var rv ruleVariant
	if agent {
		name, v = agentName(&d), variant{policy: clip(d.Agent), grade: clip(d.Grade), purpose: clip(d.Class.Purpose)}
	}
	if refused {
		rule = d.Rule
		if rule == "" {
			rule = d.Outcome.String()
		}
		rule, path = clip(rule), clip(d.Path)
		rv = ruleVariant{policy: v.policy, grade: v.grade, limit: clip(d.Limit)}
		why = refusal.Reason(&d) // a token of agentready's: no clip
	}
	if d.Identity.Reason != "" {
		reason = clip(d.Identity.Reason)
	}
	if d.Tool != "" {
		tool = clip(d.Capability + "/" + d.Tool) // declared names: bounded
	}
	if d.Capability != "" {
		capability = clip(d.Capability)
	}

	s := r.lock()
	if d.Degraded {
		s.degraded++
	}
	if reason != "" {
		s.failures++
		s.reasons.add(reason, struct{}{}, c, r.limit)
	}
	if !agent {
		s.passed++
	} else {
		s.total.add(c)
		s.agents.add(name, v, c, r.limit)
		if tool != "" {
			s.tools.add(tool, struct{}{}, c, r.limit)
		}
		if capability != "" {
			s.capabilities.add(capability, struct{}{}, c, r.limit)
		}
		if refused {
			s.rules.add(rule, rv, c, r.limit)
			s.paths.add(path, struct{}{}, c, r.limit)
			s.refusals.add(why, struct{}{}, c, r.limit)
		}
	}
	r.mu.Unlock()
}

// SessionOpened counts a v0.1.0 session created.
func (r *Report) SessionOpened() {
	r.lock().sessions++
	r.mu.Unlock()
}

// ArtifactSealed counts an audit artifact sealed.
func (r *Report) ArtifactSealed() {
	r.lock().artifacts++
	r.mu.Unlock()
}

// agentName is the name an agent row shows: the agent a proof names
// (docs/verified-agents.md: a signature decides who the client is,
// whatever its User-Agent says), else the name its User-Agent matched,
// else its kind in parentheses ("(unknown)").
func agentName(d *enforce.Decision) string {
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
