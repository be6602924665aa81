package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/cmd/agentready/internal/settings"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/problem"
	"github.com/agentready/agentready/internal/resolve"
)

// serve's forward-auth listener (-forward-auth ADDR) answers the decision
// subrequests of a proxy the site already runs: nginx's auth_request,
// Caddy's forward_auth, Traefik's forwardAuth (docs/forward-auth.md). The
// proxy sends the original request's headers, without its body, and its
// method, target, host, scheme and client in X-Forwarded-Method, -Uri,
// -Host, -Proto and -For; the Middleware decides on that request as it
// decides on one serve proxies itself, and the answer tells the proxy
// what to do:
//
//   - let through: 200, no body, with Agentready-Decision and the RateLimit
//     fields for the proxy to copy onto the request and the response;
//   - refused, at /auth: the refusal as it is (status, headers, problem),
//     which Caddy and Traefik pass to the client;
//   - refused, at /auth/nginx: nginx passes only 2xx, 401 and 403 from a
//     subrequest, and not its body, so the answer is 401 (a 401) or 403
//     (anything else) with Agentready-Status, Retry-After and
//     Agentready-Problem, a one-time reference to the whole refusal, which
//     nginx's error_page location fetches from /problem/REF: the real
//     status, headers and body, without deciding again.
//
// What a subrequest does not show is not let through: a body (a _method
// override in it, unless upstream: {method_overrides: none}; a
// Content-Digest), an MCP capability's messages and an audited
// capability's response, and what agentready answers itself (the
// documents, the session endpoint), which the proxy routes to serve.
const (
	forwardAuthPath      = "/auth"
	forwardAuthNginxPath = "/auth/nginx"
	forwardProblemPath   = "/problem/"
)

// The fields of forward-auth.
const (
	hdrForwardedMethod = "X-Forwarded-Method"
	hdrForwardedURI    = "X-Forwarded-Uri"
	hdrForwardedHost   = "X-Forwarded-Host"
	// hdrStatus is, on an answer to nginx, the status of the refusal it
	// stands for; hdrProblem the reference /problem/ answers it at.
	hdrStatus  = "Agentready-Status"
	hdrProblem = "Agentready-Problem"
)

// forwardAuth is the forward-auth listener's handler.
type forwardAuth struct {
	ip *clientip.Resolver
	// decide is the Middleware in front of allowed, which marks the
	// request's outcome as let through.
	decide http.Handler
	// unseen are what a subrequest cannot decide (routedToServe), the
	// running declaration's: a reload replaces them.
	unseen atomic.Pointer[routedToServe]
	// gateways are the endpoint paths of the gateway capabilities, which
	// serve answers itself (docs/gateway.md): the running declaration's.
	gateways atomic.Pointer[[]string]
	// bodyOverrides: the upstream may route a POST as the method a _method
	// field of its body names (upstream.method_overrides is not "none").
	bodyOverrides bool
	answers       *answerStore
	log           *slog.Logger
}

// routedToServe are the capabilities whose requests a subrequest cannot
// decide, by ID with their endpoint's path: an MCP capability (its
// messages are in the body, its tools/list answer is filtered), and every
// capability when the audit trail is on (its event records the
// response's status).
type routedToServe map[string]string

func unseenOf(site *config.Site) routedToServe {
	u := routedToServe{}
	for i := range site.Capabilities {
		c := &site.Capabilities[i]
		if resolve.Protocol(c) == config.ProtocolMCP || site.Audit.Enabled {
			path := c.Endpoint
			if eu, err := url.Parse(c.Endpoint); err == nil && eu.Path != "" {
				path = eu.Path
			}
			u[c.ID] = path
		}
	}
	return u
}

// paths are the endpoints of u, sorted, for serve's start line.
func (u routedToServe) paths() []string {
	var ps []string
	for _, p := range u {
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
}

// newForwardAuth is the forward-auth handler of decl's Middleware. It
// answers only the trusted proxies (decl.trusted), which name the client.
func newForwardAuth(decl declaration, l *slog.Logger) (*forwardAuth, error) {
	if len(decl.trusted) == 0 {
		return nil, errors.New("-forward-auth: no trusted proxies: the proxy that sends the subrequests (nginx, Caddy, Traefik) must be one (-trusted-proxies or serve: {trusted_proxies})")
	}
	ip, err := clientip.New(decl.trusted)
	if err != nil {
		return nil, err
	}
	fa := &forwardAuth{ip: ip, bodyOverrides: decl.methodOverrides != settings.MethodOverridesNone, answers: newAnswerStore(), log: l}
	fa.decide = decl.m.Handler(http.HandlerFunc(allowed))
	fa.update(decl)
	return fa, nil
}

// update takes the capabilities a subrequest cannot decide from decl (at
// the start, and at every reload), and says which paths the proxy must
// route to serve.
func (fa *forwardAuth) update(decl declaration) {
	u := unseenOf(&decl.Site)
	fa.unseen.Store(&u)
	var gw []string
	for i := range decl.Site.Capabilities {
		if c := &decl.Site.Capabilities[i]; c.Gateway {
			gw = append(gw, u[c.ID])
		}
	}
	fa.gateways.Store(&gw)
	if ps := u.paths(); len(ps) > 0 {
		fa.log.Warn("agentready serve: forward-auth cannot decide these capability endpoints (MCP messages, audited responses): route them, and the documents, to serve's -addr; a subrequest for them is refused", "paths", ps)
	}
}

func (fa *forwardAuth) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if peer, ok := clientip.ParseHostPort(r.RemoteAddr); !ok || !fa.ip.Trusted(peer) {
		// Anyone else could name any client, method and target.
		problem.Write(w, problem.Problem{Status: http.StatusForbidden, Detail: "agentready forward-auth answers the trusted proxies only"})
		return
	}
	switch p := r.URL.Path; {
	case p == forwardAuthPath:
		fa.answer(w, r, false)
	case p == forwardAuthNginxPath:
		fa.answer(w, r, true)
	case strings.HasPrefix(p, forwardProblemPath):
		fa.problem(w, p[len(forwardProblemPath):])
	default:
		http.NotFound(w, r)
	}
}

