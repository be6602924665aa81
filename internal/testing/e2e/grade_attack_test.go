package e2e_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/testhooks"
	"github.com/agentready/agentready/internal/testing/fixtures"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/verify"
)

// Attacks on grading (issue 26): each test tries to get a proven form's
// grants, or to escape a usage preference, without the proof needed, on
// gradedSite (grade_test.go) served as TestGrades serves it.

const attackBrowser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"

// gradedEnv is gradedSite behind the middleware on a loopback listener,
// with its key directories: gpt (GPTBot's), undeclared (trusted for
// agents the site does not declare, on "*"), stranger (trusted by
// nobody) and example (ExampleBot's, whose card says training).
type gradedEnv struct {
	srv                                *httptest.Server
	host                               string
	m                                  *agentready.Middleware
	rec                                *decisions
	h                                  http.Handler
	gpt, undeclared, stranger, example *wbaAgent
}

func newGradedEnv(t *testing.T, opts verify.Options, edit func(*config.Site)) *gradedEnv {
	t.Helper()
	gptRanges, _ := rangeListServer(t, "203.0.113.0/24")
	claudeRanges, _ := rangeListServer(t, "192.0.2.0/24")
	return buildGradedEnv(t, gptRanges, claudeRanges, cardServer(t, "train-ai", "crawler"), opts, edit)
}

// buildGradedEnv is newGradedEnv with the range lists and card given
// (FuzzAttackGrade, which has no *testing.T to start their servers with,
// names lists gradeTransport serves).
func buildGradedEnv(tb testing.TB, gptRanges, claudeRanges, card string, opts verify.Options, edit func(*config.Site)) *gradedEnv {
	tb.Helper()
	e := &gradedEnv{gpt: newWBAAgent(tb), undeclared: newWBAAgent(tb), stranger: newWBAAgent(tb), example: newWBAAgent(tb)}
	site := gradedSite(gptRanges, claudeRanges, e.gpt.dir.URL, e.undeclared.dir.URL, e.example.dir.URL, card)
	if edit != nil {
		edit(&site)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	e.host = ln.Addr().String()
	e.rec = &decisions{}
	opts.AllowHTTPLoopback, opts.Authorities = true, []string{e.host}
	if opts.Client == nil {
		opts.Client = &http.Client{Transport: gradeTransport{}}
	}
	if opts.Resolver == nil {
		opts.Resolver = stubDNS{}
	}
	e.m, err = agentready.New(site, agentready.WithVerification(opts),
		agentready.WithClients(agentready.Clients{TrustedProxies: []string{"127.0.0.1/32"}}),
		agentready.WithOnDecision(e.rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		tb.Fatal(err)
	}
	_ = testhooks.Verifier(e.m).Load(context.Background()) // the known data's other lists answer 404
	e.h = e.m.Handler(app)
	e.srv = httptest.NewUnstartedServer(e.h)
	e.srv.Listener.Close()
	e.srv.Listener = ln
	e.srv.Start()
	tb.Cleanup(e.srv.Close)
	return e
}

// request builds a request from the client address from, with the MCP
// store's declared auth present, signed by signer (if not nil) for the
// site's authority.
func (e *gradedEnv) request(ua, from, path string, signer *wbaAgent) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	req.Header.Set("User-Agent", ua)
	req.Header.Set("X-Forwarded-For", from)
	req.Header.Set("Authorization", "Bearer t")
	if signer != nil {
		signer.sign(req, e.host)
	}
	return req
}

// do sends req and returns the decision it got and the response status.
func (e *gradedEnv) do(t *testing.T, req *http.Request) (enforce.Decision, int) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return e.rec.last(t), res.StatusCode
}

// serve hands req to the middleware in process, as from the trusted
// proxy: for what net/http's client will not send (a second User-Agent).
func (e *gradedEnv) serve(t *testing.T, req *http.Request) (enforce.Decision, int) {
	t.Helper()
	req.RemoteAddr = "127.0.0.1:40000"
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, req)
	return e.rec.last(t), w.Code
}

