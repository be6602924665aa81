package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/metrics"
	"github.com/agentready/agentready/ratelimit"
	"github.com/agentready/agentready/redisstore"
)

// proxyConfig is what serve runs with.
type proxyConfig struct {
	configFile, upstream, addr, metricsAddr, redisAddr string
	reportOnly, robots                                 bool
	trusted                                            []string
	upstreamTimeout                                    time.Duration
	log                                                *slog.Logger
	// strictUpstream (-strict-upstream) declares, as the file's
	// upstream: {strict: true} does, an upstream that routes a path only
	// as spelled.
	strictUpstream bool
}

// proxy is agentready in front of an upstream site: the documents and the
// enforcement of the declaration file, everything else proxied.
type proxy struct {
	handler http.Handler
	metrics http.Handler // nil without -metrics
	close   func()
	// reload reads the declaration file again and swaps it in
	// (agentready's Reload); a file with problems is refused and the
	// running declaration keeps serving.
	reload func() error
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
	var lintOut strings.Builder
	decl, ok := load(c.configFile, config.Formats{}, &lintOut)
	if !ok {
		return nil, errors.New(strings.TrimSpace(lintOut.String()))
	}
	site, strict := decl.Site, c.strict(decl)
	ip, err := clientip.New(c.trusted)
	if err != nil {
		return nil, fmt.Errorf("-trusted-proxies: %w", err)
	}
	opts := []agentready.Option{agentready.WithLogger(c.log), agentready.WithClients(agentready.Clients{TrustedProxies: c.trusted})}
	if c.reportOnly {
		opts = append(opts, agentready.WithReportOnly())
	}
	if c.robots {
		opts = append(opts, agentready.WithDocuments(agentready.Documents{RobotsTxt: true}))
	}
	if !strict {
		opts = append(opts, agentready.WithLenientRouting())
	}
	if len(site.Access.Allow) == 0 && len(site.Access.Disallow) == 0 {
		opts = append(opts, agentready.WithImplicitAccess(agentready.ImplicitAIAgents))
	}
	p := &proxy{close: func() {}}
	var store ratelimit.Store
	if c.redisAddr != "" {
		client := redis.NewClient(&redis.Options{Addr: c.redisAddr, ContextTimeoutEnabled: true})
		rs, err := redisstore.NewLimitStore(client)
		if err != nil {
			client.Close()
			return nil, err
		}
		if store, err = ratelimit.NewFailover(rs, ratelimit.FailoverConfig{Logger: c.log}); err != nil {
			client.Close()
			return nil, err
		}
		p.close = func() { client.Close() }
		opts = append(opts, agentready.WithStore(store))
	}
	var mx *metrics.Metrics
	if c.metricsAddr != "" {
		reg := prometheus.NewRegistry()
		if mx, err = metrics.New(reg); err != nil {
			return nil, err
		}
		if store != nil {
			if err := mx.WatchStore(store); err != nil {
				return nil, err
			}
		}
		opts = append(opts, agentready.WithOnDecision(mx.Observe))
		p.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	m, err := agentready.New(site, opts...)
	if err != nil {
		p.close()
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		// With Rewrite, the inbound Forwarded and X-Forwarded-* fields are
		// removed before it runs.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Host = pr.In.Host
			forward(pr.Out.Header, ip.Addr(pr.In))
			pr.Out.Header.Set("X-Forwarded-Host", pr.In.Host)
			proto := "http"
			if pr.In.TLS != nil {
				proto = "https"
			}
			pr.Out.Header.Set("X-Forwarded-Proto", proto)
		},
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			ResponseHeaderTimeout: c.upstreamTimeout,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   64,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			c.log.Warn("agentready serve: the upstream failed", "err", err, "path", r.URL.Path)
			http.Error(w, "the site is unavailable", http.StatusBadGateway)
		},
	}
	// The sources of verified-only policies (a reload's too) and expired
	// sessions are looked after until close.
	vctx, vcancel := context.WithCancel(context.Background())
	closeStore := p.close
	p.close = func() { vcancel(); closeStore() }
	go func() { _ = m.Run(vctx) }()
	p.reload = func() error {
		var out strings.Builder
		decl, ok := load(c.configFile, config.Formats{}, &out)
		if !ok {
			return errors.New(strings.TrimSpace(out.String()))
		}
		// Lenient routing is an option of New: a Reload cannot turn it
		// on or off, so a file that would is refused, not half applied.
		if s := c.strict(decl); s != strict {
			return fmt.Errorf("%s: upstream.strict is now %v, %v when serve started: restart agentready serve to apply it", c.configFile, s, strict)
		}
		return m.Reload(decl.Site)
	}
	var h http.Handler = m.Handler(rp)
	if mx != nil {
		h = mx.Documents(h, m)
	}
	p.handler = h
	return p, nil
}

