package cards

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// authScheme is one security scheme of the A2A card: a declared auth,
// shared by every A2A capability declaring the same (the same kind, and
// the same header, token endpoint or authorization server). Each one
// renders as the scheme of A2A 1.0 4.5 (a2a.proto SecurityScheme, after
// the OpenAPI 3.2 Security Scheme Object) or of v0.3.0 5.5 (OpenAPI 3.0's):
//
//   - bearer-token: HTTP auth, scheme Bearer (RFC 6750).
//   - api-key: an API key in its header.
//   - oauth2 with a token endpoint: OAuth 2.0, the client credentials flow
//     at that token endpoint, whose scopes are every scope a capability
//     using it asks for (OAuthFlows is a oneof, and the declaration names
//     no authorization endpoint, which the other flows require); with an
//     authorization server, the URL of its RFC 8414 metadata, where
//     clients learn the flows it supports. Without a token endpoint, HTTP
//     auth Bearer: the credential the site checks (RFC 6750 2.1).
//   - hmac: an API key in the Signature header, described as an HTTP
//     Message Signature (RFC 9421) keyed by a shared secret. None of the
//     five schemes is request signing; APIKeySecurityScheme is the one
//     naming the header field a credential travels in, and HTTP auth would
//     tell clients to send an Authorization scheme that RFC 9421 does not
//     define.
type authScheme struct {
	name     string
	kind     string
	header   string // api-key
	tokenURL string // bearer-token, oauth2
	issuer   string // oauth2: the RFC 8414 issuer
	docs     string
	scopes   []string // oauth2: the flow's scopes, in order of first use
}

// The schemes' base names, the keys of securitySchemes.
var schemeNames = map[string]string{
	config.AuthBearerToken: "bearer",
	config.AuthAPIKey:      "apiKey",
	config.AuthOAuth2:      "oauth2",
	config.AuthHMAC:        "hmac",
}

// scheme returns the scheme of a declared auth, adding it to a.schemes
// when it is new, or nil for none.
func (a *a2aAgent) scheme(au *config.Auth) *authScheme {
	kind := resolve.AuthType(*au)
	base, ok := schemeNames[kind]
	if !ok {
		return nil
	}
	want := authScheme{kind: kind, docs: au.DocsURL}
	switch kind {
	case config.AuthBearerToken:
		want.tokenURL = au.TokenEndpoint
	case config.AuthAPIKey:
		want.header = resolve.Header(*au)
	case config.AuthOAuth2:
		want.tokenURL, want.issuer = au.TokenEndpoint, au.AuthorizationServer
	}
	n := 1
	for _, sc := range a.schemes {
		if sc.kind != kind {
			continue
		}
		if strings.EqualFold(sc.header, want.header) && sc.tokenURL == want.tokenURL && sc.issuer == want.issuer {
			sc.docs = firstNonEmpty(sc.docs, want.docs)
			sc.addScopes(au.Scopes)
			return sc
		}
		n++
	}
	sc := &want
	sc.name = base
	if n > 1 {
		sc.name += "-" + strconv.Itoa(n)
	}
	if kind == config.AuthOAuth2 {
		sc.addScopes(au.Scopes)
	}
	a.schemes = append(a.schemes, sc)
	return sc
}

func (sc *authScheme) addScopes(scopes []string) {
	if sc.kind != config.AuthOAuth2 {
		return
	}
	for _, s := range scopes {
		if !slices.Contains(sc.scopes, s) {
			sc.scopes = append(sc.scopes, s)
		}
	}
}

// oauthFlow says whether the scheme renders as OAuth 2.0 (it has the
// token endpoint ClientCredentialsOAuthFlow requires).
func (sc *authScheme) oauthFlow() bool { return sc.kind == config.AuthOAuth2 && sc.tokenURL != "" }

// description says what a client sends, and where the site documents it.
func (sc *authScheme) description() string {
	var d string
	switch sc.kind {
	case config.AuthBearerToken:
		d = "Bearer token (RFC 6750)"
		if sc.tokenURL != "" {
			d += " from " + sc.tokenURL
		}
	case config.AuthAPIKey:
		d = "API key in the " + sc.header + " header"
	case config.AuthOAuth2:
		d = "OAuth 2.0 access token, sent as a Bearer token (RFC 6750)"
		if sc.tokenURL == "" && sc.issuer != "" {
			d += " from the authorization server " + sc.issuer
		}
	case config.AuthHMAC:
		d = "HTTP Message Signature (RFC 9421) made with a shared key (hmac-sha256), in the Signature and Signature-Input header fields"
	}
	if sc.docs != "" {
		d += "; see " + sc.docs
	}
	return d
}