// limitOf is the agent limit that applied ("" for none).
func limitOf(d enforce.Decision) string { return d.Limits[0] }

// TestAttackGradeUnprovenClaims: a claim to a graded policy that nothing
// proves never gets the proven form, whichever way it is dressed up.
func TestAttackGradeUnprovenClaims(t *testing.T) {
	e := newGradedEnv(t, verify.Options{}, nil)
	// Each case dresses up GPTBot's claim from outside its list.
	for _, tc := range []struct {
		name string
		edit func(r *http.Request)
	}{
		{"GPTBot from outside its list", func(*http.Request) {}},
		{"two User-Agents, GPTBot first", func(r *http.Request) { r.Header.Add("User-Agent", "OAI-SearchBot/1.0") }},
		{"two User-Agents, GPTBot second", func(r *http.Request) { r.Header["User-Agent"] = []string{attackBrowser, "GPTBot/1.2"} }},
		{"signed by a directory nobody trusts", func(r *http.Request) { e.stranger.sign(r, e.host) }},
		{"GPTBot's signature made for another host", func(r *http.Request) { e.gpt.sign(r, "evil.example") }},
		{"GPTBot's signature for another host, sent with that Host", func(r *http.Request) { e.gpt.sign(r, "evil.example"); r.Host = "evil.example" }},
		{"GPTBot's signature with its Signature-Agent swapped for the stranger's", func(r *http.Request) {
			e.gpt.sign(r, e.host)
			r.Header.Set("Signature-Agent", `sig1="`+e.stranger.dir.URL+`"`)
		}},
		{"the stranger's signature naming GPTBot's directory", func(r *http.Request) {
			e.stranger.sign(r, e.host)
			r.Header.Set("Signature-Agent", `sig1="`+e.gpt.dir.URL+`"`)
		}},
		{"GPTBot's signature not covering its Signature-Agent", func(r *http.Request) { e.gpt.signCovering(r, e.host, e.gpt.dir.URL, false) }},
		{"GPTBot's signature not covering a Signature-Agent swapped for the stranger's", func(r *http.Request) {
			e.gpt.signCovering(r, e.host, e.stranger.dir.URL, false)
		}},
		{"GPTBot's signature without a nonce", func(r *http.Request) { e.gpt.signWith(r, e.host, "") }},
		// Only the last hop is the trusted proxy's: the address it names
		// is the client, whatever comes before.
		{"X-Forwarded-For from an untrusted hop", func(r *http.Request) { r.Header.Set("X-Forwarded-For", gradeInside+", "+gradeOutside) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			do := e.do
			if strings.HasPrefix(tc.name, "two User-Agents") {
				// net/http's client sends one User-Agent: served in process.
				do = e.serve
			}
			r := e.request("GPTBot/1.2", gradeOutside, "/mcp", nil)
			tc.edit(r)
			d, status := do(t, r)
			if d.Grade == enforce.GradeProven || strings.HasSuffix(limitOf(d), "/proven") || status == http.StatusOK {
				t.Errorf("served %d, %+v, grade %s, limit %q, identity %+v: an unproven claim got proven grants", status, d, d.Grade, limitOf(d), d.Identity)
			}
		})
	}
	if n := e.stranger.hits.Load(); n != 0 {
		t.Errorf("the stranger's directory was fetched %d times because requests named it", n)
	}
}

