package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/auditparams"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/testing/redistest"
	"github.com/agentready/agentready/internal/testing/shop"
	"github.com/agentready/agentready/internal/trail"
	"github.com/agentready/agentready/session"
)

// flakyAudit is an audit store whose Begin or Complete fails on demand.
type flakyAudit struct {
	audit.Store
	failBegin, failComplete atomic.Bool
}

func (f *flakyAudit) Begin(ctx context.Context, id string, e audit.Event) (int, error) {
	if f.failBegin.Load() {
		return 0, errors.New("disk full")
	}
	return f.Store.Begin(ctx, id, e)
}

func (f *flakyAudit) Complete(ctx context.Context, id string, seq, status int, amend *audit.Event) error {
	if f.failComplete.Load() {
		return errors.New("disk full")
	}
	return f.Store.Complete(ctx, id, seq, status, amend)
}

// countingShop serves the demo shop behind a v0.1.0 Middleware and counts
// the requests that reach the shop's handlers.
func countingShop(t *testing.T, site config.Site, opts ...agentready.Option) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var ran atomic.Int64
	count := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran.Add(1)
			next.ServeHTTP(w, r)
		})
	}
	return wrappedShop(t, site, count, opts...), &ran
}

// wrappedShop is countingShop with wrap around the shop instead of the
// counter.
func wrappedShop(t *testing.T, site config.Site, wrap func(http.Handler) http.Handler, opts ...agentready.Option) *httptest.Server {
	t.Helper()
	opts = append([]agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents)}, opts...)
	site.RateLimit = config.PerMinute(1_000_000) // these tests send more than the example's 60 a minute
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(wrap(shop.New("https://acmeceramics.example.com"))))
	t.Cleanup(srv.Close)
	return srv
}

// TestRecordBeforeActing: an action is recorded before it runs; a store
// failure then answers 503 with nothing run; a failure to bind its outcome
// answers 503 and leaves the action in the trail with response_status 0.
func TestRecordBeforeActing(t *testing.T) {
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	st := &flakyAudit{Store: ms}
	srv, ran := countingShop(t, acme(), agentready.WithAudit(testAuditKey, st))
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}

	st.failBegin.Store(true)
	before := ran.Load()
	r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue"}`, as...)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.raw), "did not run") {
		t.Fatalf("Begin failing: %d %v %s", r.status, r.header, r.raw)
	}
	if ran.Load() != before {
		t.Fatal("the handler ran although its event could not be recorded")
	}
	st.failBegin.Store(false)

	st.failComplete.Store(true)
	r = call(t, "POST", srv.URL+api+"cart/add", `{"id":"vase-bud"}`, as...)
	if r.status != http.StatusServiceUnavailable || strings.Contains(string(r.raw), "vase-bud") {
		t.Fatalf("Complete failing: %d %s", r.status, r.raw)
	}
	if ran.Load() != before+1 {
		t.Fatal("the action was recorded but did not run")
	}
	st.failComplete.Store(false)

	if r := call(t, "DELETE", srv.URL+sessPath, "", as...); r.status != 200 {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	a := artifact(t, srv.URL, id)
	var got []string
	for _, e := range a.Events {
		got = append(got, fmt.Sprintf("%s %d %v", e.Capability, e.ResponseStatus, e.Params["id"]))
	}
	want := []string{"session.create 201 <nil>", "cart.add 0 vase-bud", "session.delete 200 <nil>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestBodyRefusedAndRecorded: a body the trail cannot record is refused
// before the handler runs, and the refusal is recorded.
func TestBodyRefusedAndRecorded(t *testing.T) {
	site := acme()
	for i := range site.Capabilities {
		if site.Capabilities[i].ID == "cart.update" {
			site.Capabilities[i].BodyLimit = 64
		}
	}
	bad := acme()
	bad.Capabilities[0].BodyLimit = -1
	if _, err := agentready.New(bad, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents)); err == nil || !strings.Contains(err.Error(), "BodyLimit") {
		t.Errorf("a negative BodyLimit: %v", err)
	}
	srv, ran := countingShop(t, site)
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	deep := strings.Repeat(`{"a":`, auditparams.MaxDepth+1) + "1" + strings.Repeat("}", auditparams.MaxDepth+1)
	for _, tt := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "cart/add", deep, http.StatusBadRequest},
		{"POST", "cart/add", `{"id":"` + strings.Repeat("x", resolve.DefaultBodyLimit) + `"}`, http.StatusRequestEntityTooLarge},
		{"PATCH", "cart/update", `{"id":"mug-blue","quantity":2,"note":"` + strings.Repeat("x", 64) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		before := ran.Load()
		r := call(t, tt.method, srv.URL+api+tt.path, tt.body, as...)
		if r.status != tt.status || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d %s", tt.method, tt.path, r.status, r.raw)
		}
		if ran.Load() != before {
			t.Errorf("%s %s: the handler ran", tt.method, tt.path)
		}
	}
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	evs := artifact(t, srv.URL, id).Events
	if len(evs) != 5 {
		t.Fatalf("%d events", len(evs))
	}
	for i, want := range []int{400, 413, 413} {
		e := evs[i+1]
		if e.ResponseStatus != want || e.PolicyResult.Decision != audit.Deny || e.PolicyResult.Rule != "body limits of recorded requests" {
			t.Errorf("event %d: %+v", i+1, e)
		}
	}
}

