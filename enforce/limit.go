package enforce

import (
	"fmt"
	"net/http"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/ratelimit"
)

// agentIndex is the declared agent policy that applies to class c: the
// policy its User-Agent names, else the "*" policy; -1 when neither exists.
func (e *Enforcer) agentIndex(c policy.Class) int {
	p := e.p
	if c.Kind == policy.Declared && c.Policy >= 0 && c.Policy < len(p.Agents) {
		return c.Policy
	}
	return p.Default
}

// setAgent records in d the declared agent policy that applies to its
// class and returns its index (-1 for none).
func (e *Enforcer) setAgent(d *Decision) int {
	ai := e.agentIndex(d.Class)
	if ai >= 0 {
		d.Agent = e.p.Agents[ai].Name
		d.agent1 = ai + 1
	}
	return ai
}

// peek fills d's results with what the store would answer, without
// consuming anything (Explain), and reports whether it could. The slices
// go through the pool, as in allow: passed through an interface, d's own
// would escape on every request.
func (e *Enforcer) peek(r *http.Request, d *Decision) bool {
	pk, ok := e.store.(ratelimit.Peeker)
	if !ok {
		return false
	}
	sc := e.scratchPool.Get().(*scratch)
	defer e.scratchPool.Put(sc)
	sc.limits = d.limits
	if pk.Peek(r.Context(), sc.limits[:d.n], sc.results[:d.n]) != nil {
		return false
	}
	d.results = sc.results
	return true
}

// rateLimit finishes d for a request of agent policy ai and capability ci
// (-1 for none) that nothing else denied: it finds the limits that apply
// (draft-car 4.3: servers MUST enforce them), and with consume asks the
// store for a token of each; all must pass. Without consume (Explain) it
// lists them only. Allowed or not, d carries the RateLimit headers' parts.
func (e *Enforcer) rateLimit(r *http.Request, ai, ci int, consume bool, d *Decision) {
	p := e.p
	var client ratelimit.Key
	if e.key != nil {
		if id, ok := e.key(r); ok {
			client.ID = id
		}
	}
	// client.ID == "" is client == Key{} here (Net is not set yet),
	// without a call to the struct's generated equality.
	if client.ID == "" && !e.byAgent {
		client = ratelimit.Key{Net: clientKey(e.ip.Addr(r))}
	}
	d.client = client
	n := e.limits(&d.limits, ai, ci, client)
	d.n = n
	for i := range n {
		d.Limits[i] = d.limits[i].Name
	}
	d.Outcome = Allow
	if n == 0 {
		return
	}
	cb := &e.combos[(ai+1)*(len(p.Capabilities)+1)+ci+1]
	d.header, d.rateLimit = cb.policy, cb.rateLimit
	if !consume {
		// Explain: what the limits would answer, when the store can say.
		if !e.peek(r, d) {
			return
		}
	} else if err := e.allow(r, d); err != nil {
		d.Outcome, d.Err = StoreError, err
		return
	}
	if !ratelimit.Allowed(d.results[:n]) {
		d.Outcome = DenyRate
		d.RetryAfter = maxRetryAfter(d.results[:n])
		for i := range n {
			if !d.results[i].Allowed {
				d.Limit = d.limits[i].Name
				d.Rule = "Rate-Limit: " + rateDecl(p, d.Limit)
				break
			}
		}
	}
}

// newLimit builds the Limit of a declared rate under a policy name, with an
// empty Key for the caller to fill per request. It reports an invalid name
// or rate; a zero rate (no limit declared) is an error too, since it cannot
// be enforced: callers skip it.
func newLimit(name string, r config.Rate) (ratelimit.Limit, error) {
	if err := validPolicyName(name); err != nil {
		return ratelimit.Limit{}, err
	}
	if r.IsZero() {
		return ratelimit.Limit{}, fmt.Errorf("%w: %q: no rate declared", ratelimit.ErrInvalidLimit, name)
	}
	if err := r.Validate(); err != nil {
		return ratelimit.Limit{}, fmt.Errorf("%w: %q: %v", ratelimit.ErrInvalidLimit, name, err)
	}
	return ratelimit.Limit{Name: name, Rate: r.Requests, Period: r.Period()}, nil
}

// maxRetryAfter is the time until every limit has a token again: the longest
// RetryAfter. A Retry-After built from it is honest for the whole request.
func maxRetryAfter(res []ratelimit.Result) time.Duration {
	var d time.Duration
	for i := range res {
		d = max(d, res[i].RetryAfter)
	}
	return d
}
