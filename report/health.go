package report

import (
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/reportview"
)

// This file is what a proxy in front of an upstream (agentready serve)
// tells the report beside the decisions: the declaration's reloads and
// what the upstream answered. A site that mounts the report in its own
// handlers has neither, and its report shows neither.

// upstreamCounts are one slot's requests to the upstream.
type upstreamCounts struct {
	requests, errors, serverErrors int64
}

// health is what is kept of reloads and the upstream beyond the slots'
// counts: the last of each, whenever it was. r.mu guards it.
type health struct {
	reloaded        bool // a reload was told
	reloadAt        time.Time
	reloadFailed    bool
	reloadErr       string // why the last reload was refused
	reloadOK        time.Time
	reloadOKSeen    bool
	upstream        bool // the upstream was told of
	upstreamErr     string
	upstreamErrAt   time.Time
	upstreamErrSeen bool
}

// Reloaded tells the report that the declaration was reloaded, taken
// when err is nil, refused (the running one kept serving) otherwise; the
// page and report.json show the last reload and count the window's.
func (r *Report) Reloaded(err error) {
	now := clock.Or(r.now)()
	var msg string
	if err != nil {
		msg = clip(err.Error())
	}
	s := r.lock()
	h := &r.health
	h.reloaded, h.reloadAt, h.reloadFailed, h.reloadErr = true, now, err != nil, msg
	if err == nil {
		h.reloadOK, h.reloadOKSeen = now, true
		s.reloads++
	} else {
		s.reloadsFailed++
	}
	r.mu.Unlock()
}

// Upstream tells the report of one request sent to the upstream: the
// status it answered, or err when it gave no answer (refused, reset,
// timed out). A 5xx answer counts as a server error, err as an error;
// the page and report.json show the window's counts and the last error.
func (r *Report) Upstream(status int, err error) {
	var msg string
	var at time.Time
	if err != nil {
		msg, at = clip(err.Error()), clock.Or(r.now)() // only a failure reads a clock
	}
	s := r.lock()
	r.health.upstream = true
	s.up.requests++
	switch {
	case err != nil:
		s.up.errors++
		r.health.upstreamErr, r.health.upstreamErrAt, r.health.upstreamErrSeen = msg, at, true
	case status >= 500:
		s.up.serverErrors++
	}
	r.mu.Unlock()
}

// Bounds of the page's refresh, in seconds: more often than every 5
// seconds would be a load of its own on the replica (each page merges 60
// slots), and an hour is the default window.
const (
	minRefresh = 5
	maxRefresh = 3600
)

// refreshSeconds bounds a refresh asked for: 0 (or less) is none, and the
// rest is held to minRefresh..maxRefresh.
func refreshSeconds(n int64) int {
	if n <= 0 {
		return 0
	}
	return int(min(max(n, minRefresh), maxRefresh))
}

// view is what a snapshot shows of h: nil for what the report was never
// told of. The window's reloads are given; the upstream's counts are the
// caller's to fill. r.mu is held.
func (h *health) view(loc *time.Location, reloads, failed int64) (*reportview.Reload, *reportview.Upstream) {
	var rl *reportview.Reload
	if h.reloaded {
		rl = &reportview.Reload{At: h.reloadAt.In(loc), OK: !h.reloadFailed, Error: h.reloadErr, Succeeded: reloads, Failed: failed}
		if h.reloadOKSeen {
			rl.LastOK = h.reloadOK.In(loc)
		}
	}
	var up *reportview.Upstream
	if h.upstream {
		up = &reportview.Upstream{}
		if h.upstreamErrSeen {
			up.LastError, up.LastErrorAt = h.upstreamErr, h.upstreamErrAt.In(loc)
		}
	}
	return rl, up
}
