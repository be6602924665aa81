package agentready_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/agentready/agentready"
	"github.com/agentready/agentready/config"
)

func Example() {
	m, err := agentready.New(config.Site{
		Name:        "Example Store",
		URL:         "https://example.com",
		Description: "Outdoor gear since 1998",
		Capabilities: []config.Capability{{
			ID:          "product-search",
			Description: "Search the product catalog",
			Endpoint:    "https://example.com/api/search",
			RateLimit:   config.PerMinute(60),
		}},
		Access: config.Access{Allow: []string{"/api/*"}, Disallow: []string{"/admin/*"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "app") })
	srv := httptest.NewServer(m.Handler(app))
	defer srv.Close()

	res, err := http.Get(srv.URL + "/.well-known/agents.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.Header.Get("Content-Type"))
	fmt.Print(string(body))
	// Output:
	// text/plain; charset=utf-8
	// # agents.txt
	// Spec-Version: 1.0
	//
	// Site-Name: Example Store
	// Site-URL: https://example.com
	// Site-Description: Outdoor gear since 1998
	//
	// Capability: product-search
	//   Endpoint: https://example.com/api/search
	//   Method: GET
	//   Protocol: REST
	//   Auth: none
	//   Rate-Limit: 60/minute
	//   Description: Search the product catalog
	//
	// Allow: /api/*
	// Disallow: /admin/*
}

func ExampleNew_invalid() {
	_, err := agentready.New(config.Site{
		Name: "Example Store",
		URL:  "http://example.com",
		Capabilities: []config.Capability{{
			ID:       "cart.add",
			Endpoint: "https://example.com/api/cart",
		}},
	})
	fmt.Println(err)
	// Output:
	// AWP.Intent: is required by AWP agent.json (5: intent is required); set AWP.Intent or Description
	// Capabilities[0].Description: is required by draft-car agents.json (description minLength 1), AWP agent.json (9: every action has a description) and agent:// descriptors (7.1.4: every skill has a description; the capabilities are the skills of the site's derived agent)
	// Capabilities[0].ID: "cart.add" is not allowed by draft-car agents.txt (2.5: lowercase letters, digits and hyphens); serve the v0.1.0 dialect or rename it
	// URL: "http://example.com" must use https: plain http is accepted only for localhost, 127.0.0.0/8 and [::1], or with Formats.AllowHTTP (agentready.Documents.AllowHTTP; draft-car 2.1 and agents.md 5 require HTTPS in production)
	// Access: no allow or disallow rule is declared, so draft-car 2.6 permits agents only the capability endpoints; say to whom that applies: implicit_access: all-agents (every automated client: search crawlers, link unfurlers, feed readers and webhooks too) or implicit_access: ai-agents (declared and known agents only), in Go Site.ImplicitAccess or WithImplicitAccess(ImplicitAllAgents or ImplicitAIAgents); or declare access rules
}