// TestAttackGradeReplay: a signature proves once; replayed, it proves
// nothing, on a declared policy's path and on "*"'s, and Explain, which
// must not use a nonce up, leaves it to the real request.
func TestAttackGradeReplay(t *testing.T) {
	e := newGradedEnv(t, verify.Options{}, nil)
	for _, tc := range []struct {
		name, ua string
		signer   *wbaAgent
		limit    string
		reason   string // Identity.Reason of the replay
	}{
		{"GPTBot's own claim", "GPTBot/1.2", e.gpt, "agent/GPTBot/proven", "replayed-nonce"},
		{"GPTBot's directory under a browser's User-Agent", attackBrowser, e.gpt, "agent/GPTBot/proven", "replayed-nonce"},
		{"an undeclared agent", attackBrowser, e.undeclared, "agent/*/proven", "replayed-nonce"},
		// ClaudeBot's own sources fail; GPTBot's directory proves GPTBot,
		// once: the replay's reason is the signature's.
		{"GPTBot's directory under ClaudeBot's name", "ClaudeBot/1.0", e.gpt, "agent/GPTBot/proven", "replayed-nonce"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := e.request(tc.ua, gradeOutside, "/mcp", tc.signer)
			for range 2 {
				if d := e.m.Explain(first); d.Grade != enforce.GradeProven {
					t.Fatalf("Explain: grade %s, identity %+v", d.Grade, d.Identity)
				}
			}
			d, status := e.do(t, first)
			if status != http.StatusOK || limitOf(d) != tc.limit {
				t.Fatalf("first use after Explain: %d %s %q %+v; want 200 under %s", status, d.Grade, limitOf(d), d.Identity, tc.limit)
			}
			replay := first.Clone(context.Background())
			d, _ = e.do(t, replay)
			if d.Grade == enforce.GradeProven || strings.HasSuffix(limitOf(d), "/proven") {
				t.Errorf("replayed: grade %s, limit %q: a replayed signature proved its client", d.Grade, limitOf(d))
			}
			if d.Identity.Reason != tc.reason {
				t.Errorf("replayed: reason %q, want %s", d.Identity.Reason, tc.reason)
			}
		})
	}
}

// cfBrowserRun is the key directory the known-agent data trusts for
// CloudflareBrowserRenderingCrawler, a service any Cloudflare customer
// drives; knownDirTransport serves it from a local wbaAgent.
const cfBrowserRun = "https://web-bot-auth.cloudflare-browser-rendering-085.workers.dev"

// knownDirTransport serves cfBrowserRun's directory from dir (the Host
// kept, so that the directory signs for it) and everything else as
// gradeTransport does.
type knownDirTransport struct{ dir *wbaAgent }

func (k knownDirTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if "https://"+r.URL.Host == cfBrowserRun {
		r2 := r.Clone(r.Context())
		r2.Host = r.URL.Host
		r2.URL.Scheme, r2.URL.Host = "http", strings.TrimPrefix(k.dir.dir.URL, "http://")
		return http.DefaultTransport.RoundTrip(r2)
	}
	return gradeTransport{}.RoundTrip(r)
}

// signCovering signs r for authority with a's key, naming agentURL in
// Signature-Agent (signFor names a's own directory), the member covered
// by the signature or not.
func (a *wbaAgent) signCovering(r *http.Request, authority, agentURL string, coverAgent bool) {
	now := time.Now()
	nonce := make([]byte, 16)
	rand.Read(nonce)
	agent := `"` + agentURL + `"`
	components, base := `"@authority"`, `"@authority": `+authority+"\n"
	if coverAgent {
		components += ` "signature-agent";key="sig1"`
		base += `"signature-agent";key="sig1": ` + agent + "\n"
	}
	params := fmt.Sprintf(`(%s);created=%d;expires=%d;keyid="%s";alg="ed25519";nonce="%s";tag="web-bot-auth"`,
		components, now.Unix(), now.Add(time.Minute).Unix(), a.kid, base64.StdEncoding.EncodeToString(nonce))
	sig := ed25519.Sign(a.priv, []byte(base+`"@signature-params": `+params))
	r.Header.Set("Signature-Agent", "sig1="+agent)
	r.Header.Set("Signature-Input", "sig1="+params)
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
}

