// Package publish turns a site's declaration into the documents of the
// agent-discovery drafts and serves them.
//
// Rendering happens once, at construction, in one subpackage per format;
// each is a pure function from a validated config.Site to bytes, and each
// package's Format (discovery.Format) also holds the format's rules
// (Validate runs them beside config.Validate's) and its part of the
// declaration file's schema (FileSchema, with config.Site's own rules). Formats lists them:
//
//   - agentstxt: /.well-known/agents.txt (and /agents.txt), in the
//     draft-car-agents-txt-wellknown-00 grammar or the v0.1.0 one;
//   - agentsjson: /.well-known/agents.json, the JSON companion of either
//     agents.txt grammar;
//   - agentsmd: /.well-known/agents.md (and /agents.md), Markdown with
//     optional YAML front matter for an MCP gateway;
//   - awp: /agent.json, the Agent Web Protocol v0.2 document;
//   - agenturi: the agent:// registry (another owner of
//     /.well-known/agents.json) and one application/agent+json descriptor
//     per hosted agent.
//   - cards: an MCP server card per MCP server at its endpoint's
//     /server-card (SEP-2127), the A2A agent card, and the AI Catalog at
//     /.well-known/ai-catalog.json listing them.
//
// Render runs the formats a config.Formats selects and returns Documents:
// bytes plus the paths, content type, max-age, Last-Modified and, for
// descriptors, the RFC 6906 profiles each is served with. discovery's
// constants Type* and MaxAge* carry each draft's requirements (draft-car
// 2.1, 3.1 and 5.1, agents.md 1, agent:// 5.3 and 7.4).
//
// Serving is Handler's job. NewHandler checks the Documents (every problem
// reported at once) and computes each one's strong ETag (a SHA-256 prefix of
// the body), Cache-Control and Content-Type. GET and HEAD go to
// http.ServeContent, which answers the conditional requests (RFC 9110 13:
// 304 and 412), HEAD and byte ranges; Handler adds what the drafts ask
// beyond it: CORS for cross-origin discovery via github.com/rs/cors
// (draft-car 5.2), profile negotiation with 406 problem+json for
// descriptors (agent:// 7.3, 7.4, 9), a choice of media type for documents
// with Alternates (a card as application/mcp-server-card+json or
// application/json), HEAD's own fields for a signed descriptor
// (Document.HeadHeader), problem+json for every error, and 405 with Allow
// for other methods. See Handler for the details.
//
// Use:
//
//	docs, err := publish.Render(&site, publish.Options{})
//	if err != nil {
//		return err
//	}
//	h, err := publish.NewHandler(docs)
//	if err != nil {
//		return err
//	}
//	http.ListenAndServe(":8080", h.Wrap(app)) // documents first, then the application
//
// The agentready middleware does this for a site; publish is usable on its
// own for a site that only publishes.
package publish
