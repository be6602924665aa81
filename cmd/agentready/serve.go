package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/httpsyntax"
	"github.com/agentready/agentready/metrics"
	"github.com/agentready/agentready/ratelimit"
	livereport "github.com/agentready/agentready/report"
)

// proxyConfig is what serve runs with.
type proxyConfig struct {
	configFile, upstream, addr, metricsAddr, redisAddr string
	// redisPolicy is -redis-policy, the failover's (ratelimit's
	// FallbackMemory when empty); healthAddr -health-addr.
	redisPolicy, healthAddr string
	// forwardAuthAddr is -forward-auth: where decision subrequests are
	// answered (serve_forward_auth.go); "" for none.
	forwardAuthAddr string
	// tls is -tls-cert and -tls-key (serve_tls.go).
	tls tlsFiles
	// reportOnly, robots, strictUpstream and trusted are the flags over
	// the file's settings: a false bool and a nil list leave the file's
	// (the command line sets ov instead, to say -report-only=false too).
	reportOnly, robots bool
	trusted            []string
	// strictUpstream (-strict-upstream) declares, as the file's
	// upstream: {strict: true} does, an upstream that routes a path only
	// as spelled.
	strictUpstream bool
	ov             *overrides
	// upstreamTimeout bounds the wait for the upstream's response
	// headers; 0 is 30 s.
	upstreamTimeout time.Duration
	log             *slog.Logger
	// logDecisions is none, deny (the default) or all; logRate the most
	// decision lines a second (default 10); logInterval how often the
	// counts of repeated failures and dropped lines are written (10 s).
	logDecisions string
	logRate      int
	logInterval  time.Duration
	credentials  credentialSources
	// report (-report) hears every decision, session and sealed
	// artifact; nil without -report.
	report *livereport.Report
}

// overrides are the flags over the file's settings.
func (c *proxyConfig) overrides() overrides {
	var ov overrides
	if c.ov != nil {
		ov = *c.ov
		ov.credentials = c.credentials
		return ov
	}
	yes := true
	if c.reportOnly {
		ov.reportOnly = &yes
	}
	if c.robots {
		ov.robots = &yes
	}
	if c.strictUpstream {
		ov.strict = &yes
	}
	ov.trusted = c.trusted
	ov.credentials = c.credentials
	return ov
}

// proxy is agentready in front of an upstream site: the documents and the
// enforcement of the declaration file, everything else proxied.
type proxy struct {
	handler http.Handler
	metrics http.Handler // nil without -metrics
	close   func()
	// closers are what close runs, last first: what newProxy opened, in
	// the order it opened them.
	closers []func()
	// transport replaces the transport to the upstream (benchmarks).
	transport func(http.RoundTripper)
	// reload reads the declaration file (and the credentials) again and
	// swaps them in (agentready's Reload); a file with problems is
	// refused and the running declaration keeps serving.
	reload func() error
	// redis is -redis's store (nil without), sm serve's own metrics (nil
	// without -metrics).
	redis *redisStore
	sm    *serveMetrics
	// forwardAuth answers -forward-auth's subrequests (nil without).
	forwardAuth *forwardAuth
}

