package enforcer

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/fields"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/ratelimit"
)

// limiter counts requests against the declared rate limits.
type limiter struct {
	store ratelimit.Store
	// keyFn and byAgent choose whose buckets a request draws from
	// (Config.Key, Config.ByAgent); by default its client network's.
	keyFn   enforce.KeyFunc
	byAgent bool
	// sets holds the limits of every (agent policy, capability) pair, at
	// (agent+1)*(capabilities+1) + capability+1 (-1: none); ownSets, per
	// capability, its own limit alone, for a route binding behind Wrap,
	// which counted the others.
	sets, ownSets []limitSet
	nc            int // capabilities + 1: the stride of sets
	// toolSets holds the limits of every (agent policy, tool) pair, at
	// (agent+1)*nt + the tool's place among every capability's tools,
	// which for capability ci start at toolBase[ci]; ownToolSets, per
	// tool, its capability's own limit and its own.
	toolSets, ownToolSets []limitSet
	toolBase              []int
	nt                    int
}

// limitSet is what New works out once for one (agent policy, capability)
// pair: its limits and the RateLimit headers that describe them.
type limitSet struct {
	policy    []string              // RateLimit-Policy value
	rateLimit fields.RateLimitField // renders its RateLimit values
	// limits are the pair's limits (see declare), n of them, with
	// an empty Key for limits to fill per request, and their declarations.
	limits [4]ratelimit.Limit
	decls  [4]string
	n      int
	agent  string // the agent policy's name, "" for none
	// perCall are the limits that a batch of tool calls draws from once a
	// call (the capability's and the tool's), as bits by index.
	perCall uint8
}

// newLimiter works out the limit sets of every pair of p.
func newLimiter(p *policy.Policy, store ratelimit.Store, key enforce.KeyFunc, byAgent bool) (limiter, []error) {
	var errs []error
	l := limiter{store: store, keyFn: key, byAgent: byAgent, nc: len(p.Capabilities) + 1}
	l.sets = make([]limitSet, (len(p.Agents)+1)*l.nc)
	for ai := -1; ai < len(p.Agents); ai++ {
		for ci := -1; ci < len(p.Capabilities); ci++ {
			s := &l.sets[(ai+1)*l.nc+ci+1]
			if ai >= 0 {
				s.agent = p.Agents[ai].Name
			}
			errs = s.declare(p, ai, ci, -1, false, errs)
		}
	}
	l.ownSets = make([]limitSet, len(p.Capabilities))
	for ci := range p.Capabilities {
		errs = l.ownSets[ci].declare(p, -1, ci, -1, true, errs)
	}
	l.toolBase = make([]int, len(p.Capabilities))
	for ci := range p.Capabilities {
		l.toolBase[ci] = l.nt
		l.nt += len(p.Capabilities[ci].Tools)
	}
	l.toolSets = make([]limitSet, (len(p.Agents)+1)*l.nt)
	l.ownToolSets = make([]limitSet, l.nt)
	for ci := range p.Capabilities {
		for ti := range p.Capabilities[ci].Tools {
			t := l.toolBase[ci] + ti
			for ai := -1; ai < len(p.Agents); ai++ {
				s := &l.toolSets[(ai+1)*l.nt+t]
				if ai >= 0 {
					s.agent = p.Agents[ai].Name
				}
				errs = s.declare(p, ai, ci, ti, false, errs)
			}
			errs = l.ownToolSets[t].declare(p, -1, ci, ti, true, errs)
		}
	}
	return l, errs
}

// declare fills s with the limits a request of agent policy ai,
// capability ci and its tool ti (-1 for none) draws from, in order site,
// agent, capability, tool (own: the capability's and the tool's alone),
// with an empty Key, and renders their RateLimit fields; it appends a
// limit's problem to errs.
func (s *limitSet) declare(p *policy.Policy, ai, ci, ti int, own bool, errs []error) []error {
	add := func(l policy.Limit, perCall bool) {
		if !l.IsZero() {
			if perCall {
				s.perCall |= 1 << s.n
			}
			s.limits[s.n], s.decls[s.n] = ratelimit.Limit{Name: l.Name, Rate: l.Rate, Period: l.Period, Cost: l.Cost}, l.Decl
			s.n++
		}
	}
	if !own {
		add(p.SiteLimit, false)
		if ai >= 0 {
			add(p.Agents[ai].Limit, false)
		}
	}
	if ci >= 0 {
		add(p.Capabilities[ci].Limit, true)
	}
	if ti >= 0 {
		add(p.Capabilities[ci].Tools[ti].Limit, true)
	}
	if s.n == 0 {
		return errs
	}
	v, err := fields.PolicyHeader(s.limits[:s.n])
	if err != nil {
		return append(errs, err)
	}
	s.policy, s.rateLimit = []string{v}, fields.NewRateLimitField(s.limits[:s.n])
	return errs
}

// set is the limit set of agent policy ai and capability ci (-1 for none).
func (l *limiter) set(ai, ci int) *limitSet { return &l.sets[(ai+1)*l.nc+ci+1] }

