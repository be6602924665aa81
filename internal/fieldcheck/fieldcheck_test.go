package fieldcheck

import (
	"strings"
	"testing"
)

func TestComparePaths(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"Capabilities[2].ID", "Capabilities[10].ID", -1},
		{"Capabilities[10]", "Capabilities[9]", 1},
		{"Capabilities[1]", "Capabilities[1].ID", -1},
		{"Audit.Endpoint", "AWP.Intent", -1},
		{"AWP.Intent", "Capabilities", -1},
		{"URL", "URL", 0},
		{"Agents[0].Name", "AgentsMD.MCP", -1},
		{"", "Name", -1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			got := ComparePaths(tt.a, tt.b)
			if sign(got) != tt.want {
				t.Errorf("ComparePaths(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
			}
			if sign(ComparePaths(tt.b, tt.a)) != -tt.want {
				t.Errorf("ComparePaths is not antisymmetric for %q, %q", tt.a, tt.b)
			}
		})
	}
}

func TestCredentialKind(t *testing.T) {
	tests := []struct {
		in     string
		strict bool
		want   string // substring of the kind; "" for none
	}{
		{"Bearer abc", true, "Authorization header"},
		{"  basic dXNlcjpwYXNz", true, "Authorization header"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", true, "JSON Web Token"},
		{"/oauth/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig/x", false, "JSON Web Token"},
		{"AKIAIOSFODNN7EXAMPLE", false, "AWS"},
		{"sk-proj1234567890abcdefXYZ", true, "sk-"},
		{"sk_live_abcdefghijklmnop1234", true, "sk_live_"},
		{"github_pat_11ABCDEFG0123456789abcdef", true, "github_pat_"},
		{"xoxp-1234567890-abc", true, "xoxp-"},
		{"AIzaSyA1234567890abcdefghijklmnop", true, "AIza"},
		{"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", true, "secret"},
		{"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", false, ""},
		{"sk-read", true, ""},
		{"catalog:read", true, ""},
		{"X-API-Key", true, ""},
		{"0c2a1c3e-1234-4d5e-9f00-123456789abc", true, ""},
		{"https://www.googleapis.com/auth/cloud-platform", true, ""},
		{"CatalogReadWriteAllProductsEverywhere", true, ""},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1111", true, ""},
		{"", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := CredentialKind(tt.in, tt.strict)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("CredentialKind(%q, %v) = %q, want %q", tt.in, tt.strict, got, tt.want)
			}
		})
	}
}

func TestCredentialParam(t *testing.T) {
	for _, name := range []string{"token", "access_token", "Access-Token", "api_key", "apikey", "API-KEY", "key", "secret",
		"client_secret", "password", "sig", "signature", "refresh_token", "x-api-key"} {
		if !CredentialParam(name) {
			t.Errorf("CredentialParam(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"q", "page", "client_id", "keyword", "lang", "scope"} {
		if CredentialParam(name) {
			t.Errorf("CredentialParam(%q) = true, want false", name)
		}
	}
}

func TestSameSite(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"example.com", "example.com", true},
		{"api.example.com", "example.com", true},
		{"api.shop.example.com", "shop.example.com", true},
		{"evil.com", "example.com", false},
		{"example.com.evil.net", "example.com", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.1", "localhost", false},
		{"localhost", "other", false},
	}
	for _, tt := range tests {
		if got := SameSite(tt.a, tt.b); got != tt.want {
			t.Errorf("SameSite(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestKey: a field name's key, acronyms and digits among them.
func TestKey(t *testing.T) {
	for name, want := range map[string]string{
		"AgentsJSONURL": "agents_json_url", "IPRanges": "ip_ranges", "JWKSURI": "jwks_uri",
		"RequiresSession": "requires_session", "A2AVersion": "a2a_version", "X402": "x402", "V1Name": "v1_name",
	} {
		if got := Key(name); got != want {
			t.Errorf("Key(%q) = %q, want %q", name, got, want)
		}
	}
}
