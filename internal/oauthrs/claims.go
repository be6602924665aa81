package oauthrs

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"
	"github.com/go-jose/go-jose/v4/jwt"
)

// tokenClaims are the claims Verify reads (RFC 9068 2.2). Decoded with
// go-jose's JSON, which matches member names case-sensitively (RFC 7519
// 4: claim names are case-sensitive).
type tokenClaims struct {
	Issuer    string           `json:"iss"`
	Subject   string           `json:"sub"`
	Audience  jwt.Audience     `json:"aud"`
	Expiry    *jwt.NumericDate `json:"exp"`
	NotBefore *jwt.NumericDate `json:"nbf"`
	IssuedAt  *jwt.NumericDate `json:"iat"`
	ID        string           `json:"jti"`
	ClientID  string           `json:"client_id"`
	Scope     any              `json:"scope"`
	Scp       any              `json:"scp"`
}

// headerAlg reads the alg of a compact JWS's protected header, so that
// an algorithm outside asymmetric is refused as such before anything
// else ("none" and HMAC above all, RFC 8725 2.1).
func headerAlg(token string) (string, bool) {
	enc, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if josejson.Unmarshal(raw, &h) != nil {
		return "", false
	}
	return h.Alg, true
}

func allowed(alg string) bool {
	for _, a := range asymmetric {
		if string(a) == alg {
			return true
		}
	}
	return false
}

// parse parses a compact JWS with one of the asymmetric algorithms.
func parse(token string) (*jose.JSONWebSignature, error) {
	return jose.ParseSignedCompact(token, asymmetric)
}

// checkType refuses a typ that is not an access token's (RFC 9068 2.1,
// 4: "at+jwt"; RFC 8725 3.11: explicit typing keeps an ID token or another
// JWT from passing for one). "JWT" and no typ are accepted unless
// RequireAccessTokenType: most issuers send them.
func (v *Verifier) checkType(h jose.Header) *Error {
	raw, present := h.ExtraHeaders[jose.HeaderType]
	typ, isString := raw.(string)
	if present && !isString {
		return invalid(CheckType, "typ is not a string", nil)
	}
	// RFC 7515 4.1.9: a media type, compared case-insensitively, whose
	// "application/" may be left out.
	t := strings.TrimPrefix(strings.ToLower(typ), "application/")
	switch {
	case t == "at+jwt":
		return nil
	case !v.strictType && (!present || t == "jwt"):
		return nil
	}
	return invalid(CheckType, fmt.Sprintf("typ %q is not at+jwt (RFC 9068 2.1)", typ), nil)
}

// checkClaims checks the claims of a token whose signature verified.
func (v *Verifier) checkClaims(c *tokenClaims, required []string) (Claims, error) {
	now := v.now()
	switch {
	case c.Issuer != v.issuer:
		// RFC 9068 4: the iss claim "MUST exactly match" the issuer.
		return Claims{}, invalid(CheckIssuer, fmt.Sprintf("iss %q is not %q", c.Issuer, v.issuer), nil)
	case !c.Audience.Contains(v.audience):
		// RFC 9068 4, RFC 8707: a token for another resource is refused,
		// however valid (MCP 2025-11-25 "Access Token Privilege
		// Restriction").
		return Claims{}, invalid(CheckAudience, fmt.Sprintf("aud %q does not include %q", []string(c.Audience), v.audience), nil)
	case c.Expiry == nil:
		return Claims{}, invalid(CheckExpiry, "exp is required (RFC 9068 2.2)", nil)
	case !now.Before(c.Expiry.Time().Add(v.leeway)):
		return Claims{}, invalid(CheckExpiry, "expired at "+c.Expiry.Time().UTC().Format(time.RFC3339), nil)
	case c.NotBefore != nil && now.Add(v.leeway).Before(c.NotBefore.Time()):
		return Claims{}, invalid(CheckNotBefore, "not valid before "+c.NotBefore.Time().UTC().Format(time.RFC3339), nil)
	case c.IssuedAt != nil && now.Add(v.leeway).Before(c.IssuedAt.Time()):
		return Claims{}, invalid(CheckIssuedAt, "issued in the future, at "+c.IssuedAt.Time().UTC().Format(time.RFC3339), nil)
	}
	scopes, err := scopeClaims(c.Scope, c.Scp)
	if err != nil {
		return Claims{}, err
	}
	out := Claims{Subject: c.Subject, ClientID: c.ClientID, Scopes: scopes, Expiry: c.Expiry.Time(), ID: c.ID}
	if missing := missingScopes(scopes, required); len(missing) > 0 {
		return out, &Error{Kind: InsufficientScope, Check: CheckScope, Required: required, Missing: missing,
			Detail: fmt.Sprintf("missing %q", missing)}
	}
	return out, nil
}

// scopeClaims reads the scope claim (RFC 9068 2.2.3, after RFC 8693 4.2:
// a space-separated string) and scp, which some issuers send as an array
// of strings or as a string of the same form. Each scope appears once.
func scopeClaims(scope, scp any) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(claim string, v any) *Error {
		var list []string
		switch t := v.(type) {
		case nil:
			return nil
		case string:
			list = strings.Fields(t)
		case []any:
			if claim == "scope" {
				return invalid(CheckClaims, "scope is not a string (RFC 9068 2.2.3)", nil)
			}
			for _, e := range t {
				s, ok := e.(string)
				if !ok {
					return invalid(CheckClaims, "scp holds a non-string", nil)
				}
				list = append(list, s)
			}
		default:
			return invalid(CheckClaims, claim+" is neither a string nor an array of strings", nil)
		}
		for _, s := range list {
			if ValidScope(s) && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		return nil
	}
	if err := add("scope", scope); err != nil {
		return nil, err
	}
	if err := add("scp", scp); err != nil {
		return nil, err
	}
	return out, nil
}

// missingScopes are the scopes of required absent from have, compared
// exactly (RFC 6749 3.3: scopes are case-sensitive).
func missingScopes(have, required []string) []string {
	var missing []string
	for _, r := range required {
		found := false
		for _, h := range have {
			if h == r {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, r)
		}
	}
	return missing
}
