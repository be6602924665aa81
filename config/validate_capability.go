package config

import (
	"encoding/json"
	"math"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/format/txtgrammar"
	"github.com/agentready/agentready/internal/httpsyntax"
)

// awpMethods are the methods of AWP 9 and of the v0.1.0 agents.json schema.
var awpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// capabilities checks each capability against every served format.
func (r *report) capabilities() {
	s := r.site
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		p := at("Capabilities", i)
		r.capabilityID(p+".ID", c.ID)
		if j := r.capIndex()[c.ID]; c.ID != "" && j != i {
			r.addf(p+".ID", "", "%q is already the ID of %s", c.ID, ref(at("Capabilities", j)))
		}
		r.capabilityDescription(p, c)
		r.capabilityEndpoint(p, c)
		r.capabilityMethod(p, c)
		r.webURL(p+".OpenAPI", c.OpenAPI, webSchemes)
		r.auth(p+".Auth", &c.Auth)
		if err := c.RateLimit.Validate(); err != nil {
			r.add(p+".RateLimit", "", err.Error()+rateRule)
		}
		r.params(p, c)
		if c.PollEndpoint != "" {
			if c.ExecutionModel != ExecutionAsync {
				r.add(p+".PollEndpoint", fmtAWP, `is set but `+alt("ExecutionModel", "execution_model")+` is not "async" (AWP 9: poll_endpoint is the job status URL of async actions)`)
			}
			r.urlOrPath(p+".PollEndpoint", c.PollEndpoint, fmtAWP, "AWP 9 poll_endpoint")
		}
		if r.on.awp {
			if _, ok := s.AWP.Protocols[c.Via]; c.Via != "" && !ok {
				r.addf(p+".Via", fmtAWP, "%q is not a key of "+alt("AWP.Protocols", "awp.protocols")+" (AWP 5.5: when an action has via, the named protocol MUST appear in protocols)", c.Via)
			}
			if c.Operation != "" && c.Via == "" {
				r.add(p+".Operation", fmtAWP, "is set without "+alt("Via", "via")+" (AWP 9: operation is the protocol-specific operation when via is set)")
			}
		}
		for k, req := range c.Requires {
			r.capabilityRef(at(p+".Requires", k), req)
		}
		if r.on.uri {
			for k, d := range c.Depends {
				r.agentURIField(at(p+".Depends", k)+".URI", d.URI)
			}
			if len(s.HostedAgents) == 0 && c.StreamingFormat != "" && !contains([]string{"sse", "ndjson", "grpc-stream"}, c.StreamingFormat) {
				r.addf(p+".StreamingFormat", fmtAgentURI, "%q is not one of sse, ndjson, grpc-stream (agent:// 7.1.4 streamingFormat of the derived agent's skill)", c.StreamingFormat)
			}
		}
	}
	r.requiresCycles()
}

// capabilityID applies every served format's identifier rule.
func (r *report) capabilityID(field, id string) {
	if id == "" {
		return // the required tag reports it
	}
	if strings.Contains(id, ",") {
		r.addf(field, "", `%q contains ",", which separates capability IDs in lists (draft-car 2.7 Capabilities, v0.1.0 Flow steps)`, id)
	}
	if strings.TrimSpace(id) != id {
		r.addf(field, "", "%q has leading or trailing whitespace, which agents.txt parsers trim", id)
	}
	if r.on.draftCar() && !txtgrammar.DraftCarID.MatchString(id) {
		r.addf(field, fmtDraftCar, "%q is not allowed by %s (2.5: lowercase letters, digits and hyphens); serve the v0.1.0 dialect or rename it", id, r.on.draftCarDoc())
	}
	if r.on.dcJSON && utf8.RuneCountInString(id) > draftCarMaxID {
		r.addf(field, fmtDraftCar, "is %d characters; draft-car agents.json allows at most %d (capability id)", utf8.RuneCountInString(id), draftCarMaxID)
	}
	if r.on.v010() && !txtgrammar.V010ID.MatchString(id) {
		r.addf(field, fmtV010, "%q is not allowed by %s (capability names match ^[a-z][a-z0-9_.]*$); serve the draft-car dialect or rename it", id, r.on.v010Doc())
	}
}