// outcome is what allowed saw of a request the Middleware let through.
type outcome struct {
	passed   bool
	target   string // the request target passed on, canonical for an agent
	decision string // Agentready-Decision
}

type outcomeKey struct{}

// allowed is the handler behind the Middleware: it only marks the request
// as let through, with the target and decision it was let through with.
func allowed(_ http.ResponseWriter, r *http.Request) {
	if o, ok := r.Context().Value(outcomeKey{}).(*outcome); ok {
		o.passed = true
		o.target = r.RequestURI
		o.decision = r.Header.Get(enforce.HeaderDecision)
	}
}

// answer decides on the request r stands for; nginx asks for nginx's
// form of a refusal.
func (fa *forwardAuth) answer(w http.ResponseWriter, r *http.Request, nginx bool) {
	in, err := fa.original(r)
	if err != nil {
		// A proxy configured otherwise than docs/forward-auth.md says: no
		// request to decide on, so nothing is let through (nginx answers
		// 500 to anything but 2xx, 401 and 403).
		fa.log.Error("agentready serve: a forward-auth subrequest was refused", "err", err)
		problem.Write(w, problem.Problem{Status: http.StatusInternalServerError, Detail: "agentready forward-auth: " + err.Error()})
		return
	}
	if slices.Contains(*fa.gateways.Load(), in.URL.Path) {
		// A gateway would answer it, once decided, as serve does (a
		// subrequest carries no body, so that answer would be a refusal
		// of the missing message): the proxy must route it there. Any
		// other spelling of the path is decided, and so refused.
		rec := newRecorder()
		routeToServe(rec, in.URL.Path)
		fa.reply(w, rec, nginx)
		return
	}
	var o outcome
	rec := newRecorder()
	fa.decide.ServeHTTP(rec, in.WithContext(context.WithValue(in.Context(), outcomeKey{}, &o)))
	switch {
	case o.passed && o.target != in.RequestURI:
		// The proxy forwards the target as it has it, not the canonical
		// one decided on (docs/enforcement.md, "One canonical target").
		fa.notCanonical(rec, o.target)
	case o.passed && fa.cannotSee(o.decision):
		routeToServe(rec, in.URL.Path)
	case o.passed:
		h := w.Header()
		for k, v := range rec.header {
			h[k] = v
		}
		h.Set(enforce.HeaderDecision, o.decision)
		w.WriteHeader(http.StatusOK)
		return
	case rec.status < 300 || rec.status == http.StatusNotModified:
		// agentready answered it itself (a document, the session
		// endpoint): the proxy would send the upstream's instead.
		rec = newRecorder()
		routeToServe(rec, in.URL.Path)
	}
	fa.reply(w, rec, nginx)
}

// reply answers the subrequest with the refusal rec holds: as it is, or
// in nginx's form (its status in Agentready-Status, the refusal itself
// kept for error_page under Agentready-Problem's reference).
func (fa *forwardAuth) reply(w http.ResponseWriter, rec *recorder, nginx bool) {
	if !nginx {
		rec.replay(w)
		return
	}
	ref, err := fa.answers.put(rec)
	if err != nil {
		problem.Write(w, problem.Problem{Status: http.StatusInternalServerError, Detail: "agentready forward-auth: " + err.Error()})
		return
	}
	h := w.Header()
	status := http.StatusForbidden
	if rec.status == http.StatusUnauthorized {
		status = http.StatusUnauthorized
		// nginx copies WWW-Authenticate from a 401 subrequest itself.
		h["Www-Authenticate"] = rec.header["Www-Authenticate"]
	}
	h.Set(hdrStatus, strconv.Itoa(rec.status))
	h.Set(hdrProblem, ref)
	if ra := rec.header.Get("Retry-After"); ra != "" {
		h.Set("Retry-After", ra)
	}
	w.WriteHeader(status)
}

