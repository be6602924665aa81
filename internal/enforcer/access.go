package enforcer

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/override"
	"github.com/agentready/agentready/internal/policy"
)

// access.go is the access stage: the path decision on every reading of
// the canonical target (policy/readings.go lists them).

// errTwoCapabilities is the reason for DenyTarget of a request whose
// readings address two capabilities.
var errTwoCapabilities = &policy.TargetError{Code: "two-capabilities", Reason: "the request's readings (its path as sent, without a trailing slash or a format extension, its method overrides) address two different capabilities"}

// access is the stage that takes the path decision (draft-car 2.6,
// robots.txt precedence) on every reading of the canonical target (see
// the top of this file) and resolves the capability the request
// addresses unless a route binding names one (s.bound). s.rf, when not
// nil, is the router next in line, asked which route the request reaches.
func (e *Enforcer) access(s *scope) bool {
	if s.limitOnly {
		return true
	}
	r, rf := s.r, s.rf
	v := verdict{ci: s.ci, bound: s.bound, purpose: s.class.Purpose, methods: override.NewSet(r.Method),
		rules: !e.implicitAI || s.class.Kind == policy.Declared || s.class.Kind == policy.Known}
	routed := r // the request as the router next in line will see it
	if s.normal != "" && rf != nil && !v.bound {
		routed = withTarget(r, s.normal)
	}
	normal := s.path
	// Most paths have the one reading: without a ';', a '(', a '.' or an
	// escape that decodes to one, no server reads them otherwise
	// (policy.OtherPaths), and one scan spares them the four.
	decodable := policy.HasDecodable(normal)
	var more []string
	if decodable || otherReadable(normal) {
		more = policy.OtherPaths(normal, decodable, e.pathParams)
	}
	var buf [256]byte // most targets fit
	// The one reading stays on the stack (nothing stored through ts
	// reaches it): an allocation less, about 5% of an agent's pipeline
	// (bench/compare). Several readings are on the heap.
	var one [1]string
	one[0] = string(policy.Canonical(buf[:0], normal, r.URL.RawQuery))
	ts := one[:]
	if len(more) > 0 {
		ts = make([]string, 1+len(more))
		ts[0] = string(policy.Canonical(buf[:0], normal, r.URL.RawQuery))
		for i, p := range more {
			ts[i+1] = string(policy.Canonical(buf[:0], p, r.URL.RawQuery))
		}
	}
	for _, t := range ts {
		if len(t) > policy.MaxPathLen {
			// Rules match only the first MaxPathLen bytes; a longer path
			// is not decided on a truncated view.
			s.Outcome, s.Rule = enforce.DenyPath, "paths longer than "+strconv.Itoa(policy.MaxPathLen)+" bytes are closed to agents"
			return false
		}
	}
	e.readAll(routed, ts, rf, &v)
	if v.others {
		// Another capability's endpoint is at one of the paths: a method
		// override may address it, so the overrides are read, and the
		// readings decided again with every method. Elsewhere the rules,
		// which know no method, and the one capability decide alike
		// whatever method the application takes.
		methods := v.methods
		if status, err := override.Read(r, &methods); err != nil {
			s.Outcome, s.Err = enforce.DenyTarget, err
			if status == http.StatusRequestEntityTooLarge {
				s.Outcome = enforce.DenyBody
			}
			return false
		}
		if len(methods.List()) > 1 {
			v = verdict{ci: s.ci, bound: v.bound, purpose: v.purpose, rules: v.rules, methods: methods}
			e.readAll(routed, ts, rf, &v)
		}
	}
	if v.rule != nil {
		s.Rule = e.ruleText(v.rule)
	}
	switch {
	case v.denied:
		s.Outcome = enforce.DenyPath
	case v.pref != "":
		s.Outcome, s.Rule = enforce.DenyPreference, v.pref
	case v.two:
		s.Outcome, s.Err = enforce.DenyTarget, errTwoCapabilities
	default:
		s.ci = v.ci
		return true
	}
	return false
}

// otherReadable reports whether path holds a byte some server reads it
// otherwise by: a ';', a '(' or a '.'. Three vectorised scans cost less
// than strings.ContainsAny, which builds its byte set on every call, or a
// byte loop (1% of an agent's pipeline, bench/compare).
func otherReadable(path string) bool {
	return strings.IndexByte(path, '.') >= 0 || strings.IndexByte(path, ';') >= 0 || strings.IndexByte(path, '(') >= 0
}

// readAll decides every reading of the request r whose canonical targets
// (path and query) are ts.
func (e *Enforcer) readAll(r *http.Request, ts []string, rf routeFinder, v *verdict) {
	for _, t := range ts {
		e.readTarget(e.p, t, v)
	}
	if e.folded != nil {
		for _, t := range ts {
			e.readTarget(e.folded, policy.FoldCase(t), v)
		}
	}
	if rf != nil && !v.bound {
		if _, pattern := rf.Handler(r); pattern != "" {
			for _, m := range v.methods.List() {
				c, others := e.routes.Route(e.p, m, pattern)
				v.others = v.others || others
				if v.two && v.has(c) {
					// The router says which of the readings' capabilities
					// runs: a ServeMux routes /api/export.csv as sent,
					// not without its extension.
					v.ci, v.two = c, false
					continue
				}
				v.route(c)
			}
		}
	}
}

