package e2e_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/verify"
)

// Addresses of the grading tests' clients, sent through a trusted proxy
// (X-Forwarded-For): inside is in every range list the tests serve,
// outside in none, googlebot has a forward-confirmed googlebot.com name.
const (
	gradeInside    = "203.0.113.5"
	gradeOutside   = "198.51.100.5"
	gradeGooglebot = "203.0.113.66"
)

// operatorLists serves, as if from the operators' hosts, the known-agent
// data's range lists the tests use (OpenAI's OAI-SearchBot list, which
// only it uses, and Anthropic's, which its three agents share), each
// holding 203.0.113.0/24; every other source answers 404. No request
// leaves the machine.
type operatorLists struct{}

func (operatorLists) RoundTrip(r *http.Request) (*http.Response, error) {
	body, status := `{"creationTime":"2026-11-27T00:00:00","prefixes":[{"ipv4Prefix":"203.0.113.0/24"}]}`, http.StatusOK
	switch r.URL.String() {
	case "https://openai.com/searchbot.json", "https://claude.com/crawling/bots.json":
	default:
		body, status = "not here", http.StatusNotFound
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// stubDNS gives gradeGooglebot a forward-confirmed googlebot.com name and
// every other address none.
type stubDNS struct{}

func (stubDNS) LookupAddr(_ context.Context, addr string) ([]string, error) {
	if addr == gradeGooglebot {
		return []string{"crawl-203-0-113-66.googlebot.com."}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (stubDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "crawl-203-0-113-66.googlebot.com." || host == "crawl-203-0-113-66.googlebot.com" {
		return []netip.Addr{netip.MustParseAddr(gradeGooglebot)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// gradedSite declares what issue 26 asks an operator can say: GPTBot
// proven gets 600/minute and the MCP store, merely claimed 10/minute and
// search only; ClaudeBot unproven is served as "*"; an agent the site does
// not declare gets more when proven (signed by a directory the site trusts
// for undeclared agents, or proven by the known-agent data) than an
// anonymous one; training is refused under /articles/, where an agent of
// unknown purpose counts as a training crawler.
func gradedSite(gptRanges, claudeRanges, gptDir, undeclaredDir, exampleDir, exampleCard string) config.Site {
	site := fixtures.OutdoorSupply()
	site.Agents = []config.AgentPolicy{
		{Name: "*", RateLimit: config.PerMinute(30), Capabilities: []string{"product-search"},
			Proven: &config.Grant{RateLimit: config.PerMinute(300)},
			Verify: config.Verification{SignatureAgents: []string{undeclaredDir}}},
		{Name: "GPTBot", RateLimit: config.PerMinute(10), Capabilities: []string{"product-search"},
			Proven: &config.Grant{RateLimit: config.PerMinute(600), Capabilities: []string{"product-search", "store-assistant"}},
			Verify: config.Verification{IPRanges: []string{gptRanges}, SignatureAgents: []string{gptDir}}},
		{Name: "ClaudeBot", RateLimit: config.PerMinute(400),
			Verify: config.Verification{Required: true, FallBack: true, IPRanges: []string{claudeRanges}}},
		{Name: "ExampleBot", Proven: &config.Grant{},
			Verify: config.Verification{SignatureAgents: []string{exampleDir}, Card: exampleCard}},
	}
	site.Access.Allow = append(site.Access.Allow, "/articles/*", "/blog/*", "/guides/*")
	site.Usage = config.Usage{Enforce: true, Paths: []config.PathUsage{
		{Path: "/articles/*", Train: config.Denied, UnknownPurpose: enforce.PurposeTrainingCrawler},
		{Path: "/guides/*", Train: config.Denied},
	}}
	return site
}

// TestGrades runs each grade (proven, claimed, anonymous) against each
// kind of policy (declared and graded, verified-only with fall-back, "*"
// with a proven form) and purpose (declared by the operator, known by
// name, unknown and held to one by the path), with real Ed25519
// signatures, range lists served locally and stubbed reverse DNS.
func TestGrades(t *testing.T) {
	gptAgent, undeclared, stranger, example := newWBAAgent(t), newWBAAgent(t), newWBAAgent(t), newWBAAgent(t)
	gptRanges, _ := rangeListServer(t, "203.0.113.0/24")
	claudeRanges, _ := rangeListServer(t, "192.0.2.0/24")
	card := cardServer(t, "train-ai", "crawler")
	site := gradedSite(gptRanges, claudeRanges, gptAgent.dir.URL, undeclared.dir.URL, example.dir.URL, card)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := ln.Addr().String()
	rec := &decisions{}
	m, err := agentready.New(site,
		agentready.WithVerification(verify.Options{AllowHTTPLoopback: true, Authorities: []string{host},
			Client: &http.Client{Transport: gradeTransport{}}, Resolver: stubDNS{}}),
		agentready.WithClients(agentready.Clients{TrustedProxies: []string{"127.0.0.1/32"}}),
		agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	// The known-agent data's other sources answer 404 here: their claims
	// stay claimed, and the load reports them.
	_ = testhooks.Verifier(m).Load(context.Background())
	srv := httptest.NewUnstartedServer(m.Handler(app))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)

	const browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
	type want struct {
		outcome  enforce.Outcome
		grade    string
		policy   string // Decision.Agent
		limit    string // Decision.Limits[0], the agent limit ("" for a denial before limits)
		purpose  string // Decision.Class.Purpose
		agent    string // Identity.Agent
		method   verify.Method
		reason   string // Identity.Reason
		notFetch bool   // the stranger's directory must never be fetched
	}
	for _, tc := range []struct {
		name, ua, from, path string
		signer               *wbaAgent
		want                 want
	}{
		{"anonymous script", "curl/8.5.0", gradeInside, "/api/search?q=tent", nil,
			want{enforce.Allow, enforce.GradeAnonymous, "*", "agent/*", enforce.PurposeUnknown, "", verify.None, "", false}},
		{"anonymous script, unknown purpose held to training", "curl/8.5.0", gradeInside, "/articles/1", nil,
			want{enforce.DenyPreference, enforce.GradeAnonymous, "*", "", enforce.PurposeUnknown, "", verify.None, "", false}},
		{"anonymous script elsewhere", "curl/8.5.0", gradeInside, "/blog/1", nil,
			want{enforce.Allow, enforce.GradeAnonymous, "*", "agent/*", enforce.PurposeUnknown, "", verify.None, "", false}},
		{"GPTBot proven by its range list", "GPTBot/1.2", gradeInside, "/mcp", nil,
			want{enforce.Allow, enforce.GradeProven, "GPTBot", "agent/GPTBot/proven", enforce.PurposeTrainingCrawler, "GPTBot", verify.IPRange, "", false}},
		{"GPTBot proven, training refused", "GPTBot/1.2", gradeInside, "/articles/1", nil,
			want{enforce.DenyPreference, enforce.GradeProven, "GPTBot", "", enforce.PurposeTrainingCrawler, "GPTBot", verify.IPRange, "", false}},
		{"GPTBot claimed: its own claimed grants", "GPTBot/1.2", gradeOutside, "/api/search?q=tent", nil,
			want{enforce.Allow, enforce.GradeClaimed, "GPTBot", "agent/GPTBot", enforce.PurposeTrainingCrawler, "", verify.None, "no-signature", false}},
		{"GPTBot claimed: not the proven capabilities", "GPTBot/1.2", gradeOutside, "/mcp", nil,
			want{enforce.DenyCapability, enforce.GradeClaimed, "GPTBot", "", enforce.PurposeTrainingCrawler, "", verify.None, "no-signature", false}},
		{"ClaudeBot unproven: served as *", "ClaudeBot/1.0", gradeOutside, "/api/search?q=tent", nil,
			want{enforce.Allow, enforce.GradeClaimed, "*", "agent/*", enforce.PurposeTrainingCrawler, "", verify.None, "unproven", false}},
		{"signed undeclared agent: * proven", browser, gradeOutside, "/mcp", undeclared,
			want{enforce.Allow, enforce.GradeProven, "*", "agent/*/proven", enforce.PurposeUnknown, "", verify.Signature, "", false}},
		{"signed by an untrusted directory: anonymous, never fetched", browser, gradeOutside, "/api/search?q=tent", stranger,
			want{enforce.Allow, enforce.GradeAnonymous, "*", "agent/*", enforce.PurposeUnknown, "", verify.None, "untrusted-agent", true}},
		{"ChatGPT-User signed by GPTBot's directory: GPTBot, a training crawler", "ChatGPT-User/1.0", gradeOutside, "/articles/1", gptAgent,
			want{enforce.DenyPreference, enforce.GradeProven, "GPTBot", "", enforce.PurposeTrainingCrawler, "GPTBot", verify.Signature, "", false}},
		{"browser UA signed by GPTBot's directory gets GPTBot's proven grants", browser, gradeOutside, "/mcp", gptAgent,
			want{enforce.Allow, enforce.GradeProven, "GPTBot", "agent/GPTBot/proven", enforce.PurposeTrainingCrawler, "GPTBot", verify.Signature, "", false}},
		{"OAI-SearchBot undeclared, proven by its own list", "OAI-SearchBot/1.0", gradeInside, "/mcp", nil,
			want{enforce.Allow, enforce.GradeProven, "*", "agent/*/proven", enforce.PurposeSearchCrawler, "OAI-SearchBot", verify.IPRange, "", false}},
		{"OAI-SearchBot claimed", "OAI-SearchBot/1.0", gradeOutside, "/mcp", nil,
			want{enforce.DenyCapability, enforce.GradeClaimed, "*", "", enforce.PurposeSearchCrawler, "", verify.None, "unproven", false}},
		{"Claude-User by Anthropic's shared list: the operator, not the agent", "Claude-User/1.0", gradeInside, "/articles/1", nil,
			want{enforce.Allow, enforce.GradeProven, "*", "agent/*/proven", enforce.PurposeUserAgent, "", verify.IPRange, "", false}},
		{"Googlebot by forward-confirmed reverse DNS", "Googlebot/2.1", gradeGooglebot, "/api/search?q=tent", nil,
			want{enforce.Allow, enforce.GradeProven, "*", "agent/*/proven", enforce.PurposeSearchCrawler, "", verify.ReverseDNS, "", false}},
		// Google's common-crawlers list does not load here, and reverse
		// DNS, which the client's own zone answers, never turns a list
		// that cannot answer into a definite "no".
		{"Googlebot claimed", "Googlebot/2.1", gradeOutside, "/api/search?q=tent", nil,
			want{enforce.Allow, enforce.GradeClaimed, "*", "agent/*", enforce.PurposeSearchCrawler, "", verify.None, "unavailable", false}},
		{"ExampleBot proven: the purpose its card declares", "ExampleBot/1.0", gradeOutside, "/guides/1", example,
			want{enforce.DenyPreference, enforce.GradeProven, "ExampleBot", "", enforce.PurposeTrainingCrawler, "ExampleBot", verify.Signature, "", false}},
		{"ExampleBot claimed: no purpose known", "ExampleBot/1.0", gradeOutside, "/guides/1", nil,
			want{enforce.Allow, enforce.GradeClaimed, "ExampleBot", "", enforce.PurposeUnknown, "", verify.None, "no-signature", false}},
		{"a browser", browser, gradeOutside, "/articles/1", nil,
			want{enforce.Pass, enforce.GradeAnonymous, "", "", "", "", verify.None, "", false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
			req.Header.Set("User-Agent", tc.ua)
			req.Header.Set("X-Forwarded-For", tc.from)
			req.Header.Set("Authorization", "Bearer t") // the MCP store's declared auth, checked for presence
			if tc.signer != nil {
				tc.signer.sign(req, host)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			d := rec.last(t)
			w := tc.want
			got := want{d.Outcome, d.Grade, d.Agent, d.Limits[0], d.Class.Purpose, d.Identity.Agent, d.Identity.Method, d.Identity.Reason, w.notFetch}
			if w.outcome == enforce.Pass {
				got.purpose, w.purpose = "", ""
			}
			if got != w {
				t.Errorf("decision %+v\n got %+v\nwant %+v", d, got, w)
			}
			if !d.Outcome.Allowed() && !strings.Contains(string(body), `"grade":"`+w.grade+`"`) {
				t.Errorf("the refusal does not carry the grade: %s", body)
			}
		})
	}
	if n := stranger.hits.Load(); n != 0 {
		t.Errorf("a directory nobody trusts was fetched %d times because a request named it", n)
	}
}

// cardServer serves the Signature Agent Card of
// draft-meunier-webbotauth-registry-04 section 3 (the project's copy in
// internal/verifier/testdata/cards) at /bot, with its client_id the URL
// served and the purpose and trigger given, and returns that URL.
func cardServer(t *testing.T, purpose, trigger string) string {
	t.Helper()
	var url string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/bot" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id": %q, "client_name": "Example Bot",
  "jwks_uri": "https://example.com/.well-known/http-message-signatures-directory",
  "web_bot_auth": {"rfc9309-product-token": "ExampleBot", "trigger": %q, "purpose": %q}}`, url, trigger, purpose)
	}))
	t.Cleanup(srv.Close)
	url = srv.URL + "/bot"
	return url
}

// gradeTransport serves the operators' range lists (operatorLists) and
// passes loopback URLs (the tests' own servers) through.
type gradeTransport struct{}

func (gradeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "http" && strings.HasPrefix(r.URL.Host, "127.0.0.1:") {
		return http.DefaultTransport.RoundTrip(r)
	}
	return operatorLists{}.RoundTrip(r)
}

// TestLinkPreviews: a site that closes paths to agents keeps link
// previews and feed readers working with one line, and only them.
func TestLinkPreviews(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{Disallow: []string{"/"}, Allow: []string{"/api/*"}}
	for _, on := range []bool{false, true} {
		site.Access.LinkPreviews = on
		rec := &decisions{}
		m, err := agentready.New(site, agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
		if err != nil {
			t.Fatal(err)
		}
		h := m.Handler(app)
		for ua, preview := range map[string]bool{
			"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)":                true,
			"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)": true,
			"Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)":         true,
			"Feedly/1.0 (+http://www.feedly.com/fetcher.html; 5 subscribers)":           true,
			"Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)":          false,
			"curl/8.5.0": false,
		} {
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/blog/post", nil)
			req.Header.Set("User-Agent", ua)
			h.ServeHTTP(w, req)
			d := rec.last(t)
			served := on && preview
			if (w.Code == http.StatusOK) != served || (served && d.Rule != enforce.RuleLinkPreview) {
				t.Errorf("LinkPreviews %v, %q: %d %s %q; want served %v", on, ua, w.Code, d.Outcome, d.Rule, served)
			}
			if preview && d.Class.Purpose != enforce.PurposeUserAgent {
				t.Errorf("%q: purpose %q, want user-agent", ua, d.Class.Purpose)
			}
		}
	}
}
