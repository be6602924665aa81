// Package agentstxt renders and parses /.well-known/agents.txt in both of
// its grammars (docs/design.md collision 1). One file cannot be both, because
// "Allow:" means a path glob in one and a capability name in the other;
// config.Formats.Dialect picks the grammar a site publishes.
//
// # draft-car (default)
//
// draft-car-agents-txt-wellknown-00, sections 2.2-2.7 and 3.2: "Key: value"
// lines, "#" comments, and blocks. A Capability or Agent line opens a block;
// the lines indented under it (two or more spaces, or a tab) are its fields.
// Render writes the layout of the draft's Appendix A: a header
// (Spec-Version, Generated-At when the site sets it, Declaration-Type only
// for "agent", Operates-On), the site fields and the optional Agents-JSON
// line, one Capability block per capability (Endpoint, Method, Protocol,
// Auth, Auth-Endpoint, Auth-Docs, Scopes, Rate-Limit, Description, OpenAPI,
// Param), the Allow/Disallow path patterns, then one Agent block per agent
// policy (Rate-Limit, Capabilities, Agent-Declaration), with a blank line
// between sections. Method is always written for REST capabilities, Auth for
// every capability, so that Appendix A comes out byte for byte. Params use
// the 2.5 form
//
//	Param: name (location, type[, required]) [- description]
//
// An Agent block with an empty Capabilities line permits no capability;
// without the line it permits all of them (2.7). Render keeps the two apart.
//
// # v0.1.0
//
// The agents.txt Format Specification v0.1.0: flat "Key: value" lines, no
// blocks. Render writes the layout of its Full Example: "# agents.txt -
// <Name>" and "# <URL>", Site, URL, Description, Contact, Agents-JSON
// (default <origin>/.well-known/agents.json), one "Allow: <capability>" per
// capability, "Flow: <name> → <step>, <step>" with Flow-Description, then
// Rate-Limit (always per minute, rounded up), Session-TTL (when set, or
// 1800s when a capability requires a session), Audit and Audit-Endpoint.
//
// # Rendering
//
// Render is pure and deterministic. It writes exactly Project(site,
// dialect): the part of the declaration the grammar carries, with defaults
// resolved and values trimmed. It writes sites that publish.Validate has
// accepted, which holds them to the grammar (package txtgrammar names its
// rules) and names the field that breaks one; Render does not check them
// again, but never writes a value that is not one line of text
// (ErrUnsafeValue).
//
// # Parsing
//
// Parse reads either grammar, telling them apart by the first identifying
// field (Spec-Version or Site-Name: draft-car; Site or URL: v0.1.0);
// ParseDialect is told. Both are exported so that sites can check their
// files and agents can read other sites' files. The parser follows the
// specs' rules: keys are case-insensitive (ASCII), values are trimmed,
// comments and blank lines are skipped, CRLF line ends and a UTF-8 BOM are
// tolerated, unknown fields are ignored (draft-car 2.5), and a repeated
// single-valued field keeps its first value. Rates go through
// config.ParseRate, comma lists are split and trimmed, a flow is split at
// "→" (or "->"). Whatever it cannot use, it skips and reports as a Warning
// with its line number; it fails only on input larger than MaxSize or of an
// unknown dialect, and never panics.
//
// For every site Validate accepts, Parse(Render(site, d)).Site deep-equals
// Project(site, d); the package's tests and fuzz targets hold it to that.
package agentstxt
