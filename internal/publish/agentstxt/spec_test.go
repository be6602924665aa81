package agentstxt

// The specs' own examples, laid out as files. The draft-car text has its
// whitespace collapsed in the published draft; this is its natural layout
// (one field per line, block fields indented two spaces, a blank line
// between sections and blocks), word for word the same.

// appendixA is draft-car-agents-txt-wellknown-00 Appendix A.
const appendixA = `# agents.txt
Spec-Version: 1.0
Generated-At: 2026-02-01T00:00:00Z

Site-Name: Outdoor Supply Co.
Site-URL: https://outdoorsupply.example
Site-Description: Gear for outdoor adventures
Site-Contact: agents@outdoorsupply.example

Capability: product-search
  Endpoint: https://outdoorsupply.example/api/search
  Method: GET
  Protocol: REST
  Auth: none
  Rate-Limit: 60/minute
  Description: Search the product catalog
  Param: q (query, string, required) - Search query
  Param: limit (query, integer) - Max results, default 20
  Param: category (query, string) - Filter by category

Capability: store-assistant
  Endpoint: https://outdoorsupply.example/mcp
  Protocol: MCP
  Auth: bearer-token
  Auth-Endpoint: https://outdoorsupply.example/auth/token
  Description: Full store interaction via MCP

Allow: /api/*
Allow: /mcp
Disallow: /admin/*
Disallow: /internal/*

Agent: *

Agent: claude
  Rate-Limit: 200/minute
  Capabilities: product-search, store-assistant
`

// fullExample is the "Full Example" of the agents.txt Format Specification
// v0.1.0, byte for byte.
const fullExample = `# agents.txt - Acme Ceramics
# https://acmeceramics.example.com

Site: Acme Ceramics
URL: https://acmeceramics.example.com
Description: Handmade ceramic mugs, bowls, and vases
Contact: support@acmeceramics.example.com

Agents-JSON: https://acmeceramics.example.com/.well-known/agents.json

# Capabilities
Allow: search
Allow: browse
Allow: detail
Allow: cart.add
Allow: cart.view
Allow: cart.update
Allow: cart.remove
Allow: checkout

# Suggested Flows
Flow: purchase → search, detail, cart.add, checkout
Flow-Description: Search for a product, view details, add to cart, and check out

Rate-Limit: 60/minute
Session-TTL: 3600s
Audit: true
Audit-Endpoint: https://acmeceramics.example.com/.well-known/agents/api/audit/:session_id
`
