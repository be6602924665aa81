package verifier

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/verify"
)

// rdnsChecker is the provider of reverse DNS proofs; it checks
// forward-confirmed reverse DNS: the address's PTR names
// are looked up, and a name counts only if it is in one of the operator's
// domains and its own A/AAAA records hold the address (a PTR record is
// the address owner's to write; the forward lookup is the domain
// owner's). Answers are cached, lookups run at most Concurrency at a time
// with a Timeout each, and a request waits at most Budget for one: a
// lookup that takes longer goes on in the background, fills the cache for
// the next request, and this one is answered ErrUnavailable.
type rdnsChecker struct {
	resolver    verify.Resolver
	timeout     time.Duration
	budget      time.Duration
	ttl, negTTL time.Duration
	max         int
	now         func() time.Time
	sem         chan struct{}

	mu       sync.Mutex
	cache    map[netip.Addr]*rdnsEntry
	inflight map[netip.Addr]chan struct{}
}

// rdnsEntry is a finished lookup: the forward-confirmed names of an
// address (lower case, without the final dot), or the error that ended it.
type rdnsEntry struct {
	names   []string
	err     error
	expires time.Time
}

func newReverseDNS(o *verify.Options) *rdnsChecker {
	return &rdnsChecker{
		resolver: o.Resolver, timeout: o.DNSTimeout, budget: o.DNSBudget,
		ttl: time.Hour, negTTL: 5 * time.Minute, max: o.DNSCacheSize, now: o.Now,
		sem:   make(chan struct{}, o.DNSConcurrency),
		cache: map[netip.Addr]*rdnsEntry{}, inflight: map[netip.Addr]chan struct{}{},
	}
}

// Check returns the forward-confirmed name of a that is in one of domains,
// and that domain
// (matched on label boundaries: "googlebot.com" admits
// "crawl-66-249-66-1.googlebot.com", never "evilgooglebot.com"). The error
// wraps ErrFailed when no such name exists and ErrUnavailable when DNS did
// not answer in time.
func (d *rdnsChecker) Check(ctx context.Context, a netip.Addr, domains []string) (name, domain string, err error) {
	a = a.Unmap()
	e, err := d.lookup(ctx, a)
	if err != nil {
		return "", "", err
	}
	for _, n := range e.names {
		for _, dom := range domains {
			if inDomain(n, dom) {
				return n, dom, nil
			}
		}
	}
	if e.err != nil && len(e.names) == 0 && !isNotFound(e.err) {
		return "", "", fmt.Errorf("%w: reverse DNS of %s: %v", verify.ErrUnavailable, a, e.err)
	}
	return "", "", fmt.Errorf("%w: no forward-confirmed reverse DNS name of %s is in %s", verify.ErrFailed, a, strings.Join(domains, ", "))
}

// lookup returns the cached entry for a, or starts a lookup and waits for
// it at most the budget.
func (d *rdnsChecker) lookup(ctx context.Context, a netip.Addr) (*rdnsEntry, error) {
	d.mu.Lock()
	if e, ok := d.cache[a]; ok && d.now().Before(e.expires) {
		d.mu.Unlock()
		return e, nil
	}
	done, running := d.inflight[a]
	if !running {
		select {
		case d.sem <- struct{}{}:
		default:
			d.mu.Unlock()
			return nil, fmt.Errorf("%w: reverse DNS of %s: %d lookups already running", verify.ErrUnavailable, a, cap(d.sem))
		}
		done = make(chan struct{})
		d.inflight[a] = done
		go d.resolve(a, done)
	}
	d.mu.Unlock()
	if d.budget < 0 {
		return nil, fmt.Errorf("%w: reverse DNS of %s is not cached (no budget to wait)", verify.ErrUnavailable, a)
	}
	t := time.NewTimer(d.budget)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return nil, fmt.Errorf("%w: reverse DNS of %s took longer than %v", verify.ErrUnavailable, a, d.budget)
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %v", verify.ErrUnavailable, ctx.Err())
	}
	d.mu.Lock()
	e := d.cache[a]
	d.mu.Unlock()
	if e == nil {
		return nil, fmt.Errorf("%w: reverse DNS of %s", verify.ErrUnavailable, a)
	}
	return e, nil
}

