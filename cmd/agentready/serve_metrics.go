package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentready/agentready/internal/clock"
)

// serveMetrics are serve's own series on -metrics' registry
// (docs/operations.md, "Metrics"): what the upstream did (a 502 storm is
// a rising error count, not only log lines) and the reloads. Every method
// is a no-op on nil (serve without -metrics).
type serveMetrics struct {
	upRequests *prometheus.CounterVec
	upErrors   *prometheus.CounterVec
	upLatency  prometheus.Histogram
	reloads    *prometheus.CounterVec
	lastReload prometheus.Gauge
}

// The kinds of upstream errors agentready_upstream_errors_total counts.
const (
	upstreamDial     = "dial"
	upstreamTimeout  = "timeout"
	upstreamReset    = "reset"
	upstreamCanceled = "canceled"
	upstreamOther    = "other"
)

// newServeMetrics registers serve's series on reg. The last good reload
// is the start (Prometheus's own prometheus_config_last_reload_success_
// timestamp_seconds counts its start the same way): an alert on its age
// then reads "no good declaration for this long".
func newServeMetrics(reg prometheus.Registerer) (*serveMetrics, error) {
	m := &serveMetrics{
		upRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "agentready", Name: "upstream_requests_total",
			Help: "Requests sent to the upstream, by result: the status class of its response (2xx, 3xx, 4xx, 5xx, 1xx) or error."}, []string{"result"}),
		upErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "agentready", Name: "upstream_errors_total",
			Help: "Requests the upstream failed (answered 502 by agentready), by kind: dial, timeout, reset, canceled (the client went away) or other."}, []string{"kind"}),
		upLatency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "agentready", Name: "upstream_duration_seconds",
			Help: "Time from sending a request to the upstream to its response headers.", Buckets: prometheus.DefBuckets}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "agentready", Name: "reloads_total",
			Help: "Reloads of the declaration file (SIGHUP or a change of the file), by result: ok or failed (the running declaration kept serving)."}, []string{"result"}),
		lastReload: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "agentready", Name: "last_reload_success_timestamp_seconds",
			Help: "When the declaration serving was loaded (at start or by the last good reload), in Unix seconds."}),
	}
	for _, c := range []prometheus.Collector{m.upRequests, m.upErrors, m.upLatency, m.reloads, m.lastReload} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Every series exists from the start at 0: a rate over a series that
	// appears with its first error misses that error.
	for _, r := range []string{"2xx", "3xx", "4xx", "5xx", "error"} {
		m.upRequests.WithLabelValues(r)
	}
	for _, k := range []string{upstreamDial, upstreamTimeout, upstreamReset, upstreamCanceled, upstreamOther} {
		m.upErrors.WithLabelValues(k)
	}
	m.reloads.WithLabelValues("ok")
	m.reloads.WithLabelValues("failed")
	m.lastReload.SetToCurrentTime()
	return m, nil
}

// reloaded counts a reload that ended with err.
func (m *serveMetrics) reloaded(err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.reloads.WithLabelValues("failed").Inc()
		return
	}
	m.reloads.WithLabelValues("ok").Inc()
	m.lastReload.SetToCurrentTime()
}

// transport is rt observed: each request's result and, for a response,
// its latency.
func (m *serveMetrics) transport(rt http.RoundTripper) http.RoundTripper {
	if m == nil {
		return rt
	}
	t := &observedTransport{rt: rt, m: m}
	for c := 1; c <= 5; c++ {
		t.byClass[c] = m.upRequests.WithLabelValues(strconv.Itoa(c) + "xx")
	}
	return t
}

type observedTransport struct {
	rt http.RoundTripper
	m  *serveMetrics
	// byClass are upRequests' counters of 1xx to 5xx (byClass[1] to
	// [5]), resolved once: no label lookup per request.
	byClass [6]prometheus.Counter
}

func (t *observedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := clock.Monotonic()
	res, err := t.rt.RoundTrip(r)
	if err != nil {
		t.m.upRequests.WithLabelValues("error").Inc()
		t.m.upErrors.WithLabelValues(upstreamErrorKind(r.Context(), err)).Inc()
		return res, err
	}
	t.m.upLatency.Observe(clock.Since(start).Seconds())
	c := res.StatusCode / 100
	if c < 1 || c > 5 {
		c = 5 // a status outside 100-599 is the upstream's fault
	}
	t.byClass[c].Inc()
	return res, nil
}

// upstreamErrorKind names the kind of a failed round trip: the connection
// not made (dial, a dial timeout included), no answer in time (the
// -upstream-timeout for the headers), the connection closed or reset
// under the request, the client gone (its request's context cancelled),
// or other (a TLS failure, a malformed response).
func upstreamErrorKind(ctx context.Context, err error) string {
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		return upstreamDial
	case ctx.Err() == context.Canceled || errors.Is(err, context.Canceled):
		return upstreamCanceled
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return upstreamTimeout
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return upstreamReset
	}
	return upstreamOther
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
