package webbotauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The key directories' cache, refresh, failure and refusal rules
// (draft-ietf-webbotauth-httpsig-protocol-01 5.5, 6.7, 6.10, B.1, C.4,
// C.5), through the e2e site of e2e_test.go.

// TestDirectoryRotation: an unknown keyid refetches the directory at most
// once per MinRefresh, so a newly published key is found and an attacker
// cannot make the site fetch at will.
func TestDirectoryRotation(t *testing.T) {
	e := newE2E(t)
	e.expect(e.signed(e.ed, nil), "ok")
	newKey := newEd25519Key(t)
	e.expect(e.signed(newKey, nil), "ErrUnknownKey")
	for i := 0; i < 5; i++ {
		e.expect(e.signed(newEd25519Key(t), nil), "ErrUnknownKey")
	}
	if h := e.dir.hits.Load(); h != 1 {
		t.Fatalf("%d fetches, want 1", h)
	}
	e.dir.set(func(d *dirServer) { d.keys = append(d.keys, newKey) })
	e.clock.Add(DefaultMinRefresh)
	e.expect(e.signed(newKey, nil), "ok")
	if h := e.dir.hits.Load(); h != 2 {
		t.Fatalf("%d fetches, want 2", h)
	}
	// A removed key stops verifying once the cached copy expires.
	e.dir.set(func(d *dirServer) { d.keys = []testKey{newKey} })
	e.clock.Add(301 * time.Second)
	e.expect(e.signed(e.ed, nil), "ErrUnknownKey")
	e.expect(e.signed(newKey, nil), "ok")
}

// TestDirectoryDownBeforeFirstFetch: a trusted directory that never
// answered is "cannot tell", retried after a while, not at every request.
func TestDirectoryDownBeforeFirstFetch(t *testing.T) {
	t.Run("unreachable", func(t *testing.T) {
		e := newE2E(t)
		e.dir.srv.Close()
		e.expect(e.signed(e.ed, nil), "ErrUnavailable")
		st := e.dirs.Status()
		if len(st) != 1 || st[0].LastError == nil || st[0].Keys != 0 || !st[0].LastFetch.IsZero() {
			t.Fatalf("status %+v", st)
		}
		if !strings.Contains(e.logBuf.String(), "fetch failed") {
			t.Fatalf("not logged: %s", e.logBuf)
		}
	})
	t.Run("503 then back", func(t *testing.T) {
		e := newE2E(t)
		e.dir.set(func(d *dirServer) { d.mode = "error" })
		e.expect(e.signed(e.ed, nil), "ErrUnavailable")
		e.expect(e.signed(e.ed, nil), "ErrUnavailable")
		if h := e.dir.hits.Load(); h != 1 {
			t.Fatalf("%d fetches, want 1 (negative cache)", h)
		}
		e.dir.set(func(d *dirServer) { d.mode = "" })
		e.clock.Add(maxRetryDelay)
		e.expect(e.signed(e.ed, nil), "ok")
		if h := e.dir.hits.Load(); h != 2 {
			t.Fatalf("%d fetches, want 2", h)
		}
	})
	t.Run("hanging, bounded by ctx", func(t *testing.T) {
		e := newE2E(t)
		e.dir.set(func(d *dirServer) { d.mode = "hang" })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		r, s := e.request(e.dir.origin())
		signRequest(t, r, e.ed, s)
		start := time.Now()
		_, err := e.ver.Verify(ctx, r, testAuthority)
		wantErr(t, err, "ErrUnavailable")
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Verify waited %s", d)
		}
	})
}

