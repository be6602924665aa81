// Package gatewaydecl is the pure data of an MCP gateway (issue 37): a
// capability with Protocol MCP and Gateway set, which agentready answers
// itself as an MCP server made from the declaration. The server (the
// module github.com/agentready/agentready/mcpgateway, on the official Go
// SDK) serves what this package derives; nothing here imports the SDK.
//
//   - New reads one gateway capability of a validated config.Site into a
//     Gateway: its Tools (name, title, description, the input schema made
//     from the called capability's params, the output schema made from its
//     outputs, the MCP ToolAnnotations and _meta), and its Prompts, one per
//     v0.1.0 flow.
//   - Resources lists the discovery documents agentready serves, each with
//     the path and Content-Type the server fetches it by, and the OpenAPI
//     documents the capabilities name on the site's own origin.
//   - Tool.Validate checks a tools/call's arguments against the tool's
//     input schema (compiled once, at New), returning every fault by
//     param; Tool.Call builds the HTTP request of the called capability
//     from validated Arguments only, so no call is built unchecked.
//
// Schemas are JSON Schema 2020-12 and carry "$schema" to say so: MCP
// 2025-11-25 defaults to 2020-12 ("JSON Schema Usage"), 2025-06-18 names no
// dialect. They are json.RawMessage, ready for the SDK's Tool.InputSchema
// and OutputSchema (any).
package gatewaydecl
