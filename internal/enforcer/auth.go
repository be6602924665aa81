package enforcer

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/enforce"
	"github.com/agentready/agentready/internal/oauthrs"
	"github.com/agentready/agentready/internal/publish/resourcemeta"
	"github.com/agentready/agentready/internal/reqbody"
	"github.com/agentready/agentready/internal/resolve"
)

// credential extracts the credential a declared auth type implies, or ""
// (draft-car 2.5 Auth: none, api-key, bearer-token, oauth2, hmac).
//
//   - bearer-token, oauth2: "Authorization: Bearer <token>" (RFC 6750 2.1)
//   - api-key: the declared header (Auth.Header, default X-API-Key)
//   - hmac: an HTTP Message Signature (RFC 9421 "Signature" field) or an
//     Authorization header of any scheme
func credential(r *http.Request, a *config.Auth) string {
	switch resolve.AuthType(*a) {
	case config.AuthBearerToken, config.AuthOAuth2:
		v := r.Header.Get("Authorization")
		if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
			return strings.TrimSpace(v[7:])
		}
		return ""
	case config.AuthAPIKey:
		return strings.TrimSpace(r.Header.Get(resolve.Header(*a)))
	case config.AuthHMAC:
		if v := r.Header.Get("Signature"); v != "" {
			return v
		}
		return strings.TrimSpace(r.Header.Get("Authorization"))
	}
	return ""
}

// challenge is the WWW-Authenticate value for a missing credential (RFC
// 9110 11.6.1), computed once per capability (and tool, whose scopes a
// carries): a Bearer challenge names the scopes needed and the protected
// resource metadata (RFC 9728 5.1; MCP 2025-11-25 "Authorization"), the
// declared document or the one agentready serves.
func challenge(site *config.Site, c *config.Capability, a *config.Auth) string {
	realm := `realm="` + quoteSafe(site.Name) + `"`
	switch resolve.AuthType(*a) {
	case config.AuthBearerToken, config.AuthOAuth2:
		return oauthrs.Challenge{Realm: site.Name, Scopes: a.Scopes, ResourceMetadata: metadataURL(c)}.String()
	case config.AuthAPIKey:
		// No registered scheme exists for API keys; the auth-param names
		// the header the key travels in.
		return `APIKey ` + realm + `, header="` + quoteSafe(resolve.Header(*a)) + `"`
	case config.AuthHMAC:
		return `Signature ` + realm
	}
	return ""
}

// metadataURL is the protected resource metadata a Bearer challenge of c
// names: the declared document, else the one agentready serves, "" for
// none.
func metadataURL(c *config.Capability) string {
	return cmp.Or(c.Auth.ProtectedResourceMetadata, resourcemeta.URL(c))
}

// quoteSafe drops the characters a quoted-string cannot hold as is.
func quoteSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// UnverifiedHMAC says whether an hmac capability's Signature would be
// taken on its presence alone: neither signing keys (signed) nor an
// Authenticator (authenticated) can verify it. New refuses such an
// Enforcer whoever builds it; agentready.New asks the same of the
// declaration before compiling it, to report it at its field with every
// other problem. HMACProblem is the one wording of both.
func UnverifiedHMAC(a config.Auth, authenticated, signed bool) bool {
	return resolve.AuthType(a) == config.AuthHMAC && !authenticated && !signed
}

// HMACProblem is what is wrong with a capability UnverifiedHMAC reports.
const HMACProblem = "hmac asks for a signed request (RFC 9421) and no key is given to verify one: " +
	"give the keys (Go: WithRequestSignatures, or check it yourself with WithAuthenticator), or declare another auth type"

// auth is the stage of declared auth (draft-car 2.5 Auth): the
// credential the capability in force declares is checked, and a request
// without it, or whose credential fails, is refused (DenyAuth). It is the
// one check Wrap, a route binding and AuthForEveryClient all make:
// an hmac capability's signature is verified (Config.SignedRequests),
// other credentials go to Config.Authenticate, and without either only
// the credential's presence is checked (d.PresenceOnly).
func (e *Enforcer) auth(s *scope) bool {
	if s.ci < 0 || !resolve.AuthRequired(e.p.Capabilities[s.ci].Auth) {
		return true
	}
	r, ci, d := s.r, s.ci, s
	c := &e.p.Capabilities[ci]
	hmac := resolve.AuthType(c.Auth) == config.AuthHMAC && e.signed != nil
	jwt := e.tokens[ci]
	d.PresenceOnly = e.authFn == nil && !hmac && jwt == nil
	cred := credential(r, &c.Auth)
	decl := c.Decl
	if s.mcp.ti >= 0 {
		decl = c.Tools[s.mcp.ti].Decl // the tool's scopes added
	}
	var err error
	switch {
	case cred == "":
		d.Outcome, d.Rule = enforce.DenyAuth, e.lines.auth[ci]
		return false
	case hmac:
		err = e.verifySigned(r, c.Decl, !s.explain)
	case jwt != nil:
		err = e.verifyToken(s, jwt, cred, decl.Auth.Scopes)
	}
	if err == nil && !hmac && e.authFn != nil {
		err = e.authFn(r, decl, cred)
	}
	if err != nil {
		d.Outcome, d.Rule, d.Err = enforce.DenyAuth, e.lines.auth[ci], err
		return false
	}
	return true
}

// verifyToken verifies a bearer token as a JWT access token of the
// capability's authorization server (Auth.JWT, Audience) carrying the
// scopes the call needs; its subject becomes the scope's, for the MCP
// session's owner. A refusal's status is the check's: 401 for an invalid
// token, 403 for one that lacks a scope (RFC 6750 3.1; MCP 2025-11-25
// "Runtime Insufficient Scope Errors"), 503 when the issuer's keys cannot
// be had.
func (e *Enforcer) verifyToken(s *scope, v *oauthrs.Verifier, token string, scopes []string) error {
	claims, err := v.Verify(s.r.Context(), token, scopes)
	var oe *oauthrs.Error
	if errors.As(err, &oe) {
		s.Status = oe.Status()
		return err
	}
	if err != nil {
		return err
	}
	s.subject, s.issuer, s.tokenScopes = tokenOwner(claims, token), v.Issuer(), claims.Scopes
	return nil
}

// tokenOwner is who a verified token speaks for, as an MCP session's owner
// knows it: its subject; without one (RFC 9068 2.2 requires it; not every
// issuer sends it), its client; without either, the token itself, so that
// a session is no other token's.
func tokenOwner(c oauthrs.Claims, token string) string {
	switch {
	case c.Subject != "":
		return "sub:" + c.Subject
	case c.ClientID != "":
		return "client_id:" + c.ClientID
	}
	sum := sha256.Sum256([]byte(token))
	return "token:" + hex.EncodeToString(sum[:])
}

// verifySigned checks the RFC 9421 signature of a request to a capability
// declaring Auth: hmac. The digest a signature may cover is over the whole
// body, which is read first, bounded by the capability's BodyLimit, and
// given back afterwards whatever the verifier did with it: the handler,
// or the enforced declaration when a shadow's verifies, reads it as sent.
func (e *Enforcer) verifySigned(r *http.Request, c *config.Capability, record bool) error {
	if r.Body != nil && r.Body != http.NoBody {
		orig := r.Body
		limit := resolve.BodyLimit(c)
		b, err := reqbody.Buffer(r, limit)
		if err != nil {
			return reqbody.ErrRead
		}
		if int64(len(b)) > limit {
			return reqbody.ErrTooLarge
		}
		defer func() { r.Body = reqbody.Of(b, orig) }()
	}
	_, err := e.signed.Verify(r, record)
	return err
}
