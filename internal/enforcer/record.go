package enforcer

import (
	"net/http"
	"net/netip"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/session"
)

// recorder serves the requests of v0.1.0 sessions above the pipeline;
// agentready's audit trail is the one it wires. The Enforcer hands it each
// agent request it decided that carries X-Agent-Session or addresses a
// session-required capability, with the identity sessions are bound to
// (see Identify). The recorder reads the Decision and may refuse more
// (DenySession, DenyBody, a capability a reload removed), never less; it
// runs no part of the pipeline again.
type recorder interface {
	// Record checks r's session, amends d, and calls answer, which
	// reports d to the decision hook and carries it out (next for a
	// request let through, a problem response for a denial), with the
	// writer and request the recording needs.
	Record(w http.ResponseWriter, r *http.Request, next http.Handler, d *enforce.Decision, agent string, client netip.Prefix,
		answer func(http.ResponseWriter, *http.Request, http.Handler))
	// Check amends d as Record would, recording nothing (Explain).
	Check(r *http.Request, d *enforce.Decision, agent string, client netip.Prefix)
	// Bound tells the recording of r, when r is being recorded, the
	// decision a route binding behind Wrap completed for its capability:
	// the event becomes that capability's, and a body read over the
	// capability's own limit is refused (DenyBody).
	Bound(r *http.Request, d *enforce.Decision)
}

// recorded reports whether the recorder serves r, decided as d: an agent
// request with a session header, or one addressing a session-required
// capability.
func (e *Enforcer) recorded(r *http.Request, d *decision) bool {
	if e.rec == nil || d.Outcome == enforce.Pass {
		return false
	}
	if _, ok := r.Header[session.HeaderSession]; ok {
		return true
	}
	ci := d.capability.index()
	return ci >= 0 && e.p.Capabilities[ci].Decl.RequiresSession
}

// record hands r and its decision d to the recorder. shadow, when not
// nil, hears of d as the Recorder leaves it, before it is carried out.
func (e *Enforcer) record(w http.ResponseWriter, r *http.Request, next http.Handler, d *decision, shadow func(*http.Request, enforce.Decision)) {
	agent, client := e.identityOf(r, d)
	// The recorder amends d.Decision in place; answer carries out d.
	e.rec.Record(w, r, next, &d.Decision, agent, client, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if shadow != nil {
			shadow(r, d.Decision)
		}
		e.answer(w, r, next, d)
	})
}
