package verifier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"
)

// googleNames are forward-confirmed reverse DNS names of each kind Google
// documents (verify/known.go cites the pages), and names an attacker can
// get: any Google host, and hosts whose names only look like Google's.
var googleNames = &fakeDNS{
	ptr: map[string][]string{
		"66.249.66.1":   {"crawl-66-249-66-1.googlebot.com."},            // common crawler
		"2001:db8::1":   {"geo-crawl-2001-db8--1.geo.googlebot.com."},    // common crawler, outside the US
		"66.249.90.77":  {"rate-limited-proxy-66-249-90-77.google.com."}, // special-case crawler
		"66.249.81.1":   {"google-proxy-66-249-81-1.google.com."},        // user-triggered fetcher
		"203.0.113.7":   {"foo.google.com."},                             // any Google host
		"203.0.113.8":   {"34-1-2-3.gae.googleusercontent.com."},         // anyone's App Engine app
		"203.0.113.9":   {"crawl-1-2-3-4.googlebot.com.evil.example."},
		"203.0.113.10":  {"crawl-1-2-3-4.notgooglebot.com."},
		"198.51.100.20": {"crawl-66-249-66-20.googlebot.com."}, // the forward lookup disagrees
	},
	forward: map[string][]netip.Addr{
		"crawl-66-249-66-1.googlebot.com":            {netip.MustParseAddr("66.249.66.1")},
		"geo-crawl-2001-db8--1.geo.googlebot.com":    {netip.MustParseAddr("2001:db8::1")},
		"rate-limited-proxy-66-249-90-77.google.com": {netip.MustParseAddr("66.249.90.77")},
		"google-proxy-66-249-81-1.google.com":        {netip.MustParseAddr("66.249.81.1")},
		"foo.google.com":                             {netip.MustParseAddr("203.0.113.7")},
		"34-1-2-3.gae.googleusercontent.com":         {netip.MustParseAddr("203.0.113.8")},
		"crawl-1-2-3-4.googlebot.com.evil.example":   {netip.MustParseAddr("203.0.113.9")},
		"crawl-1-2-3-4.notgooglebot.com":             {netip.MustParseAddr("203.0.113.10")},
		"crawl-66-249-66-20.googlebot.com":           {netip.MustParseAddr("66.249.66.20")},
	},
}

