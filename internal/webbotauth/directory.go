package webbotauth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/httpsyntax"
)

// The well-known path and media type of a key directory
// (draft-ietf-webbotauth-httpsig-protocol-01 8.1, 8.2.1).
const (
	DirectoryPath      = "/.well-known/http-message-signatures-directory"
	DirectoryMediaType = "application/http-message-signatures-directory+json"
)

// jwksAccept is the Accept of a JWK Set at another URL than the well-known
// one: RFC 7517 8.5.1's media type, the directory's, or plain JSON (what a
// static host serves a .json file as).
const jwksAccept = "application/jwk-set+json, " + DirectoryMediaType + ", application/json;q=0.9"

// Defaults of DirectoryOptions.
const (
	DefaultFetchTimeout = 5 * time.Second
	DefaultMinRefresh   = time.Minute
	DefaultMaxRefresh   = 24 * time.Hour
	// DefaultMaxStale is how long a cached directory serves past its
	// freshness while every refresh fails: as long as verify relies on a
	// range list it cannot refresh.
	DefaultMaxStale = 7 * 24 * time.Hour
)

// maxRetryDelay bounds how long a failed fetch is remembered before the
// next attempt (a negative cache, draft C.5: no more than five minutes). It
// is shortened to MinRefresh when that is smaller.
const maxRetryDelay = 10 * time.Second

// DirectoryOptions configures Directories.
type DirectoryOptions struct {
	// Client fetches directories. Default: a client with a 5s timeout. A
	// given client is copied and never follows redirects either; each
	// fetch is bounded to its Timeout or 5s, whichever is shorter.
	Client *http.Client
	// AllowHTTPLoopback admits plain http URLs whose host is a loopback
	// address or "localhost", and lets a directory resolve to a loopback
	// address (tests, local development). Otherwise every trusted URL must
	// be https, and its host must not resolve to a loopback address.
	AllowHTTPLoopback bool
	// RequireProof uses only the keys of a key directory at the
	// well-known URI that prove possession by signing the response
	// (appendix B.1), as draft-meunier-webbotauth-httpsig-protocol-01
	// required of every directory. By default a directory is used as
	// fetched: the draft lets a verifier use keys it resolved itself
	// "whether or not it has valid proof" (B.1), keeping the proof for
	// redistributed key material (5.5.3), and a static host cannot sign
	// its responses. A JWK Set at another URL never needs it (B applies
	// to the well-known URI).
	RequireProof bool
	// MaxBytes bounds a directory body after content decoding; default
	// MaxDirectoryBytes.
	MaxBytes int64
	// Now is the clock of cache lifetimes and signature windows; default
	// time.Now.
	Now func() time.Time
	// MinRefresh and MaxRefresh clamp a directory's Cache-Control max-age
	// (defaults 1 minute and 24 hours). A response without max-age, or with
	// no-cache or no-store, is kept MinRefresh. MinRefresh is also the
	// least interval between fetches triggered by an unknown keyid.
	MinRefresh, MaxRefresh time.Duration
	// MaxStale bounds how long a cached copy serves once stale while its
	// refreshes fail (default DefaultMaxStale). Past it, its keys verify
	// nothing (ErrUnavailable): a key the agent removed, perhaps because
	// it leaked, stays usable no longer than this however long the
	// directory cannot be fetched.
	MaxStale time.Duration
	// Logger receives failed fetches and refreshes and dropped keys;
	// default slog.Default().
	Logger *slog.Logger
}

// DirectoryStatus is the state of one trusted directory, for logs and
// metrics.
type DirectoryStatus struct {
	Agent       string    // the trusted Signature-Agent URL, in the form AgentURL returns
	URL         string    // the URL fetched
	LastFetch   time.Time // last successful fetch; zero if none
	LastAttempt time.Time // last fetch attempted; zero if none
	LastError   error     // error of the last attempt; nil when it succeeded
	Keys        int       // keys in the cached copy (with RequireProof, those with a valid possession proof)
	Proven      int       // keys of the cached copy with a valid possession proof (B.1)
	FreshUntil  time.Time // when the cached copy goes stale
}

