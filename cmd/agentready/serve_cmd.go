package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentready/agentready/cmd/agentready/internal/earlysignal"
	"github.com/agentready/agentready/cmd/agentready/internal/settings"
	"github.com/agentready/agentready/ratelimit"
)

// serve runs the proxy until SIGINT or SIGTERM. SIGHUP reloads the
// declaration file: it is caught from the program's first instant
// (package earlysignal), so a SIGHUP sent while serve starts is a reload
// once it has started, never the default action (ending the process).
func serve(args []string, stdout, stderr io.Writer) int {
	hup := earlysignal.HUP
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	f, code := parseServeFlags(args, stderr)
	if code >= 0 {
		return code
	}
	c := f.c
	var err error
	if c.log, err = newLevelLogger(stderr, f.logFormat, f.logLevel); err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 2
	}
	logUnknownEnv(c.log, f.envUnknown)
	cert, err := loadCertificate(c.tls)
	if err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	}
	rs, err := openReport(f.report, c.addr, os.Getenv, c.log)
	if err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	}
	if rs != nil {
		defer rs.ln.Close()
		c.report = rs.rep // kept by every reload: the Middleware keeps its options
	}
	p, err := newProxy(c)
	if err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	}
	defer p.close()
	s, err := startServers(c, p, rs, cert)
	if err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	}
	go watch(c.configFile, 2*time.Second, hup, reloadAll(c, p, cert))(ctx)
	fmt.Fprintf(stdout, "agentready serve: %s in front of %s (declaration %s%s%s%s)\n", s.addr, redactedURL(c.upstream), c.configFile, s.tlsAt, s.metricsAt, rs.banner())
	select {
	case err := <-s.errc:
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	s.shutdown()
	return 0
}

// serveFlags is serve's command line: the proxy's configuration, and the
// flags serve reads before building the proxy (the log's format, the
// report's) or only when given (those over the file's settings).
type serveFlags struct {
	c                   proxyConfig
	report              reportFlags
	logFormat, logLevel string
	// envUnknown are the AGENTREADY_* variables no flag reads.
	envUnknown []string
	// The flags over the file's settings: overrides takes those given.
	trusted, hosts, a2aVersion           string
	reportOnly, robots, strict, trustAll bool
}

// parseServeFlags parses serve's arguments. code is the exit code when
// serve is done (a bad or missing flag), -1 otherwise.
func parseServeFlags(args []string, stderr io.Writer) (f *serveFlags, code int) {
	f = &serveFlags{}
	fs := f.flagSet(stderr)
	if err := fs.Parse(args); err != nil {
		return nil, 2
	}
	var err error
	if f.envUnknown, err = applyEnv(fs, os.Environ(), "tokens-env", "report-token-env"); err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return nil, 2
	}
	switch f.c.redisPolicy {
	case ratelimit.FallbackMemory, ratelimit.FailOpen, ratelimit.FailClosed:
	default:
		fmt.Fprintf(stderr, "agentready serve: -redis-policy %q: want fallback-memory, fail-open or fail-closed\n", f.c.redisPolicy)
		return nil, 2
	}
	if f.c.configFile == "" || f.c.upstream == "" || fs.NArg() != 0 {
		fmt.Fprintf(stderr, "agentready serve: -config and -upstream are required\n\n%s", usage)
		return nil, 2
	}
	if err := settings.CheckA2AVersion(f.a2aVersion); err != nil {
		fmt.Fprintf(stderr, "agentready serve: -a2a-version %v\n", err)
		return nil, 2
	}
	ov, reportSet := f.overrides(fs)
	f.c.ov = &ov
	if f.report.addr == "" && len(reportSet) > 0 {
		fmt.Fprintf(stderr, "agentready serve: %s given without -report ADDR, which they configure\n", strings.Join(reportSet, ", "))
		return nil, 2
	}
	return f, -1
}

