package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/clock"
)

// Log settings of serve: every line it writes is a slog record, in text
// (logfmt-like key=value) or JSON, on stderr.
const (
	logDecisionsNone = "none"
	logDecisionsDeny = "deny"
	logDecisionsAll  = "all"
)

// newLogger returns serve's logger writing to w in format "text" or
// "json".
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	return newLevelLogger(w, format, "")
}

// newLevelLogger is newLogger writing the lines of level (-log-level:
// debug, info, warn or error; "" is info) and above.
func newLevelLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); level != "" && err != nil {
		return nil, fmt.Errorf("-log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}

// stdLogger is a *log.Logger for net/http and httputil's own messages
// (a TLS handshake error, an aborted body copy), written as slog records
// at level Warn instead of unstructured lines.
func stdLogger(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}

// decisionLog writes enforcement decisions as structured lines: the
// denials (and a report-only run's would-be denials) by default, every
// decision with -log-decisions all, at most -log-rate lines a second. The
// rate is a token bucket holding one second's lines: a flood of denials
// cannot fill a disk faster than the rate says, and the lines over it are
// counted and reported once per interval (report).
type decisionLog struct {
	log     *slog.Logger
	all     bool
	limit   *rate.Limiter
	perSec  int
	dropped atomic.Int64
}

// newDecisionLog returns nil for -log-decisions none.
func newDecisionLog(l *slog.Logger, which string, perSecond int) (*decisionLog, error) {
	switch which {
	case logDecisionsNone:
		return nil, nil
	case logDecisionsDeny, logDecisionsAll:
	default:
		return nil, fmt.Errorf("-log-decisions %q: want none, deny or all", which)
	}
	if perSecond < 1 {
		return nil, fmt.Errorf("-log-rate %d: want at least 1 line a second", perSecond)
	}
	return &decisionLog{log: l, all: which == logDecisionsAll, perSec: perSecond,
		limit: rate.NewLimiter(rate.Limit(perSecond), perSecond)}, nil
}

// observe logs d, when the settings say so and the rate allows; it is the
// decision hook (agentready.WithOnDecision) and runs on the request path.
// r, when known, adds the request's method, path and client address.
func (l *decisionLog) observe(d enforce.Decision) {
	if !l.all && d.Outcome.Allowed() {
		return
	}
	if !l.limit.Allow() {
		l.dropped.Add(1)
		return
	}
	attrs := make([]slog.Attr, 0, 20)
	attrs = append(attrs, slog.String("outcome", d.Outcome.String()))
	if d.Status != 0 {
		attrs = append(attrs, slog.Int("status", d.Status))
	}
	if d.Method != "" {
		attrs = append(attrs, slog.String("method", d.Method), slog.String("path", d.Path))
	}
	if d.Client.IsValid() {
		attrs = append(attrs, slog.String("client", d.Client.String()))
	}
	attrs = append(attrs, slog.String("class", d.Class.Kind), slog.String("grade", gradeOf(d.Grade)))
	purpose := d.Class.Purpose
	if purpose == enforce.PurposeUnknown {
		purpose = "" // left out, as the other empty fields are
	}
	for _, a := range [...]struct{ k, v string }{
		{"agent", d.Class.Name}, {"purpose", purpose}, {"policy", d.Agent}, {"capability", d.Capability}, {"tool", d.Tool}, {"rule", d.Rule}, {"limit", d.Limit},
		{"claimed", d.Identity.Claimed}, {"reason", d.Identity.Reason},
	} {
		if a.v != "" {
			attrs = append(attrs, slog.String(a.k, a.v))
		}
	}
	if d.RetryAfter > 0 {
		attrs = append(attrs, slog.Duration("retry_after", d.RetryAfter))
	}
	if d.Err != nil {
		attrs = append(attrs, slog.String("err", d.Err.Error()))
	}
	for _, b := range [...]struct {
		k string
		v bool
	}{{"report_only", d.ReportOnly}, {"degraded", d.Degraded}, {"presence_only", d.PresenceOnly}, {"unverified", d.Unverified}} {
		if b.v {
			attrs = append(attrs, slog.Bool(b.k, true))
		}
	}
	level := slog.LevelInfo
	if d.Outcome == enforce.StoreError || d.Degraded {
		level = slog.LevelWarn
	}
	l.log.LogAttrs(context.Background(), level, "agentready: decision", attrs...)
}

// gradeOf is the grade a line says: one of the three, and "anonymous",
// the grade that claims nothing, for a Decision made without one (as the
// metrics' grade label).
func gradeOf(g string) string {
	switch g {
	case enforce.GradeProven, enforce.GradeClaimed:
		return g
	}
	return enforce.GradeAnonymous
}

// report writes how many decision lines the rate dropped since the last
// report, if any.
func (l *decisionLog) report(every time.Duration) {
	if n := l.dropped.Swap(0); n > 0 {
		l.log.Warn("agentready serve: decision lines dropped over -log-rate", "dropped", n,
			"rate", fmt.Sprintf("%d/s", l.perSec), "interval", every)
	}
}

// repeated logs a recurring failure once per interval with a count: the
// first occurrence at once, and at the end of each interval in which more
// occurred (flush), one line saying how many, with the last one's error.
// An upstream outage under load is then two lines every interval, not one
// a request.
type repeated struct {
	log   *slog.Logger
	msg   string
	every time.Duration

	mu      sync.Mutex
	last    time.Time // when a line was last written
	n       int       // occurrences since
	lastErr error
	attrs   []any // the last occurrence's
}

// add records one occurrence of the failure.
func (r *repeated) add(err error, attrs ...any) {
	r.mu.Lock()
	now := clock.Monotonic()
	if r.last.IsZero() || now.Sub(r.last) >= r.every && r.n == 0 {
		r.last = now
		r.mu.Unlock()
		r.log.Warn(r.msg, append([]any{"err", err, "count", 1}, attrs...)...)
		return
	}
	r.n++
	r.lastErr, r.attrs = err, attrs
	r.mu.Unlock()
}

// flush writes the count of the occurrences not yet written once an
// interval has passed since the last line.
func (r *repeated) flush() {
	r.mu.Lock()
	if r.n == 0 || clock.Since(r.last) < r.every {
		r.mu.Unlock()
		return
	}
	n, err, attrs := r.n, r.lastErr, r.attrs
	r.n, r.last = 0, clock.Monotonic()
	r.mu.Unlock()
	r.log.Warn(r.msg, append([]any{"err", err, "count", n, "interval", r.every}, attrs...)...)
}

// forwardedWarning wraps h to warn once when a request carries
// X-Forwarded-For or Forwarded from a peer that is not a trusted proxy:
// agentready then counts limits per that peer, so behind a proxy not
// named in -trusted-proxies every client shares one limit (and the
// header, written by anyone, is not believed).
func forwardedWarning(h http.Handler, ip *clientip.Resolver, l *slog.Logger) http.Handler {
	var warned atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !warned.Load() {
			field := ""
			if _, ok := r.Header["X-Forwarded-For"]; ok {
				field = "X-Forwarded-For"
			} else if _, ok := r.Header["Forwarded"]; ok {
				field = "Forwarded"
			}
			if field != "" {
				if peer, ok := clientip.ParseHostPort(r.RemoteAddr); ok && !ip.Trusted(peer) && warned.CompareAndSwap(false, true) {
					l.Warn("agentready serve: a request carries "+field+" from a peer that is not a trusted proxy; "+
						"its clients are counted as the peer (one rate limit for all of them) until it is named in -trusted-proxies (warned once)",
						"peer", peer.String(), "field", field)
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}
