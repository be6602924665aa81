package verifier

import (
	"context"
	"errors"
	"github.com/agentready/agentready/verify"
	"net/http"
	"net/netip"
	"testing"

	"github.com/agentready/agentready/config"
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
		v, err := New([]config.AgentPolicy{{Name: name, Verify: config.Verification{Required: true,
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
