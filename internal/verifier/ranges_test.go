package verifier

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go4.org/netipx"

	"github.com/agentready/agentready/verify"

	"github.com/agentready/agentready/config"
)

// rangeListJSON is an operator range list in the published shape.
const rangeListJSON = `{"creationTime": "2026-11-20T12:00:00.000000", "prefixes": [
	{"ipv4Prefix": "192.0.2.0/24"}, {"ipv4Prefix": "198.51.100.7/32"}, {"ipv6Prefix": "2001:db8:aa::/48"}]}`

func TestParseRanges(t *testing.T) {
	set, created, err := ParseRanges([]byte(rangeListJSON))
	if err != nil || created != "2026-11-20T12:00:00.000000" {
		t.Fatalf("ParseRanges: %v %q", err, created)
	}
	for a, want := range map[string]bool{
		"192.0.2.1": true, "192.0.3.1": false, "198.51.100.7": true, "198.51.100.8": false,
		"2001:db8:aa::1": true, "2001:db8:ab::1": false,
	} {
		if got := set.Contains(netip.MustParseAddr(a)); got != want {
			t.Errorf("%s: %v, want %v", a, got, want)
		}
	}
	for _, bad := range []string{
		``, `[]`, `{"prefixes": []}`, `{"prefixes": [{}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "ipv6Prefix": "2001:db8::/32"}]}`,
		`{"prefixes": [{"ipv4Prefix": "2001:db8::/32"}]}`,
		`{"prefixes": [{"ipv6Prefix": "192.0.2.0/24"}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/33"}]}`,
		`{"prefixes": [{"ipv4Prefix": "not a prefix"}]}`,
		`{"prefixes": [{"ipv6Prefix": "fe80::%eth0/64"}]}`,
	} {
		if _, _, err := ParseRanges([]byte(bad)); err == nil {
			t.Errorf("ParseRanges(%s) accepted", bad)
		}
	}
}