// flagSet is serve's flags, each parsed into f.
func (f *serveFlags) flagSet(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c, rf := &f.c, &f.report
	fs.StringVar(&c.configFile, "config", "", "the declaration file (YAML or JSON)")
	fs.StringVar(&c.upstream, "upstream", "", "the site to proxy, an http(s) URL")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.metricsAddr, "metrics", "", "serve Prometheus metrics at /metrics on this address (agentready's, the process's and the Go runtime's)")
	fs.StringVar(&c.redisAddr, "redis", "", "share rate limits through this Redis: host:port, or a redis:// or rediss:// (TLS) URL with user, password and database")
	fs.StringVar(&c.redisPolicy, "redis-policy", ratelimit.FallbackMemory, "what rate limits do while Redis fails: fallback-memory (counted per replica), fail-open (not counted) or fail-closed (rate-limited requests refused 503; /readyz fails too)")
	fs.StringVar(&c.forwardAuthAddr, "forward-auth", "", "also answer decision subrequests of nginx auth_request, Caddy forward_auth or Traefik forwardAuth on this address, for the trusted proxies only (docs/forward-auth.md)")
	fs.StringVar(&c.healthAddr, "health-addr", "", "serve /healthz and /readyz on this address (without it, on -metrics' address if given)")
	fs.StringVar(&c.tls.cert, "tls-cert", "", "serve TLS (HTTP/2 and HTTP/1.1) with this PEM certificate chain, reloaded on SIGHUP; with -tls-key")
	fs.StringVar(&c.tls.key, "tls-key", "", "the PEM private key of -tls-cert")
	fs.BoolVar(&f.reportOnly, "report-only", false, "decide and report, deny nothing (over the file's serve.report_only)")
	fs.BoolVar(&f.robots, "robots", false, "serve /robots.txt generated from the declaration (over the file's serve.robots)")
	fs.StringVar(&f.a2aVersion, "a2a-version", "", `the A2A agent card's version: "1.0" (the default) or "0.3", for clients not yet on 1.0 (over the file's serve.a2a_version)`)
	fs.StringVar(&f.trusted, "trusted-proxies", "", "comma-separated CIDRs of proxies in front whose X-Forwarded-For is believed (over the file's serve.trusted_proxies)")
	fs.BoolVar(&f.trustAll, "trust-all-proxies", false, "the trusted proxies are meant to cover more than a /8 of global IPv4 addresses or an IPv6 prefix shorter than /16: every client there names its own address (over the file's serve.trust_all_proxies; warned at every start)")
	fs.StringVar(&f.hosts, "hosts", "", "comma-separated hosts (host or host:port) agents may name in Host besides the site URL's and this address (over the file's serve.hosts); any other is answered 421")
	fs.DurationVar(&c.upstreamTimeout, "upstream-timeout", 30*time.Second, "longest wait for the upstream's response headers")
	fs.BoolVar(&f.strict, "strict-upstream", false, "the upstream routes a path only as spelled (case and a trailing slash matter), as the file's upstream: {strict: true} says; without either, rules and capability endpoints hold on every case and trailing-slash spelling, as Express routes them")
	fs.StringVar(&f.logFormat, "log-format", "text", "the format of every line serve logs: text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "the least level of the lines serve logs: debug, info, warn or error")
	fs.StringVar(&c.logDecisions, "log-decisions", logDecisionsDeny, "which decisions are logged: none, deny (denials, and report-only's would-be denials) or all")
	fs.IntVar(&c.logRate, "log-rate", 10, "the most decision lines logged a second; the lines over it are counted, and the count logged every -log-interval")
	fs.DurationVar(&c.logInterval, "log-interval", 10*time.Second, "how often repeated failures (the upstream's, Redis's) and dropped decision lines are logged, with their count")
	fs.StringVar(&c.credentials.tokensFile, "tokens", "", "a file of CAPABILITY=TOKEN lines: the bearer or api-key tokens each capability accepts (TOKEN may be sha256:HEX)")
	fs.StringVar(&c.credentials.tokensEnv, "tokens-env", "", "the name of an environment variable holding CAPABILITY=TOKEN entries, separated by commas or newlines")
	fs.StringVar(&c.credentials.keysFile, "hmac-keys", "", "a file of KEYID=hmac-sha256:BASE64SECRET or KEYID=ed25519:BASE64PUBLICKEY lines: the keys of hmac capabilities' request signatures")
	fs.StringVar(&rf.addr, "report", "", "serve the live report of agents (HTML, and JSON at /report.json) on this address, never the public one; off loopback it needs a token")
	fs.StringVar(&rf.tokenFile, "report-token-file", "", "a file whose first line is the report's token (at least 16 characters), asked for as a Bearer token or a Basic password")
	fs.StringVar(&rf.tokenEnv, "report-token-env", defaultReportTokenEnv, "the environment variable holding the report's token when -report-token-file is not given")
	fs.DurationVar(&rf.window, "report-window", time.Hour, "the span of time the report counts over")
	return fs
}

// overrides are the flags given over the file's settings: a flag given
// wins over the file's setting, -report-only=false too, so only fs.Visit
// (the flags given) tells a false flag from an absent one. reportSet are
// the report's own flags given, which mean nothing without -report.
func (f *serveFlags) overrides(fs *flag.FlagSet) (ov overrides, reportSet []string) {
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "report-token-file", "report-token-env", "report-window":
			reportSet = append(reportSet, "-"+fl.Name)
		case "report-only":
			ov.reportOnly = &f.reportOnly
		case "robots":
			ov.robots = &f.robots
		case "a2a-version":
			ov.a2aVersion = f.a2aVersion
		case "strict-upstream":
			ov.strict = &f.strict
		case "trust-all-proxies":
			ov.trustAll = &f.trustAll
		case "hosts":
			ov.hosts = commaList(f.hosts)
		case "trusted-proxies":
			ov.trusted = commaList(f.trusted)
		}
	})
	return ov, reportSet
}

// commaList is the comma-separated list s, each member trimmed and empty
// ones left out. It is never nil: a list flag given empty replaces the
// file's list with none (nil would leave the file's).
func commaList(s string) []string {
	l := []string{}
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			l = append(l, m)
		}
	}
	return l
}

