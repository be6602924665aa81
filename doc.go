// Package agentready is net/http middleware with which a site declares, once
// in Go structs (config.Site), what AI agents may do on it; agentready then
// publishes that declaration in every agent-discovery format and enforces it
// on every request.
//
//	m, err := agentready.New(config.Site{
//		Name:        "Example Store",
//		URL:         "https://example.com",
//		Description: "Outdoor gear since 1998",
//		Capabilities: []config.Capability{{
//			ID:          "product-search",
//			Description: "Search the product catalog",
//			Endpoint:    "https://example.com/api/search",
//			RateLimit:   config.PerMinute(60),
//		}},
//		Access: config.Access{Allow: []string{"/"}, Disallow: []string{"/admin/"}},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	http.ListenAndServe(":8080", m.Handler(mux))
//
// New validates the declaration against every format being published,
// reporting every problem at once, and renders every document once.
// Handler serves agents.txt, agents.json, agents.md, agent.json, agent://
// descriptors and optionally robots.txt (WithDocuments), with ETags and
// conditional requests, and enforces the declaration on every other request:
// every client that is not positively a browser is an agent, checked for
// path rules, capability scope, declared auth and rate limits. With v0.1.0
// sessions it also serves the session endpoint and, with WithAudit, records
// a signed audit trail (package audit). The README and docs/ describe each part.
package agentready
