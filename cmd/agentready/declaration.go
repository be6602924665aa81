package main

import (
	"cmp"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/audit"
	"github.com/agentready/agentready/cmd/agentready/internal/settings"
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clientip"
	"github.com/agentready/agentready/internal/enforcer"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/mcpgateway"
)

// lint, render and serve decide on a declaration file with one function,
// prepare: the file is decoded (settings.Parse) and handed to
// agentready.New with the options the file and the command line imply, so
// that lint's exit status predicts render's and serve's, and a program
// calling config.LoadSite and agentready.New with those options gets the
// same verdict, but for a problem in serve's own keys (upstream, serve),
// which LoadSite leaves to serve.

// overrides are what a command line says over the file; the zero value
// leaves the file's settings.
type overrides struct {
	dialect    string   // lint and render -dialect: "draft-car" or "v0.1.0"
	reportOnly *bool    // serve -report-only
	robots     *bool    // serve -robots
	trusted    []string // serve -trusted-proxies; nil: the file's
	trustAll   *bool    // serve -trust-all-proxies
	hosts      []string // serve -hosts; nil: the file's
	strict     *bool    // serve -strict-upstream
	a2aVersion string   // serve -a2a-version; "": the file's
	// noNotes leaves out lint's notes, which decide nothing: init asks
	// for them once, of the file it writes.
	noNotes bool
	// credentials are serve -tokens, -tokens-env and -hmac-keys; each
	// one given replaces the file's.
	credentials credentialSources
	// auditStore is serve -redis's audit trail; nil keeps it in memory.
	auditStore audit.Store
}

// declaration is a declaration file as lint, render and serve read it: the
// Site, and serve's settings (the file's, with the overrides).
type declaration struct {
	config.Site
	// formats is what is published: every document, in the file's
	// dialect or -dialect's.
	formats config.Formats
	// strictUpstream is upstream: {strict: true} or -strict-upstream.
	strictUpstream bool
	// pathParams is upstream.path_parameters: "stripped" (the default) or
	// "literal".
	pathParams      string
	methodOverrides string // upstream.method_overrides: "any" (the default) or "none"
	// reportOnly, robots, trusted and trustAll are serve: {report_only,
	// robots, trusted_proxies, trust_all_proxies} or their flags.
	reportOnly, robots, trustAll bool
	trusted                      []string
	// trustedAll says how the trusted proxies cover much of the internet
	// (clientip.Broad), when trustAll lets them: serve warns of it at
	// every start, lint notes it.
	trustedAll string
	// hosts are serve: {hosts} or -hosts: what agents may name in Host
	// besides the site's host and serve's own address.
	hosts []string
	// a2aVersion is serve: {a2a_version} or -a2a-version.
	a2aVersion string
	// auditKey is read from serve: {audit_key_file}; auditStore is
	// overrides.auditStore.
	auditKey   ed25519.PrivateKey
	auditStore audit.Store
	// credSources name the tokens and keys (serve: {tokens_file,
	// tokens_env, hmac_keys_file} or their flags), and creds holds what
	// they gave: m's Authenticator and request keys read it, and a reload
	// stores the new ones there.
	credSources credentialSources
	creds       *atomic.Pointer[credentials]
	// opts are the options of agentready.New the file and the overrides
	// imply; m was built with them (and the caller's own).
	opts []agentready.Option
	m    *agentready.Middleware
	// notes are what lint says of a valid file without refusing it.
	notes []string
}

// readFile and parse read and decode a declaration file, once a load or
// a reload (TestPrepareReadsOnce counts them): the Site and serve's keys
// are one decoding, settings.Parse.
var (
	readFile = os.ReadFile
	parse    = settings.Parse
)

