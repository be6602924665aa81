package webbotauth

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/testing/logbuf"
)

// dirServer is an operator's key directory on 127.0.0.1: it serves its keys
// at the well-known path, signed per draft-ietf-webbotauth-httpsig-protocol-01
// B.1 (one proof per key over "@authority";req and content-digest), unless
// a mode says otherwise, and as a static host would at jwksPath: a plain
// JWK Set, application/json, unsigned. It counts its hits.
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
	jwksPath   string // "/keys/jwks.json"
	lastURL    string // the request URI of the last hit
}

func newDirServer(t testing.TB, now func() time.Time, keys ...testKey) *dirServer {
	d := &dirServer{keys: keys, maxAge: 300, now: now, release: make(chan struct{}), jwksPath: "/keys/jwks.json"}
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
	d.lastURL = r.URL.RequestURI()
	d.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	static := r.URL.Path == d.jwksPath
	if !static && (r.URL.Path != DirectoryPath || r.Header.Get("Accept") != DirectoryMediaType) {
		http.NotFound(w, r)
		return
	}
	if static && (mode == "" || mode == "json") {
		mode = "static" // a JSON file: unsigned, application/json
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
	switch mode {
	case "json", "static":
		h.Set("Content-Type", "application/json")
	case "statichtml":
		h.Set("Content-Type", "text/html")
	}
	h.Set("Content-Digest", digest)
	h.Set("Cache-Control", "max-age="+strconv.Itoa(maxAge))
	if signers == nil {
		signers = keys
	}
	if mode != "unsigned" && mode != "static" && mode != "statichtml" {
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
	clock  *fakeClock
	dir    *dirServer
	dirs   *Directories
	ver    *Verifier
	site   *httptest.Server
	ed     testKey
	rsa    testKey
	logBuf *logbuf.Buffer
}

// newE2E starts a directory holding an Ed25519 and an RSA key, Directories
// trusting its origin, and a site whose handler verifies each request for
// the authority site.example.
func newE2E(t *testing.T) *e2e { return newE2EWith(t, DirectoryOptions{}) }

// newE2EWith is newE2E with options (AllowHTTPLoopback, Now and Logger are
// set here) and trusting the given URLs (default: the directory's origin);
// "DIR" in them stands for the directory's origin.
func newE2EWith(t *testing.T, opts DirectoryOptions, trusted ...string) *e2e {
	e := &e2e{t: t, clock: newClock(testNow), ed: newEd25519Key(t), rsa: privateJWK(t, rsaTestKey()), logBuf: &logbuf.Buffer{}}
	e.dir = newDirServer(t, e.clock.Now, e.ed, e.rsa)
	if len(trusted) == 0 {
		trusted = []string{"DIR"}
	}
	for i := range trusted {
		trusted[i] = strings.Replace(trusted[i], "DIR", e.dir.origin(), 1)
	}
	opts.AllowHTTPLoopback, opts.Now = true, e.clock.Now
	opts.Logger = slog.New(slog.NewTextHandler(e.logBuf, nil))
	dirs, err := NewDirectories(trusted, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.dirs = dirs
	replays := NewMemoryReplays(1000)
	e.ver = &Verifier{Keys: dirs.Key, Now: e.clock.Now, Replays: replays, AllowHTTPLoopback: true}
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
		e.expect(e.signed(e.ed, func(s *spec, _ *http.Request) { s.expires = s.created + 3600 }), "ErrLifetime")
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
		// A signed request names a directory, or is not verified.
		e.expect(e.signed(e.ed, func(s *spec, r *http.Request) {
			r.Header.Del("Signature-Agent")
			s.components = []string{`"@authority"`}
		}), "ErrNoAgent")
	})
	if h := e.dir.hits.Load(); h != 1 {
		t.Fatalf("%d directory fetches over the whole run, want 1", h)
	}
}

// TestEndToEndDraft01 is a signer following
// draft-ietf-webbotauth-httpsig-protocol-01: its Signature-Agent is the URL
// of its JWK Set (5.5), published on a static host that cannot sign
// (application/json, no possession proof), and the site trusts that URL.
func TestEndToEndDraft01(t *testing.T) {
	for _, requireProof := range []bool{false, true} {
		t.Run(fmt.Sprintf("RequireProof=%v", requireProof), func(t *testing.T) {
			e := newE2EWith(t, DirectoryOptions{RequireProof: requireProof}, "DIR/keys/jwks.json")
			jwks := e.dir.origin() + "/keys/jwks.json"
			r, s := e.request(jwks)
			signRequest(t, r, e.ed, s)
			if agent := e.expect(r, "ok"); agent != jwks {
				t.Fatalf("agent %q, want %q", agent, jwks)
			}
			if e.dir.lastURL != "/keys/jwks.json" || e.dir.hits.Load() != 1 {
				t.Fatalf("fetched %q (%d hits)", e.dir.lastURL, e.dir.hits.Load())
			}
			// Another spelling of the same URL is the same agent (5.5:
			// normalised, the query dropped), from the cache.
			r, s = e.request(strings.Replace(jwks, "/keys/", "/keys/./", 1) + "?v=2")
			signRequest(t, r, e.rsa, s)
			if agent := e.expect(r, "ok"); agent != jwks || e.dir.hits.Load() != 1 {
				t.Fatalf("agent %q, %d hits", agent, e.dir.hits.Load())
			}
			// The origin is another URL, which the site does not trust.
			r, s = e.request(e.dir.origin())
			signRequest(t, r, e.ed, s)
			e.expect(r, "ErrUntrusted")
			if e.dir.hits.Load() != 1 {
				t.Fatal("an untrusted URL was fetched")
			}
			if st := e.dirs.Status()[0]; st.Agent != jwks || st.URL != jwks || st.Keys != 2 || st.Proven != 0 {
				t.Fatalf("status %+v", st)
			}
		})
	}
	// A JWK Set the site trusts with a query is fetched with it.
	e := newE2EWith(t, DirectoryOptions{}, "DIR/keys/jwks.json?tenant=7")
	r, s := e.request(e.dir.origin() + "/keys/jwks.json")
	signRequest(t, r, e.ed, s)
	e.expect(r, "ok")
	if e.dir.lastURL != "/keys/jwks.json?tenant=7" {
		t.Fatalf("fetched %q", e.dir.lastURL)
	}
	// Not JSON: not a JWK Set.
	e = newE2EWith(t, DirectoryOptions{}, "DIR/keys/jwks.json")
	e.dir.set(func(d *dirServer) { d.mode = "statichtml" })
	r, s = e.request(e.dir.origin() + "/keys/jwks.json")
	signRequest(t, r, e.ed, s)
	e.expect(r, "ErrUnavailable")
}

// TestEndToEndLegacy is a signer as deployed agents still sign (ChatGPT
// agent sends "https://chatgpt.com"): a bare origin, whose key directory
// is at the well-known URI, in the Dictionary or the sf-string form; and
// the same directory named by its well-known URL spelled out. All are one
// agent, the origin; its directory is used whether it signs its response
// or not.
func TestEndToEndLegacy(t *testing.T) {
	for _, mode := range []string{"", "unsigned"} {
		e := newE2E(t)
		e.dir.set(func(d *dirServer) { d.mode = mode })
		origin := e.dir.origin()
		for name, r := range map[string]*http.Request{
			"dictionary, origin": e.signed(e.ed, nil),
			"dictionary, origin with a slash": e.signed(e.ed, func(s *spec, r *http.Request) {
				r.Header.Set("Signature-Agent", `sig1="`+origin+`/"`)
				s.agentValue = `"` + origin + `/"`
			}),
			"sf-string": e.signed(e.rsa, func(s *spec, r *http.Request) {
				r.Header.Set("Signature-Agent", `"`+origin+`"`)
				s.components = []string{`"@authority"`, `"signature-agent"`}
			}),
			"well-known URL": e.signed(e.ed, func(s *spec, r *http.Request) {
				r.Header.Set("Signature-Agent", `sig1="`+origin+DirectoryPath+`"`)
				s.agentValue = `"` + origin + DirectoryPath + `"`
			}),
		} {
			if agent := e.expect(r, "ok"); agent != origin {
				t.Fatalf("%s (directory %q): agent %q", name, mode, agent)
			}
		}
		if e.dir.hits.Load() != 1 || e.dir.lastURL != DirectoryPath {
			t.Fatalf("%d fetches, last %q", e.dir.hits.Load(), e.dir.lastURL)
		}
	}
}

// TestEndToEndMultipleSignatures is the remote browser of the draft's
// appendix D.2: the agent signs, the browser signs the request it sends
// and covers the agent's signature fields. Each signature is verified on
// its own (5.2.2), and what verifies is attributed to its own member only.
func TestEndToEndMultipleSignatures(t *testing.T) {
	e := newE2E(t)
	browser := newDirServer(t, e.clock.Now, newEd25519Key(t))
	build := func(browserFirst bool) *http.Request {
		r, s := e.request(e.dir.origin())
		agentValue := `"` + e.dir.origin() + `"`
		browserValue := `"` + browser.origin() + `"`
		r.Header.Set("Signature-Agent", `agent=`+agentValue+`, browser=`+browserValue)
		a := s
		a.label = "agent"
		a.components = []string{`"@method"`, `"@authority"`, `"@path"`, `"signature-agent";key="agent"`}
		a.members = map[string]string{"agent": agentValue}
		b := s
		b.label, b.nonce = "browser", randomNonce(t)
		b.components = []string{`"@method"`, `"@authority"`, `"@path"`, `"signature-agent";key="browser"`,
			`"signature-agent";key="agent"`, `"signature-input";key="agent"`, `"signature";key="agent"`}
		b.members = map[string]string{"browser": browserValue, "agent": agentValue}
		signRequest(t, r, e.ed, a)
		// The browser's base covers the agent's fields as sent.
		in, sig := r.Header.Get("Signature-Input"), r.Header.Get("Signature")
		r.Header.Set("X-Agent-Input", in[len("agent="):])
		r.Header.Set("X-Agent-Sig", sig[len("agent="):])
		base := b.base(t, r, browser.keys[0])
		base = strings.Replace(base, `"signature-input";key="agent": `, `"signature-input";key="agent": `+in[len("agent="):], 1)
		base = strings.Replace(base, `"signature";key="agent": `, `"signature";key="agent": `+sig[len("agent="):], 1)
		r.Header.Del("X-Agent-Input")
		r.Header.Del("X-Agent-Sig")
		bsig := base64.StdEncoding.EncodeToString(browser.keys[0].sign(t, base))
		if browserFirst {
			r.Header.Set("Signature-Input", "browser="+b.params(browser.keys[0])+", "+in)
			r.Header.Set("Signature", "browser=:"+bsig+":, "+sig)
		} else {
			r.Header.Set("Signature-Input", in+", browser="+b.params(browser.keys[0]))
			r.Header.Set("Signature", sig+", browser=:"+bsig+":")
		}
		return r
	}
	// The site trusts the agent, not the browser: the browser's signature
	// is not verified, the agent's is, and the request is the agent's.
	if agent := e.expect(build(true), "ok"); agent != e.dir.origin() {
		t.Fatalf("agent %q", agent)
	}
	if browser.hits.Load() != 0 {
		t.Fatal("the untrusted browser's directory was fetched")
	}
	// Trusting both, the first valid signature (the browser's, listed
	// first) names the browser: its own member, not the agent's it covers.
	dirs, err := NewDirectories([]string{e.dir.origin(), browser.origin()}, DirectoryOptions{
		AllowHTTPLoopback: true, Now: e.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e.ver.Keys = dirs.Key
	if agent := e.expect(build(true), "ok"); agent != browser.origin() {
		t.Fatalf("agent %q, want the browser", agent)
	}
	// A tampered agent signature fails the agent's; the browser's, which
	// covered the original value, fails with it; nothing verifies.
	r := build(false)
	agentSig, browserSig, _ := strings.Cut(r.Header.Get("Signature"), ", ")
	r.Header.Set("Signature", flipSignatureByte(t, agentSig)+", "+browserSig)
	e.expect(r, "ErrBadSignature")
	// Untampered, the agent's verifies first.
	if agent := e.expect(build(false), "ok"); agent != e.dir.origin() {
		t.Fatalf("agent %q", agent)
	}
}

// TestDirectoryPrivateAddress: a trusted name that resolves to a loopback
// or private address is not fetched (6.7), unless AllowHTTPLoopback allows
// loopback.
func TestDirectoryPrivateAddress(t *testing.T) {
	k := newEd25519Key(t)
	d := newDirServer(t, func() time.Time { return testNow }, k)
	srv := httptest.NewTLSServer(d)
	defer srv.Close()
	// srv.Client() dials its own way (it sends example.com to srv), which
	// is the caller's to guard: a plain transport trusting srv's
	// certificate.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig}}
	for _, allow := range []bool{false, true} {
		ds, err := NewDirectories([]string{srv.URL}, DirectoryOptions{Client: client, AllowHTTPLoopback: allow,
			Now: func() time.Time { return testNow }, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ds.Key(context.Background(), srv.URL, k.id)
		if allow {
			wantErr(t, err, "ok")
			continue
		}
		wantErr(t, err, "ErrUnavailable")
		if !strings.Contains(err.Error(), "private, loopback or link-local") {
			t.Fatalf("%v", err)
		}
	}
	for a, forbidden := range map[string]bool{
		"10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true, "100.64.0.1": true,
		"0.0.0.0": true, "::": true, "fe80::1": true, "fc00::1": true, "ff02::1": true, "::ffff:10.0.0.1": true,
		"127.0.0.1": true, "::1": true, "8.8.8.8": false, "2001:4860:4860::8888": false, "::ffff:1.1.1.1": false,
	} {
		if got := forbiddenAddress(netip.MustParseAddr(a), false); got != forbidden {
			t.Errorf("%s: forbidden %v", a, got)
		}
	}
	if forbiddenAddress(netip.MustParseAddr("127.0.0.1"), true) {
		t.Error("loopback refused with AllowHTTPLoopback")
	}
}