// servers are serve's listeners at work: the proxy's, the metrics' (nil
// without -metrics) and the report's (nil without -report).
type servers struct {
	srv, metrics, health, forwardAuth *http.Server
	report                            *reportServer
	// errc hears the first server to stop: serve ends then.
	errc chan error
	// addr is where the proxy listens (forwardAuthAddr the forward-auth
	// listener, nil without), metricsAt the banner's words for the
	// metrics' ("" without).
	addr, forwardAuthAddr net.Addr
	metricsAt, tlsAt      string
}

// startServers listens on c's addresses and serves p (and rs) there. Each
// address is bound before serve prints its banner: when it is printed,
// connections are accepted.
func startServers(c proxyConfig, p *proxy, rs *reportServer, cert *certificate) (*servers, error) {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return nil, err
	}
	s := &servers{srv: newServer(p.handler), report: rs, errc: make(chan error, 5), addr: ln.Addr()}
	s.srv.ErrorLog = stdLogger(c.log)
	if cert != nil {
		s.srv.TLSConfig = cert.config()
		s.tlsAt = ", TLS"
		go func() { s.errc <- s.srv.ServeTLS(ln, "", "") }()
	} else {
		go func() { s.errc <- s.srv.Serve(ln) }()
	}
	if p.forwardAuth != nil {
		if err := s.startForwardAuth(c, p.forwardAuth); err != nil {
			s.srv.Close()
			return nil, err
		}
	}
	hl := &health{redis: p.redis, policy: c.redisPolicy}
	hl.loaded.Store(true) // p is built: its declaration is loaded
	if c.healthAddr != "" {
		if err := s.startHealth(c, hl); err != nil {
			s.srv.Close()
			return nil, err
		}
	}
	if p.metrics != nil {
		mln, err := net.Listen("tcp", c.metricsAddr)
		if err != nil {
			s.srv.Close()
			return nil, fmt.Errorf("-metrics: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", p.metrics)
		if c.healthAddr == "" {
			hl.mount(mux)
		}
		s.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: stdLogger(c.log)}
		go func() { s.errc <- s.metrics.Serve(mln) }()
		s.metricsAt += fmt.Sprintf(", metrics at http://%s/metrics", mln.Addr())
	}
	if rs != nil {
		go func() { s.errc <- rs.serve() }()
	}
	return s, nil
}

// shutdown stops every server, letting the requests under way finish for
// at most 10 seconds.
func (s *servers) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	if s.metrics != nil {
		_ = s.metrics.Shutdown(ctx)
	}
	if s.health != nil {
		_ = s.health.Shutdown(ctx)
	}
	if s.forwardAuth != nil {
		_ = s.forwardAuth.Shutdown(ctx)
	}
	if s.report != nil {
		_ = s.report.srv.Shutdown(ctx)
	}
}

// logReload is watch's reload: p reloads the file, and the outcome is
// logged; a file refused leaves the running declaration serving.
func logReload(c proxyConfig, p *proxy) func() {
	return func() {
		err := p.reload()
		p.sm.reloaded(err)
		if err != nil {
			c.log.Error("agentready serve: the declaration file was not reloaded; the running one keeps serving", "err", err)
			return
		}
		c.log.Info("agentready serve: declaration reloaded", "file", c.configFile)
	}
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

// startHealth serves hl alone on -health-addr.
func (s *servers) startHealth(c proxyConfig, hl *health) error {
	hln, err := net.Listen("tcp", c.healthAddr)
	if err != nil {
		return fmt.Errorf("-health-addr: %w", err)
	}
	mux := http.NewServeMux()
	hl.mount(mux)
	s.health = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: stdLogger(c.log)}
	go func() { s.errc <- s.health.Serve(hln) }()
	s.metricsAt += fmt.Sprintf(", health at http://%s/healthz", hln.Addr())
	return nil
}

// startForwardAuth serves fa on -forward-auth.
func (s *servers) startForwardAuth(c proxyConfig, fa *forwardAuth) error {
	ln, err := net.Listen("tcp", c.forwardAuthAddr)
	if err != nil {
		return fmt.Errorf("-forward-auth: %w", err)
	}
	s.forwardAuth, s.forwardAuthAddr = newServer(fa), ln.Addr()
	s.forwardAuth.ErrorLog = stdLogger(c.log)
	go func() { s.errc <- s.forwardAuth.Serve(ln) }()
	s.metricsAt += fmt.Sprintf(", forward-auth at http://%s%s", ln.Addr(), forwardAuthPath)
	return nil
}

// reloadAll is what SIGHUP (and a change of the declaration file) does:
// the declaration reloaded, and the TLS certificate (cert, nil without
// TLS), each logged and each keeping the running one when it fails.
func reloadAll(c proxyConfig, p *proxy, cert *certificate) func() {
	decl := logReload(c, p)
	return func() {
		decl()
		cert.logReload(c.log)
	}
}

// redactedURL is u without its password, for the banner.
func redactedURL(u string) string {
	if pu, err := url.Parse(u); err == nil {
		return pu.Redacted()
	}
	return u
}
