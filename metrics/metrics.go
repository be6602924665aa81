// Package metrics exposes agentready's decisions and state to Prometheus.
// The core does not import it: a program links the Prometheus client only
// when it uses this package.
//
//	mx, err := metrics.New(prometheus.DefaultRegisterer)
//	m, err := agentready.New(site, agentready.WithOnDecision(mx.Observe))
//	handler := mx.Documents(m.Handler(app), m) // counts documents served, and 304s
//	mx.WatchStore(store)                      // a Failover's state, when Redis is used
//
// Prometheus (github.com/prometheus/client_golang) rather than
// OpenTelemetry: one well-kept dependency and the pull model a /metrics
// endpoint needs, where OpenTelemetry would add an SDK and an exporter.
//
// Every label value comes from the declaration or from agentready's own
// enums (outcomes, classes, verification methods and reasons, refusal
// reasons, policy, capability and tool names, document paths), never from the
// request, so a hostile client cannot grow the number of series.
package metrics

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/refusal"
	"github.com/agentready/agentready/ratelimit"
)

// Metrics holds the collectors. It is safe for concurrent use.
type Metrics struct {
	decisions  *prometheus.CounterVec
	toolCalls  *prometheus.CounterVec
	refusals   *prometheus.CounterVec
	unverified *prometheus.CounterVec
	failures   *prometheus.CounterVec
	documents  *prometheus.CounterVec
	reg        prometheus.Registerer
}

// New registers agentready's collectors with reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		reg: reg,
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "agentready", Name: "decisions_total",
			Help: "Agent decisions by outcome, client class, agent policy, capability, how the agent's identity was verified and its grade (proven, claimed, anonymous).",
		}, []string{"outcome", "class", "policy", "capability", "verified", "grade"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "agentready", Name: "tool_calls_total",
			Help: "MCP tools/call decisions by outcome, agent policy, capability and declared tool (docs/mcp.md).",
		}, []string{"outcome", "policy", "capability", "tool"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "agentready", Name: "refusals_total",
			Help: "Agent requests refused (report-only ones included), by outcome and reason: a refused target's or body's fault (dot-segment, encoded-slash, bad-override, ...; other when it names none), else the outcome.",
		}, []string{"outcome", "reason"}),
		unverified: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "agentready", Name: "unverified_claims_total",
			Help: "Claims to a verified-only policy served under \"*\" because they could not be proven (a source did not answer, or FallBack).",
		}, []string{"claimed"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "agentready", Name: "verification_failures_total",
			Help: "Claims to a verified-only policy that were not proven, by policy and reason (replayed-nonce, lifetime-exceeds-policy, bad-signature, unavailable, ...).",
		}, []string{"policy", "reason"}),
		documents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "agentready", Name: "documents_total",
			Help: "Discovery documents served, by path and status (200, 304, ...).",
		}, []string{"path", "status"}),
	}
	for _, c := range []prometheus.Collector{m.decisions, m.toolCalls, m.refusals, m.unverified, m.failures, m.documents} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Observe counts one decision: give it to agentready.WithOnDecision. A
// browser's request (enforce.Pass of a browser) is counted too, under
// class "browser". The policy and capability are the declared names the
// decision names, never request data.
//
// The grade label is one of the three enforce.Grade constants: any other
// value (a Decision made without one) counts as "anonymous", the grade
// that claims nothing, so a hook's own Decisions cannot add series.
//
// A tools/call to a declared tool is counted in tool_calls_total too, by
// outcome, policy, capability and tool (Decision.Tool is the declared
// name, never the request's).
//
// A refusal (any outcome but Pass and Allow, a report-only one too) is
// counted in refusals_total by outcome and reason: for deny-target and
// deny-body the fault the target or body has, one token
// (docs/operations.md lists them; one added later counts under its own
// name, an error that names none as "other"), for every other outcome the
// outcome itself. The reasons are agentready's constants, so the series
// are bounded: about one a fault and one an outcome.
//
// verification_failures_total is labelled by the claimed policy
// (Identity.Claimed: a declared policy's name, or a known agent's as the
// known-agent data lists it, never the User-Agent as sent) and the
// reason, one of verifier's and webbotauth's short stable names.
func (m *Metrics) Observe(d enforce.Decision) {
	m.decisions.WithLabelValues(d.Outcome.String(), d.Class.Kind, d.Agent, d.Capability, d.Identity.Method.String(), gradeLabel(d.Grade)).Inc()
	if d.Tool != "" {
		m.toolCalls.WithLabelValues(d.Outcome.String(), d.Agent, d.Capability, d.Tool).Inc()
	}
	if reason := refusal.Reason(&d); reason != "" {
		m.refusals.WithLabelValues(d.Outcome.String(), reason).Inc()
	}
	if d.Unverified {
		m.unverified.WithLabelValues(d.Identity.Claimed).Inc()
	}
	if d.Identity.Reason != "" {
		m.failures.WithLabelValues(d.Identity.Claimed, d.Identity.Reason).Inc()
	}
}

// gradeLabel bounds the grade label to the three grades.
func gradeLabel(g string) string {
	switch g {
	case enforce.GradeProven, enforce.GradeClaimed:
		return g
	}
	return enforce.GradeAnonymous
}

// DocumentServer tells the paths of the documents a Middleware serves.
type DocumentServer interface{ ServesDocument(path string) bool }

// Documents wraps h, counting the responses to the document paths docs
// serves by status, as they are after every Reload. Other paths are not
// looked at.
func (m *Metrics) Documents(h http.Handler, docs DocumentServer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !docs.ServesDocument(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		m.documents.WithLabelValues(r.URL.Path, statusText(sw.status)).Inc()
	})
}

// WatchStore reports a rate-limit store's health: for a Failover,
// agentready_store_degraded is 1 while its circuit is open (Redis failing,
// limits counted by the failure policy).
func (m *Metrics) WatchStore(s ratelimit.Store) error {
	f, ok := s.(interface{ Degraded() bool }) // ratelimit.NewFailover's
	if !ok {
		return nil
	}
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "agentready", Name: "store_degraded",
		Help: "1 while the rate-limit store's primary (Redis) is failing and its failure policy answers.",
	}, func() float64 {
		if f.Degraded() {
			return 1
		}
		return 0
	}))
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusText is the label of a status: a bounded set.
func statusText(code int) string {
	switch {
	case code == 200, code == 304, code == 404, code == 405, code == 406, code == 412:
		return strconv.Itoa(code)
	case code >= 500:
		return "5xx"
	}
	return "other"
}
