package oauthrs

import (
	"errors"
	"net/http"
	"strings"
)

// Kind sorts a verification failure by the answer it calls for.
type Kind int

// The kinds of Error.
const (
	// InvalidToken: the token is malformed, not signed by the issuer's
	// key, expired, or for another issuer or audience. RFC 6750 3.1
	// "invalid_token": 401, and MCP 2025-11-25 "Token Handling": "Invalid
	// or expired tokens MUST receive a HTTP 401 response".
	InvalidToken Kind = iota + 1
	// InsufficientScope: a valid token without every required scope. RFC
	// 6750 3.1 "insufficient_scope": 403, with the scopes needed (MCP
	// 2025-11-25 "Runtime Insufficient Scope Errors").
	InsufficientScope
	// Unavailable: the issuer's metadata or keys cannot be fetched, so
	// the token cannot be checked. Verification fails closed; 503 says
	// the fault is the server's, where a 401 would send the client to
	// re-authorize for nothing.
	Unavailable
)

// RFC 6750 3.1 error codes.
const (
	ErrorInvalidRequest    = "invalid_request"
	ErrorInvalidToken      = "invalid_token"
	ErrorInsufficientScope = "insufficient_scope"
)

// The checks an Error names (Error.Check).
const (
	CheckFormat    = "format"    // not a compact JWS of bounded size
	CheckAlg       = "alg"       // an algorithm outside the asymmetric ones, or not the key's
	CheckType      = "typ"       // a typ that is not an access token's (RFC 9068 2.1)
	CheckKey       = "kid"       // no key of the issuer's JWK Set matches
	CheckSignature = "signature" // the signature does not verify
	CheckClaims    = "claims"    // a claim of the wrong JSON type
	CheckIssuer    = "iss"       // iss is not the issuer (RFC 9068 4)
	CheckAudience  = "aud"       // aud lacks the audience (RFC 9068 4, RFC 8707)
	CheckExpiry    = "exp"       // exp missing or past (RFC 7519 4.1.4)
	CheckNotBefore = "nbf"       // nbf in the future (RFC 7519 4.1.5)
	CheckIssuedAt  = "iat"       // iat in the future (RFC 7519 4.1.6)
	CheckScope     = "scope"     // a required scope missing
	CheckMetadata  = "metadata"  // the issuer's RFC 8414 metadata
	CheckJWKS      = "jwks"      // the issuer's JWK Set
)

// Error is a failed verification: which check failed, and the answer it
// calls for.
type Error struct {
	Kind  Kind
	Check string // one of the Check* constants
	// Required and Missing are the required scopes and those the token
	// lacks (InsufficientScope only).
	Required, Missing []string
	Detail            string // for logs; never echoed to the client verbatim
	Err               error  // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("oauthrs: ")
	switch e.Kind {
	case InsufficientScope:
		b.WriteString("insufficient scope")
	case Unavailable:
		b.WriteString("issuer unavailable")
	default:
		b.WriteString("invalid token")
	}
	b.WriteString(" (" + e.Check + ")")
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Status is the HTTP status the failure calls for: 401, 403 or 503.
func (e *Error) Status() int {
	switch e.Kind {
	case InsufficientScope:
		return http.StatusForbidden
	case Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusUnauthorized
}

// Code is the RFC 6750 3.1 error code of the challenge: invalid_token,
// insufficient_scope, or "" for Unavailable (no fault of the token).
func (e *Error) Code() string {
	switch e.Kind {
	case InsufficientScope:
		return ErrorInsufficientScope
	case Unavailable:
		return ""
	}
	return ErrorInvalidToken
}

// Challenge is the Bearer challenge answering the failure: its error code
// and, for InsufficientScope, every scope the operation needs (MCP
// 2025-11-25: all of them in one challenge, not one at a time), else
// scopes. The description names the failed check only, so that a client
// learns why without the details a forger would want.
func (e *Error) Challenge(realm, resourceMetadata string, scopes []string) Challenge {
	c := Challenge{Realm: realm, Error: e.Code(), Scopes: scopes, ResourceMetadata: resourceMetadata}
	switch e.Kind {
	case InsufficientScope:
		c.Scopes = e.Required
		c.Description = "the token lacks a required scope"
	case InvalidToken:
		c.Description = "the token failed the " + e.Check + " check"
	}
	return c
}

func invalid(check, detail string, err error) *Error {
	return &Error{Kind: InvalidToken, Check: check, Detail: detail, Err: err}
}

func unavailable(check, detail string, err error) *Error {
	return &Error{Kind: Unavailable, Check: check, Detail: detail, Err: err}
}

// unavailableFrom is an Unavailable error for a failed refresh, err, with
// the check that failed in it (the metadata or the JWK Set), or the
// JWK Set's when err is the request's context ending its wait.
func unavailableFrom(detail string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e.Detail != "" {
			detail += ": " + e.Detail
		}
		return unavailable(e.Check, detail, e.Err)
	}
	return unavailable(CheckJWKS, detail, err)
}