// TestGoogleCommonCrawlersReverseDNS: with the known-agent data's sources
// alone, a Googlebot claim is proven by a googlebot.com name (the mask
// Google documents for its common crawlers) and by nothing else: not by a
// forward-confirmed google.com name, which Google documents for its
// special-case crawlers and user-triggered fetchers and which any Google
// host may have, nor by googleusercontent.com.
func TestGoogleCommonCrawlersReverseDNS(t *testing.T) {
	for _, name := range []string{"Googlebot", "GoogleOther", "Googlebot-Image", "Storebot-Google", "Google-InspectionTool"} {
		v, err := newForAgents([]config.AgentPolicy{{Name: name, Verify: config.Verification{Required: true,
			Methods: []string{config.VerifyReverseDNS}}}},
			verify.Options{Resolver: googleNames, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := http.NewRequest("GET", "https://site.example/", nil)
		for addr, proven := range map[string]bool{
			"66.249.66.1":   true,
			"2001:db8::1":   true,
			"66.249.90.77":  false,
			"66.249.81.1":   false,
			"203.0.113.7":   false,
			"203.0.113.8":   false,
			"203.0.113.9":   false,
			"203.0.113.10":  false,
			"198.51.100.20": false,
		} {
			id, err := v.Verify(context.Background(), r, netip.MustParseAddr(addr), "site.example", name, true)
			switch {
			case proven && (err != nil || id.Method != verify.ReverseDNS):
				t.Errorf("%s from %s: %+v, %v; want proven by reverse DNS", name, addr, id, err)
			case !proven && !errors.Is(err, verify.ErrFailed):
				t.Errorf("%s from %s: %+v, %v; want ErrFailed", name, addr, id, err)
			}
		}
	}
}

// TestKnownGoogleSources: each of Google's three kinds of client is proven
// by its own kind's sources: a common crawler by common-crawlers.json and
// googlebot.com names, a special-case crawler and a user-triggered fetcher
// by their own range lists and no reverse DNS domain (their masks are
// label prefixes under google.com, which no domain can express); nothing
// names google.com or googleusercontent.com.
func TestKnownGoogleSources(t *testing.T) {
	const base = "https://developers.google.com/static/crawling/ipranges/"
	for name, list := range map[string]string{
		"Googlebot": "common-crawlers.json", "googlebot-news": "common-crawlers.json", "GoogleOther": "common-crawlers.json",
		"AdsBot-Google": "special-crawlers.json", "Mediapartners-Google": "special-crawlers.json", "APIs-Google": "special-crawlers.json",
		"FeedFetcher-Google": "user-triggered-fetchers-google.json", "Google-Read-Aloud": "user-triggered-fetchers-google.json",
		"Google-Site-Verification": "user-triggered-fetchers-google.json",
	} {
		s, ok := Known(name)
		if !ok {
			t.Errorf("%s: no known sources", name)
			continue
		}
		if len(s.IPRanges) != 1 || s.IPRanges[0] != base+list {
			t.Errorf("%s: IPRanges %v, want %s", name, s.IPRanges, base+list)
		}
		wantRDNS := list == "common-crawlers.json"
		if got := len(s.ReverseDNS) == 1 && s.ReverseDNS[0] == "googlebot.com"; got != wantRDNS || (!wantRDNS && len(s.ReverseDNS) > 0) {
			t.Errorf("%s: ReverseDNS %v", name, s.ReverseDNS)
		}
	}
	for name, s := range known {
		for _, d := range s.ReverseDNS {
			if d == "google.com" || inDomain(d, "googleusercontent.com") {
				t.Errorf("%s: reverse DNS domain %q proves any Google host or any Google Cloud customer", name, d)
			}
		}
	}
	// Known hands out copies: a caller cannot change the shared rows.
	s, _ := Known("Googlebot")
	s.ReverseDNS[0] = "example.com"
	if s2, _ := Known("googlebot-image"); s2.ReverseDNS[0] != "googlebot.com" {
		t.Error("Known returned the shared slice")
	}
}

// TestKnownRowsCited: every row names the operator's pages it was checked
// against (https), the day they were read, and sources that are https URLs
// (or domains) on a domain of the operator's pages, so that a typo or a
// look-alike host cannot slip in; agent.bot.goog is Google's Web Bot Auth
// identity, named on its allow-google-agent page.
func TestKnownRowsCited(t *testing.T) {
	// Domains the pages name for the operator's own hosts (the
	// workers.dev origin is the exact one Cloudflare's page links).
	otherDomains := map[string]bool{"bot.goog": true, "googlebot.com": true, "amazonbot.amazon": true, "msn.com": true, "workers.dev": true}
	site := func(host string) string { // the last two labels
		labels := strings.Split(host, ".")
		return strings.Join(labels[max(0, len(labels)-2):], ".")
	}
	for name, r := range known {
		if len(r.Pages) == 0 {
			t.Errorf("%s: no page", name)
		}
		operator := map[string]bool{}
		for _, p := range r.Pages {
			u, err := url.Parse(p)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("%s: page %q is not an https URL", name, p)
				continue
			}
			operator[site(u.Hostname())] = true
		}
		if d, err := time.Parse(time.DateOnly, r.Read); err != nil || d.Year() < 2026 {
			t.Errorf("%s: read %q is not a day of 2026 or later", name, r.Read)
		}
		hosts := slices.Clone(r.ReverseDNS)
		for _, s := range slices.Concat(r.IPRanges, r.SignatureAgents) {
			u, err := url.Parse(s)
			if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
				t.Errorf("%s: source %q is not a plain https URL", name, s)
				continue
			}
			hosts = append(hosts, u.Hostname())
		}
		for _, h := range hosts {
			if d := site(h); !operator[d] && !otherDomains[d] {
				t.Errorf("%s: source host %s is on none of the operator's domains %v", name, h, operator)
			}
		}
		if len(r.IPRanges) != len(slices.Compact(slices.Sorted(slices.Values(r.IPRanges)))) {
			t.Errorf("%s: a range list twice: %v", name, r.IPRanges)
		}
	}
}

// redirecting are URLs reported to answer with a redirect (issue 24:
// Perplexity's page names www.perplexity.com lists that redirect to
// www.perplexity.ai). The test's transport answers them so.
var redirecting = []string{"https://www.perplexity.com/perplexitybot.json", "https://www.perplexity.com/perplexity-user.json"}

// listTransport serves range lists without a network: each URL in lists
// answers its own one-address list, 203.0.113.N, and every other URL a
// redirect, which the verifier's fetcher refuses.
type listTransport struct {
	lists   map[string]netip.Addr
	fetched sync.Map
}

