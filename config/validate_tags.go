package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// structValidator is built once: a *validator.Validate caches the parsed
// tags of every struct it has seen and is safe for concurrent use.
var structValidator = sync.OnceValue(func() *validator.Validate {
	return validator.New(validator.WithRequiredStructEnabled())
})

// tagRule explains the `validate` tag of one field: owner is the format
// that alone renders the field (its problems are reported only when that
// format is served; "" means always), format goes into FieldError.Format,
// and ref says where the rule comes from.
type tagRule struct {
	owner, format, ref string
}

// tagRules is keyed by the field path with indices and map keys removed.
// A test checks that every validate tag in the package has an entry.
var tagRules = map[string]tagRule{
	"Name":                                {"", "", "every format names the site: draft-car 2.4 Site-Name, v0.1.0 Site, agents.md H1"},
	"URL":                                 {"", "", "every format needs the site URL: draft-car 2.4 Site-URL, v0.1.0 URL, the AWP domain and the agent:// authority"},
	"DeclarationType":                     {"", fmtDraftCar, "draft-car 2.3 Declaration-Type"},
	"Capabilities.ID":                     {"", "", "every format identifies a capability by its ID"},
	"Capabilities.Protocol":               {"", fmtDraftCar, "draft-car 2.5 Protocol"},
	"Capabilities.Auth.Type":              {"", fmtDraftCar, "draft-car 2.5 Auth"},
	"Capabilities.Params.Name":            {"", "", "every format keys parameters by name"},
	"Capabilities.Params.In":              {"", fmtDraftCar, "draft-car 2.5 Param location"},
	"Capabilities.Params.Type":            {"", "", "the JSON types of v0.1.0 agents.json params"},
	"Capabilities.Sensitivity":            {"", fmtAWP, "AWP 9 sensitivity"},
	"Capabilities.ExecutionModel":         {"", fmtAWP, "AWP 9 execution_model"},
	"Capabilities.BodyLimit":              {"", "", "a body limit is a number of bytes (0: the 1 MiB default)"},
	"Capabilities.Depends.URI":            {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4: each depends entry has a uri"},
	"Agents.Name":                         {"", fmtDraftCar, "draft-car 2.7 Agent"},
	"Flows.Name":                          {"", fmtV010, "v0.1.0 Flow: <name> → <step1>, <step2>"},
	"Flows.Steps":                         {"", fmtV010, "v0.1.0 Flow: <name> → <step1>, <step2>"},
	"Session.MaxSessions":                 {"", fmtV010, "v0.1.0 agents.json rate_limit.max_sessions; zero means not declared"},
	"AgentsMD.MCP.Endpoint":               {fmtAgentsMD, fmtAgentsMD, "agents.md 3 MCP gateway: endpoint is required"},
	"AgentsMD.MCP.Transport":              {fmtAgentsMD, fmtAgentsMD, "agents.md Appendix B mcp.transport"},
	"AWP.Protocols.Version":               {fmtAWP, fmtAWP, "AWP 5.5: every protocol declares its version"},
	"AWP.Capabilities.Pagination":         {fmtAWP, fmtAWP, "AWP 6 pagination"},
	"AWP.Auth.Type":                       {fmtAWP, fmtAWP, "AWP 7 auth type"},
	"HostedAgents.Name":                   {fmtAgentURI, fmtAgentURI, "agent:// 7.1.1: a descriptor has a name"},
	"HostedAgents.Version":                {fmtAgentURI, fmtAgentURI, "agent:// 7.1.1: a descriptor has a SemVer version"},
	"HostedAgents.Skills":                 {fmtAgentURI, fmtAgentURI, "agent:// 7.1.1: one or more skills"},
	"HostedAgents.Status":                 {fmtAgentURI, fmtAgentURI, "agent:// 7.1.3 status"},
	"HostedAgents.ConformanceLevel":       {fmtAgentURI, fmtAgentURI, "agent:// 7.1.2: conformance levels 0-3"},
	"HostedAgents.Skills.ID":              {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4: every skill has an id"},
	"HostedAgents.Skills.Name":            {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4: every skill has a name"},
	"HostedAgents.Skills.Description":     {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4: every skill has a description"},
	"HostedAgents.Skills.Status":          {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4 skill status"},
	"HostedAgents.Skills.StreamingFormat": {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4 streamingFormat"},
	"HostedAgents.Skills.Depends.URI":     {fmtAgentURI, fmtAgentURI, "agent:// 7.1.4: each depends entry has a uri"},
}

var pathIndex = regexp.MustCompile(`\[[^\]]*\]`)

// structTags runs the `validate` tags and words their failures.
func (r *report) structTags(s *Site) {
	err := structValidator().Struct(s)
	if err == nil {
		return
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		r.add("", "", err.Error())
		return
	}
	for _, fe := range ves {
		field := strings.TrimPrefix(fe.Namespace(), "Site.")
		key := pathIndex.ReplaceAllString(field, "")
		rule, ok := tagRules[key]
		if !ok {
			rule = tagRule{owner: ownerOf(key)}
		}
		if !r.on.has(rule.owner) {
			continue
		}
		msg := tagMessage(fe)
		if rule.ref != "" {
			msg += " (" + rule.ref + ")"
		}
		r.add(field, rule.format, msg)
	}
}

// ownerOf is the format that alone renders a subtree of the Site.
func ownerOf(key string) string {
	switch {
	case strings.HasPrefix(key, "AWP."):
		return fmtAWP
	case strings.HasPrefix(key, "AgentsMD."):
		return fmtAgentsMD
	case strings.HasPrefix(key, "HostedAgents"), strings.Contains(key, ".Depends"):
		return fmtAgentURI
	}
	return ""
}

func tagMessage(fe validator.FieldError) string {
	collection := fe.Kind() == reflect.Slice || fe.Kind() == reflect.Map || fe.Kind() == reflect.Array
	switch fe.Tag() {
	case "required":
		if collection {
			return "needs at least one entry"
		}
		return "is required"
	case "min":
		if collection {
			if fe.Param() == "1" {
				return "needs at least one entry"
			}
			return "needs at least " + fe.Param() + " entries"
		}
		return fmt.Sprintf("is %v; it must be at least %s", fe.Value(), fe.Param())
	case "max":
		if collection {
			return "has more than " + fe.Param() + " entries"
		}
		return fmt.Sprintf("is %v; it must be at most %s", fe.Value(), fe.Param())
	case "oneof":
		return fmt.Sprintf("%q is not one of %s", fmt.Sprint(fe.Value()), strings.Join(strings.Fields(fe.Param()), ", "))
	}
	return fmt.Sprintf("fails the %q rule", fe.Tag())
}
