package webbotauth

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/logbuf"
)

// dirServer is an operator's key directory on 127.0.0.1: it serves its keys
// at the well-known path, signed per draft-meunier-webbotauth-httpsig-protocol
// B.1 (one proof per key over "@authority";req and content-digest), unless
// a mode says otherwise. It counts its hits.
type dirServer struct {
	srv  *httptest.Server
	hits atomic.Int64

	mu         sync.Mutex
	keys       []testKey // listed
	signers    []testKey // sign the response; nil: every listed key
	mode       string    // "", "error", "redirect", "unsigned", "badsig", "json", "oversize", "oversize-chunked", "hang", "otherauthority", "noauthority"
	redirectTo string
	exp        int64 // when set, every key's "exp" (seconds since the epoch)
	maxAge     int
	now        func() time.Time
	delay      time.Duration
	release    chan struct{}
}

func newDirServer(t testing.TB, now func() time.Time, keys ...testKey) *dirServer {
	d := &dirServer{keys: keys, maxAge: 300, now: now, release: make(chan struct{})}
	d.srv = httptest.NewServer(d)
	t.Cleanup(func() {
		close(d.release)
		d.srv.Close()
	})
	return d
}

func (d *dirServer) origin() string { return d.srv.URL }

func (d *dirServer) set(f func(d *dirServer)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(d)
}