// fill copies into s the limits of agent policy ai and capability ci, and
// of the tool s.mcp.ti of a tools/call (own: the capability's own limit and
// the tool's alone) and sets their Key: the client's,
// partitioned by agent policy (two agents behind one address do not share
// buckets), or the agent policy alone with ByAgent. One Key means one
// bucket group in the store: one lookup in memory, one hash slot in Redis.
func (l *limiter) fill(s *scope, ai, ci int, own bool) {
	set := l.set(ai, ci)
	k := l.key(set, s.client)
	switch {
	case s.mcp.ti >= 0 && own:
		set = &l.ownToolSets[l.toolBase[ci]+s.mcp.ti]
	case s.mcp.ti >= 0:
		set = &l.toolSets[(ai+1)*l.nt+l.toolBase[ci]+s.mcp.ti]
	case own:
		set = &l.ownSets[ci]
	}
	s.n, s.set, s.key = set.n, set, k
	for i := range set.n {
		s.Limits[i] = set.limits[i].Name
	}
}

// keyed is d's limits with their Key: built where the store is asked, so
// that the scope each request zeroes stays small.
func (d *scope) keyed() (ls [4]ratelimit.Limit) {
	for i := range d.n {
		ls[i] = d.set.limits[i]
		ls[i].Key = d.key
		if d.mcp.calls > 1 && d.set.perCall&(1<<i) != 0 {
			ls[i].Cost = max(ls[i].Cost, 1) * d.mcp.calls // within Rate: tool.go
		}
	}
	return ls
}

// key is the bucket Key of a request of client under limit set s.
func (l *limiter) key(s *limitSet, client ratelimit.Key) ratelimit.Key {
	if l.byAgent {
		return ratelimit.Key{ID: s.agent}
	}
	if client.ID == "" {
		client.ID = s.agent
	}
	return client
}

// count asks the store for a token of each of d's limits, with ctx.
func (l *limiter) count(ctx context.Context, d *scope) error {
	var err error
	ls := d.keyed()
	if ms, ok := l.store.(*ratelimit.MemoryStore); ok {
		// Called directly, the built-in store keeps d on the caller's
		// stack; slices passed through the Store interface escape, and
		// the Decision with them (an allocation of ~900 bytes and its
		// garbage on every agent request: a third of the pipeline,
		// bench/compare BenchmarkPipeline).
		err = ms.Allow(ctx, ls[:d.n], d.Results[:d.n])
	} else {
		limits := slices.Clone(ls[:d.n])
		res := make([]ratelimit.Result, d.n)
		err = l.store.Allow(ctx, limits, res)
		copy(d.Results[:], res)
	}
	if err != nil && errors.Is(err, ratelimit.ErrDegraded) {
		// A Failover's failure policy answered: the results are valid.
		d.Degraded, d.Err = true, err
		return nil
	}
	return err
}

// peek fills d's results with what the store would answer, without
// consuming anything (Explain), and reports whether it could.
func (l *limiter) peek(r *http.Request, d *scope) bool {
	pk, ok := l.store.(ratelimit.Peeker)
	if !ok {
		return false
	}
	res := make([]ratelimit.Result, d.n) // through an interface: see count
	ls := d.keyed()
	if pk.Peek(r.Context(), slices.Clone(ls[:d.n]), res) != nil {
		return false
	}
	copy(d.Results[:], res)
	return true
}

// limits is the stage of the declared rate limits (draft-car 4.3: servers
// MUST enforce them): a token of each limit that applies, all of which
// must pass; Explain only peeks. A binding behind Wrap (own) counts its
// capability's own limit, keyed as Wrap keyed the others. Allowed or not,
// s carries the RateLimit headers' parts.
func (e *Enforcer) limits(s *scope) bool {
	r := s.r
	if !s.own {
		var client ratelimit.Key
		if e.lim.keyFn != nil {
			if id, ok := e.lim.keyFn(r); ok {
				client.ID = id
			}
		}
		if client.ID == "" && !e.lim.byAgent {
			client = ratelimit.Key{Net: clientip.Key(e.clientAddr(s))}
		}
		s.client = client
	}
	if s.limitOnly {
		s.Rule = enforce.RuleSessionEndpoint
	}
	e.lim.fill(s, s.ai, s.ci, s.own || s.call)
	s.Outcome = enforce.Allow
	if s.n == 0 {
		return true
	}
	if s.explain {
		// What the limits would answer, when the store can say.
		if !e.lim.peek(r, s) {
			return true
		}
	} else if err := e.lim.count(e.prefetch(s), s); err != nil {
		s.Outcome, s.Err = enforce.StoreError, err
		return false
	}
	res := s.Results[:s.n]
	if !ratelimit.Allowed(res) {
		s.Outcome = enforce.DenyRate
		s.RetryAfter = maxRetryAfter(res)
		for i := range res {
			if !res[i].Allowed {
				s.Limit = s.set.limits[i].Name
				s.Rule = "Rate-Limit: " + s.set.decls[i]
				break
			}
		}
		return false
	}
	return true
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
