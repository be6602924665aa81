package resourcemeta

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// TestLocations: the metadata is served where RFC 9728 3.1 puts it, naming
// the resource a client derives that location from (3.3), only for the
// capabilities agentready is the resource server of.
func TestLocations(t *testing.T) {
	oauth := func(endpoint string, a config.Auth) config.Capability {
		if a.Type == "" {
			a.Type = config.AuthOAuth2
		}
		return config.Capability{ID: "c", Endpoint: endpoint, Protocol: config.ProtocolMCP, Auth: a}
	}
	as := "https://auth.shop.example"
	for _, tc := range []struct {
		name           string
		c              config.Capability
		path, resource string
	}{
		{"an endpoint with a path", oauth("https://shop.example/mcp", config.Auth{AuthorizationServer: as}),
			"/.well-known/oauth-protected-resource/mcp", "https://shop.example/mcp"},
		{"an endpoint without one", oauth("https://mcp.shop.example", config.Auth{AuthorizationServer: as}),
			"/.well-known/oauth-protected-resource", "https://mcp.shop.example"},
		{"tokens for the origin", oauth("https://shop.example/mcp", config.Auth{AuthorizationServer: as, Audience: "https://shop.example", JWT: true}),
			"/.well-known/oauth-protected-resource", "https://shop.example"},
		{"bearer-token naming its server", oauth("https://shop.example/mcp", config.Auth{Type: config.AuthBearerToken, AuthorizationServer: as}),
			"/.well-known/oauth-protected-resource/mcp", "https://shop.example/mcp"},
		{"no authorization server", oauth("https://shop.example/mcp", config.Auth{}), "", ""},
		{"a document of its own", oauth("https://shop.example/mcp", config.Auth{AuthorizationServer: as, ProtectedResourceMetadata: "https://shop.example/prm.json"}), "", ""},
		{"an api-key", oauth("https://shop.example/mcp", config.Auth{Type: config.AuthAPIKey, AuthorizationServer: as}), "", ""},
	} {
		s := config.Site{Capabilities: []config.Capability{tc.c}}
		docs, err := Format.Render(&s, &discovery.Env{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.path == "" {
			if len(docs) != 0 || URL(&s.Capabilities[0]) != "" {
				t.Errorf("%s: %d documents at %q", tc.name, len(docs), URL(&s.Capabilities[0]))
			}
			continue
		}
		var m struct{ Resource string }
		if len(docs) != 1 || docs[0].Paths[0] != tc.path || json.Unmarshal(docs[0].Body, &m) != nil || m.Resource != tc.resource {
			t.Errorf("%s: %+v", tc.name, docs)
			continue
		}
		if r, _ := url.Parse(tc.resource); URL(&s.Capabilities[0]) != "https://"+r.Host+tc.path {
			t.Errorf("%s: URL %q", tc.name, URL(&s.Capabilities[0]))
		}
	}
}
