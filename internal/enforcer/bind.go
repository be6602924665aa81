package enforcer

import (
	"fmt"
	"net/http"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/session"
)

// Capability binds a route to one declared capability: requests reaching
// next are checked against that capability's scope, auth and limit, whether
// or not they match its declared endpoint. Under Wrap it checks only what
// Wrap could not know; alone, it runs the whole pipeline. A route bound to
// an undeclared ID answers 500 rather than opening. authAll checks the
// capability's declared auth for every client, browsers included
// (agentready.AuthForEveryClient).
func (e *Enforcer) Capability(id string, authAll bool) func(http.Handler) http.Handler {
	ci, ok := e.p.CapabilityIndex(id)
	e.bound.Add(1)
	if !ok {
		e.log.Error("agentready: route bound to an undeclared capability; it answers 500", "capability", id)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !ok {
				_ = problem.Write(w, problem.Problem{Status: http.StatusInternalServerError,
					Detail: fmt.Sprintf("this route is bound to capability %q, which the site does not declare", id)})
				return
			}
			wd := e.wrapped(r)
			if authAll && resolve.AuthRequired(e.p.Capabilities[ci].Auth) {
				if d, denied := e.authForPass(r, ci, wd); denied {
					e.answer(w, r, next, &d)
					return
				}
			}
			switch {
			case wd == nil:
				// No Wrap in front (or one of a declaration a Reload has
				// replaced since): the binding runs the whole pipeline.
				e.serve(w, r, next, ci, nil)
			case wd.Outcome == enforce.Pass, wd.capability.index() == ci:
				// A browser or a probe, or an agent's request to the same
				// capability, which Wrap checked.
				next.ServeHTTP(w, r)
			default:
				e.completeForCapability(w, r, next, wd, ci)
			}
		})
	}
}

// authForPass checks capability ci's declared auth for a request the
// pipeline passes untouched: a browser's, or an agent's that passes as a
// probe (the pipeline checks the other agents'). wd is what Wrap decided,
// nil without Wrap. denied reports a DenyAuth decision in d.
func (e *Enforcer) authForPass(r *http.Request, ci int, wd *decision) (d decision, denied bool) {
	if wd != nil {
		if d.setClass(wd.class); wd.Outcome != enforce.Pass {
			return d, false
		}
	} else if d.setClass(e.classify(r)); d.class.Agent() && e.probe(r, &d) == "" {
		return d, false
	}
	d.Capability, d.capability = e.p.Capabilities[ci].ID, refTo(ci)
	if e.checkAuth(r, ci, true, &d) {
		return d, false
	}
	d.Status = statusOf(&d.Decision)
	d.ReportOnly = e.reportOnly
	return d, true
}

// decisionKey is the request context key of the Decision an Enforcer's
// Wrap made, for the Capability bindings behind it. It holds the
// Enforcer: a binding of another (a declaration a Reload replaced, a
// shadow's) finds nothing and decides anew.
type decisionKey struct{ e *Enforcer }

// wrapped is the Decision this Enforcer's Wrap made for r, nil when it
// made none (no Wrap in front, or no binding when it decided).
func (e *Enforcer) wrapped(r *http.Request) *decision {
	d, _ := r.Context().Value(decisionKey{e}).(*decision)
	return d
}

// completeForCapability finishes, for bound capability ci, a request Wrap
// let through as wd without resolving that capability: scope, auth and the
// capability's own limit (Wrap counted the site and agent limits).
func (e *Enforcer) completeForCapability(w http.ResponseWriter, r *http.Request, next http.Handler, wd *decision, ci int) {
	p := e.p
	c := &p.Capabilities[ci]
	ai := wd.agent.index()
	d := decision{Decision: enforce.Decision{Outcome: enforce.Allow, Class: wd.Class, Grade: wd.Grade, Identity: wd.Identity, Capability: c.ID},
		class: wd.class, capability: refTo(ci), agent: wd.agent}
	if ai >= 0 {
		d.Agent = p.Agents[ai].Name
	}
	switch {
	case ai >= 0 && !p.Agents[ai].Permitted[ci]:
		d.Outcome, d.Rule = enforce.DenyCapability, p.Agents[ai].Rule
	case resolve.AuthRequired(c.Auth):
		e.checkAuth(r, ci, true, &d)
	}
	if d.Outcome == enforce.Allow && !c.Limit.IsZero() {
		own := &e.lim.ownSets[ci]
		d.n = 1
		d.limits[0] = ratelimit.Limit{Name: c.Limit.Name, Rate: c.Limit.Rate, Period: c.Limit.Period,
			Key: e.lim.key(e.lim.set(ai, ci), wd.client)}
		d.Limits[0] = c.Limit.Name
		d.header, d.rateLimit = own.policy, own.rateLimit
		if err := e.lim.count(r, &d); err != nil {
			d.Outcome, d.Err = enforce.StoreError, err
		} else if !d.Results[0].Allowed {
			d.Outcome, d.Limit, d.RetryAfter = enforce.DenyRate, c.Limit.Name, d.Results[0].RetryAfter
			d.Rule = "Rate-Limit: " + c.Limit.Decl
		}
	}
	d.Status = statusOf(&d.Decision)
	d.ReportOnly = e.reportOnly && d.Outcome != enforce.Allow
	if e.rec != nil {
		e.rec.Bound(r, &d.Decision)
	}
	if e.recorded(r, &d) {
		if _, ok := session.FromContext(r.Context()); !ok { // else Wrap's Recorder records it
			e.record(w, r, next, &d, nil)
			return
		}
	}
	e.answer(w, r, next, &d)
}
