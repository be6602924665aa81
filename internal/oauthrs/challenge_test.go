package oauthrs

import (
	"strings"
	"testing"
)

func TestChallenge(t *testing.T) {
	const meta = "https://shop.example/.well-known/oauth-protected-resource/mcp"
	cases := []struct {
		name string
		c    Challenge
		want string
	}{
		{"401 without a token", Challenge{Scopes: []string{"store"}, ResourceMetadata: meta},
			`Bearer scope="store", resource_metadata="` + meta + `"`},
		{"401 with a realm", Challenge{Realm: "Shop", ResourceMetadata: meta},
			`Bearer realm="Shop", resource_metadata="` + meta + `"`},
		{"401 invalid token", Challenge{Error: ErrorInvalidToken, Description: "the token failed the exp check", ResourceMetadata: meta},
			`Bearer error="invalid_token", resource_metadata="` + meta + `", error_description="the token failed the exp check"`},
		{"403 insufficient scope", Challenge{Error: ErrorInsufficientScope, Scopes: []string{"store", "store.checkout", "store"}, ResourceMetadata: meta},
			`Bearer error="insufficient_scope", scope="store store.checkout", resource_metadata="` + meta + `"`},
		{"description without error", Challenge{Description: "ignored"}, `Bearer`},
		{"hostile realm", Challenge{Realm: "a\"b\\c\r\nSet-Cookie: x=1\x00é"},
			`Bearer realm="a\"b\\cSet-Cookie: x=1"`},
		{"hostile scopes", Challenge{Scopes: []string{"ok", "a b", `q"`, `b\`, "", "é", "ctl\x01"}},
			`Bearer scope="ok"`},
		{"hostile description", Challenge{Error: ErrorInvalidToken, Description: "a\"b\\c\r\n\tdé"},
			`Bearer error="invalid_token", error_description="abcd"`},
		{"hostile metadata URL", Challenge{ResourceMetadata: "https://x.example/\"\r\n"},
			`Bearer resource_metadata="https://x.example/\""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.c.String()
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if strings.ContainsAny(got, "\r\n\x00") {
				t.Errorf("a control character in %q", got)
			}
		})
	}
}

func TestErrorChallenge(t *testing.T) {
	const meta = "https://shop.example/.well-known/oauth-protected-resource/mcp"
	e := invalid(CheckAudience, `aud ["https://other.example"] does not include "https://shop.example/mcp"`, nil)
	got := e.Challenge("", meta, []string{"store"}).String()
	want := `Bearer error="invalid_token", scope="store", resource_metadata="` + meta + `", error_description="the token failed the aud check"`
	if got != want || e.Status() != 401 {
		t.Errorf("\n got %d %s\nwant 401 %s", e.Status(), got, want)
	}
	u := unavailable(CheckJWKS, "GET https://as.example/jwks", nil)
	if u.Status() != 503 || u.Code() != "" || strings.Contains(u.Challenge("", meta, nil).String(), "error=") {
		t.Errorf("Unavailable: %d %q %s", u.Status(), u.Code(), u.Challenge("", meta, nil))
	}
}

func TestValidScope(t *testing.T) {
	for s, want := range map[string]bool{"store": true, "store.checkout": true, "files:read": true, "!#[]~": true,
		"": false, "a b": false, `a"`: false, `a\`: false, "é": false, "a\x7f": false} {
		if ValidScope(s) != want {
			t.Errorf("ValidScope(%q) = %v", s, !want)
		}
	}
}
