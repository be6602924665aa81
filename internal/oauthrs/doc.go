// Package oauthrs is the OAuth 2.0 resource-server side of an MCP endpoint
// (MCP 2025-11-25 "Authorization"): the protected resource metadata it
// publishes (RFC 9728), the Bearer challenges of its 401s and 403s (RFC
// 6750 3, RFC 9728 5.1), and the verification of JWT access tokens from
// one authorization server (RFC 9068 as a guide, RFC 8414 for discovery).
//
// Metadata.Render and WellKnown give the document a capability's
// endpoint publishes and where; Challenge renders WWW-Authenticate. A
// Verifier holds one issuer's keys: built once per (issuer, audience) at
// construction, it fetches the issuer's metadata and JWK Set off the
// request path (Run), and Verify checks a token on it, returning its
// subject and scopes or an *Error naming the check that failed and the
// answer it calls for (401 invalid_token, 403 insufficient_scope, 503
// when the issuer's keys cannot be had). A token's own pointers to
// keys (jwk, jku, x5u, x5c) are never used: only the issuer's JWK Set,
// found through its metadata, verifies (RFC 8725 3.10).
package oauthrs