// strict reports whether the upstream is declared strict, by the flag or
// by the file's upstream setting.
func (c *proxyConfig) strict(decl declaration) bool {
	return c.strictUpstream || decl.strictUpstream
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
var clientWritten = []string{
	"Forwarded", "X-Real-Ip", "True-Client-Ip", "Client-Ip", "Cf-Connecting-Ip", "X-Client-Ip",
	"Fastly-Client-Ip", "X-Cluster-Client-Ip", "X-Original-Url", "X-Rewrite-Url",
	"X-Forwarded", "Forwarded-For", "X-Original-Forwarded-For", "X-Originating-Ip", "X-Remote-Ip",
	"X-Remote-Addr", "X-Envoy-External-Address", "Proxy-Client-Ip", "Wl-Proxy-Client-Ip",
	"X-Proxyuser-Ip", "X-Original-Uri", "X-Host", "X-Scheme",
}

// forward sets in h, the header of a request to the upstream, the client
// address agentready derived (invalid: none) in X-Real-IP and
// X-Forwarded-For, after removing every field a client may have written
// to name an address or a target (clientWritten), in any case. A field
// whose name holds anything but letters, digits and '-' is removed too,
// as nginx and Apache remove it: CGI, FastCGI, WSGI and PHP read '_' (and
// PHP '.' and ' ') as '-', so X_Real_IP, X.Forwarded.For or
// X.HTTP.Method.Override would reach the application as the field
// agentready removed or decided on.
func forward(h http.Header, client netip.Addr) {
	for k := range h {
		drop := strings.ContainsFunc(k, func(c rune) bool {
			return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-')
		})
		drop = drop || len(k) >= len("X-Forwarded-") && strings.EqualFold(k[:len("X-Forwarded-")], "X-Forwarded-")
		for _, f := range clientWritten {
			drop = drop || strings.EqualFold(k, f)
		}
		if drop {
			delete(h, k)
		}
	}
	if client.IsValid() {
		a := client.String()
		h.Set("X-Real-IP", a)
		h.Set("X-Forwarded-For", a)
	}
}

// serve runs the proxy until SIGINT or SIGTERM.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c proxyConfig
	var trusted string
	fs.StringVar(&c.configFile, "config", "", "the declaration file (YAML or JSON)")
	fs.StringVar(&c.upstream, "upstream", "", "the site to proxy, an http(s) URL")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.metricsAddr, "metrics", "", "serve Prometheus metrics at /metrics on this address")
	fs.StringVar(&c.redisAddr, "redis", "", "share rate limits through the Redis at this host:port")
	fs.BoolVar(&c.reportOnly, "report-only", false, "decide and report, deny nothing")
	fs.BoolVar(&c.robots, "robots", false, "serve /robots.txt generated from the declaration")
	fs.StringVar(&trusted, "trusted-proxies", "", "comma-separated CIDRs of proxies in front whose X-Forwarded-For is believed")
	fs.DurationVar(&c.upstreamTimeout, "upstream-timeout", 30*time.Second, "longest wait for the upstream's response headers")
	fs.BoolVar(&c.strictUpstream, "strict-upstream", false, "the upstream routes a path only as spelled (case and a trailing slash matter), as the file's upstream: {strict: true} says; without either, rules and capability endpoints hold on every case and trailing-slash spelling, as Express routes them")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.configFile == "" || c.upstream == "" || fs.NArg() != 0 {
		fmt.Fprintf(stderr, "agentready serve: -config and -upstream are required\n\n%s", usage)
		return 2
	}
	for _, t := range strings.Split(trusted, ",") {
		if t = strings.TrimSpace(t); t != "" {
			c.trusted = append(c.trusted, t)
		}
	}
	c.log = slog.New(slog.NewTextHandler(stderr, nil))
	p, err := newProxy(c)
	if err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	}
	defer p.close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go watch(c.configFile, 2*time.Second, hup, func() {
		if err := p.reload(); err != nil {
			c.log.Error("agentready serve: the declaration file was not reloaded; the running one keeps serving", "err", err)
			return
		}
		c.log.Info("agentready serve: declaration reloaded", "file", c.configFile)
	})(ctx)
	// ReadTimeout bounds a trickled request body too (2 minutes: uploads
	// to the site pass through).
	srv := &http.Server{Addr: c.addr, Handler: p.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute, IdleTimeout: 120 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- srv.ListenAndServe() }()
	var msrv *http.Server
	if p.metrics != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", p.metrics)
		msrv = &http.Server{Addr: c.metricsAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- msrv.ListenAndServe() }()
	}
	fmt.Fprintf(stdout, "agentready serve: %s in front of %s (declaration %s)\n", c.addr, c.upstream, c.configFile)
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if msrv != nil {
		_ = msrv.Shutdown(sctx)
	}
	return 0
}

// watch returns a loop that calls reload on a signal from hup and when
// file's modification time or size changes (polled every interval: no
// dependency on an inotify library), until its ctx is done. The file's
// state is taken now, so a change made after watch returns is seen.
func watch(file string, every time.Duration, hup <-chan os.Signal, reload func()) func(context.Context) {
	stamp := func() (time.Time, int64) {
		fi, err := os.Stat(file)
		if err != nil {
			return time.Time{}, -1
		}
		return fi.ModTime(), fi.Size()
	}
	mt, size := stamp()
	return func(ctx context.Context) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				mt, size = stamp()
				reload()
			case <-t.C:
				if m, s := stamp(); (!m.Equal(mt) || s != size) && s >= 0 {
					mt, size = m, s
					reload()
				}
			}
		}
	}
}