// TestDirectoryDownAfterFetch: once fetched, a directory that goes away
// keeps verifying from the last good copy, and the failure is logged.
func TestDirectoryDownAfterFetch(t *testing.T) {
	e := newE2E(t)
	e.expect(e.signed(e.ed, nil), "ok")
	e.dir.srv.Close()
	e.clock.Add(time.Hour) // far past max-age=300
	e.expect(e.signed(e.ed, nil), "ok")
	e.expect(e.signed(e.rsa, nil), "ok")
	st := e.dirs.Status()[0]
	if st.LastError == nil || st.Keys != 2 || st.LastFetch.IsZero() || !st.LastAttempt.After(st.LastFetch) {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(e.logBuf.String(), "refresh failed; serving the cached copy") {
		t.Fatalf("not logged: %s", e.logBuf)
	}
	// A keyid the cached copy lacks cannot be told while the directory is
	// down.
	e.clock.Add(time.Hour)
	e.expect(e.signed(newEd25519Key(t), nil), "ErrUnavailable")
	// A key the cached copy holds verifies nothing once the copy has been
	// stale longer than MaxStale: it may have been removed meanwhile.
	e.clock.Add(DefaultMaxStale)
	e.expect(e.signed(e.ed, nil), "ErrUnavailable")
}

// TestDirectoryRefused: directories that must not be used. The
// possession proof is checked only with RequireProof (B.1: a key the
// verifier resolved itself may be used without it); by default a
// directory whose proofs are missing or wrong is used, and the wrong ones
// logged.
func TestDirectoryRefused(t *testing.T) {
	other := newEd25519Key(t)
	cases := []struct {
		name      string
		set       func(e *e2e, d *dirServer)
		client    *http.Client
		detail    string
		proofOnly bool // refused only with RequireProof
	}{
		{name: "redirect", set: func(e *e2e, d *dirServer) {
			target := newDirServer(e.t, e.clock.Now, e.ed)
			d.mode, d.redirectTo = "redirect", target.origin()
			e.t.Cleanup(func() {
				if target.hits.Load() != 0 {
					e.t.Errorf("the redirect was followed")
				}
			})
		}, detail: "redirect"},
		{name: "redirect with a client that follows them", set: func(e *e2e, d *dirServer) {
			target := newDirServer(e.t, e.clock.Now, e.ed)
			d.mode, d.redirectTo = "redirect", target.origin()
			e.t.Cleanup(func() {
				if target.hits.Load() != 0 {
					e.t.Errorf("the redirect was followed")
				}
			})
		}, client: &http.Client{}, detail: "redirect"},
		{name: "oversize", set: func(_ *e2e, d *dirServer) { d.mode = "oversize" }, detail: "exceeds"},
		{name: "oversize chunked", set: func(_ *e2e, d *dirServer) { d.mode = "oversize-chunked" }, detail: "exceeds"},
		{name: "application/json at the well-known URI", set: func(_ *e2e, d *dirServer) { d.mode = "json" }, detail: "Content-Type"},
		{name: "no usable key", set: func(_ *e2e, d *dirServer) { d.keys = nil; d.signers = nil }, detail: "no usable"},
		{name: "unsigned", set: func(_ *e2e, d *dirServer) { d.mode = "unsigned" }, detail: "not signed", proofOnly: true},
		{name: "badly signed", set: func(_ *e2e, d *dirServer) { d.mode = "badsig" }, detail: "possession proof", proofOnly: true},
		{name: "signed by a key it does not list", set: func(_ *e2e, d *dirServer) { d.signers = []testKey{other} }, detail: "possession proof", proofOnly: true},
		{name: "proof for another authority", set: func(_ *e2e, d *dirServer) { d.mode = "otherauthority" }, detail: "possession proof", proofOnly: true},
		{name: "proof not covering @authority", set: func(_ *e2e, d *dirServer) { d.mode = "noauthority" }, detail: "@authority", proofOnly: true},
	}
	for _, c := range cases {
		for _, requireProof := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/RequireProof=%v", c.name, requireProof), func(t *testing.T) {
				e := newE2EWith(t, DirectoryOptions{RequireProof: requireProof, Client: c.client})
				e.dir.set(func(d *dirServer) { c.set(e, d) })
				st := func() DirectoryStatus { return e.dirs.Status()[0] }
				if c.proofOnly && !requireProof {
					e.expect(e.signed(e.ed, nil), "ok")
					if s := st(); s.LastError != nil || s.Keys != 2 || s.Proven != 0 {
						t.Fatalf("status %+v", s)
					}
					if c.name != "unsigned" && !strings.Contains(e.logBuf.String(), "possession proofs do not verify") {
						t.Fatalf("not logged: %s", e.logBuf)
					}
					return
				}
				e.expect(e.signed(e.ed, nil), "ErrUnavailable")
				if s := st(); s.LastError == nil || !strings.Contains(s.LastError.Error(), c.detail) || s.Keys != 0 {
					t.Fatalf("status %+v, want an error about %q", s, c.detail)
				}
			})
		}
	}
}