func jwkOf(k testKey) map[string]string {
	switch p := k.pub.(type) {
	case ed25519.PublicKey:
		return map[string]string{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(p), "kid": k.id, "use": "sig"}
	case *rsa.PublicKey:
		return map[string]string{"kty": "RSA", "alg": "PS512", "n": base64.RawURLEncoding.EncodeToString(p.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString([]byte{1, 0, 1}), "kid": k.id}
	}
	panic("key type")
}

func (d *dirServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.hits.Add(1)
	d.mu.Lock()
	keys, signers, mode, maxAge, delay, exp := d.keys, d.signers, d.mode, d.maxAge, d.delay, d.exp
	d.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if r.URL.Path != DirectoryPath || r.Header.Get("Accept") != DirectoryMediaType {
		http.NotFound(w, r)
		return
	}
	switch mode {
	case "error":
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	case "redirect":
		http.Redirect(w, r, d.redirectTo+DirectoryPath, http.StatusFound)
		return
	case "hang":
		select {
		case <-r.Context().Done():
		case <-d.release:
		}
		return
	}
	var jwks []map[string]any
	for _, k := range keys {
		jwk := map[string]any{}
		for name, v := range jwkOf(k) {
			jwk[name] = v
		}
		if exp != 0 {
			jwk["exp"] = exp
		}
		jwks = append(jwks, jwk)
	}
	body, _ := json.Marshal(map[string]any{"keys": jwks})
	if mode == "oversize" || mode == "oversize-chunked" {
		body = append(body[:len(body)-1], append(bytes.Repeat([]byte(" "), MaxDirectoryBytes), '}')...)
	}
	sum := sha256.Sum256(body)
	digest := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	h := w.Header()
	h.Set("Content-Type", DirectoryMediaType)
	if mode == "json" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Content-Digest", digest)
	h.Set("Cache-Control", "max-age="+strconv.Itoa(maxAge))
	if signers == nil {
		signers = keys
	}
	if mode != "unsigned" {
		authority := r.Host
		if mode == "otherauthority" {
			authority = "copy.example"
		}
		now := d.now().Unix()
		var inputs, sigs []string
		for i, k := range signers {
			params := fmt.Sprintf(`("@authority";req "content-digest");created=%d;expires=%d;keyid="%s";tag="%s"`,
				now-10, now+86400, k.id, tagDirectory)
			base := `"@authority";req: ` + authority + "\n" + `"content-digest": ` + digest + "\n" + `"@signature-params": ` + params
			if mode == "noauthority" {
				params = fmt.Sprintf(`("content-digest");created=%d;expires=%d;keyid="%s";tag="%s"`, now-10, now+86400, k.id, tagDirectory)
				base = `"content-digest": ` + digest + "\n" + `"@signature-params": ` + params
			}
			sig := k.sign(nil, base)
			if mode == "badsig" {
				sig[0] ^= 1
			}
			inputs = append(inputs, fmt.Sprintf("k%d=%s", i, params))
			sigs = append(sigs, fmt.Sprintf("k%d=:%s:", i, base64.StdEncoding.EncodeToString(sig)))
		}
		h.Set("Signature-Input", strings.Join(inputs, ", "))
		h.Set("Signature", strings.Join(sigs, ", "))
	}
	if mode != "oversize-chunked" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.Write(body)
}

// e2e is a site verifying Web Bot Auth requests against a trusted directory.
type e2e struct {
	t      *testing.T
	clock  *clock
	dir    *dirServer
	dirs   *Directories
	ver    *Verifier
	site   *httptest.Server
	ed     testKey
	rsa    testKey
	logBuf *logbuf.Buffer
}

// newE2E starts a directory holding an Ed25519 and an RSA key, Directories
// trusting it (and the extra origins), and a site whose handler verifies
// each request for the authority site.example.
func newE2E(t *testing.T, extraTrusted ...string) *e2e {
	e := &e2e{t: t, clock: newClock(testNow), ed: newEd25519Key(t), rsa: privateJWK(t, rsaTestKey()), logBuf: &logbuf.Buffer{}}
	e.dir = newDirServer(t, e.clock.Now, e.ed, e.rsa)
	dirs, err := NewDirectories(append([]string{e.dir.origin()}, extraTrusted...), DirectoryOptions{
		AllowHTTPLoopback: true,
		Now:               e.clock.Now,
		Logger:            slog.New(slog.NewTextHandler(e.logBuf, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.dirs = dirs
	replays := NewMemoryReplays(1000)
	replays.(*memoryReplays).now = e.clock.Now
	e.ver = &Verifier{Keys: dirs.Key, Now: e.clock.Now, Replays: replays}
	e.site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sig, err := e.ver.Verify(r.Context(), r, testAuthority)
		w.Header().Set("X-Result", sentinelName(err))
		if err != nil {
			w.Header().Set("X-Error", err.Error())
			return
		}
		w.Header().Set("X-Agent", sig.Agent)
		w.Header().Set("X-Keyid", sig.KeyID)
	}))
	t.Cleanup(e.site.Close)
	return e
}

// request builds a request to the site for https://site.example/path,
// carrying Signature-Agent sig1=<the directory>, and a valid spec for it.
func (e *e2e) request(agent string) (*http.Request, spec) {
	r, err := http.NewRequest(http.MethodGet, e.site.URL+"/path", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	r.Host = testAuthority
	r.Header.Set("Signature-Agent", `sig1="`+agent+`"`)
	now := e.clock.Now().Unix()
	return r, spec{
		label:      "sig1",
		components: []string{`"@authority"`, `"signature-agent";key="sig1"`},
		created:    now - 5,
		expires:    now + 60,
		nonce:      randomNonce(e.t),
		authority:  testAuthority,
		agentValue: `"` + agent + `"`,
	}
}

// send sends r and returns the site's verdict (a sentinel name) and the
// verified agent.
func (e *e2e) send(r *http.Request) (string, string) {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if res := resp.Header.Get("X-Result"); res != "ok" {
		return res, resp.Header.Get("X-Error")
	}
	return "ok", resp.Header.Get("X-Agent")
}

// signed is a valid request by k naming the trusted directory, changed by mod.
func (e *e2e) signed(k testKey, mod func(*spec, *http.Request)) *http.Request {
	r, s := e.request(e.dir.origin())
	if mod != nil {
		mod(&s, r)
	}
	signRequest(e.t, r, k, s)
	return r
}

func (e *e2e) expect(r *http.Request, want string) string {
	e.t.Helper()
	got, detail := e.send(r)
	if got != want {
		e.t.Fatalf("got %s (%s), want %s", got, detail, want)
	}
	return detail
}

func TestEndToEnd(t *testing.T) {
	e := newE2E(t)
	evil := newDirServer(t, e.clock.Now, newEd25519Key(t))

	t.Run("valid", func(t *testing.T) {
		e.t = t
		if agent := e.expect(e.signed(e.ed, nil), "ok"); agent != e.dir.origin() {
			t.Fatalf("agent %q", agent)
		}
		if agent := e.expect(e.signed(e.rsa, nil), "ok"); agent != e.dir.origin() {
			t.Fatalf("agent %q", agent)
		}
		if h := e.dir.hits.Load(); h != 1 {
			t.Fatalf("%d directory fetches, want 1 (then the cache)", h)
		}
	})
	t.Run("legacy Signature-Agent", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, r *http.Request) {
			r.Header.Set("Signature-Agent", `"`+e.dir.origin()+`"`)
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}), "ok")
	})
	t.Run("dictionary Signature-Agent covered whole", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, r *http.Request) {
			s.components = []string{`"@authority"`, `"signature-agent"`}
		}), "ok")
	})
	t.Run("@target-uri behind a TLS proxy", func(t *testing.T) {
		e.t = t
		// The site is plain HTTP here, as behind a TLS-terminating proxy;
		// the agent signed the https URI.
		e.expect(e.signed(e.ed, func(s *spec, r *http.Request) {
			s.components = []string{`"@target-uri"`, `"@method"`, `"signature-agent";key="sig1"`}
		}), "ok")
	})
	t.Run("tampered signature", func(t *testing.T) {
		e.t = t
		r := e.signed(e.ed, nil)
		r.Header.Set("Signature", flipSignatureByte(t, r.Header.Get("Signature")))
		e.expect(r, "ErrBadSignature")
	})
	t.Run("other authority", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, r *http.Request) {
			s.authority = "other.example"
			r.Host = "other.example"
		}), "ErrAuthority")
	})
	t.Run("expired", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, _ *http.Request) {
			s.created, s.expires = s.created-400, s.created-100
		}), "ErrExpired")
	})
	t.Run("created in the future", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, _ *http.Request) {
			s.created, s.expires = s.created+120, s.created+180
		}), "ErrExpired")
	})
	t.Run("lifetime too long", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, _ *http.Request) { s.expires = s.created + 3600 }), "ErrExpired")
	})
	t.Run("replayed nonce", func(t *testing.T) {
		e.t = t
		r := e.signed(e.ed, nil)
		again := r.Clone(context.Background())
		e.expect(r, "ok")
		e.expect(again, "ErrReplay")
	})
	t.Run("unknown keyid", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(newEd25519Key(t), nil), "ErrUnknownKey")
	})
	t.Run("untrusted Signature-Agent", func(t *testing.T) {
		e.t = t
		before := e.dir.hits.Load()
		attacker := evil.keys[0]
		r, s := e.request(evil.origin())
		signRequest(t, r, attacker, s)
		e.expect(r, "ErrUntrusted")
		r, s = e.request("https://169.254.169.254")
		signRequest(t, r, attacker, s)
		e.expect(r, "ErrUntrusted")
		if evil.hits.Load() != 0 || e.dir.hits.Load() != before {
			t.Fatalf("a fetch happened: untrusted %d, trusted %d more", evil.hits.Load(), e.dir.hits.Load()-before)
		}
	})
	t.Run("unsigned", func(t *testing.T) {
		e.t = t
		r, _ := e.request(e.dir.origin())
		e.expect(r, "ErrNoSignature")
	})
	t.Run("alg mismatch", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, _ *http.Request) { s.alg = algRSAPSS }), "ErrAlgorithm")
	})
	t.Run("Signature-Agent not covered", func(t *testing.T) {
		e.t = t
		e.expect(e.signed(e.ed, func(s *spec, _ *http.Request) { s.components = []string{`"@authority"`} }), "ErrMalformed")
	})
	t.Run("no Signature-Agent", func(t *testing.T) {
		e.t = t
		// Directories attributes nothing to a request that names no
		// directory.
		e.expect(e.signed(e.ed, func(s *spec, r *http.Request) {
			r.Header.Del("Signature-Agent")
			s.components = []string{`"@authority"`}
		}), "ErrUntrusted")
	})
	if h := e.dir.hits.Load(); h != 1 {
		t.Fatalf("%d directory fetches over the whole run, want 1", h)
	}
}

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