// TestAttackGradeOtherDirectoryClaimsDeclaredPolicy: a signature by a
// directory the site trusts for agents it does not declare ("*" Proven),
// or by a known agent's (Cloudflare Browser Run's, trusted because the
// site enforces usage preferences), proves that agent, whatever the
// User-Agent names: never GPTBot's proven grants or the verified-only
// ClaudeBot's, and never a user-triggered name's purpose.
func TestAttackGradeOtherDirectoryClaimsDeclaredPolicy(t *testing.T) {
	cf := newWBAAgent(t)
	e := newGradedEnv(t, verify.Options{Client: &http.Client{Transport: knownDirTransport{cf}}}, nil)
	for _, tc := range []struct {
		name, ua, path string
		browserRun     bool // signed by Browser Run's directory, else the undeclared agents'
		outcome        enforce.Outcome
		limit, purpose string
	}{
		{"Browser Run's own request", "CloudflareBrowserRenderingCrawler/1.0", "/api/search?q=tent", true, enforce.Allow, "agent/*/proven", enforce.PurposeUnknown},
		{"Browser Run naming GPTBot", "GPTBot/1.2", "/mcp", true, enforce.Allow, "agent/*/proven", enforce.PurposeUnknown},
		{"Browser Run naming ClaudeBot", "ClaudeBot/1.0", "/api/search?q=tent", true, enforce.Allow, "agent/*/proven", enforce.PurposeUnknown},
		{"Browser Run naming ChatGPT-User", "ChatGPT-User/1.0", "/articles/1", true, enforce.DenyPreference, "", enforce.PurposeUnknown},
		{"an undeclared agent naming GPTBot", "GPTBot/1.2", "/mcp", false, enforce.Allow, "agent/*/proven", enforce.PurposeUnknown},
		{"an undeclared agent naming ClaudeBot", "ClaudeBot/1.0", "/api/search?q=tent", false, enforce.Allow, "agent/*/proven", enforce.PurposeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.request(tc.ua, gradeOutside, tc.path, nil)
			if tc.browserRun {
				cf.signCovering(r, e.host, cfBrowserRun, true)
			} else {
				e.undeclared.sign(r, e.host)
			}
			d, status := e.do(t, r)
			if d.Grade != enforce.GradeProven || d.Agent != "*" || d.Outcome != tc.outcome || limitOf(d) != tc.limit || d.Class.Purpose != tc.purpose {
				t.Errorf("%d %s, grade %s, policy %q, limit %q, purpose %q, identity %+v; want %s under \"*\" (%q), purpose %q",
					status, d.Outcome, d.Grade, d.Agent, limitOf(d), d.Class.Purpose, d.Identity, tc.outcome, tc.limit, tc.purpose)
			}
			if tc.browserRun && d.Identity.Agent != "CloudflareBrowserRenderingCrawler" {
				t.Errorf("identity %+v: the proof names Browser Run's crawler", d.Identity)
			}
		})
	}
}

// jafarServer serves a range list whose prefixes name their services
// (draft-illyes-aipref-jafar-01 2.3; "services" as
// draft-illyes-webbotauth-jafar-00 spells it), body as given.
func jafarServer(t *testing.T, prefixes string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"creationTime":"2026-11-27T00:00:00","prefixes":[`+prefixes+`]}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/bots.json"
}

// TestAttackGradeJAFARServices: a prefix that names other services does
// not prove a claim to GPTBot, even when GPTBot's policy trusts the list;
// the most specific prefix decides; a prefix naming GPTBot proves it.
func TestAttackGradeJAFARServices(t *testing.T) {
	list := jafarServer(t, `{"ipv4Prefix":"203.0.113.0/24","services":["GPTBot"]},`+
		`{"ipv4Prefix":"203.0.113.0/28","services":["ChatGPT-User"]},`+
		`{"ipv4Prefix":"198.51.100.0/24","service":"OAI-SearchBot"}`)
	e := newGradedEnv(t, verify.Options{}, func(s *config.Site) {
		s.Agents[1].Verify.IPRanges = []string{list}
	})
	for _, tc := range []struct {
		from   string
		proven bool
	}{
		{"203.0.113.200", true}, // in the /24, which serves GPTBot
		{"203.0.113.5", false},  // in the /28 inside it, which serves ChatGPT-User only
		{"198.51.100.5", false}, // a prefix of OAI-SearchBot's
		{"192.0.2.1", false},    // in no prefix
	} {
		d, _ := e.do(t, e.request("GPTBot/1.2", tc.from, "/mcp", nil))
		if got := d.Grade == enforce.GradeProven; got != tc.proven {
			t.Errorf("GPTBot from %s: grade %s, identity %+v; want proven %v", tc.from, d.Grade, d.Identity, tc.proven)
		}
		if tc.proven && (d.Identity.Agent != "GPTBot" || limitOf(d) != "agent/GPTBot/proven") {
			t.Errorf("GPTBot from %s: agent %q, limit %q; want GPTBot's proven form", tc.from, d.Identity.Agent, limitOf(d))
		}
	}
}

