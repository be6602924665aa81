package oauthrs_test

import (
	"fmt"

	"github.com/agentready/agentready/internal/oauthrs"
)

// The metadata of an MCP endpoint, where it is served, and the
// challenges of its 401 and 403.
func Example() {
	m := oauthrs.Metadata{
		Resource:             "https://shop.example/mcp",
		AuthorizationServers: []string{"https://auth.shop.example"},
		ScopesSupported:      []string{"store", "store.checkout"},
	}
	doc, err := m.Render()
	if err != nil {
		panic(err)
	}
	suffixed, root, _ := oauthrs.WellKnown(m.Resource)
	fmt.Println(suffixed.Path, root.Path)
	fmt.Println(string(doc))
	fmt.Println(oauthrs.Challenge{ResourceMetadata: suffixed.URL, Scopes: []string{"store"}})
	fmt.Println(oauthrs.Challenge{Error: oauthrs.ErrorInsufficientScope, ResourceMetadata: suffixed.URL,
		Scopes: []string{"store", "store.checkout"}})
	// Output:
	// /.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource
	// {"resource":"https://shop.example/mcp","authorization_servers":["https://auth.shop.example"],"scopes_supported":["store","store.checkout"],"bearer_methods_supported":["header"]}
	// Bearer scope="store", resource_metadata="https://shop.example/.well-known/oauth-protected-resource/mcp"
	// Bearer error="insufficient_scope", scope="store store.checkout", resource_metadata="https://shop.example/.well-known/oauth-protected-resource/mcp"
}