// TestFaithfulParams: whatever body the handler acts on is what the trail
// holds: members of a JSON object whatever its content type (a form's
// excepted: TestFaithfulBody), exact numbers, and the digest of anything
// else.
func TestFaithfulParams(t *testing.T) {
	srv, _ := countingShop(t, acme())
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	send := func(body, ct string) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+api+"cart/add", strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		for i := 0; i < len(as); i += 2 {
			req.Header.Set(as[i], as[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	send(`{"id":"mug-blue","quantity":12345678901234567891}`, "")
	send(`{"id":"mug-blue"}`, "text/plain")
	send(`{"id":"mug-blue"} trailing`, "application/json")
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	evs := artifact(t, srv.URL, id).Events
	if p := evs[1].Params; p["id"] != "mug-blue" || p["quantity"] != "12345678901234567891" {
		t.Errorf("no Content-Type, big integer: %v", p)
	}
	if p := evs[2].Params; p["id"] != "mug-blue" {
		t.Errorf("text/plain: %v", p)
	}
	d, _ := evs[3].Params[trail.BodyMember].(map[string]any)
	if d == nil || d["length"] != float64(len(`{"id":"mug-blue"} trailing`)) || len(d["sha256"].(string)) != 64 || d["content_type"] != "application/json" {
		t.Errorf("trailing data: %v", evs[3].Params)
	}
}

// failingSessions is a session store whose lookups fail.
type failingSessions struct {
	session.Store
	fail atomic.Bool
}

func (f *failingSessions) Get(ctx context.Context, h session.Hash) (*session.Session, error) {
	if f.fail.Load() {
		return nil, errors.New("connection refused")
	}
	return f.Store.Get(ctx, h)
}

// TestPresentedSessionFailsClosed: a request presenting a session that
// cannot be looked up gets 503, whatever the capability.
func TestPresentedSessionFailsClosed(t *testing.T) {
	ss := &failingSessions{Store: session.NewMemoryStore()}
	srv, ran := countingShop(t, acme(), agentready.WithSessions(ss))
	token, _ := createSession(t, srv.URL, uaClaudeUser)
	ss.fail.Store(true)
	before := ran.Load()
	r := call(t, "GET", srv.URL+api+"search?q=mug", "", "User-Agent", uaClaudeUser, "X-Agent-Session", token) // search requires no session
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || ran.Load() != before {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	if r := call(t, "GET", srv.URL+api+"search?q=mug", "", "User-Agent", uaClaudeUser); r.status != 200 {
		t.Errorf("without a session: %d", r.status)
	}
}

// TestMonotoneTimestamps: timestamps never decrease along a chain, even
// when requests read the clock in one order and reach the store in
// another (here a clock that runs backwards, and concurrent requests).
func TestMonotoneTimestamps(t *testing.T) {
	var calls atomic.Int64
	base := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { // every other reading 2 ms before the one before it
		n := calls.Add(1)
		return base.Add(time.Duration(n)*time.Millisecond - time.Duration(n%2)*3*time.Millisecond)
	}
	srv, _ := countingShop(t, acme(), agentready.WithClock(clock))
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(t, "GET", fmt.Sprintf("%s%ssearch?q=%d", srv.URL, api, i), "", as...)
		}()
	}
	wg.Wait()
	if r := call(t, "DELETE", srv.URL+sessPath, "", as...); r.status != 200 {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	evs := artifact(t, srv.URL, id).Events
	if len(evs) != 202 {
		t.Fatalf("%d events", len(evs))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Timestamp < evs[i-1].Timestamp {
			t.Fatalf("event %d at %s after event %d at %s", i, evs[i].Timestamp, i-1, evs[i-1].Timestamp)
		}
	}
}

// TestAuditUnderRedisFaults runs a session against a real redis-server
// that is killed and restarted, stopped (SIGSTOP) and made to sleep past
// the client's timeout (DEBUG SLEEP), and checks that every 2xx the agent
// saw has its event, with that status, in the verified artifact, and that
// no request the agent saw fail is recorded as a success unless it ran (a
// sleeping Redis applies an outcome the client gave up waiting for). Each phase sends
// requests until the fault has shown (a request failed while Redis was
// down or hung, one was confirmed once it was back), never for a span of
// time: a loaded machine sends fewer requests, not different ones.
func TestAuditUnderRedisFaults(t *testing.T) {
	rs := redistest.StartDurable(t)
	prefix := redistest.Prefix(t)
	client := redis.NewClient(&redis.Options{Addr: rs.Addr, ContextTimeoutEnabled: true, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = client.Close() })
	// The handler notes each request it ran, by its q.
	var mu sync.Mutex
	ranQ := map[string]bool{}
	noteQ := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query().Get("q")
			if r.Body != nil {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				var v struct{ Q string }
				if json.Unmarshal(b, &v) == nil && v.Q != "" {
					q = v.Q
				}
			}
			mu.Lock()
			ranQ[q] = true
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	srv := wrappedShop(t, acme(), noteQ, redisSessionsAndAudit(t, client, prefix)...)
	token, id := createSession(t, srv.URL, uaClaudeUser)
	hdr := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}

	type seen struct {
		q      string
		status int
	}
	var results []seen
	// send sends one request, search (no session required) and cart.add
	// (session required) alternately, and reports whether it was
	// confirmed (2xx).
	send := func() bool {
		n := len(results) + 1
		q := fmt.Sprintf("r%d", n)
		var r reply
		if n%2 == 0 {
			r = call(t, "GET", srv.URL+api+"search?q="+q, "", hdr...)
		} else {
			r = call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue","q":"`+q+`"}`, hdr...)
		}
		if r.status < 500 && r.status >= 300 {
			t.Errorf("request %s: %d %s", q, r.status, r.raw)
		}
		results = append(results, seen{q, r.status})
		time.Sleep(5 * time.Millisecond)
		return r.status >= 200 && r.status < 300
	}
	// until sends at least least requests, and more until one is
	// confirmed (or fails, as confirmed says); maxTries bounds a fault
	// that never shows.
	const maxTries = 400
	until := func(phase string, least int, confirmed bool) {
		t.Helper()
		for i := 0; ; i++ {
			if send() == confirmed && i+1 >= least {
				return
			}
			if i >= maxTries {
				t.Fatalf("%s: no request %s in %d", phase, map[bool]string{true: "confirmed", false: "failed"}[confirmed], maxTries)
			}
		}
	}
	until("healthy", 10, true)

	rs.Stop(t) // killed: connections reset
	until("killed", 5, false)
	rs.Restart(t) // its append-only file brings the session and log back
	until("restarted", 5, true)

	rs.Pause(t) // hung
	until("paused", 3, false)
	rs.Resume(t)
	until("resumed", 5, true)

	// The server sleeps past the client's 200 ms timeout. The agent sends
	// requests until the sleep is over; a slow machine may send none in
	// the sleep, so the sleep is repeated until one failed in it.
	sleeper := redis.NewClient(&redis.Options{Addr: rs.Addr})
	t.Cleanup(func() { _ = sleeper.Close() })
	for attempt := 0; ; attempt++ {
		if attempt == 5 {
			t.Fatal("DEBUG SLEEP: no request failed in 5 sleeps of the server")
		}
		done := make(chan error, 1)
		go func() { done <- sleeper.Do(context.Background(), "DEBUG", "SLEEP", "0.5").Err() }()
		time.Sleep(20 * time.Millisecond)
		bit := false
		for asleep := true; asleep; {
			bit = !send() || bit
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("DEBUG SLEEP: %v", err)
				}
				asleep = false
			default:
			}
		}
		if bit {
			break
		}
	}
	until("awake", 5, true)

	var ok, failed int
	for r := call(t, "DELETE", srv.URL+sessPath, "", hdr...); r.status != 200; r = call(t, "DELETE", srv.URL+sessPath, "", hdr...) {
		if failed++; failed > 20 {
			t.Fatalf("DELETE: %d %s", r.status, r.raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	failed = 0
	a := artifact(t, srv.URL, id)
	recorded := map[string]int{}
	for _, e := range a.Events {
		if q, _ := e.Params["q"].(string); q != "" {
			recorded[q] = e.ResponseStatus
		}
	}
	for _, r := range results {
		switch {
		case r.status >= 200 && r.status < 300:
			ok++
			if got, in := recorded[r.q]; !in || got != r.status {
				t.Errorf("request %s was answered %d; the trail holds %d (recorded: %v)", r.q, r.status, got, in)
			}
		default:
			failed++
			// A 2xx in the trail for a request the agent saw fail is an
			// outcome Redis applied after the client's timeout: the action
			// ran, and was not confirmed. One that never ran must not be.
			if got := recorded[r.q]; got >= 200 && got < 300 && !ranQ[r.q] {
				t.Errorf("request %s was answered %d and never ran; the trail says %d", r.q, r.status, got)
			}
		}
	}
	t.Logf("%d requests: %d confirmed, all in the verified trail; %d answered 503", len(results), ok, failed)
}

// shopMiddleware is acme() behind a v0.1.0 Middleware with the given
// options, for tests that build their own routes.
func shopMiddleware(t *testing.T, opts ...agentready.Option) *agentready.Middleware {
	t.Helper()
	site := acme()
	site.RateLimit = config.PerMinute(1_000_000)
	opts = append([]agentready.Option{agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents)}, opts...)
	m, err := agentready.New(site, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHandoffUnderBindings: a human-handoff checkout ends the session
// whether the site binds routes or not, and whichever routes it binds.
func TestHandoffUnderBindings(t *testing.T) {
	for _, bind := range []string{"none", "another route", "the checkout route"} {
		t.Run(bind, func(t *testing.T) {
			m := shopMiddleware(t)
			mux := http.NewServeMux()
			sh := shop.New("https://acmeceramics.example.com")
			switch bind {
			case "another route":
				mux.Handle("GET "+api+"search", m.Capability("search")(sh))
			case "the checkout route":
				mux.Handle("POST "+api+"checkout", m.Capability("checkout")(sh))
			}
			mux.Handle("/", sh)
			srv := httptest.NewServer(m.Handler(mux))
			defer srv.Close()
			token, id := createSession(t, srv.URL, uaClaudeUser)
			as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
			if r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue"}`, as...); r.status != 200 {
				t.Fatalf("cart.add: %d %s", r.status, r.raw)
			}
			if r := call(t, "POST", srv.URL+api+"checkout", "", as...); r.status != 200 {
				t.Fatalf("checkout: %d %s", r.status, r.raw)
			}
			if r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue"}`, as...); r.status != http.StatusUnauthorized {
				t.Errorf("the session outlived its handoff: %d", r.status)
			}
			artifact(t, srv.URL, id) // sealed, and it verifies
		})
	}
}

// TestNoHijackUnderAudit: a handler cannot take over a recorded request's
// connection, where it could answer what the trail does not see.
func TestNoHijackUnderAudit(t *testing.T) {
	m := shopMiddleware(t)
	var hijackErr error
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != api+"cart/add" {
			shop.New("https://acmeceramics.example.com").ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		if _, ok := w.(http.Hijacker); ok {
			_, _, err2 := w.(http.Hijacker).Hijack()
			err = errors.Join(err, err2)
		}
		hijackErr = err
		w.WriteHeader(http.StatusCreated)
	})))
	defer srv.Close()
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	if r := call(t, "POST", srv.URL+api+"cart/add", `{"id":"mug-blue"}`, as...); r.status != http.StatusCreated {
		t.Fatalf("cart.add: %d %s", r.status, r.raw)
	}
	if !errors.Is(hijackErr, http.ErrNotSupported) {
		t.Errorf("hijacking a recorded request: %v", hijackErr)
	}
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	if evs := artifact(t, srv.URL, id).Events; evs[1].ResponseStatus != http.StatusCreated {
		t.Errorf("recorded %d", evs[1].ResponseStatus)
	}
}