// TestDirectoryRefused: directories that must not be used.
func TestDirectoryRefused(t *testing.T) {
	other := newEd25519Key(t)
	cases := []struct {
		name   string
		set    func(e *e2e, d *dirServer)
		client *http.Client
		detail string
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
		{name: "unsigned", set: func(_ *e2e, d *dirServer) { d.mode = "unsigned" }, detail: "not signed"},
		{name: "badly signed", set: func(_ *e2e, d *dirServer) { d.mode = "badsig" }, detail: "possession proof"},
		{name: "signed by a key it does not list", set: func(_ *e2e, d *dirServer) { d.signers = []testKey{other} }, detail: "possession proof"},
		{name: "proof for another authority", set: func(_ *e2e, d *dirServer) { d.mode = "otherauthority" }, detail: "possession proof"},
		{name: "proof not covering @authority", set: func(_ *e2e, d *dirServer) { d.mode = "noauthority" }, detail: "@authority"},
		{name: "application/json", set: func(_ *e2e, d *dirServer) { d.mode = "json" }, detail: "Content-Type"},
		{name: "no usable key", set: func(_ *e2e, d *dirServer) { d.keys = nil; d.signers = nil }, detail: "no usable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newE2E(t)
			if c.client != nil {
				dirs, err := NewDirectories([]string{e.dir.origin()}, DirectoryOptions{
					Client: c.client, AllowHTTPLoopback: true, Now: e.clock.Now,
					Logger: slog.New(slog.NewTextHandler(e.logBuf, nil)),
				})
				if err != nil {
					t.Fatal(err)
				}
				e.dirs = dirs
				e.ver.Keys = dirs.Key
			}
			e.dir.set(func(d *dirServer) { c.set(e, d) })
			e.expect(e.signed(e.ed, nil), "ErrUnavailable")
			st := e.dirs.Status()[0]
			if st.LastError == nil || !strings.Contains(st.LastError.Error(), c.detail) || st.Keys != 0 {
				t.Fatalf("status %+v, want an error about %q", st, c.detail)
			}
		})
	}
}