// problem answers nginx's error_page with the refusal ref stands for, once.
func (fa *forwardAuth) problem(w http.ResponseWriter, ref string) {
	rec, ok := fa.answers.take(ref)
	if !ok {
		// Spent, expired or never made: still a refusal.
		problem.Write(w, problem.Problem{Status: http.StatusForbidden, Detail: "agentready forward-auth: this refusal's reference is spent or expired"})
		return
	}
	rec.replay(w)
}

// errNoBody is why a request whose body a subrequest lacks is refused when
// the Middleware needs to read it.
var errNoBody = errors.New("agentready forward-auth: the proxy sends no body with its subrequest; a request whose body must be read (a _method override, a Content-Digest) is refused: declare upstream: {method_overrides: none} if the upstream honours no override in a body, or route this location to agentready serve")

// unseenBody is the body of a request a subrequest stands for: reading it
// fails (errNoBody), so that what would be decided on it is refused.
type unseenBody struct{}

func (unseenBody) Read([]byte) (int, error) { return 0, errNoBody }
func (unseenBody) Close() error             { return nil }

// subrequestFields are a subrequest's own fields, not the original's.
var subrequestFields = []string{hdrForwardedMethod, hdrForwardedURI, hdrForwardedHost, "Content-Length", "Transfer-Encoding"}

// original is the request r, a subrequest, stands for: its method,
// target and host from the X-Forwarded fields (the client's address stays
// in X-Forwarded-For, which the Middleware reads from a trusted proxy),
// every other header as sent, and no body.
func (fa *forwardAuth) original(r *http.Request) (*http.Request, error) {
	method, target, host := r.Header.Get(hdrForwardedMethod), r.Header.Get(hdrForwardedURI), r.Header.Get(hdrForwardedHost)
	switch {
	case !fieldcheck.IsToken(method):
		return nil, fmt.Errorf("%s %q: want the original request's method", hdrForwardedMethod, method)
	case host == "":
		return nil, fmt.Errorf("%s: missing: want the original request's Host", hdrForwardedHost)
	case len(r.Header[hdrForwardedMethod]) > 1 || len(r.Header[hdrForwardedURI]) > 1 || len(r.Header[hdrForwardedHost]) > 1:
		return nil, errors.New("X-Forwarded-Method, -Uri and -Host must each be sent once")
	}
	if !strings.HasPrefix(target, "/") {
		return nil, fmt.Errorf("%s %q: want the original request's target, as sent (nginx: $request_uri)", hdrForwardedURI, target)
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", hdrForwardedURI, err)
	}
	h := r.Header.Clone()
	for _, k := range subrequestFields {
		delete(h, k)
	}
	in := &http.Request{Method: method, URL: u, RequestURI: target, Host: host, Header: h,
		Proto: r.Proto, ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor, RemoteAddr: r.RemoteAddr, Body: http.NoBody}
	if fa.bodyOverrides && method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions {
		in.Body, in.ContentLength = unseenBody{}, -1
	}
	return in.WithContext(r.Context()), nil
}

// cannotSee reports whether the decision (Agentready-Decision) is on a
// capability a subrequest cannot decide.
func (fa *forwardAuth) cannotSee(decision string) bool {
	unseen := *fa.unseen.Load()
	if len(unseen) == 0 {
		return false
	}
	d, err := httpsfv.UnmarshalDictionary([]string{decision})
	if err != nil {
		return true // unreachable: agentready wrote it
	}
	m, ok := d.Get("capability")
	if !ok {
		return false
	}
	item, _ := m.(httpsfv.Item)
	id, _ := item.Value.(string)
	_, ok = unseen[id]
	return ok
}

// routeToServe refuses a request a subrequest cannot decide: 421, which
// says the proxy sent it to the wrong server.
func routeToServe(w http.ResponseWriter, path string) {
	problem.Write(w, problem.Problem{Status: http.StatusMisdirectedRequest,
		Detail: fmt.Sprintf("agentready forward-auth cannot decide %s: the proxy must route it to agentready serve (docs/forward-auth.md)", path)})
}

// notCanonical answers an agent's request whose target is not canonical:
// a redirect to the canonical target, which the agent then sends as it
// is. A canonical target that would read as another host (//host) is
// refused instead (unreachable: NormalPath refuses empty segments).
func (fa *forwardAuth) notCanonical(w http.ResponseWriter, canonical string) {
	if !strings.HasPrefix(canonical, "/") || strings.HasPrefix(canonical, "//") || strings.HasPrefix(canonical, "/\\") {
		problem.Write(w, problem.Problem{Status: http.StatusBadRequest, Detail: "agentready forward-auth: the request target is not canonical"})
		return
	}
	w.Header().Set("Location", canonical)
	problem.Write(w, problem.Problem{Status: http.StatusPermanentRedirect,
		Detail: "the request target is not in its canonical form, which is decided on: send it as " + canonical})
}
