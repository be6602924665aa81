package awp

import (
	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/resolve"
)

// authType maps the draft-car auth vocabulary of the declaration to AWP's
// (AWP 7: oauth2, api_key, bearer, none; docs/design.md collision 6).
//
// hmac has no AWP word. It maps to api_key: an HMAC scheme signs requests
// with a secret the site issues to the client beforehand, which is what an
// agent must obtain for api_key too; bearer would send it looking for a
// token endpoint, oauth2 for a flow, and none would say no credential is
// needed, which is false.
func authType(t string) string {
	switch t {
	case "", config.AuthNone:
		return "none"
	case config.AuthAPIKey, config.AuthHMAC:
		return "api_key"
	case config.AuthBearerToken:
		return "bearer"
	case config.AuthOAuth2:
		return "oauth2"
	}
	// Unknown types are rejected by config validation; pass them through
	// rather than claim a mechanism the site did not declare.
	return string(t)
}

// auth is the AWP 7 auth contract.
//
// With AWP.Auth set, its fields are rendered and the empty ones completed
// from the capabilities: type from the first capability that requires auth,
// required_for from the capabilities whose Auth is not none, optional_for
// from those whose Auth is none (config.AWPAuth documents these defaults).
//
// With AWP.Auth nil, the contract is derived the same way when some
// capability requires auth, and omitted when none does. AWP has one type per
// surface; when capabilities declare different types, the first in
// declaration order wins, and each action's auth_required stays exact.
func auth(s *config.Site) *authDoc {
	var required, optional []string
	var first string
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		if resolve.AuthRequired(c.Auth) {
			required = append(required, c.ID)
			if first == "" {
				first = resolve.AuthType(c.Auth)
			}
		} else {
			optional = append(optional, c.ID)
		}
	}
	a := s.AWP.Auth
	if a == nil {
		if len(required) == 0 {
			return nil
		}
		return &authDoc{RequiredFor: required, OptionalFor: optional, Type: authType(first)}
	}
	out := &authDoc{
		RequiredFor:     a.RequiredFor,
		OptionalFor:     a.OptionalFor,
		TokenExpiry:     a.TokenExpiry,
		RefreshEndpoint: a.RefreshEndpoint,
	}
	if len(out.RequiredFor) == 0 {
		out.RequiredFor = required
	}
	if len(out.OptionalFor) == 0 {
		// An action the site lists as requiring auth is not optional, even
		// when its capability's own Auth is none.
		listed := make(map[string]bool, len(out.RequiredFor))
		for _, id := range out.RequiredFor {
			listed[id] = true
		}
		for _, id := range optional {
			if !listed[id] {
				out.OptionalFor = append(out.OptionalFor, id)
			}
		}
	}
	switch {
	case a.Type != "":
		out.Type = authType(a.Type)
	case first != "":
		out.Type = authType(first)
	}
	return out
}