func (lt *listTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	u := r.URL.String()
	lt.fetched.Store(u, true)
	a, ok := lt.lists[u]
	if !ok {
		return &http.Response{StatusCode: http.StatusMovedPermanently, Header: http.Header{"Location": {"https://elsewhere.example/list.json"}},
			Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	}
	body := fmt.Sprintf(`{"creationTime": "2026-11-27T00:00:00", "prefixes": [{"ipv4Prefix": "%s/32"}]}`, a)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// TestKnownRangeLists: with every known agent a verified-only policy
// proven by range lists, each row's lists load (none is a redirect), and
// a claim is proven from an address of its own lists and refused
// (ErrFailed, never ErrUnavailable) from another list's: ChatGPT-User by
// chatgpt-user.json and chatgpt-connectors.json, OAI-AdsBot by
// adsbot.json, and no agent by chatgpt-agents.json, which the known data
// leaves out (Codex cloud runs its users' code).
func TestKnownRangeLists(t *testing.T) {
	lt := &listTransport{lists: map[string]netip.Addr{}}
	var policies []config.AgentPolicy
	n := 0
	addr := func(u string) netip.Addr {
		if a, ok := lt.lists[u]; ok {
			return a
		}
		n++
		lt.lists[u] = netip.AddrFrom4([4]byte{203, 0, 113, byte(n)})
		return lt.lists[u]
	}
	codex := addr("https://openai.com/chatgpt-agents.json") // served, never named
	for name, r := range known {
		if len(r.IPRanges) == 0 {
			continue
		}
		for _, u := range r.IPRanges {
			if !slices.Contains(redirecting, u) {
				addr(u)
			}
		}
		policies = append(policies, config.AgentPolicy{Name: name, Verify: config.Verification{Required: true, Methods: []string{config.VerifyIPRange}}})
	}
	v, err := newForAgents(policies, verify.Options{Client: &http.Client{Transport: lt}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Load(context.Background()); err != nil {
		t.Fatalf("a known range list did not load: %v", err)
	}
	if _, ok := lt.fetched.Load("https://openai.com/chatgpt-agents.json"); ok {
		t.Error("chatgpt-agents.json was fetched: a known row names it")
	}
	req, _ := http.NewRequest("GET", "https://site.example/", nil)
	for _, p := range policies {
		own := map[netip.Addr]bool{}
		for _, u := range known[p.Name].IPRanges {
			own[lt.lists[u]] = true
		}
		for u, a := range lt.lists {
			id, err := v.Verify(context.Background(), req, a, "site.example", p.Name, false)
			switch {
			case own[a] && (err != nil || id.Method != verify.IPRange || id.Source != u):
				t.Errorf("%s from %s (%s): %+v, %v; want proven by %s", p.Name, a, u, id, err, u)
			case !own[a] && !errors.Is(err, verify.ErrFailed):
				t.Errorf("%s from %s (%s): %+v, %v; want ErrFailed", p.Name, a, u, id, err)
			}
		}
	}
	for name, lists := range map[string][]string{
		"ChatGPT-User":  {"https://openai.com/chatgpt-user.json", "https://openai.com/chatgpt-connectors.json"},
		"OAI-AdsBot":    {"https://openai.com/adsbot.json"},
		"GPTBot":        {"https://openai.com/gptbot.json"},
		"OAI-SearchBot": {"https://openai.com/searchbot.json"},
		"ClaudeBot":     {"https://claude.com/crawling/bots.json"},
		"PerplexityBot": {"https://www.perplexity.ai/perplexitybot.json"},
	} {
		if s, _ := Known(name); !slices.Equal(s.IPRanges, lists) {
			t.Errorf("%s: %v, want %v", name, s.IPRanges, lists)
		}
	}
	if id, err := v.Verify(context.Background(), req, codex, "site.example", "ChatGPT-User", false); !errors.Is(err, verify.ErrFailed) {
		t.Errorf("ChatGPT-User from Codex cloud's egress: %+v, %v", id, err)
	}
}

// TestKnownSigningAgents: the agents whose operators document a Web Bot
// Auth key directory (Google-Agent's https://agent.bot.goog, Cloudflare
// Browser Run's crawler) make a verified-only policy that a signature can
// prove: New accepts the row's origins.
func TestKnownSigningAgents(t *testing.T) {
	want := map[string]string{
		"google-agent":                      "https://agent.bot.goog",
		"cloudflarebrowserrenderingcrawler": "https://web-bot-auth.cloudflare-browser-rendering-085.workers.dev",
	}
	for name, r := range known {
		if len(r.SignatureAgents) == 0 {
			continue
		}
		if len(r.SignatureAgents) != 1 || r.SignatureAgents[0] != want[name] {
			t.Errorf("%s: SignatureAgents %v, want %q", name, r.SignatureAgents, want[name])
		}
		delete(want, name)
		v, err := newForAgents([]config.AgentPolicy{{Name: name, Verify: config.Verification{Required: true,
			Methods: []string{config.VerifySignature}}}}, verify.Options{Authorities: []string{"site.example"}, Logger: discardLogger()})
		if err != nil || v == nil || !v.Checks(name) {
			t.Errorf("%s: a signature-only policy: %v", name, err)
		}
	}
	if len(want) > 0 {
		t.Errorf("no signing row for %v", want)
	}
}

// Known returns what the known-agent data holds for the agent product
// token name (case-insensitive): the sources a policy of that name uses
// when its Verification names none.
func Known(name string) (config.Verification, bool) {
	s, ok := known[strings.ToLower(name)]
	return config.Verification{SignatureAgents: slices.Clone(s.SignatureAgents), IPRanges: slices.Clone(s.IPRanges),
		ReverseDNS: slices.Clone(s.ReverseDNS)}, ok
}
