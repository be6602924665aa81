package demo

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/enforce"
)

// The demo logs each agent request once, with the status its client got.
// A refusal is written by agentready, so the decision hook knows its
// status (Decision.Status) and logs it (LogDecision). A request let
// through is answered by the application, after the hook has run:
// Served logs it once the application has answered, with the status it
// wrote and the decision agentready handed on in the request's
// Agentready-Decision field (agentready.WithDecisionHeader,
// docs/enforcement.md "The decision, handed on").

// LogDecision returns a decision hook (agentready.WithOnDecision) that logs
// every refusal of an agent request with log/slog: its outcome and status,
// the agent and policy, the rule and limit, and what the claim was proven
// by. Requests let through are Served's to log.
func LogDecision(log *slog.Logger) func(enforce.Decision) {
	return func(d enforce.Decision) {
		if d.Status == 0 || d.ReportOnly {
			return // a browser's pass, or let through: Served logs it answered
		}
		attrs := []any{"outcome", d.Outcome.String(), "status", d.Status, "method", d.Method, "path", d.Path, "agent", d.Agent,
			"class", d.Class.Kind, "ua", d.Class.Name, "capability", d.Capability, "tool", d.Tool, "rule", d.Rule, "limit", d.Limit}
		if d.Err != nil {
			attrs = append(attrs, "err", d.Err.Error())
		}
		if d.Class.Purpose != enforce.PurposeUnknown {
			attrs = append(attrs, "purpose", d.Class.Purpose)
		}
		if d.Identity.Claimed != "" {
			attrs = append(attrs, "claimed", d.Identity.Claimed, "verified", d.Identity.Method.String())
		}
		if d.Identity.Reason != "" {
			attrs = append(attrs, "reason", d.Identity.Reason) // why the claim was not proven
		}
		if d.Unverified {
			attrs = append(attrs, "unverified", true)
		}
		if d.Degraded {
			// Redis is down: counted by the failure policy (-redis).
			attrs = append(attrs, "degraded", true)
		}
		log.Info("agent request", attrs...)
	}
}

// Served wraps an application handler behind agentready (which must be
// given agentready.WithDecisionHeader): once h has answered an agent
// request agentready let through, it logs the request with the status h
// wrote (200 when h wrote none) and the decision of its
// Agentready-Decision field. A browser's request (outcome pass) is not
// logged. Wrap each application handler, inside its Capability binding:
// a binding's refusal is the decision hook's to log.
func Served(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outcome, decision, agent := decisionAttrs(r.Header.Values(enforce.HeaderDecision))
		if !agent {
			h.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		// In LogDecision's order: outcome, status, method, path, then the rest.
		attrs := append(outcome, "status", sw.written(), "method", r.Method, "path", r.URL.Path)
		log.Info("agent request", append(attrs, decision...)...)
	})
}

// decisionAttrs are the members of an Agentready-Decision field (an RFC
// 8941 dictionary: outcome, policy, class, grade, purpose, capability,
// tool, rule) as log attributes, the outcome apart, and whether it is an
// agent's: present, and not a browser's pass. A field that does not parse
// is logged as it is.
func decisionAttrs(field []string) (outcome, attrs []any, agent bool) {
	if len(field) == 0 {
		return nil, nil, false
	}
	dict, err := httpsfv.UnmarshalDictionary(field)
	if err != nil {
		return nil, []any{"decision", strings.Join(field, ", ")}, true
	}
	if o, ok := dict.Get("outcome"); ok {
		if it, ok := o.(httpsfv.Item); ok && it.Value == httpsfv.Token("pass") {
			return nil, nil, false
		}
	}
	var out, rest []any
	for _, name := range dict.Names() {
		m, _ := dict.Get(name)
		item, ok := m.(httpsfv.Item)
		if !ok {
			continue
		}
		v := item.Value
		if t, ok := v.(httpsfv.Token); ok {
			v = string(t)
		}
		if name == "policy" {
			name = "agent" // as LogDecision names Decision.Agent
		}
		if name == "outcome" {
			out = append(out, name, v)
			continue
		}
		rest = append(rest, name, v)
	}
	return out, rest, true
}

// statusWriter records the status an application writes. Unwrap lets
// http.ResponseController reach the connection's deadlines; Flush is
// passed on for the handlers (an MCP stream) that assert http.Flusher.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code // a 1xx is informational: the status is still to come
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// written is the status the client got: 200 when the handler wrote
// nothing (net/http sends 200 then).
func (w *statusWriter) written() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// List is a repeatable string flag.
type List []string

func (l *List) String() string     { return strings.Join(*l, ",") }
func (l *List) Set(s string) error { *l = append(*l, s); return nil }
