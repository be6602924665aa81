package verifier

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/verify"

	"github.com/agentready/agentready/internal/webbotauth"
)

// signatures is the provider of Web Bot Auth proofs: it verifies
// signatures against the JWK Sets of the trusted Signature-Agent URLs,
// which it alone fetches.
type signatures struct {
	o    *verify.Options
	urls []string // as given: a JWK Set URL is fetched as the site wrote it
	// trusted are every trusted Signature-Agent URL (webbotauth.AgentURL
	// form), each with the agent it belongs to ("" when the site trusts
	// it for agents it does not declare, or for two agents: it proves
	// neither): Identify proves a signed request by any of them, whatever
	// its User-Agent says.
	trusted     map[string]string
	authorities map[string]bool
	authority   string // the first of Options.Authorities

	dirs     *webbotauth.Directories // nil until ready, and when nothing is trusted
	verifier webbotauth.Verifier     // Keys is set per call, bound to a claim's URLs
}

func newSignatures(o *verify.Options) *signatures {
	return &signatures{o: o, trusted: map[string]string{}}
}

func (*signatures) method() string                             { return config.VerifySignature }
func (*signatures) field() string                              { return "SignatureAgents" }
func (*signatures) configured(v *config.Verification) []string { return v.SignatureAgents }

// trust trusts the key directories urls name for agent ("" for the
// agents the site does not declare), adding each to claim's unless nil;
// at names where they were named (the field included), for errors.
func (s *signatures) trust(agent string, urls []string, at string, claim map[string]bool) (errs []error) {
	for _, u := range urls {
		c, err := canonicalAgent(u, s.o.AllowHTTPLoopback)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
			continue
		}
		if prev, ok := s.trusted[c]; !ok {
			s.urls = append(s.urls, u)
			s.trusted[c] = agent
		} else if prev != agent {
			s.trusted[c] = ""
		}
		if claim != nil {
			claim[c] = true
		}
	}
	return errs
}

func (s *signatures) bind(agent string, names []string, at string, _ func(string) int) ([]source, []error) {
	if len(names) == 0 {
		return nil, nil
	}
	src := &sigSource{s: s, trusted: map[string]bool{}}
	return []source{src}, s.trust(agent, names, at, src.trusted)
}

func (s *signatures) ready() error {
	if len(s.urls) == 0 {
		return nil
	}
	if len(s.o.Authorities) == 0 {
		return errors.New("verify: a policy accepts Web Bot Auth signatures, and Options.Authorities names no host they may be made for")
	}
	var err error
	if s.authorities, err = authoritySet(s.o.Authorities); err != nil {
		return err
	}
	s.authority = normalAuthority(s.o.Authorities[0])
	o := s.o
	dirs, err := webbotauth.NewDirectories(s.urls, webbotauth.DirectoryOptions{
		Client: o.Client, AllowHTTPLoopback: o.AllowHTTPLoopback, Now: o.Now, Logger: o.Logger,
		RequireProof: o.RequireDirectoryProof,
	})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	replays := o.Replays
	if replays == nil {
		replays = webbotauth.NewMemoryReplays(100000)
	}
	s.dirs, s.verifier = dirs, webbotauth.Verifier{
		Now: o.Now, MaxLifetime: o.SignatureMaxLifetime, Replays: replays, RequireNonce: !o.AllowNoNonce,
		AllowHTTPLoopback: o.AllowHTTPLoopback,
	}
	return nil
}

// authorityOf is the authority a signature must have been made for: the
// request's when the site answers at it, else the site's own, so that a
// signature made for another host fails.
func (s *signatures) authorityOf(authority string) string {
	auth := normalAuthority(authority)
	if !s.authorities[auth] {
		auth = s.authority
	}
	return auth
}

// sigSource proves a claim by a signature of a key directory the claim
// trusts.
type sigSource struct {
	s       *signatures
	trusted map[string]bool // the claim's Signature-Agent URLs, webbotauth.AgentURL form
}

func (c *sigSource) check(ctx context.Context, q query) answer {
	if !offersSignature(q.r) {
		return answer{verdict: unknown}
	}
	agent, keyID, err := c.s.verify(ctx, q.r, c.s.authorityOf(q.authority), c.trusted, q.record)
	switch {
	case err == nil:
		return answer{verdict: proven, method: verify.Signature, source: agent, keyID: keyID, names: true}
	case errors.Is(err, errNoSignature):
		return answer{verdict: unknown} // another scheme's signature headers
	case errors.Is(err, verify.ErrUnavailable):
		return answer{verdict: unknown, err: err}
	}
	// A bad signature disproves the claim; so does one that names no key
	// directory, or one this claim does not trust (perhaps another
	// policy's: the request then proves another identity than the one it
	// claims).
	return answer{verdict: disproven, err: err, decisive: true}
}

