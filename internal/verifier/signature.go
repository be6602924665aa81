package verifier

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/verify"

	"github.com/agentready/agentready/internal/webbotauth"
)

// signatures verifies Web Bot Auth signatures against the JWK Sets of the
// trusted Signature-Agent URLs, which it alone fetches.
type signatures struct {
	dirs     *webbotauth.Directories
	verifier webbotauth.Verifier // Keys is set per call, bound to a claim's URLs
}

func newSignatures(agents []string, o *verify.Options) (*signatures, error) {
	dirs, err := webbotauth.NewDirectories(agents, webbotauth.DirectoryOptions{
		Client: o.Client, AllowHTTPLoopback: o.AllowHTTPLoopback, Now: o.Now, Logger: o.Logger,
		RequireProof: o.RequireDirectoryProof,
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	replays := o.Replays
	if replays == nil {
		replays = webbotauth.NewMemoryReplays(100000)
	}
	return &signatures{dirs: dirs, verifier: webbotauth.Verifier{
		Now: o.Now, MaxLifetime: o.SignatureMaxLifetime, Replays: replays, RequireNonce: !o.AllowNoNonce,
		AllowHTTPLoopback: o.AllowHTTPLoopback,
	}}, nil
}

// verify checks r's signature, accepting keys only from the JWK Sets of
// trusted (the claim's Signature-Agent URLs, in webbotauth.AgentURL form):
// a directory another policy trusts cannot vouch for this claim. It
// returns the Signature-Agent URL and the key id. Its errors keep the
// webbotauth sentinel in their chain, for Reason.
func (s *signatures) verify(ctx context.Context, r *http.Request, authority string, trusted map[string]bool, record bool) (agent, keyID string, err error) {
	return s.verifyBy(ctx, r, authority, func(u string) bool { return trusted[u] }, "this policy trusts", record)
}

// verifyAny is verify with every directory of dirs trusted (Identify).
func (s *signatures) verifyAny(ctx context.Context, r *http.Request, authority string, dirs map[string]string, record bool) (agent, keyID string, err error) {
	return s.verifyBy(ctx, r, authority, func(u string) bool { _, ok := dirs[u]; return ok }, "the site trusts", record)
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

func (s *signatures) load(ctx context.Context) error {
	var errs []error
	for _, st := range s.dirs.Status() {
		if _, err := s.dirs.Key(ctx, st.Agent, ""); err != nil && errors.Is(err, webbotauth.ErrUnavailable) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *signatures) run(ctx context.Context) { s.dirs.Run(ctx) }
