package mcpgateway

import "runtime/debug"

// version is this module's version as the build records it, "(devel)" in
// a clone: the MCP server's Implementation.Version.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/agentready/agentready/mcpgateway" {
				return m.Version
			}
		}
	}
	return "(devel)"
}
