package enforcer

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/paramcheck"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/reqbody"
	"github.com/agentready/agentready/internal/resolve"
)

// newChecks prepares the params check of every REST capability of p that
// declares params, when on (Access.EnforceParams, or report-only, which
// reports what it would refuse); nil otherwise, and nil for a capability
// without params or of another protocol (an MCP message's params are its
// tools' arguments, not the capability's). fold: the application routes
// ignoring case, so a path param is read on a path matching the endpoint
// in any case.
func newChecks(p *policy.Policy, on, fold bool) []*paramcheck.Checker {
	if !on {
		return nil
	}
	var checks []*paramcheck.Checker
	for i := range p.Capabilities {
		c := &p.Capabilities[i]
		if len(c.Decl.Params) == 0 || resolve.Protocol(c.Decl) != config.ProtocolREST {
			continue
		}
		if checks == nil {
			checks = make([]*paramcheck.Checker, len(p.Capabilities))
		}
		checks[i] = paramcheck.New(c.Decl.Params, c.Template(), fold)
	}
	return checks
}

// params is the stage of a capability's declared params
// (config.Access.EnforceParams, docs/enforcement.md "Params"): a call
// whose query, header, path or body params are not as declared is refused
// (DenyParams, 400), naming each param at fault, before the handler runs.
// It runs after the limits, so a refused call takes its tokens. A body is
// read only for a capability declaring body params, bounded by its
// BodyLimit (413 above it) and given back as sent. A capability without
// params costs one index.
func (e *Enforcer) params(s *scope) bool {
	if s.ci < 0 || s.ci >= len(e.checks) || e.checks[s.ci] == nil || s.limitOnly {
		return true
	}
	c := e.checks[s.ci]
	r := s.r
	var body []byte
	if c.ReadsBody() {
		var ok bool
		if body, ok = readBody(s, e.p.Capabilities[s.ci].Decl); !ok {
			return false
		}
	}
	path := s.path
	if path == "" { // a binding's scope that no target stage gave one
		path = r.URL.EscapedPath()
	}
	faults := c.Request(r, path, body)
	if faults == nil {
		return true
	}
	s.Outcome, s.Rule, s.Err = enforce.DenyParams, c.Rule(faults[0]), &paramcheck.Error{Faults: faults}
	return false
}

// explainParams fills prob for a DenyParams: the detail names every
// param at fault, and the member params lists them (name, in, fault,
// detail).
func explainParams(d *scope, prob *problem.Problem) {
	pe, ok := d.Err.(*paramcheck.Error)
	if !ok {
		prob.Detail = fmt.Sprint(d.Err)
		return
	}
	var b strings.Builder
	for i, f := range pe.Faults {
		if i > 0 {
			b.WriteString("; ")
		}
		if f.Param != "" {
			b.WriteString(f.Param + " (" + f.In + ") ")
		}
		b.WriteString(f.Detail)
	}
	prob.Detail = fmt.Sprintf("capability %q is called with params not as declared: %s", d.Capability, b.String())
	prob.Extra["params"] = pe.Faults
}

// readBody buffers the body of s's request within c's BodyLimit and
// gives it back to the handler as sent (reqbody.Buffer): nil for a
// request without one. An unreadable body, or one over the limit (413),
// refuses s (DenyBody), and ok is false.
func readBody(s *scope, c *config.Capability) (body []byte, ok bool) {
	r := s.r
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	limit := resolve.BodyLimit(c)
	b, err := reqbody.Buffer(r, limit)
	switch {
	case err != nil:
		s.Outcome, s.Err = enforce.DenyBody, reqbody.ErrRead
		return nil, false
	case int64(len(b)) > limit:
		s.Outcome, s.Err, s.Status = enforce.DenyBody, reqbody.ErrTooLarge, http.StatusRequestEntityTooLarge
		return nil, false
	}
	return b, true
}
