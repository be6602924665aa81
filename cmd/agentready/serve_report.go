package main

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"strings"
	"time"

	livereport "github.com/agentready/agentready/report"
)

// This file is serve's -report: the live report of agents (docs/operations.md) on a
// listener of its own, never the public one, behind a token unless the
// listener is on a loopback address.

// defaultReportTokenEnv is the environment variable the report's token is
// read from when -report-token-file is not given (-report-token-env names
// another).
const defaultReportTokenEnv = "AGENTREADY_REPORT_TOKEN"

// minReportToken is the shortest token accepted: the report names the
// agents that come and what they were refused, and a token is its only
// guard off loopback (16 characters: openssl rand -hex 16 gives 32).
const minReportToken = 16

// reportRealm is the realm of the 401's Basic challenge, which makes a
// browser ask for the token (as the password, any user name).
const reportRealm = "agentready report"

// reportFlags are serve's -report flags.
type reportFlags struct {
	addr      string        // -report: "" serves no report
	tokenFile string        // -report-token-file
	tokenEnv  string        // -report-token-env
	window    time.Duration // -report-window
}

// token reads the report's token: the first line of -report-token-file
// (trimmed) when it is given, else the value of the environment variable
// -report-token-env names (trimmed); "" when neither holds one. A file
// given must hold one, and a token must be long enough.
func (f *reportFlags) token(getenv func(string) string) (string, error) {
	var tok string
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return "", fmt.Errorf("-report-token-file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if tok = strings.TrimSpace(line); tok == "" {
			return "", fmt.Errorf("-report-token-file %s: the first line holds no token", f.tokenFile)
		}
	} else if f.tokenEnv != "" {
		tok = strings.TrimSpace(getenv(f.tokenEnv))
	}
	if tok != "" && len(tok) < minReportToken {
		return "", fmt.Errorf("the report's token has %d characters, fewer than %d (openssl rand -hex 16 makes one)", len(tok), minReportToken)
	}
	return tok, nil
}

// reportServer is the report's listener and server.
type reportServer struct {
	ln  net.Listener
	srv *http.Server
	rep *livereport.Report
	// token is "" on a loopback listener given none.
	token string
}

// openReport checks the -report flags against the public address, binds
// the report's listener and reads its token: a listener that is not on a
// loopback address needs one, or serve refuses to start. It returns nil
// without -report.
func openReport(f reportFlags, public string, getenv func(string) string, log *slog.Logger) (*reportServer, error) {
	if f.addr == "" {
		return nil, nil
	}
	if f.window <= 0 {
		return nil, fmt.Errorf("-report-window %v: want a positive duration", f.window)
	}
	if sameAddr(f.addr, public) {
		return nil, fmt.Errorf("-report %s: the report is never served on the public address (-addr %s): give it a listener of its own, e.g. 127.0.0.1:9091", f.addr, public)
	}
	tok, err := f.token(getenv)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, fmt.Errorf("-report: %w", err)
	}
	// Decided by the address bound, not the one written: "localhost" or a
	// name resolving to 127.0.1.1 is loopback, ":9091" and 0.0.0.0 are not.
	if tok == "" && !loopback(ln.Addr()) {
		ln.Close()
		return nil, fmt.Errorf("-report %s is not a loopback address, so the report needs a token: give it in a file (-report-token-file FILE, its first line) or in the environment variable %s (-report-token-env VAR names another); or listen on 127.0.0.1", f.addr, cmp.Or(f.tokenEnv, defaultReportTokenEnv))
	}
	rep := livereport.New(livereport.Options{Window: f.window})
	// The main listener's timeouts (newServer): a slow client holds no
	// connection longer here than there.
	srv := newServer(guardReport(rep, tok))
	srv.ErrorLog = stdLogger(log)
	return &reportServer{ln: ln, srv: srv, rep: rep, token: tok}, nil
}

// serve serves the report until Shutdown.
func (s *reportServer) serve() error {
	if err := s.srv.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("-report: %w", err)
	}
	return nil
}

// banner is what serve's banner line says of the report: where it is, and
// whether it asks for the token.
func (s *reportServer) banner() string {
	if s == nil {
		return ""
	}
	guard := "open to loopback"
	if s.token != "" {
		guard = "behind its token"
	}
	return fmt.Sprintf(", report at http://%s/ %s", s.ln.Addr(), guard)
}

// sameAddr reports whether the report's address a is the public one b: the
// same port (not 0: each 0 is a port of its own) on the same host, or on
// all interfaces on either side.
func sameAddr(a, b string) bool {
	ha, pa, err1 := net.SplitHostPort(a)
	hb, pb, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	if pa != pb || pa == "0" {
		return false
	}
	all := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	return strings.EqualFold(ha, hb) || all(ha) || all(hb)
}

// loopback reports whether a, a bound listener's address, is on a loopback
// interface only (127.0.0.0/8, ::1).
func loopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// guardReport serves h to a request carrying the token, as a bearer token
// (Authorization: Bearer TOKEN, for scripts) or as the password of HTTP
// Basic authentication (any user name, for a person's browser), and
// answers 401 otherwise. The SHA-256 digests are compared in constant
// time: neither the token's length nor its first differing byte shows in
// the time taken. An empty token serves h as is (loopback).
func guardReport(h http.Handler, token string) http.Handler {
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got, ok := reportCredential(r); ok {
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) == 1 {
				h.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="`+reportRealm+`"`)
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "the report needs its token: Authorization: Bearer TOKEN, or the token as the password of Basic authentication", http.StatusUnauthorized)
	})
}

// reportCredential is the token r carries: a Bearer token (RFC 6750 2.1,
// the scheme's name in any case) or the password of Basic authentication
// (RFC 7617).
func reportCredential(r *http.Request) (string, bool) {
	a := r.Header.Get("Authorization")
	if scheme, tok, ok := strings.Cut(a, " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(tok), true
	}
	if _, pw, ok := r.BasicAuth(); ok {
		return pw, true
	}
	return "", false
}

// tellReport makes rep hear what p does beside its decisions, which no
// decision carries: each reload of the declaration and its result
// (p.reload, SIGHUP's and the file watch's), and each request to the
// upstream, by the status it answered (rp.ModifyResponse) or the error it
// gave none by (rp.ErrorHandler, which answered the client 502). It
// wraps what rp and p have, so it runs after newProxy set them. A request
// the client abandoned is not the upstream's failure and is not counted.
// A nil rep (no -report) changes nothing.
func (p *proxy) tellReport(rep *livereport.Report, rp *httputil.ReverseProxy) {
	if rep == nil {
		return
	}
	reload := p.reload
	p.reload = func() error {
		err := reload()
		rep.Reloaded(err)
		return err
	}
	modify, failed := rp.ModifyResponse, rp.ErrorHandler
	rp.ModifyResponse = func(res *http.Response) error {
		if modify != nil {
			if err := modify(res); err != nil {
				return err // ErrorHandler counts it
			}
		}
		rep.Upstream(res.StatusCode, nil)
		return nil
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if r.Context().Err() == nil {
			rep.Upstream(0, err)
		}
		if failed == nil {
			w.WriteHeader(http.StatusBadGateway) // httputil's default
			return
		}
		failed(w, r, err)
	}
}
