package config

import "github.com/agentready/agentready/internal/fieldcheck"

// tagRules explains the `validate` tags of the fields every format
// reads, keyed by the field path with indices and map keys removed; each
// format's package explains those of its own rules. A test
// (TestTagRulesCoverEveryTag) checks that every validate tag has an entry in one
// of them.
var tagRules = map[string]fieldcheck.TagRule{
	"Name":                     {Ref: "every format names the site: draft-car 2.4 Site-Name, v0.1.0 Site, agents.md H1"},
	"URL":                      {Ref: "every format needs the site URL: draft-car 2.4 Site-URL, v0.1.0 URL, the AWP domain and the agent:// authority"},
	"Capabilities.ID":          {Ref: "every format identifies a capability by its ID"},
	"Capabilities.Params.Name": {Ref: "every format keys parameters by name"},
	"Capabilities.Params.Type": {Ref: "the JSON types of v0.1.0 agents.json params"},
	"Capabilities.BodyLimit":   {Ref: "a body limit is a number of bytes (0: the 1 MiB default)"},
	// A tool is enforced whatever is published (docs/mcp.md).
	"Capabilities.Tools.Name":        {Ref: "a tools/call names its tool (MCP 2025-11-25 Tools)"},
	"Capabilities.Tools.Cost":        {Ref: "a cost is a number of tokens (0: 1)"},
	"Capabilities.Tools.Sensitivity": {Ref: "AWP 9 sensitivity, as a capability's"},
	"Capabilities.Tools.Params.Name": {Ref: "a tool's arguments are keyed by name"},
	"Capabilities.Tools.Params.In":   {Ref: "draft-car 2.5 Param location, as a capability's"},
	"Capabilities.Tools.Params.Type": {Ref: "the JSON types of a tool's arguments"},
}

// structTags runs the `validate` tags and words the failures of the
// fields tagRules explains (and a failure to run them at all).
func (r *report) structTags(s *Site) {
	for _, te := range fieldcheck.Tags(s) {
		if rule, ok := tagRules[te.Key]; ok || te.Field == "" {
			te.Report(&r.Report, rule)
		}
	}
}