// verdict gathers what the readings of one request decide.
type verdict struct {
	methods override.Set
	purpose policy.Purpose
	rules   bool // the path rules apply to this client (ImplicitAIOnly)
	bound   bool // a route binding names the capability: no routing
	// rule is the first denying rule, else the first allowing one (the
	// target as sent is read first).
	rule   *policy.Rule
	denied bool
	pref   string // a usage preference that refuses the request
	ci     int    // the capability routed, -1 for none
	two    bool   // readings routed two capabilities
	others bool   // another capability's endpoint is at a reading's path
	// more are the capabilities readings routed besides ci (two).
	more  [3]int
	nmore int
}

// route merges capability c (-1: none) into the verdict.
func (v *verdict) route(c int) {
	switch {
	case c < 0 || v.has(c):
	case v.ci < 0:
		v.ci = c
	default:
		v.two = true
		if v.nmore < len(v.more) {
			v.more[v.nmore] = c
			v.nmore++
		}
	}
}

// has reports whether a reading routed capability c.
func (v *verdict) has(c int) bool {
	if c >= 0 && c == v.ci {
		return true
	}
	for _, o := range v.more[:v.nmore] {
		if o == c {
			return true
		}
	}
	return false
}

// readTarget decides every reading of the canonical target t (path and
// query) against p's rules and endpoints.
func (e *Enforcer) readTarget(p *policy.Policy, t string, v *verdict) {
	path, query, _ := strings.Cut(t, "?")
	var ends [4]int
	for _, n := range policy.Readings(path, &ends) {
		s := path[:n]
		withQuery := ""
		if n == len(path) {
			withQuery = t
		}
		e.readPath(p, s, query, withQuery, "", v)
		if n == len(path) && p == e.p && e.enforceUsage {
			e.matchUsage(p, t, v)
		}
		if e.folded != nil && p == e.folded && !strings.HasSuffix(s, "/") {
			// A lenient router routes "/x" to a route "/x/" too: the
			// same route, closed only by a rule specific to it
			// (matchAlias).
			e.readPath(p, s+"/", query, "", s, v)
		}
	}
}

// readPath decides one reading s of the path, with the query and without
// it (withQuery is s?query when the caller has it, else "": then it is
// built), against p's rules, and routes it to the capability of each
// method. aliasOf, when not "", is the reading s is a lenient router's
// other spelling of (s is aliasOf+"/"): matchAlias decides it.
func (e *Enforcer) readPath(p *policy.Policy, s, query, withQuery, aliasOf string, v *verdict) {
	match := func(reading, base string) {
		if aliasOf != "" {
			e.matchAlias(p, reading, base, v)
		} else {
			e.matchRules(p, reading, v)
		}
	}
	if query != "" {
		// With its query first: the target as sent names the rule.
		if withQuery == "" {
			withQuery = s + "?" + query
		}
		base := ""
		if aliasOf != "" {
			// Only an alias is decided beside its base: built for it
			// alone, the concatenation costs the common reading nothing.
			base = aliasOf + "?" + query
		}
		match(withQuery, base)
	}
	if query == "" || e.querySensitive {
		match(s, aliasOf)
	}
	if v.bound {
		return
	}
	for _, m := range v.methods.List() {
		c, others := p.RouteOthers(m, s)
		v.route(c)
		v.others = v.others || others
	}
}

// matchAlias decides alias, the route "/x/" a lenient router takes the
// reading base "/x" to. Such a router has one route for both spellings,
// so a rule closes the alias only when it is specific to it: one that
// the rule deciding base itself does not outrank. "Disallow: /admin/"
// still closes /admin (no rule decides /admin), while "Disallow: /" with
// "Allow: /api/search$", or draft-car 2.6's implicit rules, open
// /api/search to a lenient router as to a strict one: the readings never
// refuse what the declaration opens.
func (e *Enforcer) matchAlias(p *policy.Policy, alias, base string, v *verdict) {
	if !v.rules || v.denied {
		return
	}
	rule, ok := p.Rules.Match(alias)
	if !ok {
		return
	}
	if rule.Allow {
		if v.rule == nil {
			v.rule = rule
		}
		return
	}
	if own, ok := p.Rules.Match(base); ok && own.Allow && own.Outranks(rule) {
		return // the same route, opened by a rule that outranks this one
	}
	v.rule, v.denied = rule, true
}

// matchRules matches one reading (a path, with or without its query)
// against p's path rules.
func (e *Enforcer) matchRules(p *policy.Policy, s string, v *verdict) {
	if v.rules && !v.denied {
		if rule, ok := p.Rules.Match(s); ok {
			if !rule.Allow {
				v.rule, v.denied = rule, true
			} else if v.rule == nil {
				v.rule = rule
			}
		}
	}
}

// matchUsage refuses a crawler whose purpose the usage preference of the
// target t denies (config.Usage.Enforce), an agent of unknown purpose as
// the purpose the preference holds it to. Preferences are matched on the
// target as sent, escaped and unescaped, the readings the Content-Usage
// header is matched on (setContentUsage), so that the header says what
// the crawler is held to; they say what may be done with content, and do
// not close paths, which the Access rules do.
func (e *Enforcer) matchUsage(p *policy.Policy, t string, v *verdict) {
	if v.pref == "" && v.purpose != policy.UserAgent {
		if pref, denied := p.Usage.Match(t).Denies(v.purpose); denied {
			v.pref = pref
		}
	}
}

// routeFinder is a router that says which route a request reaches without
// serving it: *http.ServeMux (its Handler method returns the pattern, Go
// 1.22 syntax). Wrap asks the handler it wraps, when it is one, so that a
// capability whose endpoint is a route holds on every request that
// reaches the route, whatever spelling of the path got it there.
type routeFinder interface {
	Handler(r *http.Request) (h http.Handler, pattern string)
}
