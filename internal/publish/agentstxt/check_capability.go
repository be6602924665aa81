package agentstxt

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/format/txtgrammar"
)

// capability checks a capability against the served dialect's documents.
func (r rules) capability(p string, c *config.Capability) {
	r.capabilityID(p+".ID", c.ID)
	if r.on.dcJSON {
		if c.Description == "" {
			r.Require(p+".Description", "is required by %s", fmtDraftCar, "draft-car agents.json (description minLength 1)")
		}
		r.maxChars(p+".Description", c.Description, fieldcheck.DraftCarMaxDescription, "capability description")
	}
	r.capabilityEndpoint(p, c)
	if m := endpoint.Method(c.Method); r.on.v010JSON && (c.Method == "" || fieldcheck.IsToken(c.Method)) && !slices.Contains(fieldcheck.AWPMethods, m) {
		r.Require(p+".Method", fmt.Sprintf("%q is not allowed by %%s (GET, POST, PUT, PATCH or DELETE)", m), fmtV010, "v0.1.0 agents.json")
	}
	if !r.on.draftCar() {
		return
	}
	a := &c.Auth
	if (a.Type == config.AuthBearerToken || a.Type == config.AuthOAuth2) && a.TokenEndpoint == "" {
		r.Addf(p+".Auth.TokenEndpoint", fmtDraftCar, "is required for "+fieldcheck.Alt("Auth", "auth type")+" %s by %s (2.5: Auth-Endpoint MUST be present when Auth is bearer-token or oauth2)", a.Type, r.on.draftCarDoc())
	}
	for j, sc := range a.Scopes {
		// A scope that is a credential or no scope token is config's.
		if fieldcheck.CredentialKind(sc, true) == "" && fieldcheck.IsScopeToken(sc) && strings.Contains(sc, ",") {
			r.Addf(fieldcheck.At(p+".Auth.Scopes", j), fmtDraftCar, "%q contains \",\", which separates scopes in %s (2.5 Scopes)", sc, r.on.draftCarDoc())
		}
	}
	for j, pm := range c.Params {
		q := fieldcheck.At(p+".Params", j)
		if pm.Name != "" && !txtgrammar.ParamName.MatchString(pm.Name) {
			r.Addf(q+".Name", fmtDraftCar, "%q cannot be written in a %s Param line (2.5: name (location, type[, required]) - description)", pm.Name, r.on.draftCarDoc())
		}
		if pm.Type == config.TypeArray || pm.Type == config.TypeObject {
			r.Addf(q+".Type", fmtDraftCar, "%q is not allowed by %s (2.5: string, integer, number or boolean); serve the v0.1.0 dialect or pass it as a string", pm.Type, r.on.draftCarDoc())
		}
	}
}

// capabilityID applies the served dialect's identifier rule.
func (r rules) capabilityID(field, id string) {
	if id == "" {
		return // the required tag reports it
	}
	if r.on.draftCar() && !txtgrammar.DraftCarID.MatchString(id) {
		r.Addf(field, fmtDraftCar, "%q is not allowed by %s (2.5: lowercase letters, digits and hyphens); serve the v0.1.0 dialect or rename it", id, r.on.draftCarDoc())
	}
	if r.on.dcJSON {
		r.maxChars(field, id, fieldcheck.DraftCarMaxID, "capability id")
	}
	if r.on.v010() && !txtgrammar.V010ID.MatchString(id) {
		r.Addf(field, fmtV010, "%q is not allowed by %s (capability names match ^[a-z][a-z0-9_.]*$); serve the draft-car dialect or rename it", id, r.on.v010Doc())
	}
}

// capabilityEndpoint: required by draft-car (2.5) and the v0.1.0
// agents.json, which renders it as a path on the site's origin.
func (r rules) capabilityEndpoint(p string, c *config.Capability) {
	if c.Endpoint == "" {
		if r.on.draftCar() {
			r.Require(p+".Endpoint", "is required by %s", fmtDraftCar, r.on.draftCarDoc()+" (2.5: Endpoint is REQUIRED)")
		}
		if r.on.v010JSON {
			r.Require(p+".Endpoint", "is required by %s", fmtV010, "v0.1.0 agents.json (capability endpoint is required)")
		}
		return
	}
	if !r.on.v010JSON {
		return
	}
	sc := fieldcheck.WebSchemes
	if c.Protocol == config.ProtocolWebSocket {
		sc = fieldcheck.WebOrWSSchemes
	}
	// The URL as config's rules read it, without reporting again.
	u := (&fieldcheck.Report{AllowHTTP: r.Formats.AllowHTTP}).WebURL(p+".Endpoint", c.Endpoint, sc)
	// AWP (9) calls endpoint an "API path" too, but an action on another
	// host keeps its full URL there rather than becoming unreachable, so
	// only the v0.1.0 schema ("relative to the site origin") forbids it.
	site, err := url.Parse(r.Site.URL)
	if u != nil && err == nil && site.Host != "" && !sameOrigin(u, site) {
		r.Addf(p+".Endpoint", fmtV010, "is on %s, not on the site origin %s; endpoints are rendered as paths relative to the site origin in %s",
			u.Scheme+"://"+u.Host, site.Scheme+"://"+site.Host, "v0.1.0 agents.json")
	}
}

// sameOrigin compares origins, taking ws and wss for http and https: a
// WebSocket handshake is an HTTP request to the same path.
func sameOrigin(a, b *url.URL) bool {
	web := func(s string) string {
		switch s = strings.ToLower(s); s {
		case "ws":
			return "http"
		case "wss":
			return "https"
		}
		return s
	}
	return web(a.Scheme) == web(b.Scheme) && strings.EqualFold(a.Host, b.Host)
}
