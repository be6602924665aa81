package awp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/publish/discovery"
)

// fmtName is the format's name in FieldError.Format.
const fmtName = "AWP"

// awpProtocolKey: AWP 5.5 keys protocols by a "lowercase, hyphenated"
// identifier (a2a, mcp, x402, ...).
var awpProtocolKey = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func (format) TagRules() map[string]fieldcheck.TagRule { return tagRules }

// tagRules explains the validate tags of AWP's fields.
var tagRules = map[string]fieldcheck.TagRule{
	"Capabilities.Sensitivity":    {Format: fmtName, Ref: "AWP 9 sensitivity"},
	"Capabilities.ExecutionModel": {Format: fmtName, Ref: "AWP 9 execution_model"},
	"AWP.Protocols.Version":       {Owner: fmtName, Format: fmtName, Ref: "AWP 5.5: every protocol declares its version"},
	"AWP.Capabilities.Pagination": {Owner: fmtName, Format: fmtName, Ref: "AWP 6 pagination"},
	"AWP.Auth.Type":               {Owner: fmtName, Format: fmtName, Ref: "AWP 7 auth type"},
}

// Check runs AWP's rules: those of the capabilities' AWP fields always,
// the rest when agent.json is served.
func (format) Check(c *discovery.Check) {
	s := c.Site
	on := c.Formats.Serves(config.DocAWP)
	c.ReportTags(tagRules, on)
	for i := range s.Capabilities {
		cp := &s.Capabilities[i]
		p := fieldcheck.At("Capabilities", i)
		if cp.PollEndpoint != "" {
			if cp.ExecutionModel != config.ExecutionAsync {
				c.Add(p+".PollEndpoint", fmtName, `is set but `+fieldcheck.Alt("ExecutionModel", "execution_model")+` is not "async" (AWP 9: poll_endpoint is the job status URL of async actions)`)
			}
			c.URLOrPath(p+".PollEndpoint", cp.PollEndpoint, fmtName, "AWP 9 poll_endpoint")
		}
		if on {
			capability(c, p, cp)
		}
	}
	if on {
		agentJSON(c)
	}
}

// capability checks what AWP requires of an action (9).
func capability(c *discovery.Check, p string, cp *config.Capability) {
	if cp.Description == "" {
		c.Require(p+".Description", "is required by %s", fmtName, "AWP agent.json (9: every action has a description)")
	}
	if cp.Endpoint == "" && cp.Via == "" {
		c.Require(p+".Endpoint", "is required by %s", fmtName, "AWP agent.json (9: endpoint is required unless via names a protocol)")
	}
	if m := endpoint.Method(cp.Method); cp.Via == "" && (cp.Method == "" || fieldcheck.IsToken(cp.Method)) && !slices.Contains(fieldcheck.AWPMethods, m) {
		c.Require(p+".Method", fmt.Sprintf("%q is not allowed by %%s (GET, POST, PUT, PATCH or DELETE)", m), fmtName, "AWP agent.json (9)")
	}
	if _, ok := c.Site.AWP.Protocols[cp.Via]; cp.Via != "" && !ok {
		c.Addf(p+".Via", fmtName, "%q is not a key of "+fieldcheck.Alt("AWP.Protocols", "awp.protocols")+" (AWP 5.5: when an action has via, the named protocol MUST appear in protocols)", cp.Via)
	}
	if cp.Operation != "" && cp.Via == "" {
		c.Add(p+".Operation", fmtName, "is set without "+fieldcheck.Alt("Via", "via")+" (AWP 9: operation is the protocol-specific operation when via is set)")
	}
}

// agentJSON checks what only the AWP agent.json renders.
func agentJSON(c *discovery.Check) {
	s := c.Site
	a := &s.AWP
	if a.Intent == "" && s.Description == "" {
		c.Add("AWP.Intent", fmtName, "is required by AWP agent.json (5: intent is required); set "+fieldcheck.Alt("AWP.Intent or Description", "awp.intent or description"))
	}
	if a.Domain != "" && !fieldcheck.IsDomain(a.Domain) {
		c.Addf("AWP.Domain", fmtName, "%q is not a domain name (AWP 3: agent.json is published at https://{domain}/agent.json)", a.Domain)
	}
	for _, k := range slices.Sorted(maps.Keys(a.Protocols)) {
		p := "AWP.Protocols[" + k + "]"
		if !awpProtocolKey.MatchString(k) {
			c.Addf(p, fmtName, "%q is not a protocol identifier (AWP 5.5: lowercase, hyphenated)", k)
		}
		c.WebURL(p+".Endpoint", a.Protocols[k].Endpoint, fieldcheck.TransportSchemes)
	}
	if au := a.Auth; au != nil {
		if au.Type == config.AuthHMAC {
			c.Add("AWP.Auth.Type", fmtName, `"hmac" has no AWP equivalent (AWP 7: oauth2, api_key, bearer or none)`)
		}
		required := map[string]bool{}
		for k, id := range au.RequiredFor {
			c.CapabilityRef(fieldcheck.At("AWP.Auth.RequiredFor", k), id)
			required[id] = true
		}
		for k, id := range au.OptionalFor {
			c.CapabilityRef(fieldcheck.At("AWP.Auth.OptionalFor", k), id)
			if required[id] {
				c.Addf(fieldcheck.At("AWP.Auth.OptionalFor", k), fmtName, "%q is also in "+fieldcheck.Alt("RequiredFor", "required_for")+"; auth is either required or optional for an action (AWP 7)", id)
			}
		}
		c.URLOrPath("AWP.Auth.RefreshEndpoint", au.RefreshEndpoint, fmtName, "AWP 7 refresh_endpoint")
	}
	if st := a.Status; st != nil {
		for k, id := range st.DegradedActions {
			c.CapabilityRef(fieldcheck.At("AWP.Status.DegradedActions", k), id)
		}
		c.URLOrPath("AWP.Status.StatusEndpoint", st.StatusEndpoint, fmtName, "AWP 13 status_endpoint")
	}
}

// Schema is AWP's part of the file's schema: an action's method is one
// of five unless via names a protocol (9), and no hmac auth (7).
func (format) Schema() discovery.Schema {
	return discovery.Schema{
		Fields: map[string]map[string]any{"AWPAuth.Type": {"not": map[string]any{"const": config.AuthHMAC}}},
		File: []any{map[string]any{"properties": map[string]any{"capabilities": map[string]any{"items": map[string]any{
			"if":   map[string]any{"not": map[string]any{"required": []any{"via"}}},
			"then": map[string]any{"properties": map[string]any{"method": fieldcheck.MethodsSchema()}},
		}}}}},
	}
}