// TestDirectoryKeyWithoutProof: a listed key that did not sign the response
// is dropped (and logged); the proven ones are kept.
func TestDirectoryKeyWithoutProof(t *testing.T) {
	e := newE2E(t)
	e.dir.set(func(d *dirServer) { d.signers = []testKey{e.ed} })
	e.expect(e.signed(e.ed, nil), "ok")
	e.expect(e.signed(e.rsa, nil), "ErrUnknownKey")
	if !strings.Contains(e.logBuf.String(), "possession proof") || !strings.Contains(e.logBuf.String(), e.rsa.id) {
		t.Fatalf("not logged: %s", e.logBuf)
	}
	if st := e.dirs.Status()[0]; st.Keys != 1 {
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
// until its context ends.
func TestDirectoriesRun(t *testing.T) {
	k := newEd25519Key(t)
	d := newDirServer(t, time.Now, k)
	d.set(func(d *dirServer) { d.maxAge = 0 }) // clamped to MinRefresh
	dirs, err := NewDirectories([]string{d.origin()}, DirectoryOptions{
		AllowHTTPLoopback: true, MinRefresh: 100 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
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
}

func TestNewDirectories(t *testing.T) {
	cases := []struct {
		origin   string
		loopback bool
		want     string // normalised origin, "" for an error
	}{
		{"https://agent.example", false, "https://agent.example"},
		{"https://Agent.EXAMPLE:443/", false, "https://agent.example"},
		{"https://agent.example:8443", false, "https://agent.example:8443"},
		{"https://[2001:db8::1]", false, "https://[2001:db8::1]"},
		{"http://agent.example", true, ""},
		{"http://127.0.0.1:8080", false, ""},
		{"http://127.0.0.1:8080", true, "http://127.0.0.1:8080"},
		{"http://localhost:8080", true, "http://localhost:8080"},
		{"http://[::1]:8080", true, "http://[::1]:8080"},
		{"https://agent.example/keys", false, ""},
		{"https://agent.example/.well-known/http-message-signatures-directory", false, ""},
		{"https://user@agent.example", false, ""},
		{"https://agent.example?x=1", false, ""},
		{"https://agent.example/?", false, ""},
		{"https://agent.example#f", false, ""},
		{"ftp://agent.example", false, ""},
		{"agent.example", false, ""},
		{"", false, ""},
		{"https://", false, ""},
		{"https://agent.example:0", false, ""},
		{"https://agent.example:99999", false, ""},
		{"https://agent example", false, ""},
	}
	for _, c := range cases {
		ds, err := NewDirectories([]string{c.origin}, DirectoryOptions{AllowHTTPLoopback: c.loopback})
		if c.want == "" {
			if err == nil {
				t.Errorf("%q accepted", c.origin)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.origin, err)
			continue
		}
		if st := ds.Status(); len(st) != 1 || st[0].Origin != c.want {
			t.Errorf("%q: %+v", c.origin, st)
		}
	}
	if _, err := NewDirectories(nil, DirectoryOptions{MinRefresh: time.Hour, MaxRefresh: time.Minute}); err == nil {
		t.Error("MinRefresh > MaxRefresh accepted")
	}
	if _, err := NewDirectories(nil, DirectoryOptions{MaxBytes: -1}); err == nil {
		t.Error("negative MaxBytes accepted")
	}
}

// TestDirectoriesKeyUntrusted: Key refuses without fetching whatever is not
// a configured origin, however it is spelled, and matches configured ones
// however they are spelled.
func TestDirectoriesKeyUntrusted(t *testing.T) {
	k := newEd25519Key(t)
	d := newDirServer(t, func() time.Time { return testNow }, k)
	ds, err := NewDirectories([]string{d.origin()}, DirectoryOptions{
		AllowHTTPLoopback: true, Now: func() time.Time { return testNow }, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"", "https://agent.example", d.origin() + "/x", d.origin() + "?", strings.Replace(d.origin(), "http://", "https://", 1), "http://localhost" + strings.TrimPrefix(d.origin(), "http://127.0.0.1")} {
		_, err := ds.Key(context.Background(), agent, k.id)
		wantErr(t, err, "ErrUntrusted")
	}
	if d.hits.Load() != 0 {
		t.Fatal("fetched for an untrusted origin")
	}
	if _, err := ds.Key(context.Background(), strings.ToUpper(d.origin())+"/", k.id); err != nil {
		t.Fatal(err)
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