// slowDNS answers reverse DNS after delay (or when the lookup's context
// ends), counting the PTR lookups by address; every address has no name.
type slowDNS struct {
	delay time.Duration
	mu    sync.Mutex
	ptrs  map[string]int
}

func (s *slowDNS) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	s.mu.Lock()
	s.ptrs[addr]++
	s.mu.Unlock()
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
}

func (s *slowDNS) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", IsNotFound: true}
}

func (s *slowDNS) count(addr string) int { s.mu.Lock(); defer s.mu.Unlock(); return s.ptrs[addr] }

// TestAttackGradeReverseDNSBudget: a site that grades undeclared agents
// checks a claim to Googlebot by reverse DNS; a request never waits on
// an uncached lookup beyond DNSBudget, however slow DNS is, and is served
// as claimed meanwhile.
func TestAttackGradeReverseDNSBudget(t *testing.T) {
	dns := &slowDNS{delay: 3 * time.Second, ptrs: map[string]int{}}
	e := newGradedEnv(t, verify.Options{Resolver: dns, DNSBudget: 50 * time.Millisecond, DNSTimeout: 5 * time.Second}, nil)
	for i := range 5 {
		from := fmt.Sprintf("10.9.0.%d", i+1)
		start := time.Now()
		d, status := e.serve(t, e.request("Googlebot/2.1", from, "/api/search?q=tent", nil))
		if took := time.Since(start); took > time.Second {
			t.Errorf("Googlebot from %s waited %v for reverse DNS (budget 50ms)", from, took)
		}
		if status != http.StatusOK || d.Grade != enforce.GradeClaimed || d.Identity.Reason != "unavailable" {
			t.Errorf("Googlebot from %s while DNS is slow: %d, grade %s, reason %q; want served as claimed, unavailable", from, status, d.Grade, d.Identity.Reason)
		}
	}
	if dns.count("10.9.0.1") != 1 {
		t.Errorf("PTR lookups of 10.9.0.1: %d, want 1", dns.count("10.9.0.1"))
	}
}

// TestAttackGradeReverseDNSFloodBounded: a flood of distinct addresses
// claiming Googlebot fills the reverse DNS cache up to DNSCacheSize and no
// further: the first addresses' answers are dropped (looked up again when
// they come back) rather than kept for ever.
func TestAttackGradeReverseDNSFloodBounded(t *testing.T) {
	dns := &slowDNS{ptrs: map[string]int{}}
	e := newGradedEnv(t, verify.Options{Resolver: dns, DNSCacheSize: 50, DNSBudget: time.Second}, nil)
	addr := func(i int) string { return fmt.Sprintf("10.%d.%d.%d", 10+i>>16, i>>8&0xff, i&0xff) }
	const flood = 2000
	for i := range flood {
		if d, _ := e.serve(t, e.request("Googlebot/2.1", addr(i), "/api/search?q=tent", nil)); d.Grade != enforce.GradeClaimed {
			t.Fatalf("Googlebot from %s: grade %s", addr(i), d.Grade)
		}
	}
	again := 0
	for i := range 50 {
		e.serve(t, e.request("Googlebot/2.1", addr(i), "/api/search?q=tent", nil))
		if dns.count(addr(i)) > 1 {
			again++
		}
	}
	// A cache of 50 holds at most 50 of the 2050 answers: the first 50
	// addresses cannot all still be cached (each is, by chance, about 2.5%).
	if again < 25 {
		t.Errorf("of the first 50 addresses, %d were looked up again after %d others: the cache is not bounded by DNSCacheSize", again, flood)
	}
}

