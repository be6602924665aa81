package oauthrs

import (
	"strings"
)

// Challenge is one Bearer challenge of a WWW-Authenticate field (RFC 6750
// 3) as MCP 2025-11-25 "Authorization" asks for it: a 401 names the
// protected resource metadata and the scopes needed (RFC 9728 5.1, "Scope
// Selection Strategy"); a 403 for a missing scope carries
// error="insufficient_scope" with every scope the operation needs
// ("Runtime Insufficient Scope Errors").
type Challenge struct {
	Realm string // optional (RFC 6750 3)
	// Error is one of the Error* codes, or "" for a request that carried
	// no token (RFC 6750 3.1: then the server "SHOULD NOT include an
	// error code or other error information").
	Error            string
	Description      string   // error_description, only with Error
	Scopes           []string // scope; tokens outside RFC 6749 3.3's characters are left out
	ResourceMetadata string   // the RFC 9728 metadata URL (5.1 resource_metadata)
}

// String renders the challenge: `Bearer` and its auth-params, each a
// quoted-string (RFC 6750 3: realm, scope, error, error_description
// "MUST NOT appear more than once" and are quoted; RFC 9728 5.1 quotes
// resource_metadata the same way).
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		b.WriteString(sep + name + `="` + value + `"`)
		sep = ", "
	}
	if c.Realm != "" {
		param("realm", quote(c.Realm))
	}
	if c.Error != "" {
		param("error", restrict(c.Error))
	}
	if s := scopeValue(c.Scopes); s != "" {
		param("scope", s)
	}
	if c.ResourceMetadata != "" {
		param("resource_metadata", quote(c.ResourceMetadata))
	}
	if c.Error != "" && c.Description != "" {
		param("error_description", restrict(c.Description))
	}
	return b.String()
}

// ValidScope reports whether s is a scope-token (RFC 6749 3.3:
// 1*( %x21 / %x23-5B / %x5D-7E ), no space, quote or backslash), the only
// scopes a challenge or a token's scope claim can carry.
func ValidScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// scopeValue is the scope auth-param: the valid scope-tokens, each once,
// space-separated (RFC 6750 3).
func scopeValue(scopes []string) string {
	var b strings.Builder
	seen := make(map[string]bool, len(scopes))
	for _, s := range scopes {
		if !ValidScope(s) || seen[s] {
			continue
		}
		seen[s] = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// restrict keeps the characters RFC 6750 3 allows in error and
// error_description (%x20-21 / %x23-5B / %x5D-7E): they never need
// escaping, so whatever else a caller's text holds is dropped.
func restrict(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
}

// quote is the content of a quoted-string (RFC 9110 5.6.4): a quote or a
// backslash escaped, and what a field value cannot hold at all (controls,
// which would split or end the field, and non-ASCII) dropped.
func quote(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t' || (r >= 0x20 && r < 0x7f):
			b.WriteRune(r)
		}
	}
	return b.String()
}
