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
	"github.com/agentready/agentready/internal/httpsyntax"
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
	if o.RangesMaxAge <= 0 {
		o.RangesMaxAge = DefaultRangesMaxAge
	}
	if o.RangesRefresh <= 0 {
		o.RangesRefresh = 24 * time.Hour
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.DNSBudget == 0 {
		o.DNSBudget = 100 * time.Millisecond
	}
	if o.DNSTimeout <= 0 {
		o.DNSTimeout = 2 * time.Second
	}
	if o.DNSConcurrency <= 0 {
		o.DNSConcurrency = 16
	}
	if o.DNSCacheSize <= 0 {
		o.DNSCacheSize = 10000
	}
	if o.SignatureMaxLifetime <= 0 {
		o.SignatureMaxLifetime = 5 * time.Minute
	}
	o.Now = clock.Or(o.Now)
	if o.Logger == nil {
		o.Logger = slog.Default()
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
	claims      map[string]*claim // by lower-case agent name
	authorities map[string]bool
	authority   string // the first of Options.Authorities
	ranges      map[string]*rangeList
	rdns        *rdnsChecker
	sig         *signatures // nil when no claim accepts signatures
	nonces      bool        // signatures must carry a nonce: AcceptSignature asks for one
	log         *slog.Logger

	// dirs are every trusted Signature-Agent URL (webbotauth.AgentURL
	// form), each with the agent it belongs to ("" when the site trusts
	// it for agents it does not declare): Identify proves a signed
	// request by any of them, whatever its User-Agent says.
	dirs map[string]string
	// cards holds the Signature Agent Cards the site names
	// (Verification.Card), cardOf each one's key by lower-case agent name.
	cards  *cards
	cardOf map[string]string
	// users counts, per range list URL and reverse DNS domain, the
	// agents whose sources include it: a source of several agents proves
	// their operator, not which of them sent a request.
	users map[string]int
}

// claim is what proves one agent's name: a checked policy's, or a known
// agent's when the site grades the agents it does not declare.
type claim struct {
	name       string
	sigAgents  map[string]bool // trusted Signature-Agent URLs, webbotauth.AgentURL form
	ranges     []*rangeList
	rdnsDomain []string
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
// error naming it.
func New(site *config.Site, o verify.Options) (*Verifier, error) {
	defaults(&o)
	agents := site.Agents
	v := &Verifier{claims: map[string]*claim{}, ranges: map[string]*rangeList{}, log: o.Logger, nonces: !o.AllowNoNonce,
		dirs: map[string]string{}, cardOf: map[string]string{}}
	f := &fetcher{client: o.Client, allowHTTPLoopback: o.AllowHTTPLoopback, maxBytes: MaxRangesBytes, now: o.Now}
	var errs []error
	var sigURLs []string // as given: a JWK Set URL is fetched as the site wrote it
	var cardURLs []string
	trustDir := func(field, s, agent string) {
		canon, err := canonicalAgent(s, o.AllowHTTPLoopback)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.SignatureAgents: %w", field, err))
			return
		}
		if _, ok := v.dirs[canon]; !ok {
			sigURLs = append(sigURLs, s)
			v.dirs[canon] = agent
		} else if v.dirs[canon] != agent {
			v.dirs[canon] = "" // trusted for two agents: it proves neither
		}
	}
	// addClaim binds name to its sources, by the methods accepts allows;
	// field says where they were named, for errors.
	addClaim := func(name, field string, src Sources, accepts *config.Verification) *claim {
		c := &claim{name: name}
		if resolve.Accepts(accepts, config.VerifySignature) && len(src.SignatureAgents) > 0 {
			c.sigAgents = map[string]bool{}
			for _, s := range src.SignatureAgents {
				if agent, err := canonicalAgent(s, o.AllowHTTPLoopback); err == nil {
					c.sigAgents[agent] = true
				}
				trustDir(field, s, name)
			}
		}
		if resolve.Accepts(accepts, config.VerifyIPRange) {
			for _, u := range src.IPRanges {
				r, ok := v.ranges[u]
				if !ok {
					if err := f.checkURL(u); err != nil {
						errs = append(errs, fmt.Errorf("%s.IPRanges: %w", field, err))
						continue
					}
					r = &rangeList{url: u, fetcher: f, maxAge: o.RangesMaxAge, every: o.RangesRefresh, log: o.Logger}
					v.ranges[u] = r
				}
				c.ranges = append(c.ranges, r)
			}
		}
		if resolve.Accepts(accepts, config.VerifyReverseDNS) {
			for _, raw := range src.ReverseDNS {
				d, ok := httpsyntax.DomainName(raw)
				if !ok {
					errs = append(errs, fmt.Errorf("%s.ReverseDNS: %q is not a domain name with at least two labels", field, raw))
					continue
				}
				c.rdnsDomain = append(c.rdnsDomain, d)
			}
		}
		return c
	}
	declared := map[string]bool{}
	for i := range agents {
		a := &agents[i]
		declared[strings.ToLower(a.Name)] = true
		field := fmt.Sprintf("Agents[%d] (%s).Verify", i, a.Name)
		if a.Name == "*" {
			if a.Proven != nil {
				for _, s := range a.Verify.SignatureAgents {
					trustDir(field, s, "")
				}
			}
			continue
		}
		if !a.Verify.Required && a.Proven == nil {
			continue
		}
		c := addClaim(a.Name, field, sourcesFor(a), &a.Verify)
		if len(c.sigAgents)+len(c.ranges)+len(c.rdnsDomain) == 0 {
			what := "verified-only"
			if !a.Verify.Required {
				what = "graded (Proven)"
			}
			errs = append(errs, fmt.Errorf("%s: the policy is %s, but no source proves %q by the methods it accepts: "+
				"name its SignatureAgents, IPRanges or ReverseDNS (the known-agent data has none for it)", field, what, a.Name))
			continue
		}
		v.claims[strings.ToLower(a.Name)], v.claims[a.Name] = c, c
		if a.Verify.Card != "" {
			key, err := webbotauth.AgentURL(a.Verify.Card)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.Card: %q: %w", field, a.Verify.Card, err))
			} else {
				cardURLs = append(cardURLs, a.Verify.Card)
				v.cardOf[strings.ToLower(a.Name)], v.cardOf[a.Name] = key, key
			}
		}
	}
	v.users = sourceUsers(agents)
	if Undeclared(site) {
		for name, row := range known {
			if declared[name] {
				continue
			}
			token := knownToken(name)
			c := addClaim(token, "known-agent data ("+token+")", row.Sources, &config.Verification{})
			v.claims[name], v.claims[token] = c, c
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(v.claims) == 0 && len(v.dirs) == 0 {
		return nil, nil
	}
	if len(cardURLs) > 0 {
		v.cards = newCards(cardURLs, f, o.Logger, o.Now)
	}
	needDNS := false
	for _, c := range v.claims {
		needDNS = needDNS || len(c.rdnsDomain) > 0
	}
	if needDNS {
		v.rdns = newReverseDNS(&o)
	}
	if len(sigURLs) > 0 {
		if len(o.Authorities) == 0 {
			return nil, errors.New("verify: a policy accepts Web Bot Auth signatures, and Options.Authorities names no host they may be made for")
		}
		if err := checkAuthorities(o.Authorities); err != nil {
			return nil, err
		}
		v.authorities = map[string]bool{}
		for _, a := range o.Authorities {
			a = normalAuthority(a)
			if v.authority == "" {
				v.authority = a
			}
			v.authorities[a] = true
		}
		s, err := newSignatures(sigURLs, &o)
		if err != nil {
			return nil, err
		}
		v.sig = s
	}
	return v, nil
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
// other proved the claim). A signature that is offered is decisive: a bad
// one fails the claim whatever else might have proven it.
func (v *Verifier) Verify(ctx context.Context, r *http.Request, client netip.Addr, authority, name string, record bool) (verify.Identity, error) {
	c := v.claim(name)
	if c == nil {
		return verify.Identity{Claimed: name}, fmt.Errorf("%w: claims to %q are not checked", verify.ErrFailed, name)
	}
	id := verify.Identity{Claimed: c.name}
	var unavailable []error
	var rdnsErr error // reverse DNS's definite "no"
	outside := 0      // range lists that answered that client is not in them
	offered := false
	if c.sigAgents != nil && offersSignature(r) {
		agent, keyID, err := v.sig.verify(ctx, r, v.authorityOf(authority), c.sigAgents, record)
		offered = !errors.Is(err, errNoSignature)
		switch {
		case err == nil:
			id.Method, id.Source, id.KeyID = verify.Signature, agent, keyID
			v.name(&id, c.name, agent, true)
			return id, nil
		case !offered:
			// Signature headers of another scheme: the other sources decide.
		case errors.Is(err, verify.ErrUnavailable):
			unavailable = append(unavailable, err)
		default:
			// A bad signature disproves the claim; so does one that names
			// no key directory, or one this claim does not trust (perhaps
			// another policy's: the request then proves another identity
			// than the one it claims).
			return id, err
		}
	}
	for _, rg := range c.ranges {
		// A list whose prefixes name the services they serve (JAFAR)
		// proves only those; a prefix that names this agent proves it,
		// not only its operator.
		in, named, err := rg.ContainsFor(client, c.name)
		switch {
		case err != nil:
			unavailable = append(unavailable, err)
		case in:
			id.Method, id.Source = verify.IPRange, rg.url
			v.name(&id, c.name, rg.url, named)
			return id, nil
		default:
			outside++
		}
	}
	if len(c.rdnsDomain) > 0 {
		host, domain, err := v.rdns.Check(ctx, client, c.rdnsDomain)
		switch {
		case err == nil:
			id.Method, id.Source = verify.ReverseDNS, host
			v.name(&id, c.name, domain, false)
			return id, nil
		case errors.Is(err, verify.ErrUnavailable) && outside == 0:
			// Reverse DNS that does not answer in time says nothing; but
			// the client runs its own reverse zone and can make it slow, so
			// it never turns another source's definite "no" (a range list
			// that answered) into "cannot tell".
			unavailable = append(unavailable, err)
		case errors.Is(err, verify.ErrUnavailable):
		default:
			rdnsErr = err
		}
	}
	if len(unavailable) > 0 {
		return id, errors.Join(unavailable...)
	}
	return id, &unprovenError{c: c, client: client, noSignature: c.sigAgents != nil && !offered, rdns: rdnsErr}
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

// offersSignature reports whether r carries an RFC 9421 signature.
func offersSignature(r *http.Request) bool {
	return len(r.Header["Signature-Input"]) > 0 || len(r.Header["Signature"]) > 0
}

// Load fetches every range list, key directory and card once, at most as
// long as ctx allows, and returns the failures joined. Call it before
// serving so that the first requests can be verified; Run keeps them
// fresh.
func (v *Verifier) Load(ctx context.Context) error {
	var loads []func(context.Context) error
	for _, r := range v.ranges {
		loads = append(loads, r.Load)
	}
	if v.sig != nil {
		loads = append(loads, v.sig.load)
	}
	if v.cards != nil {
		loads = append(loads, v.cards.load)
	}
	errs := make([]error, len(loads))
	var wg sync.WaitGroup
	for i, load := range loads {
		wg.Go(func() { errs[i] = load(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Run refreshes every source in the background until ctx is done: the
// range lists every RangesRefresh, the key directories before their cached
// copies expire. Failures are logged; the last good copy keeps serving.
func (v *Verifier) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, r := range v.ranges {
		wg.Go(func() { r.Run(ctx) })
	}
	if v.sig != nil {
		wg.Go(func() { v.sig.run(ctx) })
	}
	if v.cards != nil {
		wg.Go(func() { v.cards.run(ctx) })
	}
	wg.Wait()
}

// Directories returns the state of every trusted key directory, for
// health checks.
func (v *Verifier) Directories() []DirectoryStatus {
	if v.sig == nil {
		return nil
	}
	var st []DirectoryStatus
	for _, d := range v.sig.dirs.Status() {
		st = append(st, DirectoryStatus(d))
	}
	return st
}

// DirectoryStatus is the state of one trusted key directory.
type DirectoryStatus struct {
	Agent       string    // the trusted Signature-Agent URL (an origin for the well-known directory)
	URL         string    // the URL fetched
	LastFetch   time.Time // last successful fetch; zero if none
	LastAttempt time.Time // last fetch attempted; zero if none
	LastError   error     // error of the last attempt; nil when it succeeded
	Keys        int       // keys in the cached copy
	Proven      int       // of which with a valid possession proof
	FreshUntil  time.Time // when the cached copy goes stale
}

// Ranges returns the state of every range list, for health checks.
func (v *Verifier) Ranges() []RangesStatus {
	var st []RangesStatus
	for _, r := range v.ranges {
		st = append(st, r.Status())
	}
	return st
}

// checkAuthorities reports every entry of Options.Authorities (or
// RequestOptions.Authorities) that is not host[:port]: a URL there would
// match no request, and every signature would fail.
func checkAuthorities(as []string) error {
	var errs []error
	for i, a := range as {
		if err := webbotauth.CheckAuthority(a); err != nil {
			errs = append(errs, fmt.Errorf("verify: Authorities[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
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