// prepare reads the declaration file once and decides on it as serve
// does: it decodes it and builds the Middleware with agentready.New, the
// options the file and ov imply, then extra (serve's store, metrics and
// logger). The error lists every problem, decoding and validation alike,
// one a line as FILE:LINE: key: message, sorted by line.
func prepare(file string, ov overrides, extra ...agentready.Option) (declaration, error) {
	b, err := readFile(file)
	if err != nil {
		return declaration{}, err
	}
	return prepareData(file, b, ov, extra...)
}

// prepareData is prepare on the bytes b of the file named file: init
// checks the declaration it writes with it before writing it.
func prepareData(file string, b []byte, ov overrides, extra ...agentready.Option) (declaration, error) {
	var d declaration
	// What Parse refused is reported once, by it, and left at its zero
	// value (a bad trusted proxy is left out).
	fs, lines, parseErr := parse(b)
	if parseErr != nil && lines == nil {
		// Not YAML (a syntax error): nothing was decoded, and New would
		// only add the problems of an empty Site.
		return d, fileProblems(file, parseErr)
	}
	d.Site = fs.Site
	d.pickSettings(fs, ov)
	// Each problem of serve's keys is kept apart and joined with Parse's
	// and New's below, so that one run reports them all.
	hostErr := d.pickHosts(fs.Serve.Hosts, ov.hosts, lines)
	proxyErr := d.pickTrusted(fs.Serve.TrustedProxies, ov.trusted, lines)
	keyErr := d.readAuditKey(file, fs.Serve.AuditKeyFile, lines)
	credErr := d.pickCredentials(file, fs.Serve, ov.credentials, lines)
	d.pickDialect(ov.dialect)

	d.opts = d.options()
	opts := append(append([]agentready.Option(nil), d.opts...), extra...)
	m, newErr := agentready.New(d.Site, opts...)
	if err := lines.Locate(errors.Join(parseErr, proxyErr, hostErr, keyErr, credErr, newErr)); err != nil {
		return d, fileProblems(file, err)
	}
	d.m = m
	if d.auditKey != nil && d.Site.Audit.PublicKey == "" {
		// As New publishes it: render prints what serve serves.
		d.Site.Audit.PublicKey = base64.StdEncoding.EncodeToString(d.auditKey.Public().(ed25519.PublicKey))
	}
	if !ov.noNotes {
		d.notes = d.lintNotes(file, lines)
	}
	return d, nil
}

// pickSettings sets the settings of upstream and serve that need no check
// here (Parse checked the file's): a flag given wins over the file.
func (d *declaration) pickSettings(fs settings.File, ov overrides) {
	d.strictUpstream = pick(ov.strict, fs.Upstream.Strict)
	d.pathParams = cmp.Or(fs.Upstream.PathParameters, settings.PathParamsStripped)
	d.methodOverrides = cmp.Or(fs.Upstream.MethodOverrides, settings.MethodOverridesAny)
	d.reportOnly = pick(ov.reportOnly, fs.Serve.ReportOnly)
	d.robots = pick(ov.robots, fs.Serve.Robots)
	d.a2aVersion = cmp.Or(ov.a2aVersion, fs.Serve.A2AVersion)
	d.auditStore = ov.auditStore
	// trust_all_proxies is picked before the trusted proxies are checked
	// (pickTrusted): it decides whether a broad list is refused.
	d.trustAll = pick(ov.trustAll, fs.Serve.TrustAllProxies)
}

// pickHosts sets d.hosts, -hosts' (flagHosts non-nil) or the file's, and
// checks them: a problem is reported at the flag or the file's line, and
// the hosts are left out then so that New does not report them again.
func (d *declaration) pickHosts(fileHosts, flagHosts []string, lines config.Lines) error {
	d.hosts = fileHosts
	var hostErr error
	if flagHosts != nil {
		d.hosts = flagHosts
		if err := enforcer.CheckHosts(d.hosts); err != nil {
			hostErr = fmt.Errorf("-hosts: %w", err)
		}
	} else if err := enforcer.CheckHosts(d.hosts); err != nil {
		hostErr = &config.FileError{Line: lines["Serve.Hosts"], Field: "serve.hosts", Msg: err.Error()}
	}
	if hostErr != nil {
		d.hosts = nil // reported here, at its line, not again by New
	}
	return hostErr
}