// newProxy builds the proxy of c. The upstream sees, in X-Real-IP and
// X-Forwarded-For, only the client address agentready derived (the
// peer's, or the one trusted proxies named): no address the client wrote
// is passed on (forward).
func newProxy(c proxyConfig) (*proxy, error) {
	up, err := url.Parse(c.upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, fmt.Errorf("-upstream %q: want an http(s) URL", c.upstream)
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.logInterval = cmp.Or(c.logInterval, 10*time.Second)
	c.logRate = cmp.Or(c.logRate, 10)
	c.upstreamTimeout = cmp.Or(c.upstreamTimeout, 30*time.Second)
	p := &proxy{}
	p.close = func() {
		for i := len(p.closers) - 1; i >= 0; i-- {
			p.closers[i]()
		}
	}
	// Whatever was opened before a failure is closed: a caller gets no
	// proxy to close.
	fail := func(err error) (*proxy, error) { p.close(); return nil, err }

	obs, err := p.openObservers(c)
	if err != nil {
		return fail(err)
	}
	// The tokens and keys are prepare's (the file's, or the flags').
	ov := c.overrides()
	if p.redis != nil {
		ov.auditStore = p.redis.audit
	}
	decl, err := prepare(c.configFile, ov, obs.opts...)
	if err != nil {
		return fail(err)
	}
	warnServe(c.log, decl)
	ip, err := clientip.New(decl.trusted)
	if err != nil {
		return fail(fmt.Errorf("-trusted-proxies: %w", err))
	}
	upstreamFailed := &repeated{log: c.log, msg: "agentready serve: the upstream failed", every: c.logInterval}
	rp := &httputil.ReverseProxy{
		Rewrite:   rewrite(up, ip),
		Transport: p.sm.transport(newTransport(c.upstreamTimeout)),
		// The 32 KiB buffer each response is copied through is reused,
		// not allocated per request (httputil's default): under load that
		// allocation is most of what the garbage collector does.
		BufferPool:   copyBuffers{},
		ErrorLog:     stdLogger(c.log),
		ErrorHandler: upstreamError(upstreamFailed),
	}
	p.transport = func(t http.RoundTripper) { rp.Transport = p.sm.transport(t) }
	p.background(decl.m, c.logInterval, obs.dl, upstreamFailed)
	if c.forwardAuthAddr != "" {
		if p.forwardAuth, err = newForwardAuth(decl, c.log); err != nil {
			return fail(err)
		}
	}
	p.reload = reloader(c.configFile, ov, obs.opts, decl, p.forwardAuth)
	p.tellReport(c.report, rp) // serve_report.go
	var h http.Handler = decl.m.Handler(rp)
	if obs.mx != nil {
		h = obs.mx.Documents(h, decl.m)
	}
	p.handler = forwardedWarning(h, ip, c.log)
	return p, nil
}

// observers are what serve adds to the options the file implies: its
// logger, the Redis store, the live report, and who hears each decision
// (metrics, the decision log).
type observers struct {
	opts []agentready.Option
	mx   *metrics.Metrics // nil without -metrics
	dl   *decisionLog     // nil with -log-decisions none
}

// openObservers opens the store and the metrics c asks for (p closes them)
// and returns them as agentready's options.
func (p *proxy) openObservers(c proxyConfig) (observers, error) {
	obs := observers{opts: []agentready.Option{agentready.WithLogger(c.log)}}
	var store ratelimit.Store
	if c.redisAddr != "" {
		routeRedisLog(c.log, c.logInterval)
		rs, err := newRedisStore(c.redisAddr, c.redisPolicy, c.log)
		if err != nil {
			return obs, err
		}
		p.closers = append(p.closers, rs.close)
		p.redis = rs
		store = rs.store
		obs.opts = append(obs.opts, agentready.WithStore(store), agentready.WithSessions(rs.sessions))
	}
	if c.report != nil {
		obs.opts = append(obs.opts, agentready.WithReport(c.report))
	}
	var hooks []func(enforce.Decision)
	if c.metricsAddr != "" {
		var err error
		if obs.mx, p.sm, p.metrics, err = newMetrics(store); err != nil {
			return obs, err
		}
		hooks = append(hooks, obs.mx.Observe)
	}
	dl, err := newDecisionLog(c.log, cmp.Or(c.logDecisions, logDecisionsDeny), c.logRate)
	if err != nil {
		return obs, err
	}
	if dl != nil {
		obs.dl = dl
		hooks = append(hooks, dl.observe)
	}
	// agentready takes one hook: the two are called in turn.
	switch len(hooks) {
	case 1:
		obs.opts = append(obs.opts, agentready.WithOnDecision(hooks[0]))
	case 2:
		obs.opts = append(obs.opts, agentready.WithOnDecision(func(d enforce.Decision) { hooks[0](d); hooks[1](d) }))
	}
	return obs, nil
}

// newMetrics is -metrics' registry and its handler: agentready's series,
// the store's when serve shares limits through one, and the process's and
// the Go runtime's (CPU, memory, file descriptors, goroutines, GC) beside
// them, so one scrape tells how serve itself is doing.
func newMetrics(store ratelimit.Store) (*metrics.Metrics, *serveMetrics, http.Handler, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, nil, nil, err
	}
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, nil, nil, err
	}
	mx, err := metrics.New(reg)
	if err != nil {
		return nil, nil, nil, err
	}
	if store != nil {
		if err := mx.WatchStore(store); err != nil {
			return nil, nil, nil, err
		}
	}
	sm, err := newServeMetrics(reg)
	if err != nil {
		return nil, nil, nil, err
	}
	return mx, sm, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), nil
}

// warnServe says, at every start, what decl leaves open: credentials
// serve cannot check, and trusted proxies that let clients name their own
// address. Neither is refused: the file says it means them.
func warnServe(l *slog.Logger, decl declaration) {
	if ids := decl.creds.Load().unchecked(&decl.Site); len(ids) > 0 {
		l.Warn("agentready serve: these capabilities' credentials are checked for presence only: the upstream must check them (or give their tokens in serve: {tokens_file} or {tokens_env}, or -tokens or -tokens-env)",
			"capabilities", ids)
	}
	if decl.trustedAll != "" {
		l.Warn("agentready serve: trust_all_proxies: "+trustAllMeans, "trusted_proxies", decl.trusted, "cover", decl.trustedAll)
	}
}

