package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"

	"go4.org/netipx"
)

// MaxRangesBytes bounds the size of an IP range list: the largest the
// operators publish (Google's) are a few tens of kilobytes.
const MaxRangesBytes = 4 << 20

// DefaultRangesMaxAge is how long a loaded range list is relied on without
// a successful refresh: past it, the list is stale and the claims it would
// check fall back to the "*" policy.
const DefaultRangesMaxAge = 7 * 24 * time.Hour

// A JAFAR Prefix Object may say which service it is used by: "service",
// a publisher-defined, case-sensitive string such as "Bingbot" or
// "AdsBot-Google" (draft-illyes-aipref-jafar-01 2.3, Table 2), which the
// Web Bot Auth registry draft points to for an agent's ips_uri
// (draft-meunier-webbotauth-registry-04 3.2.10). Its webbotauth revision
// (draft-illyes-webbotauth-jafar-00) is read by implementations as
// "services", an array of such strings; both spellings are accepted here,
// and a prefix naming several services serves each. Names are matched
// without regard to case, as robots.txt product tokens are (RFC 9309
// 2.2.1), since what a request is checked against is the product token its
// User-Agent claims. A prefix naming no service is read as the list has
// always been read: it serves the operator, whichever of its agents.

// maxServiceLen bounds a service name: product tokens are short; a longer
// string is not one.
const maxServiceLen = 256

// jafarPrefix is one Prefix Object.
type jafarPrefix struct {
	IPv4     string          `json:"ipv4Prefix"`
	IPv6     string          `json:"ipv6Prefix"`
	Service  json.RawMessage `json:"service"`
	Services json.RawMessage `json:"services"`
}