// Directories fetches and caches the JWK Sets of trusted Signature-Agent
// URLs (draft-ietf-webbotauth-httpsig-protocol-01 5.5, B.1, C.2 to C.5).
// Only URLs given to NewDirectories are ever fetched: a request's
// Signature-Agent selects among them and never adds one, so a request
// cannot make the server fetch a URL of its choosing (6.7). A URL is
// trusted as an origin ("https://chatgpt.com", the key directory at the
// well-known URI of 8.1) or as the full URL of a JWK Set
// ("https://agent.example/jwks.json", fetched as given, query included);
// a request names it in either spelling that AgentURL makes the same.
//
// A fetch is a GET that requires a 200, at most MaxBytes, no redirect
// (5.5), and a JWK Set (5.5.1). The directory at the well-known URI must
// be served as application/http-message-signatures-directory+json (5.5.1:
// a JSON file served by accident at that path is not a directory); a JWK
// Set elsewhere as JSON (application/jwk-set+json, application/json, or
// any +json type). The host must not resolve to a private, loopback or
// link-local address (6.7; loopback with AllowHTTPLoopback) when the
// client's Transport is an *http.Transport (the default).
//
// A directory at the well-known URI may sign its response, one possession
// proof per key (B.1): a valid RFC 9421 response signature with
// tag="http-message-signatures-directory", keyid its thumbprint, covering
// @authority (`"@authority";req`, or "@authority" which can only mean the
// same), with created (not in the future) and expires (not past), and
// content-digest checked against the body when covered. Proofs are checked
// and counted (DirectoryStatus.Proven); with RequireProof, keys without
// one are dropped and logged, and a directory left with none is refused.
//
// The cached copy is kept per Cache-Control max-age, clamped to
// [MinRefresh, MaxRefresh]. A failed refresh keeps the last good copy (a
// directory that fails to resolve is not evidence, 6.10). An unknown keyid
// triggers a refetch at most once per MinRefresh, so that a newly
// published key is found. Concurrent fetches of one directory are
// coalesced.
type Directories struct {
	client     *http.Client
	timeout    time.Duration
	maxBytes   int64
	now        func() time.Time
	minRefresh time.Duration
	maxRefresh time.Duration
	maxStale   time.Duration
	retry      time.Duration
	proof      bool
	log        *slog.Logger
	entries    map[string]*directory
	order      []*directory
}

type directory struct {
	agent     string // AgentURL form, e.g. "https://agent.example"
	scheme    string
	authority string // host[:port], the @authority of the directory request
	path      string // the path of url, the @path of the directory request
	url       string // fetched
	wellKnown bool   // at the well-known URI: its media type and proofs apply

	mu     sync.Mutex
	keys   map[string]dirKey // by thumbprint; nil until a fetch succeeds
	proven int
	// fetched and attempt are read on both clocks: freshness and keys'
	// nbf/exp follow DirectoryOptions.Now, retries and refreshes either
	// clock (clock.Stamp.Sub), so that a set clock that stands still
	// never stops them.
	fetched    clock.Stamp
	attempt    clock.Stamp
	freshUntil time.Time // by DirectoryOptions.Now
	lastErr    error
	inflight   *fetchCall
}

type fetchCall struct {
	done chan struct{}
	err  error
}