// pickTrusted sets d.trusted, -trusted-proxies' (flagProxies non-nil) or
// the file's. Proxies covering much of the internet let every client name
// its own address: refused here, at the line (or flag) that lists them,
// unless trust_all_proxies says it is meant (d.trustAll, picked before);
// New, which would refuse them in its own words, is not given them then.
func (d *declaration) pickTrusted(fileProxies, flagProxies []string, lines config.Lines) error {
	d.trusted = fileProxies
	if flagProxies != nil {
		d.trusted = flagProxies
	}
	why := clientip.Broad(d.trusted)
	if why == "" {
		return nil
	}
	if d.trustAll {
		d.trustedAll = why
		return nil
	}
	d.trusted = nil
	if flagProxies != nil {
		return fmt.Errorf("-trusted-proxies: the proxies %s: every client there could write its own address in X-Forwarded-For; give -trust-all-proxies (or serve: {trust_all_proxies: true}) if that is meant", why)
	}
	return &config.FileError{Line: lines["Serve.TrustedProxies"], Field: "serve.trusted_proxies",
		Msg: "the proxies " + why + ": every client there could write its own address in X-Forwarded-For; say serve: {trust_all_proxies: true} (or -trust-all-proxies) if that is meant"}
}

// readAuditKey reads d.auditKey from serve: {audit_key_file} (name,
// relative to the declaration file's directory), when it is given.
func (d *declaration) readAuditKey(file, name string, lines config.Lines) error {
	if name == "" {
		return nil
	}
	var err error
	if d.auditKey, err = readSeed(relativeTo(file, name)); err != nil {
		return &config.FileError{Line: lines["Serve.AuditKeyFile"], Field: "serve.audit_key_file", Msg: err.Error()}
	}
	return nil
}

// pickCredentials reads the tokens and keys, the file's each replaced by
// its flag, into d.creds, and checks them against the Site (fit). Without
// them, d.creds holds none: m's Authenticator reads it whatever happened.
func (d *declaration) pickCredentials(file string, sv settings.Serve, flags credentialSources, lines config.Lines) error {
	src := credentialSources{tokensFile: relativeTo(file, sv.TokensFile), tokensEnv: sv.TokensEnv, keysFile: relativeTo(file, sv.HMACKeysFile)}
	src.tokensFile = cmp.Or(flags.tokensFile, src.tokensFile)
	src.tokensEnv = cmp.Or(flags.tokensEnv, src.tokensEnv)
	src.keysFile = cmp.Or(flags.keysFile, src.keysFile)
	d.credSources = src
	d.creds = new(atomic.Pointer[credentials])
	creds, err := readCredentials(src)
	if err != nil {
		d.creds.Store(&credentials{})
		return &config.FileError{Line: lines["Serve"], Field: "serve", Msg: err.Error()}
	}
	d.creds.Store(creds)
	return errors.Join(creds.fit(&d.Site, lines)...)
}

// relativeTo is name, a file the declaration file names: a relative name
// is relative to the declaration file's directory, not to serve's working
// directory, so a file and its keys move together. "" stays "".
func relativeTo(file, name string) string {
	if name != "" && !filepath.IsAbs(name) {
		return filepath.Join(filepath.Dir(file), name)
	}
	return name
}

// pickDialect applies lint's and render's -dialect over the file's
// dialect key; what is published follows it.
func (d *declaration) pickDialect(dialect string) {
	switch dialect {
	case "":
	case "v0.1.0":
		d.Site.Dialect = config.DialectV010
	default:
		d.Site.Dialect = config.DialectIETFDraft
	}
	d.formats = config.Formats{Dialect: d.Site.Dialect}
}

