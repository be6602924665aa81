package verifier

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/verify"

	"github.com/agentready/agentready/config"
)

// fakeDNS answers from maps; block, when set, holds every lookup until it
// is closed.
type fakeDNS struct {
	ptr     map[string][]string
	forward map[string][]netip.Addr
	fail    error // returned by every lookup when set
	block   chan struct{}
	calls   atomic.Int32
}

func (f *fakeDNS) wait(ctx context.Context) error {
	f.calls.Add(1)
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f.fail
}

func (f *fakeDNS) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	if n, ok := f.ptr[addr]; ok {
		return n, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (f *fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if err := f.wait(ctx); err != nil {
		return nil, err
	}
	if a, ok := f.forward[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func newTestRDNS(r verify.Resolver, budget time.Duration, concurrency int) *rdnsChecker {
	o := verify.Options{Resolver: r, DNSBudget: budget, DNSConcurrency: concurrency}
	defaults(&o)
	return newReverseDNS(&o)
}

var googleDNS = &fakeDNS{
	ptr: map[string][]string{
		"66.249.66.1":  {"crawl-66-249-66-1.googlebot.com."},
		"66.249.66.2":  {"crawl-66-249-66-2.googlebot.com."}, // forward lookup disagrees
		"203.0.113.5":  {"crawl.evilgooglebot.com."},         // not on a label boundary
		"203.0.113.6":  {"googlebot.com.attacker.example."},  // the domain inside another
		"2001:db8::77": {"geo-crawl-2001-db8--77.geo.googlebot.com."},
	},
	forward: map[string][]netip.Addr{
		"crawl-66-249-66-1.googlebot.com":          {netip.MustParseAddr("66.249.66.1")},
		"crawl-66-249-66-2.googlebot.com":          {netip.MustParseAddr("66.249.66.99")},
		"crawl.evilgooglebot.com":                  {netip.MustParseAddr("203.0.113.5")},
		"googlebot.com.attacker.example":           {netip.MustParseAddr("203.0.113.6")},
		"geo-crawl-2001-db8--77.geo.googlebot.com": {netip.MustParseAddr("2001:db8::77")},
	},
}

func TestReverseDNS(t *testing.T) {
	d := newTestRDNS(googleDNS, time.Second, 4)
	domains := []string{"googlebot.com", "google.com"}
	for addr, want := range map[string]error{
		"66.249.66.1":        nil,
		"::ffff:66.249.66.1": nil,
		"2001:db8::77":       nil,
		"66.249.66.2":        verify.ErrFailed, // PTR claims googlebot.com, its A record does not hold the address
		"203.0.113.5":        verify.ErrFailed,
		"203.0.113.6":        verify.ErrFailed,
		"198.51.100.1":       verify.ErrFailed, // no PTR
	} {
		name, _, err := d.Check(context.Background(), netip.MustParseAddr(addr), domains)
		if !errors.Is(err, want) || (want == nil && name == "") {
			t.Errorf("%s: %q, %v, want %v", addr, name, err, want)
		}
	}
	// Answers are cached: asking again costs no lookup.
	before := googleDNS.calls.Load()
	if _, _, err := d.Check(context.Background(), netip.MustParseAddr("66.249.66.1"), domains); err != nil {
		t.Fatal(err)
	}
	if googleDNS.calls.Load() != before {
		t.Error("a cached answer was looked up again")
	}
}

func TestReverseDNSUnavailable(t *testing.T) {
	a := netip.MustParseAddr("66.249.66.1")
	domains := []string{"googlebot.com"}
	t.Run("DNS fails", func(t *testing.T) {
		d := newTestRDNS(&fakeDNS{fail: &net.DNSError{Err: "i/o timeout", IsTimeout: true}}, time.Second, 4)
		if _, _, err := d.Check(context.Background(), a, domains); !errors.Is(err, verify.ErrUnavailable) {
			t.Errorf("%v, want ErrUnavailable", err)
		}
	})
	t.Run("over the budget, then cached", func(t *testing.T) {
		dns := &fakeDNS{ptr: googleDNS.ptr, forward: googleDNS.forward, block: make(chan struct{})}
		d := newTestRDNS(dns, 10*time.Millisecond, 4)
		if _, _, err := d.Check(context.Background(), a, domains); !errors.Is(err, verify.ErrUnavailable) {
			t.Fatalf("%v, want ErrUnavailable past the budget", err)
		}
		close(dns.block) // the lookup finishes in the background
		waitFor(t, func() bool { _, _, err := d.Check(context.Background(), a, domains); return err == nil })
	})
	t.Run("a negative budget never waits", func(t *testing.T) {
		dns := &fakeDNS{ptr: googleDNS.ptr, forward: googleDNS.forward, block: make(chan struct{})}
		defer close(dns.block)
		d := newTestRDNS(dns, -1, 4)
		if _, _, err := d.Check(context.Background(), a, domains); !errors.Is(err, verify.ErrUnavailable) {
			t.Fatalf("%v, want ErrUnavailable with no budget", err)
		}
	})
	t.Run("a zero budget is the default", func(t *testing.T) {
		if d := newTestRDNS(googleDNS, 0, 4); d.budget != 100*time.Millisecond {
			t.Errorf("budget %v", d.budget)
		}
	})
	t.Run("concurrency bound", func(t *testing.T) {
		dns := &fakeDNS{ptr: googleDNS.ptr, forward: googleDNS.forward, block: make(chan struct{})}
		d := newTestRDNS(dns, time.Millisecond, 1)
		d.Check(context.Background(), a, domains) // holds the one slot
		_, _, err := d.Check(context.Background(), netip.MustParseAddr("2001:db8::77"), domains)
		if !errors.Is(err, verify.ErrUnavailable) {
			t.Errorf("a second lookup past the bound: %v", err)
		}
		close(dns.block)
	})
	t.Run("one lookup per address", func(t *testing.T) {
		dns := &fakeDNS{ptr: googleDNS.ptr, forward: googleDNS.forward, block: make(chan struct{})}
		d := newTestRDNS(dns, time.Second, 4)
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() { d.Check(context.Background(), a, domains) })
		}
		time.Sleep(20 * time.Millisecond)
		close(dns.block)
		wg.Wait()
		if n := dns.calls.Load(); n != 2 { // one PTR, one forward
			t.Errorf("%d lookups for 20 concurrent checks of one address, want 2", n)
		}
	})
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestInDomain(t *testing.T) {
	for _, c := range []struct {
		name, dom string
		want      bool
	}{
		{"crawl-1.googlebot.com", "googlebot.com", true},
		{"googlebot.com", "googlebot.com", true},
		{"crawl-1.googlebot.com", ".googlebot.com.", true},
		{"evilgooglebot.com", "googlebot.com", false},
		{"googlebot.com.evil", "googlebot.com", false},
		{"x.search.msn.com", "SEARCH.MSN.COM", true},
	} {
		if got := inDomain(c.name, c.dom); got != c.want {
			t.Errorf("inDomain(%q, %q) = %v", c.name, c.dom, got)
		}
	}
}

// TestSlowReverseDNSDoesNotUndoAFailure: a client outside the ranges whose
// own reverse zone does not answer is refused, not served as "cannot
// tell".
func TestSlowReverseDNSDoesNotUndoAFailure(t *testing.T) {
	srv := newRangeServer(t, rangeListJSON)
	o := verify.Options{AllowHTTPLoopback: true, Resolver: &fakeDNS{fail: &net.DNSError{Err: "i/o timeout", IsTimeout: true}}}
	v, err := newForAgents([]config.AgentPolicy{{Name: "Googlebot", Verify: config.Verification{Required: true,
		IPRanges: []string{srv.URL}, ReverseDNS: []string{"googlebot.com"}}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "https://site.example/", nil)
	_, err = v.Verify(context.Background(), r, netip.MustParseAddr("203.0.113.50"), "site.example", "Googlebot", true)
	if !errors.Is(err, verify.ErrFailed) || errors.Is(err, verify.ErrUnavailable) {
		t.Errorf("outside the ranges, reverse DNS timing out: %v, want ErrFailed", err)
	}
	_, err = v.Verify(context.Background(), r, netip.MustParseAddr("192.0.2.50"), "site.example", "Googlebot", true)
	if err != nil {
		t.Errorf("inside the ranges: %v", err)
	}
}