// TestDirectoryKeyWithoutProof: with RequireProof, a listed key that did
// not sign the response is dropped (and logged), the proven ones kept;
// without, both are used, and the status tells them apart.
func TestDirectoryKeyWithoutProof(t *testing.T) {
	e := newE2EWith(t, DirectoryOptions{RequireProof: true})
	e.dir.set(func(d *dirServer) { d.signers = []testKey{e.ed} })
	e.expect(e.signed(e.ed, nil), "ok")
	e.expect(e.signed(e.rsa, nil), "ErrUnknownKey")
	if !strings.Contains(e.logBuf.String(), "possession proof") || !strings.Contains(e.logBuf.String(), e.rsa.id) {
		t.Fatalf("not logged: %s", e.logBuf)
	}
	if st := e.dirs.Status()[0]; st.Keys != 1 || st.Proven != 1 {
		t.Fatalf("status %+v", st)
	}
	e = newE2E(t)
	e.dir.set(func(d *dirServer) { d.signers = []testKey{e.ed} })
	e.expect(e.signed(e.ed, nil), "ok")
	e.expect(e.signed(e.rsa, nil), "ok")
	if st := e.dirs.Status()[0]; st.Keys != 2 || st.Proven != 1 {
		t.Fatalf("status %+v", st)
	}
}

// TestDirectoryCoalescing: concurrent first uses share one fetch.
func TestDirectoryCoalescing(t *testing.T) {
	e := newE2E(t)
	e.dir.set(func(d *dirServer) { d.delay = 100 * time.Millisecond })
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.dirs.Key(context.Background(), e.dir.origin(), e.ed.id)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if h := e.dir.hits.Load(); h != 1 {
		t.Fatalf("%d fetches, want 1", h)
	}
}

// TestDirectoriesRun: Run fetches at once and refreshes before expiry,
// until its context ends, on the real clock and on a set clock that
// stands still (refreshes wait on the runtime's clock too).
func TestDirectoriesRun(t *testing.T) {
	pinned := time.Now()
	for name, now := range map[string]func() time.Time{"real clock": nil, "pinned clock": func() time.Time { return pinned }} {
		t.Run(name, func(t *testing.T) {
			k := newEd25519Key(t)
			d := newDirServer(t, time.Now, k)
			d.set(func(d *dirServer) { d.maxAge = 0 }) // clamped to MinRefresh
			dirs, err := NewDirectories([]string{d.origin()}, DirectoryOptions{
				AllowHTTPLoopback: true, MinRefresh: 100 * time.Millisecond, Logger: slog.New(slog.DiscardHandler), Now: now,
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				dirs.Run(ctx)
				close(done)
			}()
			deadline := time.Now().Add(5 * time.Second)
			for d.hits.Load() < 3 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if d.hits.Load() < 3 {
				t.Fatalf("%d fetches in 5s", d.hits.Load())
			}
			if _, err := dirs.Key(context.Background(), d.origin(), k.id); err != nil {
				t.Fatal(err)
			}
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return")
			}
		})
	}
}

