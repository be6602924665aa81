package verifier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/agentready/agentready/verify"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/clock"
	"github.com/agentready/agentready/internal/resolve"
	"github.com/agentready/agentready/internal/webbotauth"
)

func defaults(o *verify.Options) {
	if o.Client == nil {
		o.Client = defaultClient()
	} else {
		// A copy that never follows a redirect, whatever the caller's
		// client does: a source is fetched only from the URL configured.
		c := *o.Client
		c.CheckRedirect = noRedirect
		o.Client = &c
	}
	orDefault(&o.RangesMaxAge, DefaultRangesMaxAge)
	orDefault(&o.RangesRefresh, 24*time.Hour)
	orDefault(&o.DNSTimeout, 2*time.Second)
	orDefault(&o.DNSConcurrency, 16)
	orDefault(&o.DNSCacheSize, 10000)
	orDefault(&o.SignatureMaxLifetime, 5*time.Minute)
	if o.DNSBudget == 0 { // negative: no wait at all
		o.DNSBudget = 100 * time.Millisecond
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	o.Now = clock.Or(o.Now)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// orDefault sets *p to d unless it is positive.
func orDefault[T int | time.Duration](p *T, d T) {
	if *p <= 0 {
		*p = d
	}
}

// Verifier checks claims to agent policies and grades requests
// (docs/design.md, "Grades of identity"). Each claim is checked only
// against the sources bound to its name (its policy's Verification, or the
// known-agent data of its name): one operator's list never vouches for
// another's agent, and a key directory is fetched only when the site or
// the known-agent data it relies on trusts it, never because a request
// names it. It is safe for concurrent use.
type Verifier struct {
	claims    map[string]*claim // by lower-case agent name, and as spelled
	providers []provider        // in precedence order (newVerifier)
	sig       *signatures       // the providers' key directories: Identify
	ranges    *rangeLists       // the providers' range lists: Ranges
	cards     *cards            // the Signature Agent Cards the site names (Verification.Card)
}

// newVerifier returns a Verifier of no claim, with every kind of proof
// source in the order decide (precedence.go) relies on: the signature
// first, then the range lists, then reverse DNS.
func newVerifier(f *fetcher, o *verify.Options) *Verifier {
	v := &Verifier{claims: map[string]*claim{}, sig: newSignatures(o), ranges: &rangeLists{f: f, o: o, lists: map[string]*rangeList{}}}
	v.providers = []provider{v.sig, v.ranges, newReverseDNS(o)}
	return v
}

// claim is what proves one agent's name: a checked policy's, or a known
// agent's when the site grades the agents it does not declare.
type claim struct {
	name    string
	sources []source // in the providers' order
	signs   bool     // a source accepts signatures: a refusal asks for one
	card    string   // its Signature Agent Card's key (webbotauth.AgentURL form), if any
}

// Undeclared reports whether the site grades the agents it does not
// declare: its "*" policy gives proven agents grants of their own, or it
// enforces usage preferences, which hold a proven agent to its
// operator's declared purpose. The known-agent data's sources then prove
// known agents, and its key directories any signed request.
func Undeclared(site *config.Site) bool {
	if site.Usage.Enforce {
		return true
	}
	for i := range site.Agents {
		if site.Agents[i].Name == "*" && site.Agents[i].Proven != nil {
			return true
		}
	}
	return false
}

// New returns a Verifier for the site's checked policies (verified-only,
// or graded by a Proven grant) and, when Undeclared(site), for the
// agents the known-agent data can prove; nil when there is nothing to
// check. A checked policy with no source for any method it accepts is an
// error naming it; every problem is reported, joined.
func New(site *config.Site, o verify.Options) (*Verifier, error) {
	defaults(&o)
	f := &fetcher{client: o.Client, allowHTTPLoopback: o.AllowHTTPLoopback, maxBytes: MaxRangesBytes, now: o.Now}
	v := newVerifier(f, &o)
	users := sourceUsers(site.Agents, v.providers)
	var errs []error
	var cardURLs []string
	declared := map[string]bool{}
	for i := range site.Agents {
		a := &site.Agents[i]
		declared[strings.ToLower(a.Name)] = true
		at := fmt.Sprintf("Agents[%d] (%s).Verify", i, a.Name)
		switch {
		case a.Name == "*" && a.Proven != nil:
			errs = append(errs, v.sig.trust("", a.Verify.SignatureAgents, at+".SignatureAgents", nil)...)
			continue
		case a.Name == "*", !a.Verify.Required && a.Proven == nil:
			continue
		}
		row := known[strings.ToLower(a.Name)]
		c, cerrs := v.bind(a.Name, at, &a.Verify, &row.Verification, users)
		errs = append(errs, cerrs...)
		if len(c.sources) == 0 {
			errs = append(errs, v.sourceless(a, at))
			continue
		}
		v.claims[strings.ToLower(a.Name)], v.claims[a.Name] = c, c
		if a.Verify.Card != "" {
			key, err := webbotauth.AgentURL(a.Verify.Card)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.Card: %q: %w", at, a.Verify.Card, err))
			} else {
				cardURLs = append(cardURLs, a.Verify.Card)
				c.card = key
			}
		}
	}
	if Undeclared(site) {
		for name, row := range known {
			if !declared[name] {
				token := knownToken(name)
				c, cerrs := v.bind(token, "known-agent data ("+token+")", &row.Verification, nil, users)
				errs = append(errs, cerrs...)
				v.claims[name], v.claims[token] = c, c
			}
		}
	}
	for _, p := range v.providers {
		if err := p.ready(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(v.claims) == 0 && len(v.sig.trusted) == 0 {
		return nil, nil
	}
	if len(cardURLs) > 0 {
		v.cards = newCards(cardURLs, f, o.Logger, o.Now)
	}
	return v, nil
}

// bind binds the claim to name to the sources src names, by the methods
// it accepts, each kind defaulting to what dflt names (the known-agent
// data's row for name, nil for none); at says where they were named, for
// errors.
func (v *Verifier) bind(name, at string, src, dflt *config.Verification, users func(string) func(string) int) (*claim, []error) {
	c := &claim{name: name}
	var errs []error
	for _, p := range v.providers {
		if !resolve.Accepts(src, p.method()) {
			continue
		}
		names := p.configured(src)
		if names == nil && dflt != nil {
			names = p.configured(dflt)
		}
		s, perrs := p.bind(name, names, at+"."+p.field(), users(p.method()))
		c.sources, errs = append(c.sources, s...), append(errs, perrs...)
		c.signs = c.signs || (p == provider(v.sig) && len(s) > 0)
	}
	return c, errs
}

// sourceless is the error of a checked policy no source proves.
func (v *Verifier) sourceless(a *config.AgentPolicy, at string) error {
	what := "verified-only"
	if !a.Verify.Required {
		what = "graded (Proven)"
	}
	var fields []string
	for _, p := range v.providers {
		fields = append(fields, p.field())
	}
	last := len(fields) - 1
	return fmt.Errorf("%s: the policy is %s, but no source proves %q by the methods it accepts: "+
		"name its %s or %s (the known-agent data has none for it)", at, what, a.Name, strings.Join(fields[:last], ", "), fields[last])
}

// Checks reports whether a claim to the agent named name is checked.
func (v *Verifier) Checks(name string) bool { return v.claim(name) != nil }

// Verify checks r's claim to the agent named name: a checked policy's, or
// a known agent's when undeclared agents are graded. client is the client
// address (trusted proxies honoured) and authority the request's host as
// the server sees it. record says whether a signature's
// nonce is recorded against replay (false for a dry run, such as
// agentready's Explain: a replayed signature then passes it, and is
// refused when served). It returns the Identity that
// proved the claim, or an error wrapping ErrFailed (the claim is unproven
// or disproven: no valid proof, a bad signature, an address outside the
// ranges) or ErrUnavailable (a source it relies on cannot answer, and no
// other proved the claim). Which answer wins when the claim's sources
// disagree is decide's (precedence.go).
func (v *Verifier) Verify(ctx context.Context, r *http.Request, client netip.Addr, authority, name string, record bool) (verify.Identity, error) {
	c := v.claim(name)
	if c == nil {
		return verify.Identity{Claimed: name}, fmt.Errorf("%w: claims to %q are not checked", verify.ErrFailed, name)
	}
	id := verify.Identity{Claimed: c.name}
	q := query{r: r, client: client, authority: authority, agent: c.name, record: record}
	var buf [8]answer
	as := buf[:0]
	ver, at, final := disproven, -1, false
	for _, s := range c.sources {
		as = append(as, s.check(ctx, q))
		if ver, at, final = decide(as); final {
			break
		}
	}
	switch {
	case ver == proven:
		a := &as[at]
		id.Method, id.Source, id.KeyID = a.method, a.source, a.keyID
		if a.names {
			id.Agent, id.Purpose = c.name, v.purposeOf(c, c.name)
		}
		return id, nil
	case ver == unknown:
		return id, unavailable(as)
	case at >= 0:
		return id, as[at].err
	}
	return id, &unprovenError{c: c, client: client, why: disproofs(as)}
}

// claim is the claim to the agent named name: looked up as spelled first
// (the classifier's canonical names and the policies' are keys too), so
// that a claim's check costs no lower-casing.
func (v *Verifier) claim(name string) *claim {
	if c := v.claims[name]; c != nil {
		return c
	}
	return v.claims[strings.ToLower(name)]
}

// Load fetches every range list, key directory and card once, at most as
// long as ctx allows, and returns the failures joined. Call it before
// serving so that the first requests can be verified; Run keeps them
// fresh.
func (v *Verifier) Load(ctx context.Context) error {
	rs := v.refreshers()
	errs := make([]error, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Go(func() { errs[i] = r.Load(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Run refreshes every source in the background until ctx is done: the
// range lists every RangesRefresh, the key directories before their cached
// copies expire. Failures are logged; the last good copy keeps serving.
func (v *Verifier) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, r := range v.refreshers() {
		wg.Go(func() { r.Run(ctx) })
	}
	wg.Wait()
}

func (v *Verifier) refreshers() (rs []refresher) {
	for _, p := range v.providers {
		rs = append(rs, p.refreshers()...)
	}
	if v.cards != nil {
		rs = append(rs, v.cards)
	}
	return rs
}

// Directories returns the state of every trusted key directory, for
// health checks.
func (v *Verifier) Directories() []DirectoryStatus {
	if v.sig.dirs == nil {
		return nil
	}
	return v.sig.dirs.Status()
}

// DirectoryStatus is the state of one trusted key directory.
type DirectoryStatus = webbotauth.DirectoryStatus

// Ranges returns the state of every range list, for health checks.
func (v *Verifier) Ranges() []RangesStatus {
	var st []RangesStatus
	for _, r := range v.ranges.lists {
		st = append(st, r.Status())
	}
	return st
}

// authoritySet returns Options.Authorities (or RequestOptions.Authorities)
// normalised, and reports every entry that is not host[:port]: a URL there
// would match no request, and every signature would fail.
func authoritySet(as []string) (map[string]bool, error) {
	set := map[string]bool{}
	var errs []error
	for i, a := range as {
		if err := webbotauth.CheckAuthority(a); err != nil {
			errs = append(errs, fmt.Errorf("verify: Authorities[%d]: %w", i, err))
		}
		set[normalAuthority(a)] = true
	}
	return set, errors.Join(errs...)
}

// normalAuthority lower-cases host[:port] and drops the default port of
// https (443) or http (80).
func normalAuthority(a string) string {
	a = strings.ToLower(strings.TrimSpace(a))
	if h, ok := strings.CutSuffix(a, ":443"); ok {
		return h
	}
	if h, ok := strings.CutSuffix(a, ":80"); ok {
		return h
	}
	return a
}