func FuzzParseRanges(f *testing.F) {
	f.Add([]byte(rangeListJSON))
	f.Add([]byte(`{"prefixes":[{"ipv6Prefix":"::/0"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		set, _, err := ParseRanges(b)
		if err == nil && len(set.Prefixes()) == 0 {
			t.Fatal("an accepted list holds no prefix")
		}
	})
}

// rangeServer serves body (or fails while down is set) and counts hits.
type rangeServer struct {
	*httptest.Server
	body atomic.Pointer[string]
	down atomic.Bool
	hits atomic.Int32
}

func newRangeServer(t *testing.T, body string) *rangeServer {
	rs := &rangeServer{}
	rs.body.Store(&body)
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.hits.Add(1)
		if rs.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(*rs.body.Load()))
	}))
	t.Cleanup(rs.Close)
	return rs
}

func testRanges(t *testing.T, url string, maxAge time.Duration) *rangeList {
	t.Helper()
	f := &fetcher{client: defaultClient(), allowHTTPLoopback: true, maxBytes: MaxRangesBytes, now: time.Now}
	if err := f.checkURL(url); err != nil {
		t.Fatal(err)
	}
	return &rangeList{url: url, fetcher: f, maxAge: maxAge, every: time.Hour, log: discardLogger()}
}

func TestRangesLoad(t *testing.T) {
	srv := newRangeServer(t, rangeListJSON)
	r := testRanges(t, srv.URL+"/bots.json", time.Hour)
	a := netip.MustParseAddr("192.0.2.9")
	if _, err := r.Contains(a); !errors.Is(err, verify.ErrUnavailable) {
		t.Fatalf("before any load: %v, want ErrUnavailable", err)
	}
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if in, err := r.Contains(a); !in || err != nil {
		t.Fatalf("Contains(%s) = %v, %v", a, in, err)
	}
	if in, err := r.Contains(netip.MustParseAddr("::ffff:192.0.2.9")); !in || err != nil {
		t.Errorf("an IPv4-mapped address: %v, %v", in, err)
	}
	if in, err := r.Contains(netip.MustParseAddr("203.0.113.1")); in || err != nil {
		t.Errorf("an address outside: %v, %v", in, err)
	}
	// A failed refresh keeps the last good list.
	srv.down.Store(true)
	if err := r.Load(context.Background()); err == nil {
		t.Fatal("a 503 loaded")
	}
	if in, err := r.Contains(a); !in || err != nil {
		t.Errorf("after a failed refresh: %v, %v, want the last good list", in, err)
	}
	if st := r.Status(); st.Err == nil || st.Stale || st.Prefixes != 3 || st.CreationTime == "" {
		t.Errorf("Status = %+v", st)
	}
	// A broken list does not replace a good one either.
	srv.down.Store(false)
	empty := `{"prefixes": []}`
	srv.body.Store(&empty)
	if err := r.Load(context.Background()); err == nil {
		t.Fatal("an empty list loaded")
	}
	if in, _ := r.Contains(a); !in {
		t.Error("an empty list replaced the good one")
	}
}

func TestRangesStale(t *testing.T) {
	srv := newRangeServer(t, rangeListJSON)
	r := testRanges(t, srv.URL, time.Millisecond)
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := r.Contains(netip.MustParseAddr("192.0.2.9"))
		if errors.Is(err, verify.ErrUnavailable) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a list past its maximum age is still relied on")
		}
		time.Sleep(time.Millisecond)
	}
	if !r.Status().Stale {
		t.Error("Status does not say stale")
	}
	// A successful load makes it fresh again.
	r.maxAge = time.Hour
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if in, err := r.Contains(netip.MustParseAddr("192.0.2.9")); !in || err != nil {
		t.Errorf("after a reload: %v, %v", in, err)
	}
}

func TestRangesFetchBounds(t *testing.T) {
	redirect := httptest.NewServer(http.RedirectHandler("http://127.0.0.1:1/elsewhere.json", http.StatusFound))
	defer redirect.Close()
	big := newRangeServer(t, `{"prefixes": [`+strings.Repeat(`{"ipv4Prefix": "192.0.2.0/24"},`, MaxRangesBytes/30)+`{"ipv4Prefix": "192.0.2.0/24"}]}`)
	for name, url := range map[string]string{"redirect": redirect.URL, "oversize": big.URL} {
		r := testRanges(t, url, time.Hour)
		if err := r.Load(context.Background()); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	// A client of the caller's that follows redirects is used as a copy
	// that does not; the caller's own is left as it was.
	caller := &http.Client{}
	to := newRangeServer(t, `{"prefixes": [{"ipv4Prefix": "0.0.0.0/0"}]}`)
	toList := httptest.NewServer(http.RedirectHandler(to.URL, http.StatusFound))
	defer toList.Close()
	o := verify.Options{Client: caller}
	defaults(&o)
	r := testRanges(t, toList.URL, time.Hour)
	r.fetcher.client = o.Client
	if err := r.Load(context.Background()); err == nil || to.hits.Load() != 0 {
		t.Errorf("the caller's client followed a redirect: %v, %d fetches of the target", err, to.hits.Load())
	}
	if caller.CheckRedirect != nil {
		t.Error("the caller's client was changed")
	}
	f := &fetcher{client: defaultClient(), maxBytes: MaxRangesBytes}
	for _, u := range []string{"http://127.0.0.1/x.json", "http://ranges.example/x.json", "ftp://ranges.example/x", "https://user@ranges.example/x", "/x.json"} {
		if err := f.checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted without AllowHTTPLoopback", u)
		}
	}
	f.allowHTTPLoopback = true
	for u, ok := range map[string]bool{"http://127.0.0.1:8080/x.json": true, "http://[::1]/x": true, "http://localhost/x": true, "http://ranges.example/x": false, "https://ranges.example/x.json": true} {
		if err := f.checkURL(u); (err == nil) != ok {
			t.Errorf("checkURL(%q) = %v", u, err)
		}
	}
}

// Options.Authorities must be host[:port]: a URL or a path there would
// match no request, and every signature would fail as not made for the
// site. New and NewRequestSignatures say so at once.
func TestAuthoritiesChecked(t *testing.T) {
	agents := []config.AgentPolicy{{Name: "Claude", Verify: config.Verification{Required: true,
		SignatureAgents: []string{"https://agent.example"}}}}
	for _, bad := range []string{"https://site.example", "site.example/x", "site.example:0", "site.example:99999", "", "a b\x00"} {
		if _, err := newForAgents(agents, verify.Options{Authorities: []string{"site.example", bad}}); err == nil || !strings.Contains(err.Error(), "Authorities[1]") {
			t.Errorf("New with authority %q: %v", bad, err)
		}
		keys := func(context.Context, string) (verify.RequestKey, error) {
			return verify.RequestKey{}, errors.New("none")
		}
		if _, err := NewRequestSignatures(keys, RequestOptions{Authorities: []string{bad}}); err == nil {
			t.Errorf("NewRequestSignatures with authority %q accepted", bad)
		}
	}
	for _, good := range []string{"site.example", "Site.Example:8443", "127.0.0.1:8080", "[::1]:8080", "localhost"} {
		if _, err := newForAgents(agents, verify.Options{Authorities: []string{good}}); err != nil {
			t.Errorf("New with authority %q: %v", good, err)
		}
	}
}

// Replay-cache keys of request signatures: no two (key id, nonce) pairs
// share one, whatever '|' or '\' they hold.
func TestRequestReplayKeys(t *testing.T) {
	pairs := [][2]string{{"a|b", "c"}, {"a", "b|c"}, {`a\`, "|c"}, {"a", `\|c`}, {"a", "b"}, {"a|", "b"}}
	seen := map[string][2]string{}
	for _, p := range pairs {
		k := requestReplayKey(p[0], p[1])
		if q, dup := seen[k]; dup {
			t.Errorf("%q and %q share the key %q", p, q, k)
		}
		seen[k] = p
	}
}

// jafarServicesJSON is a range list whose prefixes name the services they
// serve: "service" as draft-illyes-aipref-jafar-01 2.3 spells it, and
// "services" as the webbotauth revision is read; a broad prefix with a
// narrower one inside it (3.3); a prefix naming no service.
const jafarServicesJSON = `{"creationTime": "2026-11-20T12:00:00Z", "prefixes": [
	{"ipv4Prefix": "198.51.100.0/22", "service": "Bingbot"},
	{"ipv4Prefix": "198.51.100.0/24", "services": ["AdsBot-Example", "Example-User"]},
	{"ipv4Prefix": "192.0.2.0/24"},
	{"ipv6Prefix": "2001:db8:aa::/48", "services": ["GPTBot"]},
	{"ipv6Prefix": "2001:db8:aa::/48", "services": ["OAI-SearchBot"]},
	{"ipv6Prefix": "2001:db8:bb::/48", "services": []}]}`

func TestRangesServices(t *testing.T) {
	srv := newRangeServer(t, jafarServicesJSON)
	r := testRanges(t, srv.URL, time.Hour)
	if _, _, err := r.ContainsFor(netip.MustParseAddr("192.0.2.1"), "GPTBot"); !errors.Is(err, verify.ErrUnavailable) {
		t.Fatalf("before any load: %v, want ErrUnavailable", err)
	}
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr, agent string
		in, named   bool
	}{
		{"198.51.101.9", "bingbot", true, true},          // the /22, case aside
		{"198.51.101.9", "GPTBot", false, false},         // the /22 names Bingbot only
		{"198.51.100.9", "Bingbot", false, false},        // the /24 inside it is more specific
		{"198.51.100.9", "adsbot-example", true, true},   // one of the /24's services
		{"198.51.100.9", "Example-User", true, true},     // the other
		{"192.0.2.7", "GPTBot", true, false},             // names no service: the operator's
		{"::ffff:192.0.2.7", "GPTBot", true, false},      // IPv4-mapped
		{"2001:db8:aa::1", "GPTBot", true, true},         // the same prefix listed twice
		{"2001:db8:aa::1", "OAI-SearchBot", true, true},  // serves what both say
		{"2001:db8:aa::1", "ChatGPT-User", false, false}, // and nothing else
		{"2001:db8:bb::1", "GPTBot", true, false},        // an empty array names none
		{"203.0.113.1", "GPTBot", false, false},          // outside
	} {
		in, named, err := r.ContainsFor(netip.MustParseAddr(c.addr), c.agent)
		if err != nil || in != c.in || named != c.named {
			t.Errorf("ContainsFor(%s, %s) = %v, %v, %v; want %v, %v", c.addr, c.agent, in, named, err, c.in, c.named)
		}
	}
	// Contains answers as before: every prefix, whatever it serves.
	for a, want := range map[string]bool{"198.51.100.9": true, "198.51.103.1": true, "2001:db8:bb::1": true, "203.0.113.1": false} {
		if in, err := r.Contains(netip.MustParseAddr(a)); in != want || err != nil {
			t.Errorf("Contains(%s) = %v, %v", a, in, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { r.ContainsFor(netip.MustParseAddr("198.51.100.9"), "Example-User") }); n != 0 {
		t.Errorf("ContainsFor allocates %v times", n)
	}
}

// A list naming no service answers ContainsFor as Contains, never named.
func TestRangesServicesNone(t *testing.T) {
	srv := newRangeServer(t, rangeListJSON)
	r := testRanges(t, srv.URL, time.Hour)
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	for a, want := range map[string]bool{"192.0.2.1": true, "192.0.3.1": false, "2001:db8:aa::1": true} {
		in, named, err := r.ContainsFor(netip.MustParseAddr(a), "GPTBot")
		if in != want || named || err != nil {
			t.Errorf("ContainsFor(%s) = %v, %v, %v", a, in, named, err)
		}
	}
}

func TestParseRangesServices(t *testing.T) {
	set, created, err := ParseRanges([]byte(jafarServicesJSON))
	if err != nil || created != "2026-11-20T12:00:00Z" || !set.Contains(netip.MustParseAddr("198.51.103.1")) {
		t.Fatalf("ParseRanges: %v %q", err, created)
	}
	for _, bad := range []string{
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "services": "GPTBot"}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "services": [1]}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "services": [""]}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "services": [" GPTBot"]}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "service": ["GPTBot"]}]}`,
		`{"prefixes": [{"ipv4Prefix": "192.0.2.0/24", "service": "` + strings.Repeat("x", 257) + `"}]}`,
		`{"prefixes": [{"services": ["GPTBot"]}]}`,
	} {
		if _, _, err := ParseRanges([]byte(bad)); err == nil {
			t.Errorf("ParseRanges(%s) accepted", bad)
		}
	}
}

// ParseRanges parses an operator's IP range list,
//
//	{"creationTime": "2026-11-20T12:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]}
//
// the shape OpenAI, Anthropic, Google, Bing, Perplexity, Apple and Common
// Crawl publish, which JAFAR (draft-illyes-aipref-jafar-01 2) codifies.
// Every prefix must parse; an empty list is an error (a list that admits
// nobody is a broken list, not a policy). creationTime is returned as
// written. A prefix may name the services it serves (see parseRanges);
// ParseRanges returns the set of every prefix, whatever it serves.
func ParseRanges(body []byte) (*netipx.IPSet, string, error) {
	rs, created, err := parseRanges(body)
	if err != nil {
		return nil, "", err
	}
	return rs.set, created, nil
}