// previewUA is Slack's link expander, a link preview
// (config.Access.LinkPreviews).
const previewUA = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"

// previewShop serves the demo shop (sessions, requires_session
// capabilities, the audit trail) behind a Middleware with link previews
// on or off, recording decisions.
func previewShop(t *testing.T, on bool) (*httptest.Server, *decisions) {
	t.Helper()
	site := acme()
	site.Access.LinkPreviews = on
	rec := &decisions{}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}),
		agentready.WithAudit(testAuditKey, nil), agentready.WithImplicitAccess(agentready.ImplicitAllAgents),
		agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	t.Cleanup(srv.Close)
	return srv, rec
}

// TestAttackLinkPreviewsNoMoreThanABrowser: with access.link_previews a
// link preview is served as a browser is, and never better: on capability
// endpoints, sessions-only ones, the session endpoint and the discovery
// documents, what link_previews lets Slackbot have, a browser's
// User-Agent gets too. (The session endpoint serves any agent, Slackbot
// with or without link_previews, and no browser.)
func TestAttackLinkPreviewsNoMoreThanABrowser(t *testing.T) {
	srv, _ := previewShop(t, true)
	off, _ := previewShop(t, false)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", api + "search?q=mug", ""},
		{"GET", api + "cart", ""},
		{"POST", api + "cart/add", `{"id":"m1"}`},
		{"POST", api + "checkout", `{}`},
		{"POST", sessPath, `{"agent_name":"x","agent_version":"1","purpose":"p"}`},
		{"GET", "/.well-known/agents.json", ""},
		{"GET", "/", ""},
	} {
		browser, _ := send(t, tc.method, srv.URL+tc.path, tc.body, "User-Agent", attackBrowser, "Content-Type", "application/json")
		preview, _ := send(t, tc.method, srv.URL+tc.path, tc.body, "User-Agent", previewUA, "Content-Type", "application/json")
		before, _ := send(t, tc.method, off.URL+tc.path, tc.body, "User-Agent", previewUA, "Content-Type", "application/json")
		if preview.StatusCode < 400 && browser.StatusCode >= 400 && before.StatusCode >= 400 {
			t.Errorf("%s %s: a link preview got %d where a browser gets %d (and it got %d before link_previews)",
				tc.method, tc.path, preview.StatusCode, browser.StatusCode, before.StatusCode)
		}
	}
}