// metadataURL is the RFC 8414 3.1 metadata URL of the issuer: the
// well-known suffix goes between the host and the issuer's path.
func (sc *authScheme) metadataURL() string {
	u, err := url.Parse(sc.issuer)
	if sc.issuer == "" || err != nil || u.Host == "" {
		return ""
	}
	u.Path = "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}

// flowScopes is ClientCredentialsOAuthFlow.scopes, REQUIRED and so present
// even when empty (8.4.1 rule 1). The declaration names scopes without
// descriptions.
func (sc *authScheme) flowScopes() map[string]string {
	m := make(map[string]string, len(sc.scopes))
	for _, s := range sc.scopes {
		m[s] = ""
	}
	return m
}

// securitySchemeV1 is SecurityScheme (4.5.1), a oneof: one member set.
type securitySchemeV1 struct {
	APIKey   *apiKeySchemeV1   `json:"apiKeySecurityScheme,omitempty"`
	HTTPAuth *httpAuthSchemeV1 `json:"httpAuthSecurityScheme,omitempty"`
	OAuth2   *oauth2SchemeV1   `json:"oauth2SecurityScheme,omitempty"`
}

// apiKeySchemeV1 is APIKeySecurityScheme (4.5.2): location and name are
// REQUIRED.
type apiKeySchemeV1 struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// httpAuthSchemeV1 is HTTPAuthSecurityScheme (4.5.3): scheme is REQUIRED,
// an IANA HTTP Authentication Scheme name.
type httpAuthSchemeV1 struct {
	Description string `json:"description,omitempty"`
	Scheme      string `json:"scheme"`
}

// oauth2SchemeV1 is OAuth2SecurityScheme (4.5.4): flows is REQUIRED.
type oauth2SchemeV1 struct {
	Description       string       `json:"description,omitempty"`
	Flows             oauthFlowsV1 `json:"flows"`
	OAuth2MetadataURL string       `json:"oauth2MetadataUrl,omitempty"`
}

// oauthFlowsV1 is OAuthFlows (4.5.7), a oneof.
type oauthFlowsV1 struct {
	ClientCredentials *clientCredentialsFlow `json:"clientCredentials,omitempty"`
}

// clientCredentialsFlow is ClientCredentialsOAuthFlow (4.5.9; v0.3.0
// 5.5.2.x): tokenUrl and scopes are REQUIRED in both versions.
type clientCredentialsFlow struct {
	TokenURL string            `json:"tokenUrl"`
	Scopes   map[string]string `json:"scopes"`
}

func (sc *authScheme) v10() securitySchemeV1 {
	d := sc.description()
	switch {
	case sc.kind == config.AuthAPIKey:
		return securitySchemeV1{APIKey: &apiKeySchemeV1{Description: d, Location: "header", Name: sc.header}}
	case sc.kind == config.AuthHMAC:
		return securitySchemeV1{APIKey: &apiKeySchemeV1{Description: d, Location: "header", Name: "Signature"}}
	case sc.oauthFlow():
		return securitySchemeV1{OAuth2: &oauth2SchemeV1{Description: d, OAuth2MetadataURL: sc.metadataURL(),
			Flows: oauthFlowsV1{ClientCredentials: &clientCredentialsFlow{TokenURL: sc.tokenURL, Scopes: sc.flowScopes()}}}}
	}
	return securitySchemeV1{HTTPAuth: &httpAuthSchemeV1{Description: d, Scheme: "Bearer"}}
}

// securitySchemeV03 is v0.3.0's SecurityScheme (5.5.2), OpenAPI 3.0's
// object with its type discriminator.
type securitySchemeV03 struct {
	Type              string        `json:"type"`
	Description       string        `json:"description,omitempty"`
	Scheme            string        `json:"scheme,omitempty"`
	In                string        `json:"in,omitempty"`
	Name              string        `json:"name,omitempty"`
	Flows             *oauthFlowsV1 `json:"flows,omitempty"`
	OAuth2MetadataURL string        `json:"oauth2MetadataUrl,omitempty"`
}

func (sc *authScheme) v03() securitySchemeV03 {
	d := sc.description()
	switch {
	case sc.kind == config.AuthAPIKey:
		return securitySchemeV03{Type: "apiKey", Description: d, In: "header", Name: sc.header}
	case sc.kind == config.AuthHMAC:
		return securitySchemeV03{Type: "apiKey", Description: d, In: "header", Name: "Signature"}
	case sc.oauthFlow():
		return securitySchemeV03{Type: "oauth2", Description: d, OAuth2MetadataURL: sc.metadataURL(),
			Flows: &oauthFlowsV1{ClientCredentials: &clientCredentialsFlow{TokenURL: sc.tokenURL, Scopes: sc.flowScopes()}}}
	}
	return securitySchemeV03{Type: "http", Description: d, Scheme: "bearer"}
}
