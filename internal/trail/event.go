package trail

import (
	"crypto/rand"
	"net/http"
	"net/url"
	"time"

	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/resolve"
)

// QueryMember is the params member that holds a request's query
// parameters, grouped as url.ParseQuery groups them, when one of them has
// the name of a member of the request's JSON body: both are recorded, the
// body's under their names.
const QueryMember = "$query"

// start fills the event of r in rec.ev: everything but the status. now is
// its timestamp. It reads and records the body; the error is the body
// limit it exceeds, with the status to refuse it with, in which case the
// event records no body.
func (rec *recording) start(r *http.Request, d *enforce.Decision, now time.Time) (int, error) {
	t, ev := rec.t, &rec.ev
	limit := int64(resolve.DefaultBodyLimit)
	if ci := t.capIndex(d); ci >= 0 {
		limit = resolve.BodyLimit(t.p.Capabilities[ci].Decl)
	}
	rec.query = queryMembers(r.URL.RawQuery)
	var status int
	var err error
	if d.Outcome == enforce.Allow || d.ReportOnly {
		// Only what will act is read and recorded: a denied request's body
		// reaches no handler, and recording it would let any agent with a
		// session store a megabyte a refused request.
		rec.body, rec.bodyLen, status, err = readBody(r, limit)
	}
	rec.target = t.targetOf(r, d)
	// The store records the target, redacted by its Redactor
	// (audit.Prepare).
	ev.Params, ev.Target = rec.params(), &rec.target
	ev.EventID, ev.Timestamp = rand.Text(), audit.FormatTime(now)
	ev.Capability, ev.Method = d.Capability, r.Method
	if d.Tool != "" {
		// A tools/call is recorded as the tool it calls, as an agent
		// policy grants it; its arguments are in the params, redacted as
		// any body's (docs/mcp.md).
		ev.Capability += "/" + d.Tool
	}
	ev.PolicyResult = audit.PolicyResult{Decision: audit.Deny, Rule: d.Rule}
	if ev.Capability == "" {
		// Not a declared capability: the audit log names the path called,
		// as a label no Redactor reads (pathLabel); the target records
		// the path as sent.
		ev.Capability = pathLabel(rec.target.Path, rec.target.PathParams)
	}
	if d.Outcome == enforce.Allow || d.ReportOnly {
		// A report-only denial is served: the trail records what happened.
		ev.PolicyResult.Decision = audit.Allow
	}
	return status, err
}

// queryMembers groups the parameters of a raw query as url.ParseQuery
// reads them: a string, or for a repeated name an array of its strings
// in order; nil for none. The query is recorded as sent in the target, so
// a parameter of the target's reserved name loses nothing by leaving the
// members.
func queryMembers(raw string) map[string]any {
	vals, _ := url.ParseQuery(raw) // pairs that do not parse are skipped, as ParseQuery skips them
	delete(vals, auditparams.TargetMember)
	if len(vals) == 0 {
		return nil
	}
	m := make(map[string]any, len(vals))
	for k, vs := range vals {
		if len(vs) == 1 {
			m[k] = vs[0]
			continue
		}
		a := make([]any, len(vs))
		for i, v := range vs {
			a[i] = v
		}
		m[k] = a
	}
	return m
}

// params are the event's params: the body's members, and the query's
// beside them, or under QueryMember when one has the name of a body
// member (the handler may read either, so the trail keeps both).
func (rec *recording) params() map[string]any {
	if len(rec.query) == 0 {
		return rec.body
	}
	if len(rec.body) == 0 {
		return copyMap(rec.query)
	}
	out := copyMap(rec.body)
	for k := range rec.query {
		if _, ok := rec.body[k]; ok {
			out[QueryMember] = copyMap(rec.query)
			return out
		}
	}
	for k, v := range rec.query {
		out[k] = v
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// targetOf is what r targeted: its path and query as sent, and the
// declared path and header params of the capability d resolved. A path
// param is recorded by the segment that holds it on some reading of the
// path (paramTags); for a request of no capability, the params of every
// capability whose template a reading of the path has are, so that the
// store's Redactor hides a sensitive one whatever the decision.
func (t *Trail) targetOf(r *http.Request, d *enforce.Decision) auditparams.Target {
	tg := auditparams.Target{Path: r.URL.EscapedPath(), Query: r.URL.RawQuery}
	ci := t.capIndex(d)
	segs := readSegments(tg.Path)
	if ci < 0 {
		for i := range t.p.Capabilities {
			tg.PathParams = segs.paramTags(tg.PathParams, &t.p.Capabilities[i])
		}
		return tg
	}
	c := &t.p.Capabilities[ci]
	tg.PathParams = segs.paramTags(nil, c)
	for i := range c.Decl.Params {
		if p := &c.Decl.Params[i]; p.In == config.InHeader {
			for _, v := range r.Header.Values(p.Name) {
				tg.Headers = append(tg.Headers, auditparams.Header{Name: p.Name, Value: v})
			}
		}
	}
	return tg
}
