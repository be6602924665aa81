package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentready/agentready/verify"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go4.org/netipx"
)

// MaxRangesBytes bounds the size of an IP range list: the largest the
// operators publish (Google's) are a few tens of kilobytes.
const MaxRangesBytes = 4 << 20

// DefaultRangesMaxAge is how long a loaded range list is relied on without
// a successful refresh: past it, the list is stale and the claims it would
// check fall back to the "*" policy.
const DefaultRangesMaxAge = 7 * 24 * time.Hour

// ParseRanges parses an operator's IP range list,
//
//	{"creationTime": "2026-11-20T12:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]}
//
// the shape OpenAI, Anthropic, Google, Bing, Perplexity, Apple and Common
// Crawl publish. Every prefix must parse; an empty list is an error (a list
// that admits nobody is a broken list, not a policy). creationTime is
// returned as written.
func ParseRanges(body []byte) (*netipx.IPSet, string, error) {
	var doc struct {
		CreationTime string `json:"creationTime"`
		Prefixes     []struct {
			IPv4 string `json:"ipv4Prefix"`
			IPv6 string `json:"ipv6Prefix"`
		} `json:"prefixes"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, "", fmt.Errorf("verify: range list: %w", err)
	}
	var b netipx.IPSetBuilder
	n := 0
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
		b.AddPrefix(pfx.Masked())
		n++
	}
	if n == 0 {
		return nil, "", errors.New("verify: range list: no prefixes")
	}
	set, err := b.IPSet()
	if err != nil {
		return nil, "", fmt.Errorf("verify: range list: %w", err)
	}
	return set, doc.CreationTime, nil
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

	cur   atomic.Pointer[rangeSet]
	mu    sync.Mutex // serialises loads and the staleness timer
	timer *time.Timer
	st    RangesStatus
}

type rangeSet struct {
	set   *netipx.IPSet
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

// Load fetches the list now. On failure the last good list keeps serving
// (until it is stale) and the error is returned and kept in Status.
func (r *rangeList) Load(ctx context.Context) error {
	body, err := r.fetcher.get(ctx, r.url, "application/json")
	var set *netipx.IPSet
	var created string
	if err == nil {
		set, created, err = ParseRanges(body)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.st.Err = err
	if err != nil {
		r.log.Warn("agentready: loading an IP range list failed; the last good copy keeps serving until it is stale",
			"url", r.url, "err", err, "loaded", r.st.Loaded)
		return err
	}
	rs := &rangeSet{set: set}
	r.cur.Store(rs)
	r.st.CreationTime, r.st.Loaded, r.st.Prefixes = created, r.fetcher.now(), len(set.Prefixes())
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