// FuzzAttackGrade sends the graded site requests with hostile
// User-Agents, client addresses, paths and Web Bot Auth headers, over a
// valid signature or none: nothing panics or fails the server, a
// directory nobody trusts is never fetched, and a client proven by a
// signature is proven by a directory the site trusts.
func FuzzAttackGrade(f *testing.F) {
	e := buildGradedEnv(f, "https://openai.com/searchbot.json", "https://claude.com/crawling/bots.json", "", verify.Options{}, func(s *config.Site) {
		s.Agents[3].Verify.Card = ""
	})
	trusted := map[string]bool{e.gpt.dir.URL: true, e.undeclared.dir.URL: true, e.example.dir.URL: true}
	signers := []*wbaAgent{nil, e.gpt, e.undeclared, e.stranger, e.example}
	for i := range signers {
		f.Add("GPTBot/1.2", gradeOutside, "/mcp", "", "", "", uint8(i))
		f.Add(attackBrowser, gradeInside, "/articles/1", "", "", "", uint8(i))
		f.Add("ClaudeBot/1.0", "203.0.113.66", "/api/search?q=a", "", "", `sig1="`+e.stranger.dir.URL+`"`, uint8(i))
	}
	f.Add("Googlebot/2.1", gradeGooglebot, "/", `sig1=("@authority");created=1;expires=2;keyid="k";tag="web-bot-auth"`, "sig1=:AAAA:", `"http://127.0.0.1:1"`, uint8(0))
	f.Add("Slackbot 1.0", "::ffff:203.0.113.5", "/%2e%2e/mcp", `sig1=("signature-agent";key="sig2")`, "sig1=:e30=:, sig2=:e30=:", `sig2="http://[::1]:1", sig1=x`, uint8(1))
	f.Fuzz(func(t *testing.T, ua, from, path, sigInput, sig, sigAgent string, signer uint8) {
		req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		if err != nil {
			return
		}
		req.Header.Set("User-Agent", ua)
		req.Header.Set("X-Forwarded-For", from)
		if s := signers[int(signer)%len(signers)]; s != nil {
			s.sign(req, e.host)
		}
		for name, v := range map[string]string{"Signature-Input": sigInput, "Signature": sig, "Signature-Agent": sigAgent} {
			if v != "" {
				req.Header.Set(name, v)
			}
		}
		d, status := e.serve(t, req)
		if status >= 500 {
			t.Errorf("status %d for %+v", status, d)
		}
		if d.Identity.Method == verify.Signature && !trusted[d.Identity.Source] {
			t.Errorf("proven by %q, a directory the site does not trust", d.Identity.Source)
		}
		if n := e.stranger.hits.Load(); n != 0 {
			t.Fatalf("the stranger's directory was fetched %d times", n)
		}
	})
}

// TestAttackGradeListUnavailable: naming an agent whose range list cannot
// be loaded proves nothing: a graded policy keeps its claimed grants, a
// verified-only one that falls back serves "*", both claimed.
func TestAttackGradeListUnavailable(t *testing.T) {
	gptDown, down := rangeListServer(t, "203.0.113.0/24")
	claudeDown, down2 := rangeListServer(t, "203.0.113.0/24")
	down.Store(true)
	down2.Store(true)
	e := newGradedEnv(t, verify.Options{}, func(s *config.Site) {
		s.Agents[1].Verify.IPRanges = []string{gptDown}
		s.Agents[2].Verify.IPRanges = []string{claudeDown}
	})
	for ua, want := range map[string]string{"GPTBot/1.2": "agent/GPTBot", "ClaudeBot/1.0": "agent/*"} {
		d, status := e.do(t, e.request(ua, gradeInside, "/api/search?q=tent", nil))
		if status != http.StatusOK || d.Grade != enforce.GradeClaimed || limitOf(d) != want || d.Identity.Reason != "unavailable" {
			t.Errorf("%s while its list is down: %d, grade %s, limit %q, reason %q; want claimed under %s, unavailable",
				ua, status, d.Grade, limitOf(d), d.Identity.Reason, want)
		}
	}
}

// TestAttackGradeSharedListDeclaredSiblings: Anthropic's range list
// serves ClaudeBot, Claude-SearchBot and Claude-User alike, so it proves
// Anthropic, not which of them a request is, whether or not the site
// declares the siblings (as plain, unchecked policies).
func TestAttackGradeSharedListDeclaredSiblings(t *testing.T) {
	e := newGradedEnv(t, verify.Options{}, func(s *config.Site) {
		s.Agents[2] = config.AgentPolicy{Name: "ClaudeBot", RateLimit: config.PerMinute(400), Proven: &config.Grant{RateLimit: config.PerMinute(800)}}
		s.Agents = append(s.Agents,
			config.AgentPolicy{Name: "Claude-User", RateLimit: config.PerMinute(50)},
			config.AgentPolicy{Name: "Claude-SearchBot", RateLimit: config.PerMinute(50)})
	})
	d, _ := e.do(t, e.request("ClaudeBot/1.0", gradeInside, "/api/search?q=tent", nil))
	if d.Grade != enforce.GradeProven || d.Identity.Method != verify.IPRange {
		t.Fatalf("ClaudeBot from Anthropic's ranges: grade %s, identity %+v; want proven by its range list", d.Grade, d.Identity)
	}
	if d.Identity.Agent != "" {
		t.Errorf("ClaudeBot by Anthropic's shared list: Identity.Agent %q; the list proves the operator only", d.Identity.Agent)
	}
}