// TestQueryAndBodyBothRecorded: a query parameter and a body member of one
// name are both in the trail.
func TestQueryAndBodyBothRecorded(t *testing.T) {
	srv, _ := countingShop(t, acme())
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	call(t, "DELETE", srv.URL+api+"cart/remove?id=mug-blue", `{"id":"mug-speckled"}`, as...)
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	p := artifact(t, srv.URL, id).Events[1].Params
	q, _ := p[trail.QueryMember].(map[string]any)
	if p["id"] != "mug-speckled" || q["id"] != "mug-blue" {
		t.Errorf("params %v", p)
	}
}

// TestDeniedBodiesNotKept: a denied request's body is neither read nor
// recorded, so refused requests cannot fill the trail.
func TestDeniedBodiesNotKept(t *testing.T) {
	site := acme()
	site.RateLimit = config.PerMinute(2)
	ms, err := audit.NewMemoryStore(audit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithAudit(testAuditKey, ms))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(shop.New("https://acmeceramics.example.com")))
	defer srv.Close()
	token, id := createSession(t, srv.URL, uaClaudeUser) // the session endpoint counts against the site limit
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	big := `{"id":"mug-blue","note":"` + strings.Repeat("x", 512<<10) + `"}`
	call(t, "POST", srv.URL+api+"cart/add", big, as...) // the second request of the minute: allowed
	r := call(t, "POST", srv.URL+api+"cart/add", big, as...)
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("third request: %d", r.status)
	}
	evs, err := ms.Events(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.ResponseStatus != http.StatusTooManyRequests || len(last.Params) != 1 || last.Params[auditparams.TargetMember] == nil {
		t.Errorf("the refused request recorded %v: want its target only", last.Params)
	}
}

