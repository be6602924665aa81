package oauthrs

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMetadataRender(t *testing.T) {
	m := Metadata{
		Resource:              "https://shop.example/mcp",
		AuthorizationServers:  []string{"https://auth.shop.example"},
		ScopesSupported:       []string{"store", "store.checkout"},
		ResourceName:          "Shop <MCP>",
		ResourceDocumentation: "https://shop.example/docs",
	}
	got, err := m.Render()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"resource":"https://shop.example/mcp","authorization_servers":["https://auth.shop.example"],` +
		`"scopes_supported":["store","store.checkout"],"bearer_methods_supported":["header"],` +
		`"resource_name":"Shop \u003cMCP\u003e","resource_documentation":"https://shop.example/docs"}`
	if string(got) != want {
		t.Errorf("Render\n got %s\nwant %s", got, want)
	}
	// The optional members are left out when empty.
	got, err = Metadata{Resource: "https://shop.example/mcp", AuthorizationServers: []string{"https://as.example/t1"}}.Render()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 3 || doc["bearer_methods_supported"] == nil {
		t.Errorf("minimal document %s", got)
	}
}

func TestMetadataRenderRefuses(t *testing.T) {
	ok := Metadata{Resource: "https://shop.example/mcp", AuthorizationServers: []string{"https://as.example"}}
	cases := []struct {
		name string
		edit func(m *Metadata)
		want string
	}{
		{"no authorization server", func(m *Metadata) { m.AuthorizationServers = nil }, "at least one authorization server"},
		{"http resource", func(m *Metadata) { m.Resource = "http://shop.example/mcp" }, "want https"},
		{"resource with a fragment", func(m *Metadata) { m.Resource = "https://shop.example/mcp#x" }, "fragment"},
		{"resource with an empty fragment", func(m *Metadata) { m.Resource = "https://shop.example/mcp#" }, "fragment"},
		{"resource with a query", func(m *Metadata) { m.Resource = "https://shop.example/mcp?a=1" }, "query"},
		{"resource with userinfo", func(m *Metadata) { m.Resource = "https://u:p@shop.example/mcp" }, "want https://host/path"},
		{"relative resource", func(m *Metadata) { m.Resource = "/mcp" }, "want https://host/path"},
		{"http issuer", func(m *Metadata) { m.AuthorizationServers = []string{"http://as.example"} }, "want https"},
		{"issuer with a query", func(m *Metadata) { m.AuthorizationServers = []string{"https://as.example/?x"} }, "no query or fragment"},
		{"scope with a space", func(m *Metadata) { m.ScopesSupported = []string{"a b"} }, "scope-token"},
		{"scope with a quote", func(m *Metadata) { m.ScopesSupported = []string{`a"`} }, "scope-token"},
		{"documentation not a URL", func(m *Metadata) { m.ResourceDocumentation = "javascript:alert(1)" }, "resource_documentation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ok
			tc.edit(&m)
			_, err := m.Render()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	// A loopback resource may be plain http, for local development.
	m := ok
	m.Resource = "http://127.0.0.1:8080/mcp"
	if _, err := m.Render(); err != nil {
		t.Error(err)
	}
}

func TestWellKnown(t *testing.T) {
	cases := []struct {
		resource, url, path string
	}{
		{"https://shop.example/mcp", "https://shop.example/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/mcp"},
		{"https://shop.example/public/mcp/", "https://shop.example/.well-known/oauth-protected-resource/public/mcp", "/.well-known/oauth-protected-resource/public/mcp"},
		{"https://shop.example", "https://shop.example/.well-known/oauth-protected-resource", WellKnownPath},
		{"https://shop.example/", "https://shop.example/.well-known/oauth-protected-resource", WellKnownPath},
		{"https://shop.example:8443/a%20b", "https://shop.example:8443/.well-known/oauth-protected-resource/a%20b", "/.well-known/oauth-protected-resource/a%20b"},
		{"http://localhost:3000/mcp", "http://localhost:3000/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/mcp"},
	}
	for _, tc := range cases {
		t.Run(tc.resource, func(t *testing.T) {
			suffixed, root, err := WellKnown(tc.resource)
			if err != nil {
				t.Fatal(err)
			}
			if suffixed.URL != tc.url || suffixed.Path != tc.path {
				t.Errorf("suffixed = %+v, want %s at %s", suffixed, tc.url, tc.path)
			}
			if suffixed.Resource != tc.resource || (root.Resource != tc.resource && root.Resource+root.Path != root.URL) {
				t.Errorf("resources %q %q", suffixed.Resource, root.Resource)
			}
			if root.Path != WellKnownPath || !strings.HasSuffix(root.URL, "/.well-known/oauth-protected-resource") ||
				!strings.HasPrefix(tc.url, strings.TrimSuffix(root.URL, WellKnownPath)) {
				t.Errorf("root = %+v", root)
			}
		})
	}
	_, root, _ := WellKnown("https://shop.example/mcp")
	if root.Resource != "https://shop.example" {
		t.Errorf("root resource %q, want the origin (RFC 9728 3.3)", root.Resource)
	}
	for _, bad := range []string{"", "shop.example/mcp", "ftp://shop.example/mcp", "https://shop.example/mcp?x=1", "https://shop.example/#f", "http://shop.example/mcp"} {
		if _, _, err := WellKnown(bad); err == nil {
			t.Errorf("WellKnown(%q) succeeded", bad)
		}
	}
}