// lintNotes are what lint says of d, a valid file, without refusing it.
func (d *declaration) lintNotes(file string, lines config.Lines) []string {
	notes := append(presenceNotes(file, &d.Site, lines, d.creds.Load()), gradedNotes(file, &d.Site, lines)...)
	notes = append(notes, rateNotes(file, &d.Site, lines)...)
	notes = append(notes, toolGrantNotes(file, &d.Site, d.formats, lines)...)
	notes = append(notes, nameNotes(file, &d.Site, lines)...)
	notes = append(notes, append(starNotes(file, &d.Site, lines), paramsNotes(file, &d.Site, lines)...)...)
	notes = append(notes, outputNotes(file, &d.Site, lines)...)
	if d.trustedAll != "" {
		notes = append(notes, fmt.Sprintf("%s:%d: note: serve.trust_all_proxies: the trusted proxies %s: %s",
			file, cmp.Or(lines["Serve.TrustAllProxies"], lines["Serve.TrustedProxies"]), d.trustedAll, trustAllMeans))
	}
	return notes
}

// pick is a flag's value when it was given, else the file's.
func pick(flag *bool, file bool) bool {
	if flag != nil {
		return *flag
	}
	return file
}

// options are the agentready options d's settings imply. Lenient routing
// is the default: see upstream.strict.
func (d *declaration) options() []agentready.Option {
	// serve always checks Host: the site's, the hosts the file or -hosts
	// add, and (Clients.Hosts) the address a request arrives on.
	hosts := append([]string{resolve.Host(&d.Site)}, d.hosts...)
	// A gateway is answered by serve itself, its calls sent upstream.
	opts := []agentready.Option{agentready.WithClients(agentready.Clients{TrustedProxies: d.trusted, TrustAllProxies: d.trustAll, Hosts: hosts}),
		agentready.WithDecisionHeader(), agentready.WithGateway(mcpgateway.Serve)}
	if !d.strictUpstream {
		opts = append(opts, agentready.WithLenientRouting())
	}
	if d.pathParams == settings.PathParamsLiteral {
		opts = append(opts, agentready.WithLiteralPathParameters())
	}
	if d.reportOnly {
		opts = append(opts, agentready.WithReportOnly())
	}
	if d.robots || d.a2aVersion != "" {
		// The dialect stays the Site's (Documents' zero value defers to it).
		opts = append(opts, agentready.WithDocuments(agentready.Documents{RobotsTxt: d.robots, A2AVersion: d.a2aVersion}))
	}
	if d.auditKey != nil {
		opts = append(opts, agentready.WithAudit(d.auditKey, d.auditStore))
	}
	// The authenticator is always there: without tokens for a capability
	// it checks presence only, as agentready does without one, and serve
	// says so in its own words (not New's, which names a Go option); an
	// hmac capability without keys was refused above (fit).
	opts = append(opts, agentready.WithAuthenticator(authenticator(d.creds)))
	if d.credSources.keysFile != "" {
		opts = append(opts, agentready.WithRequestSignatures(requestKeys(d.creds)))
	}
	return opts
}