// NewDirectories returns Directories trusting the given Signature-Agent
// URLs: each an https origin ("https://host[:port]", optionally with a "/"
// path), the well-known URI spelled out, or the URL of a JWK Set (a query
// is kept for the fetch, and ignored in matching, 5.5); http only for
// loopback hosts with AllowHTTPLoopback; never userinfo or a fragment, nor
// a query on an origin. Nothing is fetched until Key or Run.
func NewDirectories(trusted []string, opts DirectoryOptions) (*Directories, error) {
	ds := &Directories{
		maxBytes:   opts.MaxBytes,
		now:        opts.Now,
		minRefresh: opts.MinRefresh,
		maxRefresh: opts.MaxRefresh,
		maxStale:   opts.MaxStale,
		proof:      opts.RequireProof,
		log:        opts.Logger,
		entries:    make(map[string]*directory, len(trusted)),
	}
	if ds.maxBytes < 0 || ds.minRefresh < 0 || ds.maxRefresh < 0 || ds.maxStale < 0 {
		return nil, errors.New("webbotauth: DirectoryOptions: negative MaxBytes, MinRefresh, MaxRefresh or MaxStale")
	}
	if ds.maxStale == 0 {
		ds.maxStale = DefaultMaxStale
	}
	if ds.maxBytes == 0 {
		ds.maxBytes = MaxDirectoryBytes
	}
	ds.now = clock.Or(ds.now)
	if ds.minRefresh == 0 {
		ds.minRefresh = DefaultMinRefresh
	}
	if ds.maxRefresh == 0 {
		ds.maxRefresh = DefaultMaxRefresh
	}
	if ds.minRefresh > ds.maxRefresh {
		return nil, fmt.Errorf("webbotauth: DirectoryOptions: MinRefresh %s exceeds MaxRefresh %s", ds.minRefresh, ds.maxRefresh)
	}
	ds.retry = min(maxRetryDelay, ds.minRefresh)
	if ds.log == nil {
		ds.log = slog.Default()
	}
	var c http.Client
	if opts.Client != nil {
		c = *opts.Client
	} else {
		c.Timeout = DefaultFetchTimeout
	}
	// Never follow a redirect (5.5): the 3xx itself is returned, and
	// refused for not being a 200.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ds.client = &c
	hosts := map[string]bool{}
	// A request may wait for a fetch (Key): at most DefaultFetchTimeout,
	// whatever the client's own timeout (verify's is 10 s, for range
	// lists loaded off the request path).
	ds.timeout = DefaultFetchTimeout
	if c.Timeout > 0 {
		ds.timeout = min(c.Timeout, DefaultFetchTimeout)
	}
	for _, t := range trusted {
		u, err := parseAgentURL(t)
		if err != nil {
			return nil, fmt.Errorf("webbotauth: trusted Signature-Agent %q: %v", t, err)
		}
		if u.scheme == "http" && (!opts.AllowHTTPLoopback || !IsLoopback(u.host)) {
			return nil, fmt.Errorf("webbotauth: trusted Signature-Agent %q: only https (http only for a loopback host with AllowHTTPLoopback)", t)
		}
		if u.wellKnown() && u.hasQuery {
			return nil, fmt.Errorf("webbotauth: trusted Signature-Agent %q: an origin or the well-known URI has no query", t)
		}
		agent := u.canonical()
		if ds.entries[agent] != nil {
			continue
		}
		fetch := u.fetchURL()
		if !u.wellKnown() {
			fetch = t // as given (5.5: "fetches the member value as sent")
		}
		path := DirectoryPath
		if !u.wellKnown() {
			path = u.rawPath
		}
		d := &directory{agent: agent, scheme: u.scheme, authority: u.host, path: path, url: fetch, wellKnown: u.wellKnown()}
		ds.entries[agent] = d
		ds.order = append(ds.order, d)
		hosts[hostOnly(u.host)] = true
	}
	guardDial(ds.client, hosts, opts.AllowHTTPLoopback)
	return ds, nil
}

