package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestTagRulesCoverEveryTag: every `validate` tag that can fail has an
// entry in tagRules, so its message says where the rule comes from and
// which format owns it.
func TestTagRulesCoverEveryTag(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map || typ.Kind() == reflect.Array {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		defer delete(seen, typ)
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			if tag := f.Tag.Get("validate"); tag != "" && tag != "dive" {
				if _, ok := tagRules[p]; !ok {
					t.Errorf("field %s has validate:%q but no tagRules entry", p, tag)
				}
			}
			walk(f.Type, p)
		}
	}
	walk(reflect.TypeFor[Site](), "")
	for key, rule := range tagRules {
		if rule.ref == "" {
			t.Errorf("tagRules[%q] has no reference", key)
		}
		if rule.format != "" && !strings.Contains(rule.ref, rule.format) {
			t.Errorf("tagRules[%q]: reference %q does not name its format %s", key, rule.ref, rule.format)
		}
	}
}

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
			got := comparePaths(tt.a, tt.b)
			if sign(got) != tt.want {
				t.Errorf("comparePaths(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
			}
			if sign(comparePaths(tt.b, tt.a)) != -tt.want {
				t.Errorf("comparePaths is not antisymmetric for %q, %q", tt.a, tt.b)
			}
		})
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
			got := credentialKind(tt.in, tt.strict)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("credentialKind(%q, %v) = %q, want %q", tt.in, tt.strict, got, tt.want)
			}
		})
	}
}

func TestCredentialParam(t *testing.T) {
	for _, name := range []string{"token", "access_token", "Access-Token", "api_key", "apikey", "API-KEY", "key", "secret",
		"client_secret", "password", "sig", "signature", "refresh_token", "x-api-key"} {
		if !credentialParam(name) {
			t.Errorf("credentialParam(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"q", "page", "client_id", "keyword", "lang", "scope"} {
		if credentialParam(name) {
			t.Errorf("credentialParam(%q) = true, want false", name)
		}
	}
}

func TestParseAgentURI(t *testing.T) {
	tests := []struct {
		in, key, err string
	}{
		{"agent://planner.example.com/", "agent://planner.example.com", ""},
		{"agent+https://Planner.Example.com/gen-iti?x=1#frag", "agent://planner.example.com/gen-iti", ""},
		{"agent://did%3Aweb%3Aexample.com/get-article", "agent://did%3aweb%3aexample.com/get-article", ""},
		{"agent+local://my-agent", "agent://my-agent", ""},
		{"https://example.com/", "", "scheme"},
		{"agent+1x://example.com/", "", "scheme"},
		{"agent:///x", "", "empty authority"},
		{"agent:example.com", "", `lacks "://"`},
		{"agent://exa mple.com/", "", "not allowed"},
		{"agent://user:pw@example.com/", "", "user information"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := parseAgentURI(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseAgentURI(%q) error = %v, want one containing %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseAgentURI(%q): %v", tt.in, err)
			}
			if got := u.key(); got != tt.key {
				t.Errorf("key = %q, want %q", got, tt.key)
			}
		})
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
		if got := sameSite(tt.a, tt.b); got != tt.want {
			t.Errorf("sameSite(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