// rewrite is the ReverseProxy's Rewrite: the request to up, with the Host
// the client sent and only the forwarding fields agentready derived. With
// Rewrite, the inbound Forwarded and X-Forwarded-* fields are removed
// before it runs.
func rewrite(up *url.URL, ip *clientip.Resolver) func(*httputil.ProxyRequest) {
	var values valueCache
	return func(pr *httputil.ProxyRequest) {
		pr.SetURL(up)
		pr.Out.URL.RawQuery = upstreamQuery(up.RawQuery, pr.In.URL.RawQuery)
		pr.Out.Host = pr.In.Host
		// httputil.ReverseProxy forwards every Upgrade; an upstream that
		// switches unasked is refused by it (a 101 for an upgrade not
		// asked for).
		httpsyntax.OnlyWebSocket(pr.Out.Header)
		forward(pr.Out.Header, ip.Addr(pr.In), &values)
		pr.Out.Header["X-Forwarded-Host"] = values.of(pr.In.Host)
		pr.Out.Header["X-Forwarded-Proto"] = protoHTTP
		if pr.In.TLS != nil {
			pr.Out.Header["X-Forwarded-Proto"] = protoHTTPS
		}
	}
}

// upstreamQuery is the query sent upstream: up's, then the client's as
// sent (docs/enforcement.md, "One canonical target"). ReverseProxy drops
// the members url.ParseQuery refuses (a ";" separator, a malformed escape)
// and encodes the rest anew. Every decision that reads a member reads them
// split on "&" and on ";" alike, so the upstream's reading, whichever, was
// decided on.
func upstreamQuery(up, in string) string {
	if up == "" || in == "" {
		return up + in
	}
	return up + "&" + in
}

// upstreamError answers a request the upstream failed with 502, and logs
// the failure through failed, which counts repeats rather than writing a
// line for each.
func upstreamError(failed *repeated) func(http.ResponseWriter, *http.Request, error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		failed.add(err, "path", r.URL.Path)
		http.Error(w, "the site is unavailable", http.StatusBadGateway)
	}
}

// background looks after, until p closes, the sources of verified-only
// policies (a reload's too) and expired sessions (m.Run), and writes the
// counts of repeated lines every interval.
func (p *proxy) background(m *agentready.Middleware, every time.Duration, dl *decisionLog, failed *repeated) {
	bg, stop := context.WithCancel(context.Background())
	p.closers = append(p.closers, stop)
	go func() { _ = m.Run(bg) }()
	go reportHeld(bg, every, dl, failed)
}

// reloader is proxy.reload: it prepares the file again and swaps the new
// declaration into running's Middleware (and fa's, nil without
// -forward-auth), or refuses it whole.
func reloader(file string, ov overrides, opts []agentready.Option, running declaration, fa *forwardAuth) func() error {
	m, creds := running.m, running.creds
	return func() error {
		// New's warnings are the Reload's to say, once: the Middleware
		// prepare builds to decide on the file is not served.
		next, err := prepare(file, ov, append(opts[:len(opts):len(opts)], quiet)...)
		if err != nil {
			return err
		}
		// What New was built with cannot change by a Reload: a file that
		// would change it is refused, not half applied.
		if err := sameSettings(file, running, next); err != nil {
			return err
		}
		if err := m.Reload(next.Site); err != nil {
			return err
		}
		// m reads the tokens and keys of the declaration it was built
		// with; they become the file's (and the flags') as read now.
		creds.Store(next.creds.Load())
		if fa != nil {
			fa.update(next)
		}
		running = next
		return nil
	}
}

var (
	protoHTTP  = []string{"http"}
	protoHTTPS = []string{"https"}
)

// copyBuffers is the ReverseProxy's pool of copy buffers.
type copyBuffers struct{}

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (copyBuffers) Get() []byte  { return *bufferPool.Get().(*[]byte) }
func (copyBuffers) Put(b []byte) { bufferPool.Put(&b) }

// reportHeld writes, every interval until ctx is done, the counts of the
// lines held back: decision lines over the rate, repeated upstream and
// Redis client failures.
func reportHeld(ctx context.Context, every time.Duration, dl *decisionLog, rs ...*repeated) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if dl != nil {
				dl.report(every)
			}
			for _, r := range rs {
				r.flush()
			}
			if r := redisLog.r.Load(); r != nil {
				r.flush()
			}
		}
	}
}

// newServer is the server of serve's listener. ReadTimeout bounds a
// trickled request body too (2 minutes: uploads to the site pass through).
func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute, IdleTimeout: 120 * time.Second}
}

