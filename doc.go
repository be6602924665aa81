// Package agentready is net/http middleware with which a site declares, once
// in Go structs, what AI agents may do on it; agentready then publishes that
// declaration in every agent-discovery format and enforces it on every
// request.
//
// # Declare
//
// The declaration is a config.Site: the site's identity, its capabilities
// (endpoints agents may call, with protocol, auth, rate limit and params),
// Allow/Disallow path patterns, per-agent policies, and the extra fields of
// each format. New validates it against the rules of every format being
// published, reporting every problem at once with its field path, and renders
// every document once.
//
// # Publish
//
// Middleware.Handler serves, before anything else:
//
//	/.well-known/agents.txt, /agents.txt   draft-car grammar (default) or v0.1.0 (Documents.Dialect)
//	/.well-known/agents.json               its companion, or the agent:// registry (Documents.AgentsJSON)
//	/.well-known/agents.md, /agents.md     agents.md Format A, or Format B with an MCP gateway
//	/agent.json, /.well-known/agent.json   AWP v0.2
//	/agents/{name}/agent.json              agent:// descriptors (Documents.DescriptorPath)
//	/robots.txt                            generated from the rules enforced, with Documents.RobotsTxt
//
// with each draft's content type, Cache-Control, a strong ETag, Last-Modified,
// 304 answers to conditional requests, HEAD, CORS for cross-origin discovery
// and 405 for other methods. WithDocuments chooses what is published and
// how.
//
// A minimal site:
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
//		Access: config.Access{Allow: []string{"/"}, Disallow: []string{"/admin/*"}},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	http.ListenAndServe(":8080", m.Handler(mux))
//
// # Enforce
//
// Every client that is not positively a browser is an agent, under its
// declared policy or "*". An agent request whose target routers read
// differently (an encoded "/", a dot or empty segment, a backslash, a NUL)
// is refused with 400; any other is decided on every reading a router may
// route, against the path rules, the capability scope, the declared auth
// and the rate limits. A site without Allow/Disallow rules says to whom
// draft-car 2.6's capability-only default applies (WithImplicitAccess);
// WithReportOnly decides and reports without denying. See the README,
// "Enforcement".
//
// # Sessions and the audit trail
//
// With capabilities that require a session (agents.txt v0.1.0), Handler also
// serves the session endpoint (POST creates, DELETE ends; package session),
// answers 401 to a session-required capability without a valid
// X-Agent-Session, and puts the session in the request context
// (session.FromContext). With Site.Audit.Enabled and WithAudit it records
// every request carrying a session as a hash-chained event (package audit),
// fails the request closed (503) when the event cannot be recorded, seals
// and signs the log when the session ends, and serves the artifact at the
// audit endpoint (200, 404 unknown, 425 while active).
package agentready
