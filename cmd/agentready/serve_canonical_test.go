package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/testing/testtools"
)

// recordingUpstream is an upstream that records the request-target of
// the last request it received, as it arrived.
type recordingUpstream struct {
	mu   sync.Mutex
	last string
	ran  bool
}

func (u *recordingUpstream) take() (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	last, ran := u.last, u.ran
	u.last, u.ran = "", false
	return last, ran
}

// canonicalFront starts a recording upstream and serve in front of it
// with the declaration file.
func canonicalFront(t testing.TB, file string) (addr string, up *recordingUpstream) {
	t.Helper()
	up = &recordingUpstream{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.mu.Lock()
		up.last, up.ran = r.RequestURI, true
		up.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	front := serveFront(t, proxyConfig{configFile: file, upstream: srv.URL})
	return front.Listener.Addr().String(), up
}

var claudeBotHeader = [][2]string{{"User-Agent", claudeBot}}

// TestServeCanonicalTargets runs docs/enforcement.md's two tables through
// serve: a target that passes reaches the upstream as the table's second
// column; a refused one is answered 400 naming its fault and never
// reaches the upstream.
func TestServeCanonicalTargets(t *testing.T) {
	addr, up := canonicalFront(t, "testdata/canonical/site.yaml")
	for _, row := range testtools.DocTable(t, "../../docs/enforcement.md", "canonical-pass") {
		sent, want := row[0], row[1]
		res, body, err := testtools.RawRequest(addr, "GET", sent, claudeBotHeader)
		if err != nil {
			t.Fatal(err)
		}
		if got, ran := up.take(); res.StatusCode != http.StatusOK || !ran || got != want {
			t.Errorf("%s: %d %s, the upstream received %q (ran %v), want %q", sent, res.StatusCode, body, got, ran, want)
		}
	}
	for _, row := range testtools.DocTable(t, "../../docs/enforcement.md", "canonical-refuse") {
		sent, fault := row[0], row[1]
		res, body, err := testtools.RawRequest(addr, "GET", sent, claudeBotHeader)
		if err != nil {
			t.Fatal(err)
		}
		if got, ran := up.take(); ran || res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s, the upstream received %q (ran %v), want 400", sent, res.StatusCode, body, got, ran)
			continue
		}
		if _, err := url.ParseRequestURI(sent); err != nil {
			continue // net/http's server refuses it before serve's handler
		}
		var prob struct{ Fault, Part string }
		if err := json.Unmarshal(body, &prob); err != nil || prob.Fault != fault || !strings.Contains(sent, prob.Part) {
			t.Errorf("%s: %s, want fault %q", sent, body, fault)
		}
	}
}

// TestServePathParameters: serve decides a segment's ";" parameter as
// sent and removed, unless upstream.path_parameters is literal.
func TestServePathParameters(t *testing.T) {
	addr, up := canonicalFront(t, "testdata/canonical/site.yaml")
	literal, literalUp := canonicalFront(t, "testdata/canonical/literal.yaml")
	for _, target := range []string{"/admin;x/users", "/admin;/users", "/ADMIN;x/users"} {
		res, body, err := testtools.RawRequest(addr, "GET", target, claudeBotHeader)
		if err != nil {
			t.Fatal(err)
		}
		if got, ran := up.take(); ran || res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %s, the upstream received %q, want 403", target, res.StatusCode, body, got)
		}
		res, body, err = testtools.RawRequest(literal, "GET", target, claudeBotHeader)
		if err != nil {
			t.Fatal(err)
		}
		if got, ran := literalUp.take(); !ran || res.StatusCode != http.StatusOK || got != target {
			t.Errorf("literal %s: %d %s, the upstream received %q, want it as sent", target, res.StatusCode, body, got)
		}
	}
}

// FuzzServeForwardsWhatWasDecided: whatever an agent sends through serve,
// what the upstream receives is what was decided on: the canonical path
// (policy.NormalPath of the path sent) and the query as sent; never a
// target serve refused; and never the closed admin area, on any reading
// an upstream may route it as (decoded, resolved, without its ";"
// parameters, in lower case).
func FuzzServeForwardsWhatWasDecided(f *testing.F) {
	for _, s := range []string{
		"/admin;x/users", "/admin;/users", "/api/..;/admin/users", "/api/%2e%2e;/admin", "/%61dmin/users", "/ADMIN;x/users",
		"/admin%3Bx/users", "/api/search;x?q=1", "/p/caf%c3%a9", "/p/a|b", "/x/.%2e;/admin", "/;x/admin", "/s?q=%zz;x=1",
		"/adm%69n/x", "/%C0%AE%C0%AE/admin", "/cart;jsessionid=A1", "/admin.json", "/admin/", "/p/[x]?a[]=1", "/Admin%2fx",
	} {
		f.Add(s)
	}
	addr, up := canonicalFront(f, "testdata/canonical/site.yaml")
	var conn testtools.RawConn // one worker's inputs run one at a time
	f.Cleanup(conn.Close)
	f.Fuzz(func(t *testing.T, s string) {
		target := onWire(s)
		res, body, err := conn.Do(addr, "GET", target, claudeBotHeader)
		if err != nil {
			t.Fatal(err)
		}
		got, ran := up.take()
		if !ran {
			return
		}
		sentPath, sentQuery, _ := strings.Cut(target, "?")
		normal, err := policy.NormalPath(sentPath)
		if err != nil {
			t.Fatalf("%q, refused (%v), reached the upstream as %q", target, err, got)
		}
		gotPath, gotQuery, _ := strings.Cut(got, "?")
		if gotPath != normal || gotQuery != sentQuery {
			t.Fatalf("%q reached the upstream as %q, want %q with the query as sent", target, got, normal+"?"+sentQuery)
		}
		for _, p := range []string{gotPath, policy.StripParams(gotPath)} {
			dec, _ := url.PathUnescape(p)
			for _, reading := range []string{dec, policy.StripParams(dec), path.Clean(dec)} {
				if r := strings.ToLower(reading) + "/"; strings.HasPrefix(r, "/admin/") {
					t.Fatalf("%q reached the upstream (%d %s) as %q, which an upstream may route as %q, under Disallow: /admin/", target, res.StatusCode, body, got, reading)
				}
			}
		}
	})
}
