package oauthrs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/webbotauth"
)

// The well-known URIs of an authorization server's metadata: RFC 8414's
// (3, 7.3) and OpenID Connect Discovery 1.0's (4), which MCP 2025-11-25
// clients try in turn ("Authorization Server Metadata Discovery").
const (
	ASWellKnownPath   = "/.well-known/oauth-authorization-server"
	OIDCWellKnownPath = "/.well-known/openid-configuration"
)

// metadataURLs are the URLs an issuer's metadata is looked for at, in
// order: RFC 8414 3.1's (the well-known URI inserted between the host and
// the path, "any terminating "/" MUST be removed"), then OpenID Connect
// Discovery's, inserted the same way and, for an issuer with a path, also
// appended to it (OpenID Connect Discovery 1.0 4.1), as MCP 2025-11-25
// lists them.
func metadataURLs(issuer string) []string {
	u, _ := url.Parse(issuer) // checked by checkIssuer
	base := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	urls := []string{base + ASWellKnownPath + p, base + OIDCWellKnownPath + p}
	if p != "" {
		urls = append(urls, base+p+OIDCWellKnownPath)
	}
	return urls
}

// asMetadata is what a Verifier reads of an authorization server's
// metadata (RFC 8414 2).
type asMetadata struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// discover fetches the issuer's metadata and returns its jwks_uri. A
// metadata URL answering other than a 200 of JSON is passed over for the
// next; a network failure (the issuer down) ends the search, so that a
// request waits for one bounded attempt. The metadata's issuer must be the
// configured one exactly (RFC 8414 3.3: "MUST be identical"), else its
// keys could sign for another issuer.
func (v *Verifier) discover(ctx context.Context) (string, error) {
	var errs []error
	for _, mu := range metadataURLs(v.issuer) {
		_, _, body, err := webbotauth.Get(ctx, v.client, mu, "application/json", v.maxBytes)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) { // names the URL already
				errs = append(errs, err)
				break
			}
			errs = append(errs, fmt.Errorf("GET %s: %w", mu, err))
			continue
		}
		var m asMetadata
		if err := json.Unmarshal(body, &m); err != nil {
			errs = append(errs, fmt.Errorf("GET %s: not JSON metadata: %w", mu, err))
			continue
		}
		if m.Issuer != v.issuer {
			return "", fmt.Errorf("GET %s: metadata issuer %q is not %q (RFC 8414 3.3)", mu, m.Issuer, v.issuer)
		}
		ju, err := url.Parse(m.JWKSURI)
		if m.JWKSURI == "" || err != nil || ju.Host == "" || ju.User != nil || ju.Fragment != "" {
			return "", fmt.Errorf("GET %s: jwks_uri %q is missing or not a URL", mu, m.JWKSURI)
		}
		if err := checkScheme(ju, v.allowHTTPLoopback, "jwks_uri"); err != nil {
			return "", fmt.Errorf("GET %s: %w", mu, err)
		}
		v.guard(ju.Hostname())
		return m.JWKSURI, nil
	}
	return "", errors.Join(errs...)
}