// resolve looks a up in the background, on a context of its own (the
// request that started it may be gone), and caches the answer.
func (d *rdnsChecker) resolve(a netip.Addr, done chan struct{}) {
	defer func() { <-d.sem }()
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	e := &rdnsEntry{}
	ptrs, err := d.resolver.LookupAddr(ctx, a.String())
	e.err = err
	for _, p := range ptrs {
		name := strings.ToLower(strings.TrimSuffix(p, "."))
		addrs, err := d.resolver.LookupNetIP(ctx, "ip", name)
		if err != nil {
			e.err = err
			continue
		}
		for _, b := range addrs {
			if b.Unmap() == a {
				e.names = append(e.names, name)
				break
			}
		}
	}
	ttl := d.ttl
	switch {
	case len(e.names) > 0:
	case e.err != nil && !isNotFound(e.err):
		ttl = d.negTTL / 10 // DNS did not answer: ask again soon
	default:
		ttl = d.negTTL
	}
	e.expires = d.now().Add(ttl)
	d.mu.Lock()
	if len(d.cache) >= d.max {
		// Drop the expired entries; if none is, drop any: the cache
		// bounds memory, not correctness.
		now := d.now()
		for k, v := range d.cache {
			if now.After(v.expires) {
				delete(d.cache, k)
			}
		}
		for k := range d.cache {
			if len(d.cache) < d.max {
				break
			}
			delete(d.cache, k)
		}
	}
	d.cache[a] = e
	delete(d.inflight, a)
	d.mu.Unlock()
	close(done)
}

// inDomain reports whether name is dom or a name under it.
func inDomain(name, dom string) bool {
	dom = strings.ToLower(strings.Trim(dom, "."))
	return name == dom || (strings.HasSuffix(name, dom) && name[len(name)-len(dom)-1] == '.')
}

// isNotFound reports an NXDOMAIN or an empty answer: DNS answered, and
// there is no such name.
func isNotFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

func (*rdnsChecker) method() string                             { return config.VerifyReverseDNS }
func (*rdnsChecker) field() string                              { return "ReverseDNS" }
func (*rdnsChecker) configured(v *config.Verification) []string { return v.ReverseDNS }
func (*rdnsChecker) ready() error                               { return nil }
func (*rdnsChecker) refreshers() []refresher                    { return nil }

func (d *rdnsChecker) bind(_ string, names []string, at string, users func(string) int) ([]source, []error) {
	var errs []error
	s := &rdnsSource{checker: d, users: users}
	for _, raw := range names {
		dom, ok := httpsyntax.DomainName(raw)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %q is not a domain name with at least two labels", at, raw))
			continue
		}
		s.domains = append(s.domains, dom)
	}
	if len(s.domains) == 0 {
		return nil, errs
	}
	return []source{s}, errs
}

// rdnsSource proves a claim by a forward-confirmed name in its domains.
type rdnsSource struct {
	checker *rdnsChecker
	domains []string
	users   func(string) int // agents using a domain: several, and it proves their operator
}

func (s *rdnsSource) check(ctx context.Context, q query) answer {
	host, domain, err := s.checker.Check(ctx, q.client, s.domains)
	switch {
	case err == nil:
		return answer{verdict: proven, method: verify.ReverseDNS, source: host, names: s.users(domain) <= 1}
	case errors.Is(err, verify.ErrUnavailable):
		// The client runs its own reverse zone and can make it slow:
		// weak (decide, rule 3).
		return answer{verdict: unknown, err: err, weak: true}
	}
	return answer{verdict: disproven, err: err}
}