// TestAuditRecordsTarget: two actions that differ only in a path param,
// only in a header param or only in one byte of a query value that is not
// UTF-8 are recorded as different events, in an artifact that verifies;
// a sensitive header param is redacted, and its target still traced.
func TestAuditRecordsTarget(t *testing.T) {
	site := acme()
	site.Capabilities = append(site.Capabilities,
		config.Capability{ID: "order.cancel", Description: "Cancel an order.", Endpoint: site.URL + "/api/orders/{id}", Method: "DELETE",
			RequiresSession: true, Params: []config.Param{{Name: "id", In: config.InPath, Type: config.TypeString, Required: true}}},
		config.Capability{ID: "refund", Description: "Refund an order.", Endpoint: site.URL + "/api/refunds", Method: "POST",
			RequiresSession: true, Params: []config.Param{
				{Name: "X-Order-Id", In: config.InHeader, Type: config.TypeString, Required: true},
				{Name: "X-API-Key", In: config.InHeader, Type: config.TypeString},
			}})
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv.Close()
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	pairs := [][2]struct{ method, target string }{
		{{"DELETE", "/api/orders/1001"}, {"DELETE", "/api/orders/2002"}},
		{{"POST", "/api/refunds"}, {"POST", "/api/refunds"}},
		{{"GET", api + "search?q=mug%FF"}, {"GET", api + "search?q=mug%FE"}},
	}
	refundHeaders := [2][]string{{"X-Order-Id", "1001", "X-API-Key", "k-secret"}, {"X-Order-Id", "2002", "X-API-Key", "k-secret"}}
	for i, p := range pairs {
		for j, c := range p {
			hdr := as
			if i == 1 {
				hdr = append(append([]string{}, as...), refundHeaders[j]...)
			}
			if r := call(t, c.method, srv.URL+c.target, "", hdr...); r.status != 200 {
				t.Fatalf("%s %s: %d %s", c.method, c.target, r.status, r.raw)
			}
		}
	}
	if r := call(t, "DELETE", srv.URL+sessPath, "", as...); r.status != 200 {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	a := artifact(t, srv.URL, id) // verified with the published key
	evs := a.Events[1 : len(a.Events)-1]
	if len(evs) != 6 {
		t.Fatalf("%d events, want 6", len(evs))
	}
	for i := 0; i < 6; i += 2 {
		x, y := evs[i], evs[i+1]
		if x.Capability != y.Capability || x.Method != y.Method {
			t.Fatalf("events %d and %d are not one action: %s %s, %s %s", i, i+1, x.Capability, x.Method, y.Capability, y.Method)
		}
		hx, _ := audit.EventHash(audit.Event{Capability: x.Capability, Method: x.Method, Params: x.Params})
		hy, _ := audit.EventHash(audit.Event{Capability: y.Capability, Method: y.Method, Params: y.Params})
		if reflect.DeepEqual(x.Params, y.Params) || hx == hy {
			t.Errorf("events %d and %d record the same params: %v", i, i+1, x.Params)
		}
	}
	target := func(e audit.Event) map[string]any {
		m, _ := e.Params[auditparams.TargetMember].(map[string]any)
		return m
	}
	for _, c := range []struct {
		i    int
		want map[string]any
	}{
		{0, map[string]any{"path": "/api/orders/1001", "path_params": map[string]any{"id": "1001"}}},
		{1, map[string]any{"path": "/api/orders/2002", "path_params": map[string]any{"id": "2002"}}},
		{2, map[string]any{"path": "/api/refunds", "headers": map[string]any{"X-Order-Id": "1001", "X-API-Key": audit.Redacted}}},
		{4, map[string]any{"path": "/.well-known/agents/api/search", "query": "q=mug%FF"}},
		{5, map[string]any{"path": "/.well-known/agents/api/search", "query": "q=mug%FE"}},
	} {
		if got := target(evs[c.i]); !reflect.DeepEqual(got, c.want) {
			t.Errorf("event %d (%s): target %v, want %v", c.i, evs[c.i].Capability, got, c.want)
		}
	}
	if raw, _ := audit.CanonicalArtifact(a); strings.Contains(string(raw), "k-secret") {
		t.Error("the artifact holds the API key a header param carried")
	}
}

// TestAuditRedactsPathParamEverySpelling: a card number in a sensitive
// path param stays out of the artifact however the agent spells the path,
// whether the call is served, refused, or reaches no capability (found by
// review: a path without its endpoint's shape, /api/cards;x/4111… or
// /api/cards/4111…/details.json, was recorded as sent, and a call of no
// capability named the path, card number and all, as its capability).
func TestAuditRedactsPathParamEverySpelling(t *testing.T) {
	const card, sess = "4111111111111111", "S3SS10NX"
	site := acme()
	number := []config.Param{{Name: "card_number", In: config.InPath, Type: config.TypeString, Required: true}}
	site.Capabilities = append(site.Capabilities,
		config.Capability{ID: "card.get", Description: "A saved card.", Endpoint: site.URL + "/api/cards/{card_number}", Method: "GET", Params: number},
		config.Capability{ID: "card.details", Description: "A saved card's details.", Endpoint: site.URL + "/api/cards/{card_number}/details", Method: "GET", Params: number})
	m, err := agentready.New(site, agentready.WithDocuments(agentready.Documents{Dialect: config.DialectV010}), agentready.WithAudit(testAuditKey, nil),
		agentready.WithImplicitAccess(agentready.ImplicitAllAgents), agentready.WithLenientRouting())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv.Close()
	token, id := createSession(t, srv.URL, uaClaudeUser)
	as := []string{"User-Agent", uaClaudeUser, "X-Agent-Session", token}
	targets := []string{
		"/api/cards/" + card,
		"/api/cards/" + card + "/",
		"/api/cards/" + card + ".json",
		"/api/cards/" + card + "/details.json",
		"/api/cards;jsessionid=" + sess + "/" + card,
		"/api/cards;x/" + card + "/details",
		"/API/Cards/" + card,
		"/api/%63ards/" + card,
		"/api/cards/" + card + ";v=1",
		"/api/cards/" + card + "/..",
		"/static/..;/api/cards/" + card,
		"/api//cards/" + card,
		"/api/cards/%2e%2e/" + card,
	}
	statuses := map[int]int{}
	for _, target := range targets {
		statuses[call(t, "GET", srv.URL+target, "", as...).status]++
	}
	if statuses[http.StatusOK] == 0 || len(statuses) < 2 {
		t.Errorf("statuses %v: want calls served and calls refused", statuses)
	}
	call(t, "DELETE", srv.URL+sessPath, "", as...)
	a := artifact(t, srv.URL, id)
	if n := len(a.Events); n != len(targets)+2 {
		t.Errorf("%d events, want %d", n, len(targets)+2)
	}
	raw, err := audit.CanonicalArtifact(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), card) || strings.Contains(string(raw), sess) {
		t.Errorf("the artifact holds the card number or the session id:\n%s", raw)
	}
}