func TestNewDirectories(t *testing.T) {
	cases := []struct {
		agent    string
		loopback bool
		want     string // AgentURL form, "" for an error
		url      string // fetched; default want + DirectoryPath
	}{
		{"https://agent.example", false, "https://agent.example", ""},
		{"https://Agent.EXAMPLE:443/", false, "https://agent.example", ""},
		{"https://agent.example:8443", false, "https://agent.example:8443", ""},
		{"https://[2001:db8::1]", false, "https://[2001:db8::1]", ""},
		{"https://agent.example/.well-known/http-message-signatures-directory", false, "https://agent.example", ""},
		{"https://agent.example/keys", false, "https://agent.example/keys", "https://agent.example/keys"},
		{"https://Agent.example/keys/../jwks.json?tenant=7", false, "https://agent.example/jwks.json", "https://Agent.example/keys/../jwks.json?tenant=7"},
		{"http://agent.example", true, "", ""},
		{"http://127.0.0.1:8080", false, "", ""},
		{"http://127.0.0.1:8080", true, "http://127.0.0.1:8080", ""},
		{"http://127.0.0.1:8080/jwks.json", true, "http://127.0.0.1:8080/jwks.json", "http://127.0.0.1:8080/jwks.json"},
		{"http://localhost:8080", true, "http://localhost:8080", ""},
		{"http://[::1]:8080", true, "http://[::1]:8080", ""},
		{"https://user@agent.example", false, "", ""},
		{"https://agent.example?x=1", false, "", ""},
		{"https://agent.example/?", false, "", ""},
		{"https://agent.example/.well-known/http-message-signatures-directory?x", false, "", ""},
		{"https://agent.example#f", false, "", ""},
		{"https://agent.example/jwks.json#f", false, "", ""},
		{"ftp://agent.example", false, "", ""},
		{"agent.example", false, "", ""},
		{"/jwks.json", false, "", ""},
		{"", false, "", ""},
		{"https://", false, "", ""},
		{"https://agent.example:0", false, "", ""},
		{"https://agent.example:99999", false, "", ""},
		{"https://agent example", false, "", ""},
		{"https://agent.example/a%zz", false, "", ""},
	}
	for _, c := range cases {
		ds, err := NewDirectories([]string{c.agent}, DirectoryOptions{AllowHTTPLoopback: c.loopback})
		if c.want == "" {
			if err == nil {
				t.Errorf("%q accepted", c.agent)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.agent, err)
			continue
		}
		url := c.url
		if url == "" {
			url = c.want + DirectoryPath
		}
		if st := ds.Status(); len(st) != 1 || st[0].Agent != c.want || st[0].URL != url {
			t.Errorf("%q: %+v", c.agent, st)
		}
	}
	// Two spellings of one URL are one directory.
	if ds, err := NewDirectories([]string{"https://a.example", "https://A.example" + DirectoryPath}, DirectoryOptions{}); err != nil || len(ds.Status()) != 1 {
		t.Errorf("%v %+v", err, ds.Status())
	}
	if _, err := NewDirectories(nil, DirectoryOptions{MinRefresh: time.Hour, MaxRefresh: time.Minute}); err == nil {
		t.Error("MinRefresh > MaxRefresh accepted")
	}
	if _, err := NewDirectories(nil, DirectoryOptions{MaxBytes: -1}); err == nil {
		t.Error("negative MaxBytes accepted")
	}
}