// capabilityDescription: draft-car agents.json, AWP actions and the skills
// of the derived agent:// agent all require a description.
func (r *report) capabilityDescription(p string, c *Capability) {
	var by, formats []string
	if r.on.dcJSON {
		by = append(by, "draft-car agents.json (description minLength 1)")
		formats = append(formats, fmtDraftCar)
	}
	if r.on.awp {
		by = append(by, "AWP agent.json (9: every action has a description)")
		formats = append(formats, fmtAWP)
	}
	if r.on.uri && len(r.site.HostedAgents) == 0 {
		by = append(by, "agent:// descriptors (7.1.4: every skill has a description; the capabilities are the skills of the site's derived agent)")
		formats = append(formats, fmtAgentURI)
	}
	if c.Description == "" && len(by) > 0 {
		r.add(p+".Description", joinFormats(formats...), "is required by "+prose(by))
	}
	if n := utf8.RuneCountInString(c.Description); r.on.dcJSON && n > draftCarMaxDescription {
		r.addf(p+".Description", fmtDraftCar, "is %d characters; draft-car agents.json allows at most %d (capability description)", n, draftCarMaxDescription)
	}
}

// capabilityEndpoint: required by draft-car (2.5), the v0.1.0 agents.json
// and AWP (unless via names a protocol); an https URL; on the site's
// origin when a format renders it as a path.
func (r *report) capabilityEndpoint(p string, c *Capability) {
	var by, formats []string
	if r.on.draftCar() {
		by = append(by, r.on.draftCarDoc()+" (2.5: Endpoint is REQUIRED)")
		formats = append(formats, fmtDraftCar)
	}
	if r.on.v010JSON {
		by = append(by, "v0.1.0 agents.json (capability endpoint is required)")
		formats = append(formats, fmtV010)
	}
	if r.on.awp && c.Via == "" {
		by = append(by, "AWP agent.json (9: endpoint is required unless via names a protocol)")
		formats = append(formats, fmtAWP)
	}
	if c.Endpoint == "" {
		if len(by) > 0 {
			r.add(p+".Endpoint", joinFormats(formats...), "is required by "+prose(by))
		}
		return
	}
	sc := webSchemes
	if c.Protocol == ProtocolWebSocket {
		sc = webOrWSSchemes
	}
	u := r.webURL(p+".Endpoint", c.Endpoint, sc)
	if u == nil {
		return
	}
	// A {param} is one whole path segment, as agentready routes it and
	// publishes it: "/files/{name}.json" would be a literal path to it,
	// while routers (chi, gorilla/mux, Express) route a param there, and
	// the capability would hold on none of the requests they serve.
	path, _, _ := strings.Cut(endpoint.Path(c.Endpoint), "?")
	for _, seg := range strings.Split(path, "/") {
		if strings.ContainsAny(seg, "{}") && !(strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && strings.Count(seg, "{") == 1 && strings.Count(seg, "}") == 1 && len(seg) > 2) {
			r.addf(p+".Endpoint", "", "holds %q: a {param} must be a whole, named path segment (/files/{name}, not /files/{name}.json)", seg)
		}
	}
	var relative, rformats []string
	if r.on.v010JSON {
		relative = append(relative, "v0.1.0 agents.json")
		rformats = append(rformats, fmtV010)
	}
	// AWP (9) calls endpoint an "API path" too, but an action on another
	// host keeps its full URL there rather than becoming unreachable, so
	// only the v0.1.0 schema ("relative to the site origin") forbids it.
	site, err := url.Parse(r.site.URL)
	if len(relative) > 0 && err == nil && site.Host != "" && !sameOrigin(u, site) {
		r.addf(p+".Endpoint", joinFormats(rformats...), "is on %s, not on the site origin %s; endpoints are rendered as paths relative to the site origin in %s",
			u.Scheme+"://"+u.Host, site.Scheme+"://"+site.Host, strings.Join(relative, " and "))
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

// capabilityMethod: an HTTP method token; one of the five methods of the
// v0.1.0 agents.json and AWP when they render it.
func (r *report) capabilityMethod(p string, c *Capability) {
	if c.Method != "" && !isToken(c.Method) {
		r.addf(p+".Method", "", "%q is not an HTTP method (RFC 9110 9.1: a token)", c.Method)
		return
	}
	var by, formats []string
	if r.on.v010JSON {
		by = append(by, "v0.1.0 agents.json")
		formats = append(formats, fmtV010)
	}
	if r.on.awp && c.Via == "" {
		by = append(by, "AWP agent.json (9)")
		formats = append(formats, fmtAWP)
	}
	if m := endpoint.Method(c.Method); len(by) > 0 && !contains(awpMethods, m) {
		r.addf(p+".Method", joinFormats(formats...), "%q is not allowed by %s (GET, POST, PUT, PATCH or DELETE)", m, prose(by))
	}
}

// auth checks one Auth: draft-car's Auth-Endpoint rule, its URLs, and that
// no field carries a credential (draft-car 5.3).
func (r *report) auth(p string, a *Auth) {
	if r.on.draftCar() && (a.Type == AuthBearerToken || a.Type == AuthOAuth2) && a.TokenEndpoint == "" {
		r.addf(p+".TokenEndpoint", fmtDraftCar, "is required for "+alt("Auth", "auth type")+" %s by %s (2.5: Auth-Endpoint MUST be present when Auth is bearer-token or oauth2)", a.Type, r.on.draftCarDoc())
	}
	r.webURL(p+".TokenEndpoint", a.TokenEndpoint, webSchemes)
	r.webURL(p+".DocsURL", a.DocsURL, webSchemes)
	r.webURL(p+".AuthorizationServer", a.AuthorizationServer, webSchemes)
	r.webURL(p+".ProtectedResourceMetadata", a.ProtectedResourceMetadata, webSchemes)
	for j, sc := range a.Scopes {
		f := at(p+".Scopes", j)
		switch {
		case credentialKind(sc, true) != "":
			r.credentialField(f, sc)
		case sc == "":
			r.add(f, "", "is empty")
		case !isScopeToken(sc):
			r.addf(f, "", "%q is not an OAuth scope (RFC 6749 3.3: printable ASCII without spaces, '\"' or '\\')", sc)
		case r.on.draftCar() && strings.Contains(sc, ","):
			r.addf(f, fmtDraftCar, "%q contains \",\", which separates scopes in %s (2.5 Scopes)", sc, r.on.draftCarDoc())
		}
	}
	if a.Header != "" {
		switch {
		case credentialKind(a.Header, true) != "":
			r.credentialField(p+".Header", a.Header)
		case !isToken(a.Header):
			r.addf(p+".Header", "", "%q is not an HTTP header field name (RFC 9110 5.1: a token)", a.Header)
		case httpsyntax.Rewritten(a.Header) != "":
			r.addf(p+".Header", "", "%q %s; name a field of the application's own (X-API-Key)", a.Header, httpsyntax.Rewritten(a.Header))
		}
	}
}

// isScopeToken reports whether s is an RFC 6749 3.3 scope-token.
func isScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// isToken reports whether s is an RFC 9110 5.6.2 token (1*tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return s != ""
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// params checks a capability's parameters.
func (r *report) params(p string, c *Capability) {
	seen := map[string]int{}
	for j, pm := range c.Params {
		q := at(p+".Params", j)
		if pm.Name != "" {
			if k, ok := seen[pm.Name]; ok {
				r.addf(q+".Name", "", "%q is already the name of %s (parameters are keyed by name)", pm.Name, ref(at(p+".Params", k)))
			} else {
				seen[pm.Name] = j
			}
			if r.on.draftCar() && !txtgrammar.ParamName.MatchString(pm.Name) {
				r.addf(q+".Name", fmtDraftCar, "%q cannot be written in a %s Param line (2.5: name (location, type[, required]) - description)", pm.Name, r.on.draftCarDoc())
			}
		}
		if r.on.draftCar() && (pm.Type == TypeArray || pm.Type == TypeObject) {
			r.addf(q+".Type", fmtDraftCar, "%q is not allowed by %s (2.5: string, integer, number or boolean); serve the v0.1.0 dialect or pass it as a string", pm.Type, r.on.draftCarDoc())
		}
		for _, b := range []struct {
			name string
			v    *float64
		}{{"Min", pm.Min}, {"Max", pm.Max}} {
			if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
				r.addf(q+"."+b.name, "", "%v is not a finite number; JSON has no NaN or Infinity", *b.v)
			}
		}
		if pm.Min != nil && pm.Max != nil && *pm.Min > *pm.Max {
			r.addf(q+".Min", "", "%v is greater than Max %v", *pm.Min, *pm.Max)
		}
		for k, v := range pm.Enum {
			if !jsonScalar(v) {
				r.addf(at(q+".Enum", k), "", "%T is not a JSON scalar (a string, a finite number or a boolean)", v)
			}
		}
		if pm.Default != nil {
			if _, err := json.Marshal(pm.Default); err != nil {
				r.addf(q+".Default", "", "is not a JSON value: %v", err)
			}
		}
	}
}

// jsonScalar reports whether v encodes as a JSON string, number or boolean.
func jsonScalar(v any) bool {
	switch v.(type) {
	case string, bool, json.Number:
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case reflect.String, reflect.Bool:
		return true
	}
	return false
}