// sameSettings refuses a reload that would change what serve built its
// Middleware with (the options of New: a Reload keeps them): each changed
// key is named, the running declaration keeps serving.
func sameSettings(file string, running, next declaration) error {
	var changed []string
	for _, s := range []struct {
		key     string
		was, is any
		equal   bool
	}{
		{"upstream.strict", running.strictUpstream, next.strictUpstream, running.strictUpstream == next.strictUpstream},
		{"upstream.path_parameters", running.pathParams, next.pathParams, running.pathParams == next.pathParams},
		{"upstream.method_overrides", running.methodOverrides, next.methodOverrides, running.methodOverrides == next.methodOverrides},
		{"serve.report_only", running.reportOnly, next.reportOnly, running.reportOnly == next.reportOnly},
		{"serve.robots", running.robots, next.robots, running.robots == next.robots},
		{"serve.a2a_version", running.a2aVersion, next.a2aVersion, running.a2aVersion == next.a2aVersion},
		{"serve.trusted_proxies", running.trusted, next.trusted, slices.Equal(running.trusted, next.trusted)},
		{"serve.trust_all_proxies", running.trustAll, next.trustAll, running.trustAll == next.trustAll},
		{"serve.hosts", running.hosts, next.hosts, slices.Equal(running.hosts, next.hosts)},
	} {
		if !s.equal {
			changed = append(changed, fmt.Sprintf("%s is now %v, %v when serve started", s.key, s.is, s.was))
		}
	}
	if (running.credSources.keysFile == "") != (next.credSources.keysFile == "") {
		changed = append(changed, "serve.hmac_keys_file (or -hmac-keys) is now given or no longer given")
	}
	if !running.auditKey.Equal(next.auditKey) {
		changed = append(changed, "serve.audit_key_file holds another key than when serve started")
	}
	if len(changed) > 0 {
		return fmt.Errorf("%s: %s: restart agentready serve to apply it", file, strings.Join(changed, "; "))
	}
	return nil
}

