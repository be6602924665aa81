package config

import (
	"cmp"
	"net/url"
)

// gateways checks the capabilities agentready answers itself as an MCP
// server (Capability.Gateway, docs/gateway.md): an MCP capability with
// tools, each of which calls a REST capability of the site's own origin
// whose auth the MCP capability carries; and that Calls appears in a
// gateway only.
func (r *report) gateways() {
	site, _ := url.Parse(r.site.URL)
	for i := range r.site.Capabilities {
		c := &r.site.Capabilities[i]
		p := at("Capabilities", i)
		if !c.Gateway {
			for k, t := range c.Tools {
				if t.Calls != "" {
					r.Addf(at(p+".Tools", k)+".Calls", "", "names a capability to call, which only a tool of a gateway does: set %s on the capability, or drop it", alt("Gateway", "gateway: true"))
				}
			}
			continue
		}
		if c.Protocol != ProtocolMCP {
			r.Addf(p+".Gateway", "", "makes agentready an MCP server for the capability, which needs %s MCP", alt("Protocol", "protocol:"))
		}
		if len(c.Tools) == 0 {
			r.Addf(p+".Tools", "", "lists no tools: a gateway serves its tools, each calling a capability")
		}
		for k := range c.Tools {
			r.gatewayTool(at(p+".Tools", k), c, &c.Tools[k], site)
		}
	}
}

func (r *report) gatewayTool(p string, gw *Capability, t *Tool, site *url.URL) {
	if len(t.Params) > 0 {
		r.Addf(p+".Params", "", "are the arguments of a gateway's tool, which are the params of the capability it calls: declare them there")
	}
	if t.Calls == "" {
		r.Addf(p+".Calls", "", "is missing: a gateway's tool names the capability it calls")
		return
	}
	j, ok := r.IDs[t.Calls]
	if !ok {
		r.Addf(p+".Calls", "", "%q is not the ID of a declared capability", t.Calls)
		return
	}
	c := &r.site.Capabilities[j]
	if c.Protocol != "" && c.Protocol != ProtocolREST {
		r.Addf(p+".Calls", "", "%q is a capability of %s %s: a gateway's tool calls a REST capability", t.Calls, alt("Protocol", "protocol:"), c.Protocol)
	}
	if u, err := url.Parse(c.Endpoint); err == nil && site != nil && (u.Scheme != site.Scheme || u.Host != site.Host) {
		r.Addf(p+".Calls", "", "%q has its endpoint %q on another origin than the site's %q: the gateway calls the site's own handler", t.Calls, c.Endpoint, site.Scheme+"://"+site.Host)
	}
	need, carry := cmp.Or(c.Auth.Type, AuthNone), cmp.Or(gw.Auth.Type, AuthNone)
	if need != AuthNone && need != carry {
		r.Addf(p+".Calls", "", "%q needs auth of type %q, which the gateway's capability (auth %q) does not carry: a call through the gateway carries the MCP client's credentials", t.Calls, need, carry)
	}
}