// TestAttackLinkPreviewWithAgentHeaders: a browser's or a link preview's
// User-Agent that comes with an agent's session is an agent's (classify),
// whose requests the session records.
func TestAttackLinkPreviewWithAgentHeaders(t *testing.T) {
	srv, rec := previewShop(t, true)
	token, _ := createSession(t, srv.URL, "test-agent/1.2")
	for _, ua := range []string{attackBrowser, previewUA} {
		send(t, "GET", srv.URL+api+"cart", "", "User-Agent", ua, "X-Agent-Session", token)
		if d := rec.last(t); d.Outcome == enforce.Pass {
			t.Errorf("%q with a session: passed (%s) as if no session were presented", ua, d.Rule)
		}
	}
}

// TestAttackLinkPreviewTwoUserAgents: a link preview passes as a browser
// does, and a browser's User-Agent with a second one is an agent
// (classify): so is a preview's. Otherwise "Slackbot" first and
// "GPTBot/1.2" second would pass a path closed to agents, and a framework
// that reads the last User-Agent, or joins them, would see GPTBot.
func TestAttackLinkPreviewTwoUserAgents(t *testing.T) {
	site := fixtures.OutdoorSupply()
	site.Access = config.Access{Disallow: []string{"/"}, LinkPreviews: true}
	rec := &decisions{}
	m, err := agentready.New(site, agentready.WithOnDecision(rec.add), agentready.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler(app)
	for _, uas := range [][]string{{previewUA}, {previewUA, "GPTBot/1.2"}, {"GPTBot/1.2", previewUA}, {previewUA, previewUA}} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/blog/post", nil)
		req.Header["User-Agent"] = uas
		h.ServeHTTP(w, req)
		d := rec.last(t)
		if served := len(uas) == 1; (w.Code == http.StatusOK) != served || (served && d.Rule != enforce.RuleLinkPreview) {
			t.Errorf("User-Agents %q: %d %s %q; want served %v", uas, w.Code, d.Outcome, d.Rule, served)
		}
	}
}

// TestAttackGradeReplayStoreDown: when the replay cache fails in the
// middle of a request, a signature proves nothing: the signed request is
// graded as if it carried none (an outage never hands out a proven form),
// and a claim its own range list proves stays proven by the list.
func TestAttackGradeReplayStoreDown(t *testing.T) {
	e := newGradedEnv(t, verify.Options{Replays: failingReplays{}}, nil)
	for _, tc := range []struct {
		name, ua, from string
		signer         *wbaAgent
		grade, limit   string
	}{
		{"an undeclared agent's signature", attackBrowser, gradeOutside, e.undeclared, enforce.GradeAnonymous, "agent/*"},
		{"GPTBot's signature under a browser's User-Agent", attackBrowser, gradeOutside, e.gpt, enforce.GradeAnonymous, "agent/*"},
		{"GPTBot signed, outside its ranges", "GPTBot/1.2", gradeOutside, e.gpt, enforce.GradeClaimed, "agent/GPTBot"},
		{"GPTBot signed, inside its ranges", "GPTBot/1.2", gradeInside, e.gpt, enforce.GradeProven, "agent/GPTBot/proven"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := e.do(t, e.request(tc.ua, tc.from, "/api/search?q=tent", tc.signer))
			if d.Grade != tc.grade || limitOf(d) != tc.limit || (tc.grade == enforce.GradeProven && d.Identity.Method != verify.IPRange) {
				t.Errorf("grade %s, limit %q, identity %+v; want %s under %s", d.Grade, limitOf(d), d.Identity, tc.grade, tc.limit)
			}
		})
	}
}