// unproven is the refusal's line for a claim that accepts signatures and
// was offered none (a signature offered settles the claim or makes it
// unknown).
func (*sigSource) unproven(netip.Addr) string { return errNoSignature.Error() }

// offersSignature reports whether r carries an RFC 9421 signature.
func offersSignature(r *http.Request) bool {
	return len(r.Header["Signature-Input"]) > 0 || len(r.Header["Signature"]) > 0
}

// verify checks r's signature, accepting keys only from the JWK Sets of
// trusted (the claim's Signature-Agent URLs, in webbotauth.AgentURL form):
// a directory another policy trusts cannot vouch for this claim. It
// returns the Signature-Agent URL and the key id. Its errors keep the
// webbotauth sentinel in their chain, for Reason.
func (s *signatures) verify(ctx context.Context, r *http.Request, authority string, trusted map[string]bool, record bool) (agent, keyID string, err error) {
	return s.verifyBy(ctx, r, authority, func(u string) bool { return trusted[u] }, "this policy trusts", record)
}

// verifyAny is verify with every trusted directory trusted (Identify).
func (s *signatures) verifyAny(ctx context.Context, r *http.Request, authority string, record bool) (agent, keyID string, err error) {
	return s.verifyBy(ctx, r, authority, func(u string) bool { _, ok := s.trusted[u]; return ok }, "the site trusts", record)
}

func (s *signatures) verifyBy(ctx context.Context, r *http.Request, authority string, trusts func(string) bool, who string, record bool) (agent, keyID string, err error) {
	v := s.verifier
	if !record {
		v.Replays = nil
	}
	v.Keys = func(ctx context.Context, agentURL, keyID string) (crypto.PublicKey, error) {
		if !trusts(agentURL) {
			return nil, fmt.Errorf("%w: Signature-Agent %q is not a key directory %s", webbotauth.ErrUntrusted, agentURL, who)
		}
		return s.dirs.Key(ctx, agentURL, keyID)
	}
	sig, err := v.Verify(ctx, r, authority)
	if errors.Is(err, webbotauth.ErrNoSignature) {
		// Signature headers, but no web-bot-auth signature among them
		// (another scheme's, an Auth: hmac signature): none offered.
		return "", "", errNoSignature
	}
	if err != nil {
		if errors.Is(err, webbotauth.ErrUnavailable) {
			return "", "", fmt.Errorf("%w: %w", verify.ErrUnavailable, err)
		}
		return "", "", fmt.Errorf("%w: signature: %w", verify.ErrFailed, err)
	}
	return sig.Agent, sig.KeyID, nil
}

// errNoSignature: the request offers no Web Bot Auth signature; the other
// sources decide. It wraps webbotauth.ErrNoSignature, for Reason.
var errNoSignature error = noSignature{}

type noSignature struct{}

func (noSignature) Error() string { return "no Web Bot Auth signature was offered" }
func (noSignature) Unwrap() error { return webbotauth.ErrNoSignature }

func (s *signatures) refreshers() []refresher {
	if s.dirs == nil {
		return nil
	}
	return []refresher{s}
}

func (s *signatures) Load(ctx context.Context) error {
	var errs []error
	for _, st := range s.dirs.Status() {
		if _, err := s.dirs.Key(ctx, st.Agent, ""); err != nil && errors.Is(err, webbotauth.ErrUnavailable) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *signatures) Run(ctx context.Context) { s.dirs.Run(ctx) }

// canonicalAgent returns the Signature-Agent URL s names in the form
// requests are matched in (webbotauth.AgentURL: an origin for a key
// directory at the well-known URI, else the JWK Set URL without its
// query), refusing plain HTTP except to a loopback host when allowed.
func canonicalAgent(s string, allowHTTPLoopback bool) (string, error) {
	agent, err := webbotauth.AgentURL(s)
	if err != nil {
		return "", fmt.Errorf("%q is not an https origin or JWK Set URL: %w", s, err)
	}
	if rest, ok := strings.CutPrefix(agent, "http://"); ok && !(allowHTTPLoopback && webbotauth.IsLoopback(strings.SplitN(rest, "/", 2)[0])) {
		return "", fmt.Errorf("%q: plain http is allowed only to a loopback host, with AllowHTTPLoopback", s)
	}
	return agent, nil
}
