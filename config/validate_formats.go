package config

import (
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// awpProtocolKey: AWP 5.5 keys protocols by a "lowercase, hyphenated"
// identifier (a2a, mcp, x402, ...).
var awpProtocolKey = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// awp checks what only the AWP agent.json renders.
func (r *report) awp() {
	if !r.on.awp {
		return
	}
	s := r.site
	a := &s.AWP
	if a.Intent == "" && s.Description == "" {
		r.add("AWP.Intent", fmtAWP, "is required by AWP agent.json (5: intent is required); set "+alt("AWP.Intent or Description", "awp.intent or description"))
	}
	if a.Domain != "" && !isDomain(a.Domain) {
		r.addf("AWP.Domain", fmtAWP, "%q is not a domain name (AWP 3: agent.json is published at https://{domain}/agent.json)", a.Domain)
	}
	keys := make([]string, 0, len(a.Protocols))
	for k := range a.Protocols {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := "AWP.Protocols[" + k + "]"
		if !awpProtocolKey.MatchString(k) {
			r.addf(p, fmtAWP, "%q is not a protocol identifier (AWP 5.5: lowercase, hyphenated)", k)
		}
		r.webURL(p+".Endpoint", a.Protocols[k].Endpoint, transportSchemes)
	}
	if au := a.Auth; au != nil {
		if au.Type == AuthHMAC {
			r.add("AWP.Auth.Type", fmtAWP, `"hmac" has no AWP equivalent (AWP 7: oauth2, api_key, bearer or none)`)
		}
		required := map[string]bool{}
		for k, id := range au.RequiredFor {
			r.capabilityRef(at("AWP.Auth.RequiredFor", k), id)
			required[id] = true
		}
		for k, id := range au.OptionalFor {
			r.capabilityRef(at("AWP.Auth.OptionalFor", k), id)
			if required[id] {
				r.addf(at("AWP.Auth.OptionalFor", k), fmtAWP, "%q is also in "+alt("RequiredFor", "required_for")+"; auth is either required or optional for an action (AWP 7)", id)
			}
		}
		r.urlOrPath("AWP.Auth.RefreshEndpoint", au.RefreshEndpoint, fmtAWP, "AWP 7 refresh_endpoint")
	}
	if st := a.Status; st != nil {
		for k, id := range st.DegradedActions {
			r.capabilityRef(at("AWP.Status.DegradedActions", k), id)
		}
		r.urlOrPath("AWP.Status.StatusEndpoint", st.StatusEndpoint, fmtAWP, "AWP 13 status_endpoint")
	}
}

// isDomain reports whether d is a host name or IP address, with an
// optional port.
func isDomain(d string) bool {
	host := d
	if h, port, err := net.SplitHostPort(d); err == nil {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		host = h
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return isHostname(host)
}

// agentsMD checks the agents.md MCP gateway (agents.md 3, 5, Appendix B).
func (r *report) agentsMD() {
	m := r.site.AgentsMD.MCP
	if !r.on.md || m == nil {
		return
	}
	u := r.webURL("AgentsMD.MCP.Endpoint", m.Endpoint, webSchemes)
	if site, err := url.Parse(r.site.URL); u != nil && err == nil && site.Host != "" && !sameSite(u.Hostname(), site.Hostname()) {
		r.addf("AgentsMD.MCP.Endpoint", fmtAgentsMD, "is on %s, outside the registrable domain of the site %s; agents MUST reject such an MCP endpoint (agents.md 5)", u.Hostname(), site.Hostname())
	}
	switch m.Auth {
	case "", AuthNone, AuthAPIKey, AuthOAuth2:
	default:
		r.addf("AgentsMD.MCP.Auth", fmtAgentsMD, "%q is not one of none, api-key, oauth2 (agents.md Appendix B mcp.auth: none, api_key, oauth2)", m.Auth)
	}
}

// sameSite reports whether two hosts may share a registrable domain.
// Without the Public Suffix List it compares the last two labels: hosts
// with one registrable domain always agree there, so nothing the spec
// allows is rejected; only hosts that certainly differ are.
func sameSite(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSuffix(a, ".")), strings.ToLower(strings.TrimSuffix(b, "."))
	if a == b {
		return true
	}
	_, errA := netip.ParseAddr(a)
	_, errB := netip.ParseAddr(b)
	if errA == nil || errB == nil {
		return false
	}
	la, lb := strings.Split(a, "."), strings.Split(b, ".")
	if len(la) < 2 || len(lb) < 2 {
		return false
	}
	return la[len(la)-1] == lb[len(lb)-1] && la[len(la)-2] == lb[len(lb)-2]
}