// newTransport is the transport to the upstream: no proxy from the
// environment, connections kept for reuse.
func newTransport(headerTimeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		ResponseHeaderTimeout: headerTimeout,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   64,
	}
}

// clientWritten are the request fields an upstream may take for the
// client's address (nginx's real_ip_header, Rack, Werkzeug's ProxyFix,
// CDNs' own, Java's Proxy-Client-IP helpers) or for the target to route
// (IIS and Symfony read X-Original-URL and X-Rewrite-URL, Tornado
// X-Scheme). Coming from the client, they are what it chose to write; the
// upstream gets none of them but the derived address. Every X-Forwarded-*
// field is one too (Rewrite removes only Forwarded, X-Forwarded-For, -Host
// and -Proto; Rack reads X-Forwarded-Ssl and -Scheme, Spring and ASP.NET
// X-Forwarded-Prefix), and so are the less common names of the same
// (ingress-nginx's X-Original-Forwarded-For, Envoy's
// X-Envoy-External-Address).
var clientWritten = httpsyntax.ForwardingFields // one list with config's api-key check

// clientWrittenSet is clientWritten as net/http spells a received field's
// name (textproto.CanonicalMIMEHeaderKey).
var clientWrittenSet = func() map[string]bool {
	m := make(map[string]bool, len(clientWritten))
	for _, f := range clientWritten {
		m[textproto.CanonicalMIMEHeaderKey(f)] = true
	}
	return m
}()

// forward sets in h, the header of a request to the upstream, the client
// address agentready derived (invalid: none) in X-Real-IP and
// X-Forwarded-For, after removing every field a client may have written
// to name an address or a target (clientWritten), in any case. A field
// whose name holds anything but letters, digits and '-' is removed too,
// as nginx and Apache remove it: CGI, FastCGI, WSGI and PHP read '_' (and
// PHP '.' and ' ') as '-', so X_Real_IP, X.Forwarded.For or
// X.HTTP.Method.Override would reach the application as the field
// agentready removed or decided on.
func forward(h http.Header, client netip.Addr, vc *valueCache) {
	for k := range h {
		if clientWrote(k) {
			delete(h, k)
		}
	}
	if client.IsValid() {
		a := vc.addr(client)
		h["X-Real-Ip"] = a
		h["X-Forwarded-For"] = a
	}
}

// valueCache holds the field values forward and Rewrite set, one-element
// slices that are the same from one request of a client to the next:
// taken from here, they are not allocated per request (with the address's
// text, a third of serve's own allocations). Its slots are fixed in
// number, so a flood of clients only replaces entries. A header holds the
// slice it is given, which nothing writes into (Header.Add appends to a
// full slice, which copies it), so requests may share one.
type valueCache struct {
	addrs [256]atomic.Pointer[addrValue]
	host  atomic.Pointer[hostValue]
}

type addrValue struct {
	a netip.Addr
	v []string
}

type hostValue struct {
	h string
	v []string
}

// addr is []string{a.String()}.
func (c *valueCache) addr(a netip.Addr) []string {
	var h uint64
	if a.Is4() {
		b := a.As4()
		h = uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	} else {
		b := a.As16()
		for _, x := range b {
			h = h*31 + uint64(x)
		}
	}
	slot := &c.addrs[(h^h>>8)%uint64(len(c.addrs))]
	if e := slot.Load(); e != nil && e.a == a {
		return e.v
	}
	e := &addrValue{a, []string{a.String()}}
	slot.Store(e)
	return e.v
}

// of is []string{host}: the last Host seen is kept (a site has few).
func (c *valueCache) of(host string) []string {
	if e := c.host.Load(); e != nil && e.h == host {
		return e.v
	}
	e := &hostValue{host, []string{host}}
	c.host.Store(e)
	return e.v
}

// clientWrote reports whether forward drops the field named k. net/http
// gives a received field its canonical name, which one map lookup
// decides; only a name spelled otherwise is compared without case, name
// by name.
func clientWrote(k string) bool {
	if clientWrittenSet[k] || strings.HasPrefix(k, httpsyntax.ForwardingPrefix) {
		return true
	}
	canonical, upper := true, true
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '-':
			upper = true
			continue
		case 'a' <= c && c <= 'z':
			canonical = canonical && !upper
		case 'A' <= c && c <= 'Z':
			canonical = canonical && upper
		case '0' <= c && c <= '9':
		default:
			return true // not a letter, a digit or '-'
		}
		upper = false
	}
	if canonical {
		return false
	}
	if len(k) >= len("X-Forwarded-") && strings.EqualFold(k[:len("X-Forwarded-")], "X-Forwarded-") {
		return true
	}
	return slices.ContainsFunc(clientWritten, func(f string) bool { return strings.EqualFold(k, f) })
}