// TestDirectoriesKeyUntrusted: Key refuses without fetching whatever is not
// a configured URL, however it is spelled, and matches configured ones
// however they are spelled (the query dropped, 5.5).
func TestDirectoriesKeyUntrusted(t *testing.T) {
	k := newEd25519Key(t)
	d := newDirServer(t, func() time.Time { return testNow }, k)
	ds, err := NewDirectories([]string{d.origin()}, DirectoryOptions{
		AllowHTTPLoopback: true, Now: func() time.Time { return testNow }, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ds.Key(context.Background(), "", k.id)
	wantErr(t, err, "ErrNoAgent")
	for _, agent := range []string{"https://agent.example", d.origin() + "/x", d.origin() + d.jwksPath, strings.Replace(d.origin(), "http://", "https://", 1), "http://localhost" + strings.TrimPrefix(d.origin(), "http://127.0.0.1")} {
		_, err := ds.Key(context.Background(), agent, k.id)
		wantErr(t, err, "ErrUntrusted")
	}
	if d.hits.Load() != 0 {
		t.Fatal("fetched for an untrusted URL")
	}
	for _, agent := range []string{strings.ToUpper(d.origin()) + "/", d.origin() + "/?x=1", d.origin() + DirectoryPath} {
		if _, err := ds.Key(context.Background(), agent, k.id); err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
	}
}

func TestCacheLifetime(t *testing.T) {
	lo, hi := time.Minute, 24*time.Hour
	cases := []struct {
		cc, age string
		want    time.Duration
	}{
		{"", "", lo},
		{"max-age=300", "", 300 * time.Second},
		{"public, max-age=86400", "", hi},
		{"max-age=999999999999", "", hi},
		{"max-age=99999999999999999999999", "", lo},
		{"max-age=10", "", lo},
		{"max-age=300", "100", 200 * time.Second},
		{"max-age=300", "1000", lo},
		{"no-store, max-age=300", "", lo},
		{"max-age=300, no-cache", "", lo},
		{`max-age="600"`, "", 600 * time.Second},
		{"max-age=-1", "", lo},
		{"max-age=abc", "", lo},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.cc != "" {
			h.Set("Cache-Control", c.cc)
		}
		if c.age != "" {
			h.Set("Age", c.age)
		}
		if got := cacheLifetime(h, lo, hi); got != c.want {
			t.Errorf("%q age %q: %s, want %s", c.cc, c.age, got, c.want)
		}
	}
}

// TestDirectoryManyKeys: a directory of more keys than a request may offer
// signatures (maxCandidates) proves each with a signature of its own, and
// is used (up to maxDirectoryKeys).
func TestDirectoryManyKeys(t *testing.T) {
	e := newE2E(t)
	keys := []testKey{e.ed, e.rsa}
	for len(keys) <= maxCandidates+2 {
		keys = append(keys, newEd25519Key(t))
	}
	e.dir.set(func(d *dirServer) { d.keys = keys })
	e.expect(e.signed(keys[len(keys)-1], nil), "ok")
	if st := e.dirs.Status()[0]; st.Keys != len(keys) {
		t.Errorf("%d keys cached, want %d", st.Keys, len(keys))
	}
}

// TestDirectoryFetchTimeoutCapped: a request waits for a key directory at
// most DefaultFetchTimeout, whatever the client's own timeout (found by
// review: verify's 10 s client made requests wait 10 s where the design
// promises 5).
func TestDirectoryFetchTimeoutCapped(t *testing.T) {
	for _, c := range []struct {
		client *http.Client
		want   time.Duration
	}{
		{nil, DefaultFetchTimeout},
		{&http.Client{}, DefaultFetchTimeout},
		{&http.Client{Timeout: 10 * time.Second}, DefaultFetchTimeout},
		{&http.Client{Timeout: time.Second}, time.Second},
	} {
		ds, err := NewDirectories([]string{"https://agent.example"}, DirectoryOptions{Client: c.client})
		if err != nil {
			t.Fatal(err)
		}
		if ds.timeout != c.want {
			t.Errorf("client %+v: a request waits up to %v, want %v", c.client, ds.timeout, c.want)
		}
	}
}

// TestDirectoryKeyExpired: a key its directory marks expired ("exp") or not
// yet valid verifies nothing, though it is listed (found by review: only
// validAt itself was tested).
func TestDirectoryKeyExpired(t *testing.T) {
	e := newE2E(t)
	e.dir.set(func(d *dirServer) { d.exp = testNow.Add(-time.Hour).Unix() })
	if _, err := e.dirs.Key(context.Background(), e.dir.origin(), e.ed.id); !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "nbf/exp") {
		t.Errorf("an expired key: %v", err)
	}
	e = newE2E(t)
	e.dir.set(func(d *dirServer) { d.exp = testNow.Add(time.Hour).Unix() })
	if _, err := e.dirs.Key(context.Background(), e.dir.origin(), e.ed.id); err != nil {
		t.Errorf("a key within its exp: %v", err)
	}
}
