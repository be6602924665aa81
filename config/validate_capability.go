package config

import (
	"cmp"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"unicode"

	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/httpsyntax"
)

// capabilities checks each capability's own fields.
func (r *report) capabilities() {
	s := r.site
	for i := range s.Capabilities {
		c := &s.Capabilities[i]
		p := at("Capabilities", i)
		r.capabilityID(p+".ID", c.ID)
		if j := r.IDs[c.ID]; c.ID != "" && j != i {
			r.Addf(p+".ID", "", "%q is already the ID of %s", c.ID, ref(at("Capabilities", j)))
		}
		r.capabilityEndpoint(p, c)
		if c.Method != "" && !fieldcheck.IsToken(c.Method) {
			r.Addf(p+".Method", "", "%q is not an HTTP method (RFC 9110 9.1: a token)", c.Method)
		}
		r.WebURL(p+".OpenAPI", c.OpenAPI, fieldcheck.WebSchemes)
		r.auth(p+".Auth", &c.Auth)
		if err := c.RateLimit.Validate(); err != nil {
			r.Add(p+".RateLimit", "", err.Error()+rateRule)
		}
		r.params(p, c)
		for k, req := range c.Requires {
			r.CapabilityRef(at(p+".Requires", k), req)
		}
	}
}

// capabilityID: an ID lists and agents.txt lines can carry.
func (r *report) capabilityID(field, id string) {
	if id == "" {
		return // the required tag reports it
	}
	if strings.Contains(id, ",") {
		r.Addf(field, "", `%q contains ",", which separates capability IDs in lists (draft-car 2.7 Capabilities, v0.1.0 Flow steps)`, id)
	}
	if strings.Contains(id, "/") {
		r.Addf(field, "", `%q contains "/", which separates a capability from its tool in an agent's grants (CAPABILITY/TOOL)`, id)
	}
	if strings.TrimSpace(id) != id {
		r.Addf(field, "", "%q has leading or trailing whitespace, which agents.txt parsers trim", id)
	}
}

// capabilityEndpoint: an https URL whose {param}s are whole segments.
// Which formats require it is theirs to say.
func (r *report) capabilityEndpoint(p string, c *Capability) {
	if c.Endpoint == "" {
		return
	}
	sc := fieldcheck.WebSchemes
	if c.Protocol == ProtocolWebSocket {
		sc = fieldcheck.WebOrWSSchemes
	}
	if r.WebURL(p+".Endpoint", c.Endpoint, sc) == nil {
		return
	}
	// A {param} is one whole path segment, as agentready routes it and
	// publishes it: "/files/{name}.json" would be a literal path to it,
	// while routers (chi, gorilla/mux, Express) route a param there, and
	// the capability would hold on none of the requests they serve.
	path, _, _ := strings.Cut(endpoint.Path(c.Endpoint), "?")
	for _, seg := range strings.Split(path, "/") {
		if strings.ContainsAny(seg, "{}") && !(strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && strings.Count(seg, "{") == 1 && strings.Count(seg, "}") == 1 && len(seg) > 2) {
			r.Addf(p+".Endpoint", "", "holds %q: a {param} must be a whole, named path segment (/files/{name}, not /files/{name}.json)", seg)
		}
	}
}

// auth checks one Auth: draft-car's Auth-Endpoint rule, its URLs, and that
// no field carries a credential (draft-car 5.3).
func (r *report) auth(p string, a *Auth) {
	r.WebURL(p+".TokenEndpoint", a.TokenEndpoint, fieldcheck.WebSchemes)
	r.WebURL(p+".DocsURL", a.DocsURL, fieldcheck.WebSchemes)
	r.WebURL(p+".AuthorizationServer", a.AuthorizationServer, fieldcheck.WebSchemes)
	r.WebURL(p+".ProtectedResourceMetadata", a.ProtectedResourceMetadata, fieldcheck.WebSchemes)
	r.scopes(p+".Scopes", a.Scopes)
	if a.JWT || a.Audience != "" {
		switch {
		case a.Type != AuthOAuth2 && a.Type != AuthBearerToken:
			r.Addf(p+".JWT", "", "verifies a bearer token, and %s is %q: declare oauth2 or bearer-token", alt("Type", "type"), cmp.Or(a.Type, AuthNone))
		case a.AuthorizationServer == "":
			r.Addf(p+".AuthorizationServer", "", "is required to verify a JWT: the issuer whose metadata (RFC 8414) and keys verify it")
		}
		if strings.TrimSpace(a.Audience) != a.Audience || strings.ContainsFunc(a.Audience, unicode.IsControl) {
			r.Addf(p+".Audience", "", "%q has leading or trailing white space or a control character, which no token's aud holds", a.Audience)
		}
	}
	if a.Header != "" {
		switch {
		case fieldcheck.CredentialKind(a.Header, true) != "":
			r.CredentialField(p+".Header", a.Header)
		case !fieldcheck.IsToken(a.Header):
			r.Addf(p+".Header", "", "%q is not an HTTP header field name (RFC 9110 5.1: a token)", a.Header)
		case httpsyntax.Rewritten(a.Header) != "":
			r.Addf(p+".Header", "", "%q %s; name a field of the application's own (X-API-Key)", a.Header, httpsyntax.Rewritten(a.Header))
		}
	}
}

// scopes checks OAuth scopes, at p.
func (r *report) scopes(p string, scopes []string) {
	for j, sc := range scopes {
		f := at(p, j)
		switch {
		case fieldcheck.CredentialKind(sc, true) != "":
			r.CredentialField(f, sc)
		case sc == "":
			r.Add(f, "", "is empty")
		case !fieldcheck.IsScopeToken(sc):
			r.Addf(f, "", "%q is not an OAuth scope (RFC 6749 3.3: printable ASCII without spaces, '\"' or '\\')", sc)
		}
	}
}

// params checks a capability's parameters.
func (r *report) params(p string, c *Capability) {
	seen := map[string]int{}
	for j, pm := range c.Params {
		q := at(p+".Params", j)
		if pm.Name != "" {
			if k, ok := seen[pm.Name]; ok {
				r.Addf(q+".Name", "", "%q is already the name of %s (parameters are keyed by name)", pm.Name, ref(at(p+".Params", k)))
			} else {
				seen[pm.Name] = j
			}
		}
		for _, b := range []struct {
			name string
			v    *float64
		}{{"Min", pm.Min}, {"Max", pm.Max}} {
			if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
				r.Addf(q+"."+b.name, "", "%v is not a finite number; JSON has no NaN or Infinity", *b.v)
			}
		}
		if pm.Min != nil && pm.Max != nil && *pm.Min > *pm.Max {
			r.Addf(q+".Min", "", "%v is greater than Max %v", *pm.Min, *pm.Max)
		}
		for k, v := range pm.Enum {
			if !jsonScalar(v) {
				r.Addf(at(q+".Enum", k), "", "%T is not a JSON scalar (a string, a finite number or a boolean)", v)
			}
		}
		if pm.Default != nil {
			if _, err := json.Marshal(pm.Default); err != nil {
				r.Addf(q+".Default", "", "is not a JSON value: %v", err)
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