// IsLoopback reports whether the host of a host[:port] is "localhost" or a
// loopback IP address.
func IsLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return httpsyntax.IsLoopbackHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// Key implements KeyResolver. A URL not given to NewDirectories (in any
// spelling AgentURL makes the same) is ErrUntrusted, and nothing is
// fetched. The
// first use of a directory fetches it (waiting at most until ctx is done);
// later uses serve the cached copy, refetching it once stale. A failed
// refresh keeps serving the last good copy and is logged, for at most
// MaxStale past its freshness; a directory
// never fetched successfully and unreachable is ErrUnavailable (retried
// after up to 10s). A keyid absent from the copy is ErrUnknownKey, as is a
// key outside its own nbf/exp.
func (ds *Directories) Key(ctx context.Context, agentURL, keyID string) (crypto.PublicKey, error) {
	if agentURL == "" {
		return nil, fmt.Errorf("%w: no Signature-Agent, so no key directory to consult", ErrNoAgent)
	}
	d := ds.entries[agentURL]
	if d == nil {
		if canon, err := AgentURL(agentURL); err == nil {
			d = ds.entries[canon]
		}
	}
	if d == nil {
		return nil, fmt.Errorf("%w: %q is not a trusted key directory", ErrUntrusted, agentURL)
	}
	stamp := clock.Read(ds.now)
	now := stamp.Wall
	d.mu.Lock()
	var call *fetchCall
	switch {
	case d.keys == nil: // never fetched successfully
		if d.inflight == nil && d.lastErr != nil && stamp.Sub(d.attempt) < ds.retry {
			err := d.lastErr
			d.mu.Unlock()
			return nil, fmt.Errorf("%w: key directory %s: %v", ErrUnavailable, d.agent, err)
		}
		call = ds.startFetch(d, context.WithoutCancel(ctx), stamp)
	case !now.Before(d.freshUntil): // stale
		if d.inflight != nil || stamp.Sub(d.attempt) >= ds.retry {
			call = ds.startFetch(d, context.WithoutCancel(ctx), stamp)
		}
	default: // fresh
		if _, ok := d.keys[keyID]; !ok && (d.inflight != nil || stamp.Sub(d.attempt) >= ds.minRefresh) {
			call = ds.startFetch(d, context.WithoutCancel(ctx), stamp)
		}
	}
	d.mu.Unlock()
	var fetchErr error
	if call != nil {
		select {
		case <-call.done:
			fetchErr = call.err
		case <-ctx.Done():
			fetchErr = ctx.Err()
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.keys == nil {
		if fetchErr == nil {
			fetchErr = d.lastErr
		}
		return nil, fmt.Errorf("%w: key directory %s: %v", ErrUnavailable, d.agent, fetchErr)
	}
	if !now.Before(d.freshUntil.Add(ds.maxStale)) {
		return nil, fmt.Errorf("%w: key directory %s: the cached copy, stale since %s, could not be refreshed for longer than %s: %v",
			ErrUnavailable, d.agent, d.freshUntil.Format(time.RFC3339), ds.maxStale, d.lastErr)
	}
	k, ok := d.keys[keyID]
	if !ok {
		if fetchErr != nil {
			return nil, fmt.Errorf("%w: keyid %q is not in the cached copy of %s, and refreshing it failed: %v", ErrUnavailable, keyID, d.agent, fetchErr)
		}
		return nil, fmt.Errorf("%w: keyid %q is not in the key directory %s", ErrUnknownKey, keyID, d.agent)
	}
	if !k.validAt(now) {
		return nil, fmt.Errorf("%w: keyid %q of %s is outside its nbf/exp", ErrUnknownKey, keyID, d.agent)
	}
	return k.Public, nil
}

// startFetch starts a fetch of d, or joins the one under way; d.mu is held.
// The fetch runs on its own goroutine so that a caller whose ctx ends does
// not abort it for the others; it is bounded by the fetch timeout.
func (ds *Directories) startFetch(d *directory, ctx context.Context, now clock.Stamp) *fetchCall {
	if d.inflight != nil {
		return d.inflight
	}
	call := &fetchCall{done: make(chan struct{})}
	d.inflight = call
	d.attempt = now
	go func() {
		fctx, cancel := context.WithTimeout(ctx, ds.timeout)
		keys, proven, ttl, dropped, err := ds.fetch(fctx, d)
		cancel()
		done := clock.Read(ds.now)
		d.mu.Lock()
		hadCopy, fetched := d.keys != nil, d.fetched.Wall
		if err != nil {
			d.lastErr = err
		} else {
			d.keys, d.proven, d.fetched, d.freshUntil, d.lastErr = keys, proven, done, done.Wall.Add(ttl), nil
		}
		d.inflight = nil
		d.mu.Unlock()
		switch {
		case err != nil && hadCopy:
			ds.log.Warn("webbotauth: key directory refresh failed; serving the cached copy",
				"agent", d.agent, "err", err, "fetched", fetched)
		case err != nil:
			ds.log.Warn("webbotauth: key directory fetch failed", "agent", d.agent, "err", err)
		case len(dropped) > 0 && ds.proof:
			ds.log.Warn("webbotauth: key directory keys dropped for lack of a valid possession proof",
				"agent", d.agent, "dropped", dropped, "kept", len(keys))
		}
		call.err = err
		close(call.done)
	}()
	return call
}

// fetch GETs and checks one directory, returning the keys to use, how
// many have a possession proof, the cache lifetime and the thumbprints of
// the keys without a proof.
func (ds *Directories) fetch(ctx context.Context, d *directory) (map[string]dirKey, int, time.Duration, []string, error) {
	accept := jwksAccept
	if d.wellKnown {
		accept = DirectoryMediaType
	}
	req, h, body, err := Get(ctx, ds.client, d.url, accept, ds.maxBytes)
	if err != nil {
		return nil, 0, 0, nil, err
	}
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	switch {
	case err != nil:
		return nil, 0, 0, nil, fmt.Errorf("Content-Type %q: %v", h.Get("Content-Type"), err)
	case d.wellKnown && mt != DirectoryMediaType:
		return nil, 0, 0, nil, fmt.Errorf("Content-Type %q is not %s (5.5.1)", mt, DirectoryMediaType)
	case !d.wellKnown && mt != "application/json" && !strings.HasSuffix(mt, "+json"):
		return nil, 0, 0, nil, fmt.Errorf("Content-Type %q is not JSON", mt)
	}
	list, err := parseDirectory(body, ds.maxBytes)
	if err != nil {
		return nil, 0, 0, nil, err
	}
	ttl := cacheLifetime(h, ds.minRefresh, ds.maxRefresh)
	keys := make(map[string]dirKey, len(list))
	for _, k := range list {
		keys[k.ID] = k
	}
	if !d.wellKnown {
		return keys, 0, ttl, nil, nil
	}
	rv := requestView{method: http.MethodGet, scheme: d.scheme, authority: d.authority, path: d.path, header: req.Header}
	proven, dropped, err := verifyDirectoryResponse(rv, http.StatusOK, h, body, list, ds.now())
	switch {
	case ds.proof && err != nil:
		return nil, 0, 0, nil, err
	case ds.proof:
		return proven, len(proven), ttl, dropped, nil
	case err != nil && !errors.Is(err, ErrNoSignature):
		// Proofs that do not verify are no reason to refuse a directory
		// fetched from its own host (B.1), but the operator should hear
		// of them.
		ds.log.Warn("webbotauth: key directory possession proofs do not verify; its keys are used as fetched",
			"agent", d.agent, "err", err)
	}
	return keys, len(proven), ttl, dropped, nil
}

// Run refreshes every trusted directory before its cached copy expires
// (at nine tenths of its lifetime), fetching those never fetched at once
// and retrying failures after up to 10s, until ctx is done. Requests then
// find a fresh copy and never wait for a fetch. A set clock
// (DirectoryOptions.Now) that stands still does not stop the refreshes:
// an interval passes on either clock (clock.Stamp.Sub).
func (ds *Directories) Run(ctx context.Context) {
	for {
		now := clock.Read(ds.now)
		wait := ds.maxRefresh
		for _, d := range ds.order {
			d.mu.Lock()
			due := d.dueIn(now, ds.retry)
			if due <= 0 && d.inflight == nil {
				ds.startFetch(d, ctx, now)
				due = ds.retry
			} else if d.inflight != nil {
				due = ds.retry
			}
			d.mu.Unlock()
			wait = min(wait, due)
		}
		wait = max(wait, 10*time.Millisecond)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// dueIn is how long from now Run should wait before it fetches d again
// (0 or less: now); d.mu is held.
func (d *directory) dueIn(now clock.Stamp, retry time.Duration) time.Duration {
	if d.attempt.IsZero() {
		return 0
	}
	retryIn := retry - now.Sub(d.attempt)
	if d.keys == nil {
		return retryIn
	}
	ttl := d.freshUntil.Sub(d.fetched.Wall)
	refreshIn := ttl - ttl/10 - now.Sub(d.fetched)
	if d.lastErr != nil && retryIn > refreshIn {
		return retryIn
	}
	return refreshIn
}

// Status reports the state of every trusted directory, in the order given
// to NewDirectories.
func (ds *Directories) Status() []DirectoryStatus {
	out := make([]DirectoryStatus, 0, len(ds.order))
	for _, d := range ds.order {
		d.mu.Lock()
		out = append(out, DirectoryStatus{
			Agent:       d.agent,
			URL:         d.url,
			Proven:      d.proven,
			LastFetch:   d.fetched.Wall,
			LastAttempt: d.attempt.Wall,
			LastError:   d.lastErr,
			Keys:        len(d.keys),
			FreshUntil:  d.freshUntil,
		})
		d.mu.Unlock()
	}
	return out
}
