package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/agentready/agentready/internal/clock"
)

// Snapshot is what the report shows: the counts of the window, merged from
// its slots. Every table's rows, its "other" row included, sum to the
// table's total: Agents to Total; Refusals, Rules and Paths to Total's
// Denied and RateLimited (every refusal has a reason, a rule and a path);
// Reasons to Failures.
type Snapshot struct {
	// From and To bound the window: From is the start of the oldest slot
	// counted, To the time the snapshot was taken.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Window is Options.Window as kept (60 slots of Resolution), and
	// Resolution a slot's span: counts leave the report a slot at a time.
	Window     time.Duration `json:"window_ns"`
	Resolution time.Duration `json:"resolution_ns"`

	// Total is every agent request (Name "total"): every decision but the
	// Pass of a browser or a probe.
	Total Row `json:"total"`
	// Passed counts the browsers and infrastructure probes let through
	// untouched (a Pass that is not a link preview's): not agents, so in
	// no table.
	Passed int64 `json:"passed"`
	// Degraded counts the decisions the rate-limit store answered by its
	// failure policy.
	Degraded int64 `json:"degraded"`
	// Failures counts the requests whose claim was checked and not proven
	// (a verification failure, Identity.Reason set), whatever became of
	// them.
	Failures int64 `json:"verification_failures"`
	// SessionsOpened counts the v0.1.0 sessions created, ArtifactsSealed
	// the audit artifacts sealed.
	SessionsOpened  int64 `json:"sessions_opened"`
	ArtifactsSealed int64 `json:"artifacts_sealed"`

	// Agents are the agent rows by name, policy, grade and purpose, most
	// requests first.
	Agents []Row `json:"agents"`
	// Refusals are the refusals by reason: a refused target's or body's
	// fault (DenyTarget, DenyBody: "dot-segment", "encoded-slash", ...;
	// "other" when its error names none), else the outcome's name
	// ("deny-path", "deny-rate", "deny-host", ...), as package metrics'
	// agentready_refusals_total counts them.
	Refusals []Row `json:"refusals_by_reason"`
	// Rules are the rules that refused most (Decision.Rule, or the
	// outcome's name when no rule applied), Paths the paths refused most.
	Rules []Row `json:"rules"`
	Paths []Row `json:"paths"`
	// Reasons are the verification failures by reason.
	Reasons []Row `json:"verification_failures_by_reason"`
}

// Row is one row of a table: a name (an agent's, a rule, a path, a
// reason) and its requests by what became of them. Requests is Allowed +
// Denied + RateLimited. A row with Other set counts every name the table
// does not list, and those a slot could not keep (it keeps 4*Rows names).
type Row struct {
	Name string `json:"name"`
	// Policy, Grade and Purpose are an agent row's: the agent policy that
	// applied (Decision.Agent, "" when none), how much of who it is was
	// proven, and its purpose.
	Policy  string `json:"policy,omitempty"`
	Grade   string `json:"grade,omitempty"`
	Purpose string `json:"purpose,omitempty"`
	Other   bool   `json:"other,omitempty"`

	Requests    int64 `json:"requests"`
	Allowed     int64 `json:"allowed"`
	Denied      int64 `json:"denied"`
	RateLimited int64 `json:"rate_limited"`
	// ReportOnly counts the denials of Denied and RateLimited that
	// report-only mode did not apply: those requests were served.
	ReportOnly int64 `json:"report_only"`
}

func row(name string, c counts) Row {
	return Row{Name: name, Requests: c.allowed + c.denied + c.limited, Allowed: c.allowed, Denied: c.denied, RateLimited: c.limited, ReportOnly: c.reportOnly}
}

