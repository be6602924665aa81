package awp

import (
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/internal/jsontest"
	"github.com/agentready/agentready/internal/testing/schematest"
)

// TestAuthTypeMapping is the draft-car -> AWP vocabulary table (docs/design.md
// collision 6).
func TestAuthTypeMapping(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", "none"},
		{config.AuthNone, "none"},
		{config.AuthAPIKey, "api_key"},
		{config.AuthBearerToken, "bearer"},
		{config.AuthOAuth2, "oauth2"},
		{config.AuthHMAC, "api_key"},
	}
	for _, tt := range tests {
		t.Run(string(tt.in), func(t *testing.T) {
			if got := authType(tt.in); got != tt.want {
				t.Errorf("authType(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestAuthContract covers when auth is rendered and how its lists and type
// are completed from the capabilities.
func TestAuthContract(t *testing.T) {
	caps := func(types ...string) []config.Capability {
		var out []config.Capability
		for i, ty := range types {
			out = append(out, config.Capability{ID: string(rune('a' + i)), Description: "d", Endpoint: "/x", Auth: config.Auth{Type: ty}})
		}
		return out
	}
	tests := []struct {
		name         string
		caps         []config.Capability
		auth         *config.AWPAuth
		want         any // the auth member; nil: absent
		authRequired []bool
	}{
		{"no auth anywhere", caps("", config.AuthNone), nil, nil, []bool{false, false}},
		{"derived from capabilities", caps(config.AuthNone, config.AuthBearerToken, config.AuthBearerToken), nil,
			map[string]any{"required_for": []any{"b", "c"}, "optional_for": []any{"a"}, "type": "bearer"}, []bool{false, true, true}},
		{"mixed types: first wins", caps(config.AuthHMAC, config.AuthOAuth2), nil,
			map[string]any{"required_for": []any{"a", "b"}, "type": "api_key"}, []bool{true, true}},
		{"declared, lists derived", caps(config.AuthNone, config.AuthOAuth2), &config.AWPAuth{Type: config.AuthOAuth2, TokenExpiry: "7d"},
			map[string]any{"required_for": []any{"b"}, "optional_for": []any{"a"}, "type": "oauth2", "token_expiry": "7d"}, []bool{false, true}},
		{"declared without type", caps(config.AuthAPIKey), &config.AWPAuth{RefreshEndpoint: "/refresh"},
			map[string]any{"required_for": []any{"a"}, "type": "api_key", "refresh_endpoint": "/refresh"}, []bool{true}},
		{"declared lists win", caps(config.AuthNone, config.AuthOAuth2), &config.AWPAuth{Type: config.AuthOAuth2,
			RequiredFor: []string{"a", "b"}},
			map[string]any{"required_for": []any{"a", "b"}, "type": "oauth2"}, []bool{true, true}},
		{"declared none", caps(config.AuthNone), &config.AWPAuth{Type: config.AuthNone},
			map[string]any{"optional_for": []any{"a"}, "type": "none"}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := config.Site{Name: "S", URL: "https://s.example", Capabilities: tt.caps, AWP: config.AWP{Auth: tt.auth}}
			doc, err := AgentJSON(&s, "")
			if err != nil {
				t.Fatal(err)
			}
			schematest.Validate(t, schemaFile, doc)
			got := jsontest.Decode(t, doc)
			a, present := got["auth"]
			if tt.want == nil {
				if present {
					t.Fatalf("auth rendered: %v", a)
				}
			} else if !jsontest.Equal(a, tt.want) {
				t.Fatalf("auth = %v, want %v", a, tt.want)
			}
			for i, act := range got["actions"].([]any) {
				if r := act.(map[string]any)["auth_required"]; r != tt.authRequired[i] {
					t.Errorf("action %d auth_required = %v, want %v", i, r, tt.authRequired[i])
				}
			}
		})
	}
}
