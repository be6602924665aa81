package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/agentready/agentready/cmd/agentready/internal/earlysignal"
)

// serve runs the proxy until SIGINT or SIGTERM. SIGHUP reloads the
// declaration file: it is caught from the program's first instant
// (package earlysignal), so a SIGHUP sent while serve starts is a reload
// once it has started, never the default action (ending the process).
func serve(args []string, stdout, stderr io.Writer) int {
	hup := earlysignal.HUP
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c proxyConfig
	var trusted, hosts, logFormat string
	var reportOnly, robots, strict, trustAll bool
	var rf reportFlags
	fs.StringVar(&c.configFile, "config", "", "the declaration file (YAML or JSON)")
	fs.StringVar(&c.upstream, "upstream", "", "the site to proxy, an http(s) URL")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.metricsAddr, "metrics", "", "serve Prometheus metrics at /metrics on this address (agentready's, the process's and the Go runtime's)")
	fs.StringVar(&c.redisAddr, "redis", "", "share rate limits through this Redis: host:port, or a redis:// or rediss:// (TLS) URL with user, password and database")
	fs.BoolVar(&reportOnly, "report-only", false, "decide and report, deny nothing (over the file's serve.report_only)")
	fs.BoolVar(&robots, "robots", false, "serve /robots.txt generated from the declaration (over the file's serve.robots)")
	fs.StringVar(&trusted, "trusted-proxies", "", "comma-separated CIDRs of proxies in front whose X-Forwarded-For is believed (over the file's serve.trusted_proxies)")
	fs.BoolVar(&trustAll, "trust-all-proxies", false, "the trusted proxies are meant to cover more than a /8 of global IPv4 addresses or an IPv6 prefix shorter than /16: every client there names its own address (over the file's serve.trust_all_proxies; warned at every start)")
	fs.StringVar(&hosts, "hosts", "", "comma-separated hosts (host or host:port) agents may name in Host besides the site URL's and this address (over the file's serve.hosts); any other is answered 421")
	fs.DurationVar(&c.upstreamTimeout, "upstream-timeout", 30*time.Second, "longest wait for the upstream's response headers")
	fs.BoolVar(&strict, "strict-upstream", false, "the upstream routes a path only as spelled (case and a trailing slash matter), as the file's upstream: {strict: true} says; without either, rules and capability endpoints hold on every case and trailing-slash spelling, as Express routes them")
	fs.StringVar(&logFormat, "log-format", "text", "the format of every line serve logs: text or json")
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
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.configFile == "" || c.upstream == "" || fs.NArg() != 0 {
		fmt.Fprintf(stderr, "agentready serve: -config and -upstream are required\n\n%s", usage)
		return 2
	}
	// A flag given wins over the file's setting, -report-only=false too.
	var ov overrides
	var reportSet []string // the report's own flags, which mean nothing without -report
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "report-token-file", "report-token-env", "report-window":
			reportSet = append(reportSet, "-"+f.Name)
		case "report-only":
			ov.reportOnly = &reportOnly
		case "robots":
			ov.robots = &robots
		case "strict-upstream":
			ov.strict = &strict
		case "trust-all-proxies":
			ov.trustAll = &trustAll
		case "hosts":
			ov.hosts = []string{}
			for _, h := range strings.Split(hosts, ",") {
				if h = strings.TrimSpace(h); h != "" {
					ov.hosts = append(ov.hosts, h)
				}
			}
		case "trusted-proxies":
			ov.trusted = []string{}
			for _, t := range strings.Split(trusted, ",") {
				if t = strings.TrimSpace(t); t != "" {
					ov.trusted = append(ov.trusted, t)
				}
			}
		}
	})
	c.ov = &ov
	if rf.addr == "" && len(reportSet) > 0 {
		fmt.Fprintf(stderr, "agentready serve: %s given without -report ADDR, which they configure\n", strings.Join(reportSet, ", "))
		return 2
	}
	var err error
	if c.log, err = newLogger(stderr, logFormat); err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 2
	}
	rs, err := openReport(rf, c.addr, os.Getenv, c.log)
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
	// Bound before the banner: when it is printed, connections are
	// accepted.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintf(stderr, "agentready serve: %v\n", err)
		return 1
	}
	srv := newServer(p.handler)
	srv.ErrorLog = stdLogger(c.log)
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(ln) }()
	var msrv *http.Server
	metricsAt := ""
	if p.metrics != nil {
		mln, err := net.Listen("tcp", c.metricsAddr)
		if err != nil {
			fmt.Fprintf(stderr, "agentready serve: -metrics: %v\n", err)
			srv.Close()
			return 1
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", p.metrics)
		msrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: stdLogger(c.log)}
		go func() { errc <- msrv.Serve(mln) }()
		metricsAt = fmt.Sprintf(", metrics at http://%s/metrics", mln.Addr())
	}
	if rs != nil {
		go func() { errc <- rs.serve() }()
	}
	go watch(c.configFile, 2*time.Second, hup, func() {
		if err := p.reload(); err != nil {
			c.log.Error("agentready serve: the declaration file was not reloaded; the running one keeps serving", "err", err)
			return
		}
		c.log.Info("agentready serve: declaration reloaded", "file", c.configFile)
	})(ctx)
	fmt.Fprintf(stdout, "agentready serve: %s in front of %s (declaration %s%s%s)\n", ln.Addr(), c.upstream, c.configFile, metricsAt, rs.banner())
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
	if rs != nil {
		_ = rs.srv.Shutdown(sctx)
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