// readSeed reads an Ed25519 private key written as the standard base64 of
// its 32-byte seed (examples/shop's -key-file).
func readSeed(name string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s does not hold the standard base64 of a %d-byte Ed25519 seed", name, ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// presenceNotes are the capabilities whose credentials serve checks for
// presence only: it has no token to compare them with, so the upstream
// must check them. A note, not a problem: that is how serve runs them.
func presenceNotes(file string, s *config.Site, lines config.Lines, creds *credentials) []string {
	var notes []string
	for i, c := range s.Capabilities {
		if creds.tokens[c.ID] != nil || c.Auth.JWT || c.Auth.Audience != "" {
			continue // serve checks them: its token files, or as JWTs
		}
		switch c.Auth.Type {
		case config.AuthAPIKey, config.AuthBearerToken, config.AuthOAuth2:
			at := fmt.Sprintf("Capabilities[%d].Auth.Type", i)
			notes = append(notes, fmt.Sprintf("%s:%d: note: capabilities[%d].auth.type: %s: agentready serve requires the credential and leaves checking it to the upstream",
				file, lines[at], i, c.Auth.Type))
		}
	}
	return notes
}

// trustAllMeans is what trust_all_proxies lets happen, for lint's note
// and serve's warning.
const trustAllMeans = "every client of a trusted proxy's network names its own address in X-Forwarded-For, so its rate limits, X-Real-IP and IP-range proofs are what it says"

// maxRatePerSecond is the rate above which a per-client limit is one in
// name only: no client is held back by it.
const maxRatePerSecond = 10000

// rateNotes are the rate limits above maxRatePerSecond a second per
// client: a note, not a problem (a site may mean "no limit"), but such a
// limit holds nobody back and the file reads as if it did.
func rateNotes(file string, s *config.Site, lines config.Lines) []string {
	var notes []string
	note := func(field, key string, r config.Rate) {
		if r.IsZero() || r.Period() <= 0 || int64(r.Requests) <= maxRatePerSecond*int64(r.Period()/time.Second) {
			return
		}
		notes = append(notes, fmt.Sprintf("%s:%d: note: %s: %s is more than 10,000 requests a second per client, a limit in name only",
			file, lines[field], key, r))
	}
	note("RateLimit", "rate_limit", s.RateLimit)
	for i, c := range s.Capabilities {
		note(fmt.Sprintf("Capabilities[%d].RateLimit", i), fmt.Sprintf("capabilities[%d].rate_limit", i), c.RateLimit)
		for k, t := range c.Tools {
			note(fmt.Sprintf("Capabilities[%d].Tools[%d].RateLimit", i, k), fmt.Sprintf("capabilities[%d].tools[%d].rate_limit", i, k), t.RateLimit)
		}
	}
	for i, a := range s.Agents {
		note(fmt.Sprintf("Agents[%d].RateLimit", i), fmt.Sprintf("agents[%d].rate_limit", i), a.RateLimit)
		if a.Proven != nil {
			note(fmt.Sprintf("Agents[%d].Proven.RateLimit", i), fmt.Sprintf("agents[%d].proven.rate_limit", i), a.Proven.RateLimit)
		}
	}
	return notes
}

// toolGrantNotes are the grants of single tools (CAPABILITY/TOOL) when
// the draft-car agents.txt is served: its Capabilities line, whose IDs are
// [a-z0-9-], leaves them out (the agent is enforced as declared), and
// agents.json and agents.md publish them.
func toolGrantNotes(file string, s *config.Site, f config.Formats, lines config.Lines) []string {
	if !f.Serves(config.DocAgentsTxt) || s.Dialect == config.DialectV010 {
		return nil
	}
	var notes []string
	for i, a := range s.Agents {
		for k, id := range a.Capabilities {
			if strings.Contains(id, "/") {
				at := fmt.Sprintf("Agents[%d].Capabilities[%d]", i, k)
				notes = append(notes, fmt.Sprintf("%s:%d: note: agents[%d].capabilities[%d]: %s grants a single tool, which agents.txt's Capabilities line cannot carry: agents.json (tools) and agents.md publish it",
					file, lines[at], i, k, id))
			}
		}
	}
	return notes
}

// gradedNotes are the limits and capability lists of a verified-only
// policy with a proven grant, which no client gets (config.AgentPolicy):
// a proven client gets proven's, an unproven claim is refused or, with
// fall_back, served as "*". A note, not a problem: they harm nothing, but
// the file says a grant that is never given.
func gradedNotes(file string, s *config.Site, lines config.Lines) []string {
	var notes []string
	for i, a := range s.Agents {
		if !a.Verify.Required || a.Proven == nil || a.Name == "*" {
			continue
		}
		unproven := "refused"
		if a.Verify.FallBack {
			unproven = `served as "*"`
		}
		for _, f := range []struct {
			field, key string
			set        bool
		}{{"RateLimit", "rate_limit", !a.RateLimit.IsZero()}, {"Capabilities", "capabilities", a.Capabilities != nil}} {
			if !f.set {
				continue
			}
			at := fmt.Sprintf("Agents[%d].%s", i, f.field)
			notes = append(notes, fmt.Sprintf("%s:%d: note: agents[%d].%s: no client gets it: with verify.required, a proven %s gets proven's grant and an unproven claim is %s",
				file, lines[at], i, f.key, a.Name, unproven))
		}
	}
	return notes
}

// fileProblems is err, the problems of file (config.Lines.Locate's), one
// a line: FILE:LINE: key: message, FILE:LINE:COLUMN: message for a YAML
// syntax error, or FILE: message without a line.
func fileProblems(file string, err error) error {
	var b strings.Builder
	for i, e := range unjoin(err) {
		if i > 0 {
			b.WriteByte('\n')
		}
		var fe *config.FileError
		switch {
		case errors.As(e, &fe) && fe.Line > 0 && fe.Column > 0:
			// A YAML syntax error: where its construct starts.
			fmt.Fprintf(&b, "%s:%d:%d: %s", file, fe.Line, fe.Column, strings.TrimPrefix(fe.Error(), fmt.Sprintf("line %d, column %d: ", fe.Line, fe.Column)))
		case errors.As(e, &fe) && fe.Line > 0:
			fmt.Fprintf(&b, "%s:%d: %s", file, fe.Line, strings.TrimPrefix(fe.Error(), fmt.Sprintf("line %d: ", fe.Line)))
		default:
			fmt.Fprintf(&b, "%s: %v", file, e)
		}
	}
	return errors.New(b.String())
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