// parseRanges parses a range list into the set of its prefixes and, when
// any prefix names a service, the index ContainsFor looks them up in.
func parseRanges(body []byte) (*rangeSet, string, error) {
	var doc struct {
		CreationTime string        `json:"creationTime"`
		Prefixes     []jafarPrefix `json:"prefixes"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, "", fmt.Errorf("verify: range list: %w", err)
	}
	var b netipx.IPSetBuilder
	var entries []svcEntry
	named := false
	for i, p := range doc.Prefixes {
		s, want4 := p.IPv4, true
		if s == "" {
			s, want4 = p.IPv6, false
		}
		if (p.IPv4 != "") == (p.IPv6 != "") {
			return nil, "", fmt.Errorf("verify: range list: prefixes[%d] holds not exactly one of ipv4Prefix and ipv6Prefix", i)
		}
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, "", fmt.Errorf("verify: range list: prefixes[%d]: %w", i, err)
		}
		if pfx.Addr().Is4() != want4 || pfx.Addr().Zone() != "" {
			return nil, "", fmt.Errorf("verify: range list: prefixes[%d]: %q is not an %s prefix", i, s, map[bool]string{true: "IPv4", false: "IPv6"}[want4])
		}
		svcs, err := prefixServices(p)
		if err != nil {
			return nil, "", fmt.Errorf("verify: range list: prefixes[%d]: %w", i, err)
		}
		named = named || len(svcs) > 0
		b.AddPrefix(pfx.Masked())
		entries = append(entries, svcEntry{pfx: pfx.Masked(), services: svcs})
	}
	if len(entries) == 0 {
		return nil, "", errors.New("verify: range list: no prefixes")
	}
	set, err := b.IPSet()
	if err != nil {
		return nil, "", fmt.Errorf("verify: range list: %w", err)
	}
	rs := &rangeSet{set: set}
	if named {
		rs.svc = newSvcIndex(entries)
	}
	return rs, doc.CreationTime, nil
}

// prefixServices reads a Prefix Object's "service" (a string) and
// "services" (an array of strings), lower-cased, without duplicates. A
// value of another type, or an empty or overlong name, is an error, as any
// malformed prefix is: a list half understood is not relied on.
func prefixServices(p jafarPrefix) ([]string, error) {
	var names []string
	if len(p.Service) > 0 && string(p.Service) != "null" {
		var one string
		if err := json.Unmarshal(p.Service, &one); err != nil {
			return nil, errors.New(`"service" is not a string`)
		}
		names = append(names, one)
	}
	if len(p.Services) > 0 && string(p.Services) != "null" {
		var many []string
		if err := json.Unmarshal(p.Services, &many); err != nil {
			return nil, errors.New(`"services" is not an array of strings`)
		}
		names = append(names, many...)
	}
	out := names[:0]
	for _, n := range names {
		if n == "" || len(n) > maxServiceLen || strings.TrimSpace(n) != n {
			return nil, fmt.Errorf("service %q is not a service name", n)
		}
		n = strings.ToLower(n)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// svcEntry is one prefix and the services it names (none: any).
type svcEntry struct {
	pfx      netip.Prefix
	services []string // lower case; nil when the prefix names none
}

// svcIndex finds the most specific prefix holding an address: JAFAR lets
// prefixes overlap, a broad one with a generic service and a narrower one
// inside it with a more specific service, and a consumer SHOULD use the
// most specific (draft-illyes-aipref-jafar-01 3.3). Prefixes are kept by
// length, so that a lookup masks the address once per length the list
// uses (a handful) and reads a map, without allocating.
type svcIndex struct {
	lens4, lens6 []int // prefix lengths present, longest first
	byPrefix     map[netip.Prefix]svcEntry
}

func newSvcIndex(entries []svcEntry) *svcIndex {
	x := &svcIndex{byPrefix: make(map[netip.Prefix]svcEntry, len(entries))}
	for _, e := range entries {
		if old, dup := x.byPrefix[e.pfx]; dup {
			// The same prefix listed twice serves what both say; listed
			// once without a service, it serves any.
			if old.services == nil || e.services == nil {
				e.services = nil
			} else {
				for _, s := range old.services {
					if !slices.Contains(e.services, s) {
						e.services = append(e.services, s)
					}
				}
			}
		} else if e.pfx.Addr().Is4() {
			x.lens4 = append(x.lens4, e.pfx.Bits())
		} else {
			x.lens6 = append(x.lens6, e.pfx.Bits())
		}
		x.byPrefix[e.pfx] = e
	}
	for _, l := range []*[]int{&x.lens4, &x.lens6} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
		slices.Reverse(*l)
	}
	return x
}

// lookup returns the most specific prefix holding a (unmapped).
func (x *svcIndex) lookup(a netip.Addr) (svcEntry, bool) {
	lens := x.lens6
	if a.Is4() {
		lens = x.lens4
	}
	for _, bits := range lens {
		p, err := a.Prefix(bits)
		if err != nil {
			continue
		}
		if e, ok := x.byPrefix[p]; ok {
			return e, true
		}
	}
	return svcEntry{}, false
}

// rangeList is one published IP range list, loaded from its URL by Load and
// refreshed by Run, never on the request path: a request only reads the
// list loaded last. A list that was never loaded, or whose last successful
// load is older than its maximum age, is stale: Contains then answers
// ErrUnavailable, and the claims it checks fall back to "*". A failed
// refresh keeps the last good list serving until it is stale.
type rangeList struct {
	url     string
	fetcher *fetcher
	maxAge  time.Duration
	every   time.Duration
	log     *slog.Logger
	shared  bool // other agents use the list too: it proves their operator

	cur   atomic.Pointer[rangeSet]
	mu    sync.Mutex // serialises loads and the staleness timer
	timer *time.Timer
	st    RangesStatus
}

type rangeSet struct {
	set   *netipx.IPSet
	svc   *svcIndex // nil when no prefix names a service
	stale atomic.Bool
}

// RangesStatus is what a Ranges last did, for logs and health checks.
type RangesStatus struct {
	URL          string
	CreationTime string    // as the list says
	Loaded       time.Time // last successful load, zero if none
	Prefixes     int       // prefixes in the list loaded last
	Stale        bool
	Err          error // the last load's error, nil after a success
}

// Contains reports whether a is in the list. It answers ErrUnavailable
// when the list is stale (never loaded, or not refreshed within its
// maximum age). It does not allocate.
func (r *rangeList) Contains(a netip.Addr) (bool, error) {
	s := r.cur.Load()
	if s == nil || s.stale.Load() {
		return false, fmt.Errorf("%w: the IP range list %s is not loaded or older than %v", verify.ErrUnavailable, r.url, r.maxAge)
	}
	return s.set.Contains(a.Unmap()), nil
}

// ContainsFor reports whether a is in the list for agent, a product token:
// in when the most specific prefix holding a (draft-illyes-aipref-jafar-01
// 3.3) serves agent, compared without regard to case, or names no service;
// named when that prefix names agent itself, so that the address proves
// the agent and not only its operator. An address in a prefix that names
// other services only is not in the list for agent: the operator said
// which of its agents uses it. It answers ErrUnavailable as Contains does,
// and does not allocate.
func (r *rangeList) ContainsFor(a netip.Addr, agent string) (in, named bool, err error) {
	s := r.cur.Load()
	if s == nil || s.stale.Load() {
		return false, false, fmt.Errorf("%w: the IP range list %s is not loaded or older than %v", verify.ErrUnavailable, r.url, r.maxAge)
	}
	a = a.Unmap()
	if s.svc == nil {
		return s.set.Contains(a), false, nil
	}
	e, ok := s.svc.lookup(a)
	if !ok {
		return false, false, nil
	}
	if e.services == nil {
		return true, false, nil
	}
	for _, svc := range e.services {
		if strings.EqualFold(svc, agent) {
			return true, true, nil
		}
	}
	return false, false, nil
}

// Load fetches the list now. On failure the last good list keeps serving
// (until it is stale) and the error is returned and kept in Status.
func (r *rangeList) Load(ctx context.Context) error {
	body, err := r.fetcher.get(ctx, r.url, "application/json")
	var rs *rangeSet
	var created string
	if err == nil {
		rs, created, err = parseRanges(body)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.Err = err
	if err != nil {
		r.log.Warn("agentready: loading an IP range list failed; the last good copy keeps serving until it is stale",
			"url", r.url, "err", err, "loaded", r.st.Loaded)
		return err
	}
	r.cur.Store(rs)
	r.st.CreationTime, r.st.Loaded, r.st.Prefixes = created, r.fetcher.now(), len(rs.set.Prefixes())
	// The list goes stale maxAge from now unless a later load replaces it:
	// marked by a timer, so that Contains reads no clock.
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(r.maxAge, func() { rs.stale.Store(true) })
	return nil
}

// Status reports the list's state.
func (r *rangeList) Status() RangesStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.st
	st.URL = r.url
	s := r.cur.Load()
	st.Stale = s == nil || s.stale.Load()
	return st
}

// Run loads the list at once and then every refresh interval, until ctx is
// done.
func (r *rangeList) Run(ctx context.Context) {
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		_ = r.Load(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// rangeLists is the provider of IP range proofs: each list is a source
// of every claim that names it, fetched once.
type rangeLists struct {
	f     *fetcher
	o     *verify.Options
	lists map[string]*rangeList // by URL
}

func (*rangeLists) method() string                             { return config.VerifyIPRange }
func (*rangeLists) field() string                              { return "IPRanges" }
func (*rangeLists) configured(v *config.Verification) []string { return v.IPRanges }
func (*rangeLists) ready() error                               { return nil }

func (p *rangeLists) bind(_ string, names []string, at string, users func(string) int) (src []source, errs []error) {
	for _, u := range names {
		r, ok := p.lists[u]
		if !ok {
			if err := p.f.checkURL(u); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", at, err))
				continue
			}
			r = &rangeList{url: u, fetcher: p.f, maxAge: p.o.RangesMaxAge, every: p.o.RangesRefresh, log: p.o.Logger, shared: users(u) > 1}
			p.lists[u] = r
		}
		src = append(src, r)
	}
	return src, errs
}

func (p *rangeLists) refreshers() (rs []refresher) {
	for _, r := range p.lists {
		rs = append(rs, r)
	}
	return rs
}

func (r *rangeList) check(_ context.Context, q query) answer {
	// A list whose prefixes name the services they serve (JAFAR) proves
	// only those; a prefix that names this agent proves it, not only its
	// operator.
	in, named, err := r.ContainsFor(q.client, q.agent)
	switch {
	case err != nil:
		return answer{verdict: unknown, err: err}
	case in:
		return answer{verdict: proven, method: verify.IPRange, source: r.url, names: named || !r.shared}
	}
	return answer{verdict: disproven}
}

// unproven is the refusal's line for a client outside the list.
func (r *rangeList) unproven(client netip.Addr) string {
	return client.String() + " is not in " + r.url
}
