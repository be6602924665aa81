package config_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/publish"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/testing/fixtures"
)

const testJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlU0VDUkVU"

// TestPublishedURLCredentials: a JWT or a known key anywhere in a
// published URL (fragment included, as written or percent-encoded), a
// query or fragment member named as a credential, and user information
// are refused, without echoing the secret; ordinary ids, anchors and
// slugs pass (no high-entropy test in URLs).
func TestPublishedURLCredentials(t *testing.T) {
	const base = "https://outdoorsupply.example/docs"
	refused := []struct{ url, msg string }{
		{base + "?jwt=SECRETVALUE", `query parameter "jwt"`},
		{base + "?auth=SECRETVALUE", `query parameter "auth"`},
		{base + "?Authorization=SECRETVALUE", `query parameter "Authorization"`},
		{base + "?id_jwt=SECRETVALUE", `query parameter "id_jwt"`},
		{base + "?q=" + testJWT, "a JSON Web Token in its query"},
		{base + "#access_token=SECRETVALUE", `fragment member "access_token"`},
		{base + "#state=1&id_token=SECRETVALUE", `fragment member "id_token"`},
		{base + "#" + testJWT, "a JSON Web Token in its fragment"},
		{base + "?a=1;token=SECRETVALUE", `query parameter "token"`},
		{base + "?%74oken=SECRETVALUE", `query parameter "token"`},
		{base + "/%65yJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "a JSON Web Token in its path"},
		{base + "/sk_live_AbCdEfGh12345678XyZ", "an API key (sk_live_...) in its path"},
		{base + "?ref=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "an API key (ghp_...) in its query"},
		{base + "#AKIAIOSFODNN7EXAMPLE", "an AWS access key ID in its fragment"},
		{"https://SECRETVALUE@outdoorsupply.example/docs", "user information"},
	}
	for _, tt := range refused {
		s := fixtures.OutdoorSupply()
		s.DocsURL = tt.url
		err := publish.Validate(&s, config.Formats{})
		if err == nil || !strings.Contains(err.Error(), "DocsURL: ") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("docs_url %q: %v, want DocsURL: ... %s", tt.url, err, tt.msg)
			continue
		}
		if strings.Contains(err.Error(), "SECRETVALUE") || strings.Contains(err.Error(), testJWT) || strings.Contains(err.Error(), "AbCdEfGh12345678XyZ") {
			t.Errorf("docs_url %q: the error echoes the credential: %v", tt.url, err)
		}
	}
	for _, u := range []string{
		base + "?id=8f14e45fceea167a5a36dedd4bea2543",
		base + "?id=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg",
		base + "/0c2a1c3e-1234-4d5e-9f00-123456789abc",
		base + "#token", base + "#section-2", base + "#auth",
		base + "/blog/sk-hynix-earnings-report-2024",
		base + "?author=alice&oauth_flow=pkce&keyword=tent",
	} {
		s := fixtures.OutdoorSupply()
		s.DocsURL = u
		if err := publish.Validate(&s, config.Formats{}); err != nil {
			t.Errorf("docs_url %q: %v", u, err)
		}
	}
}

// TestCredentialURLNotEchoed: a message about another problem of a URL
// holding a credential does not echo it.
func TestCredentialURLNotEchoed(t *testing.T) {
	for _, u := range []string{
		"http://outdoorsupply.example/docs#access_token=SECRETVALUE",
		"http://outdoorsupply.example/docs?q=" + testJWT,
		"http://outdoorsupply.example/docs/%65yJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlU0VDUkVU",
	} {
		s := fixtures.OutdoorSupply()
		s.DocsURL = u
		err := publish.Validate(&s, config.Formats{})
		if err == nil || !strings.Contains(err.Error(), "must use https") {
			t.Fatalf("docs_url %q: %v", u, err)
		}
		if strings.Contains(err.Error(), "SECRETVALUE") || strings.Contains(err.Error(), "c2lnbmF0dXJl") {
			t.Errorf("docs_url %q: the error echoes the credential: %v", u, err)
		}
	}
}

// TestEveryPublishedURLChecked: the rule holds beyond docs_url: a
// capability's endpoint, its auth URLs, an AWP path and an agent:// URI.
func TestEveryPublishedURLChecked(t *testing.T) {
	for _, tt := range []struct {
		field string
		set   func(*config.Site)
	}{
		{"Capabilities[0].Endpoint", func(s *config.Site) { s.Capabilities[0].Endpoint += "?access_token=SECRETVALUE" }},
		{"Capabilities[1].Auth.TokenEndpoint", func(s *config.Site) { s.Capabilities[1].Auth.TokenEndpoint += "#jwt=SECRETVALUE" }},
		{"Capabilities[0].PollEndpoint", func(s *config.Site) { s.Capabilities[0].PollEndpoint = "/poll/" + testJWT }},
		{"AgentsJSONURL", func(s *config.Site) { s.AgentsJSONURL = "https://outdoorsupply.example/agents.json#" + testJWT }},
	} {
		s := fixtures.OutdoorSupply()
		tt.set(&s)
		err := publish.Validate(&s, config.Formats{})
		if err == nil || !strings.Contains(err.Error(), tt.field+": ") || !strings.Contains(err.Error(), "draft-car 5.3") {
			t.Errorf("%s: %v", tt.field, err)
		}
	}
}

// TestAPIKeyHeaderRewritten: an api-key header HTTP or agentready serve
// rewrites is refused, naming the field; an application's own passes.
func TestAPIKeyHeaderRewritten(t *testing.T) {
	for _, tt := range []struct{ header, msg string }{
		{"Host", "request's authority"},
		{"host", "request's authority"},
		{"Connection", "hop-by-hop"},
		{"TE", "hop-by-hop"},
		{"Transfer-Encoding", "hop-by-hop"},
		{"Upgrade", "hop-by-hop"},
		{"Proxy-Authorization", "hop-by-hop"},
		{"HTTP2-Settings", "hop-by-hop"},
		{"X-Forwarded-For", "forwarding field"},
		{"x-forwarded-prefix", "forwarding field"},
		{"X-Real-IP", "forwarding field"},
		{"Forwarded", "forwarding field"},
		{"CF-Connecting-IP", "forwarding field"},
		{"X_Api_Key", `holds '_'`},
		{"X.Api.Key", `holds '.'`},
	} {
		s := fixtures.OutdoorSupply()
		s.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey, Header: tt.header}
		err := publish.Validate(&s, config.Formats{})
		if err == nil || !strings.Contains(err.Error(), "Capabilities[0].Auth.Header: ") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("header %q: %v, want %s", tt.header, err, tt.msg)
		}
	}
	for _, h := range []string{"X-Api-Key", "X-API-KEY", "Authorization", "X-Partner-Key", "Api-Key"} {
		s := fixtures.OutdoorSupply()
		s.Capabilities[0].Auth = config.Auth{Type: config.AuthAPIKey, Header: h}
		if err := publish.Validate(&s, config.Formats{}); err != nil {
			t.Errorf("header %q: %v", h, err)
		}
	}
}
