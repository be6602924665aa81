package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/reportview"
)

func row(name string, c counts) reportview.Row {
	return reportview.Row{Name: name, Requests: c.allowed + c.denied + c.limited, Allowed: c.allowed, Denied: c.denied, RateLimited: c.limited, ReportOnly: c.reportOnly}
}

// snapshot merges the slots of the window. It runs under the lock for a
// copy of at most 60 slots' counts (60 × 8 tables × 4*Rows keys); the
// sorting is done after.
func (r *Report) snapshot() reportview.Snapshot {
	now := clock.Or(r.now)()
	e := now.UnixNano() / int64(r.res)
	agents, rules := merged[variant]{}, merged[ruleVariant]{}
	paths, reasons, refusals, tools, capabilities := merged[struct{}]{}, merged[struct{}]{}, merged[struct{}]{}, merged[struct{}]{}, merged[struct{}]{}
	var total counts
	var up upstreamCounts
	var reloads, reloadsFailed int64
	r.mu.Lock()
	if r.now == nil {
		e = max(e, r.epoch) // the ticking clock's slot, should now's lag it
	}
	first := e - slots + 1
	s := reportview.Snapshot{
		From:       time.Unix(0, first*int64(r.res)).In(now.Location()),
		To:         now,
		Started:    r.start.In(now.Location()),
		Window:     slots * r.res,
		Resolution: r.res,
	}
	// The window never starts before the report did: a page an instant
	// after a start says "from the start", not "the last hour".
	if s.From.Before(s.Started) {
		s.From = s.Started
	}
	series := newSeries(max(first, r.start.UnixNano()/int64(r.res)), e, r.res, now.Location())
	for i := range r.slots {
		sl := &r.slots[i]
		if sl.epoch < first || sl.epoch > e {
			continue // emptied by time, or (a clock that went back) ahead of now
		}
		series.add(sl)
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
		tools.merge(&sl.tools)
		capabilities.merge(&sl.capabilities)
		reloads, reloadsFailed = reloads+sl.reloads, reloadsFailed+sl.reloadsFailed
		up.requests, up.errors, up.serverErrors = up.requests+sl.up.requests, up.errors+sl.up.errors, up.serverErrors+sl.up.serverErrors
	}
	s.LastReload, s.Upstream = r.health.view(now.Location(), reloads, reloadsFailed)
	r.mu.Unlock()
	s.Series = series.points
	if s.Upstream != nil {
		s.Upstream.Requests, s.Upstream.Errors, s.Upstream.ServerErrors = up.requests, up.errors, up.serverErrors
	}
	s.Total = row("total", total)
	s.Agents = agents.top(r.rows, func(name string, v variant, c counts) reportview.Row {
		w := row(name, c)
		w.Policy, w.Grade, w.Purpose = v.policy, v.grade, v.purpose
		return w
	}, func(a, b variant) int {
		return cmp.Or(cmp.Compare(a.policy, b.policy), cmp.Compare(a.grade, b.grade), cmp.Compare(a.purpose, b.purpose))
	})
	plain := func(name string, _ struct{}, c counts) reportview.Row { return row(name, c) }
	same := func(struct{}, struct{}) int { return 0 }
	s.Refusals = refusals.top(r.rows, plain, same)
	s.Rules = rules.top(r.rows, func(name string, v ruleVariant, c counts) reportview.Row {
		w := row(name, c)
		w.Policy, w.Grade, w.Limit = v.policy, v.grade, v.limit
		return w
	}, func(a, b ruleVariant) int {
		return cmp.Or(cmp.Compare(a.policy, b.policy), cmp.Compare(a.grade, b.grade), cmp.Compare(a.limit, b.limit))
	})
	s.Paths = paths.top(r.rows, plain, same)
	s.Reasons = reasons.top(r.rows, plain, same)
	s.Tools = tools.top(r.rows, plain, same)
	s.Capabilities = capabilities.top(r.rows, plain, same)
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
func (m *merged[V]) top(n int, mk func(string, V, counts) reportview.Row, cmpV func(a, b V) int) []reportview.Row {
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
	rows := make([]reportview.Row, 0, min(n, len(all))+1)
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