// Snapshot merges the slots of the window. It runs under the lock for a
// copy of at most 60 slots' counts (60 × 5 tables × 4*Rows keys); the
// sorting is done after.
func (r *Report) Snapshot() Snapshot {
	now := clock.Or(r.now)()
	e := now.UnixNano() / int64(r.res)
	agents, rules, paths, reasons, refusals := merged[variant]{}, merged[struct{}]{}, merged[struct{}]{}, merged[struct{}]{}, merged[struct{}]{}
	var total counts
	r.mu.Lock()
	if r.now == nil {
		e = max(e, r.epoch) // the ticking clock's slot, should now's lag it
	}
	first := e - slots + 1
	s := Snapshot{
		From:       time.Unix(0, first*int64(r.res)).In(now.Location()),
		To:         now,
		Window:     slots * r.res,
		Resolution: r.res,
	}
	for i := range r.slots {
		sl := &r.slots[i]
		if sl.epoch < first || sl.epoch > e {
			continue // emptied by time, or (a clock that went back) ahead of now
		}
		total.add(sl.total)
		s.Passed += sl.passed
		s.Degraded += sl.degraded
		s.Failures += sl.failures
		s.SessionsOpened += sl.sessions
		s.ArtifactsSealed += sl.artifacts
		agents.merge(&sl.agents)
		rules.merge(&sl.rules)
		paths.merge(&sl.paths)
		reasons.merge(&sl.reasons)
		refusals.merge(&sl.refusals)
	}
	r.mu.Unlock()
	s.Total = row("total", total)
	s.Agents = agents.top(r.rows, func(name string, v variant, c counts) Row {
		w := row(name, c)
		w.Policy, w.Grade, w.Purpose = v.policy, v.grade, v.purpose
		return w
	}, func(a, b variant) int {
		return cmp.Or(cmp.Compare(a.policy, b.policy), cmp.Compare(a.grade, b.grade), cmp.Compare(a.purpose, b.purpose))
	})
	plain := func(name string, _ struct{}, c counts) Row { return row(name, c) }
	same := func(struct{}, struct{}) int { return 0 }
	s.Refusals = refusals.top(r.rows, plain, same)
	s.Rules = rules.top(r.rows, plain, same)
	s.Paths = paths.top(r.rows, plain, same)
	s.Reasons = reasons.top(r.rows, plain, same)
	return s
}

// merged is a table summed over slots.
type merged[V comparable] struct {
	m     map[key[V]]*counts
	other counts
}

type key[V comparable] struct {
	name string
	v    V
}

func (m *merged[V]) merge(t *table[V]) {
	if m.m == nil {
		m.m = make(map[key[V]]*counts, len(t.ents))
	}
	for i := range t.ents {
		e := &t.ents[i]
		c := m.m[key[V]{e.name, e.v}]
		if c == nil {
			c = new(counts)
			m.m[key[V]{e.name, e.v}] = c
		}
		c.add(e.c)
	}
	m.other.add(t.other)
}

// top returns the n rows of most requests (ties by name, then variant, so
// that a page reads the same twice), then the "other" row when it counts
// any: the rest, and what slots could not keep. It never returns nil, so
// that JSON shows an empty table as [].
func (m *merged[V]) top(n int, mk func(string, V, counts) Row, cmpV func(a, b V) int) []Row {
	type kc struct {
		k key[V]
		c *counts
	}
	all := make([]kc, 0, len(m.m))
	for k, c := range m.m {
		all = append(all, kc{k, c})
	}
	slices.SortFunc(all, func(a, b kc) int {
		ra, rb := a.c.allowed+a.c.denied+a.c.limited, b.c.allowed+b.c.denied+b.c.limited
		return cmp.Or(cmp.Compare(rb, ra), cmp.Compare(a.k.name, b.k.name), cmpV(a.k.v, b.k.v))
	})
	other := m.other
	rows := make([]Row, 0, min(n, len(all))+1)
	for i, x := range all {
		if i < n {
			rows = append(rows, mk(x.k.name, x.k.v, *x.c))
		} else {
			other.add(*x.c)
		}
	}
	if o := row("other", other); o.Requests > 0 {
		o.Other = true
		rows = append(rows, o)
	}
	return rows
}
