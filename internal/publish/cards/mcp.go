package cards

import (
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/publish/awp"
)

// protocolVersions are the MCP protocol versions a card says its remote
// supports (Remote.supportedProtocolVersions, which lets a client pick a
// version before it connects). A declaration states an MCP server's
// version in one place, the AWP protocols its agent.json publishes (AWP
// 5.5): the entry the capability names with Via, else an entry whose
// endpoint is the capability's, else the "mcp" entry when it names no
// endpoint. Without one, the card says what agent.json says of the site's
// MCP server by default, awp.MCPVersion, so that the two documents agree.
// The card is advisory and clients check it against the server's own
// answer (discovery.md, "Consistency with Runtime Behavior"), but a version
// the server does not speak steers them wrong: declare it.
func protocolVersions(s *config.Site, c *config.Capability) []string {
	p := s.AWP.Protocols
	if v, ok := p[c.Via]; c.Via != "" && ok && v.Version != "" {
		return []string{v.Version}
	}
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if p[k].Endpoint == c.Endpoint && p[k].Version != "" {
			return []string{p[k].Version}
		}
	}
	if v, ok := p["mcp"]; ok && v.Endpoint == "" && v.Version != "" {
		return []string{v.Version}
	}
	return []string{awp.MCPVersion}
}

// websiteURL is the site's URL for a card's websiteUrl, its host in ASCII.
func websiteURL(site *url.URL, raw string) string {
	if site == nil {
		return raw
	}
	return asciiURL(site)
}

// asciiURL is u with its host as asciiOrigin writes it: the card's
// websiteUrl, which the schema checks as an RFC 3986 URI (format "uri"), a
// grammar without IPv6 zones.
func asciiURL(u *url.URL) string {
	v := *u
	v.Host = strings.TrimPrefix(asciiOrigin(u), u.Scheme+"://")
	return v.String()
}

// asciiOrigin is the origin of u with its host in ASCII (asciiHost): the
// form of the URLs a catalog lists, which every client reads alike. An IP
// literal keeps its form, without an IPv6 zone, which names an interface
// of the server and nothing a client can use.
func asciiOrigin(u *url.URL) string {
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		host = addr.WithZone("").String()
		if addr.Is6() {
			host = "[" + host + "]"
		}
	} else {
		host = asciiHost(host)
	}
	if p := u.Port(); p != "" {
		host += ":" + p
	}
	return u.Scheme + "://" + host
}
