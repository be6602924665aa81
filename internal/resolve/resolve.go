// Package resolve gives the documented default of every optional field of
// a config.Site and the values derived from them, in one place, so that
// every renderer, the enforcer and the middleware agree on them. Users
// never call it: they read the defaults in config's field comments.
package resolve

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
)

// The v0.1.0 defaults, and a capability's body limit.
const (
	// SessionEndpointPath is Session.Endpoint's default.
	SessionEndpointPath = "/.well-known/agents/api/session"
	// AuditPath is the path of the audit endpoint's default,
	// URL + AuditPath + "/:session_id".
	AuditPath = "/.well-known/agents/api/audit"
	// DefaultSessionTTL is Session.TTL's default (v0.1.0 Session-TTL).
	DefaultSessionTTL = 1800 * time.Second
	// DefaultBodyLimit is Capability.BodyLimit's default: 1 MiB.
	DefaultBodyLimit = 1 << 20
	// APIKeyHeader is Auth.Header's default.
	APIKeyHeader = "X-API-Key"
	// DefaultVersion is Site.Version's default, the version of the
	// agent:// agent derived from the site (config's PublishedAgents).
	DefaultVersion = "1.0.0"
)

// Method is the upper-cased Method, GET when empty.
func Method(c *config.Capability) string { return endpoint.Method(c.Method) }

// Protocol is the Protocol, REST when empty.
func Protocol(c *config.Capability) string {
	if c.Protocol == "" {
		return config.ProtocolREST
	}
	return c.Protocol
}

// BodyLimit is BodyLimit, DefaultBodyLimit when it is 0.
func BodyLimit(c *config.Capability) int64 {
	if c.BodyLimit > 0 {
		return c.BodyLimit
	}
	return DefaultBodyLimit
}

// AuthType is the Type, none when empty.
func AuthType(a config.Auth) string {
	if a.Type == "" {
		return config.AuthNone
	}
	return a.Type
}

// AuthRequired reports whether the auth type demands a credential.
func AuthRequired(a config.Auth) bool { return AuthType(a) != config.AuthNone }

// Header is the header an api-key credential travels in, APIKeyHeader when
// Header is empty.
func Header(a config.Auth) string {
	if a.Header == "" {
		return APIKeyHeader
	}
	return a.Header
}

// ParamIn is the parameter location, query when empty.
func ParamIn(p config.Param) string {
	if p.In == "" {
		return config.InQuery
	}
	return p.In
}

// ParamType is the parameter type, string when empty.
func ParamType(p config.Param) string {
	if p.Type == "" {
		return config.TypeString
	}
	return p.Type
}

// Host is the host (with port) of the site URL, "" when it does not parse.
func Host(s *config.Site) string { return endpoint.Host(s.URL) }

// Origin is scheme://host of the site URL, without a trailing slash.
func Origin(s *config.Site) string { return endpoint.Origin(s.URL) }

// RelativeEndpoint is ep as a path relative to the site's origin when it
// is on that origin, and ep unchanged otherwise (endpoint.Relative).
func RelativeEndpoint(s *config.Site, ep string) string {
	return endpoint.Relative(Origin(s), ep)
}

// Version is Version, "1.0.0" when empty.
func Version(s *config.Site) string {
	if s.Version == "" {
		return DefaultVersion
	}
	return s.Version
}

// NeedsSession reports whether any capability requires a session.
func NeedsSession(s *config.Site) bool {
	for i := range s.Capabilities {
		if s.Capabilities[i].RequiresSession {
			return true
		}
	}
	return false
}

// SessionEndpoint is the session endpoint path.
func SessionEndpoint(s *config.Site) string {
	if s.Session.Endpoint == "" {
		return SessionEndpointPath
	}
	return s.Session.Endpoint
}

// SessionEndpointURL is the session endpoint as an absolute URL: the
// endpoint path on the site's origin (an absolute URL is kept as it is).
func SessionEndpointURL(s *config.Site) string {
	ep := SessionEndpoint(s)
	if strings.Contains(ep, "://") {
		return ep
	}
	return Origin(s) + ep
}

// SessionTTL is the session TTL.
func SessionTTL(s *config.Site) time.Duration {
	if s.Session.TTL == 0 {
		return DefaultSessionTTL
	}
	return s.Session.TTL
}

// AuditEndpoint is the audit endpoint in its agents.txt form, with the
// ":session_id" placeholder.
func AuditEndpoint(s *config.Site) string {
	if s.Audit.Endpoint == "" {
		return Origin(s) + AuditPath + "/:session_id"
	}
	return s.Audit.Endpoint
}

// RequestsPerMinute is the rate expressed as whole requests per minute,
// rounded up, for formats that only know "N/minute" (v0.1.0). It is 0 for
// a zero or invalid Rate, at least 1 otherwise, and saturates at
// math.MaxInt.
func RequestsPerMinute(r config.Rate) int {
	if r.Requests <= 0 {
		return 0
	}
	switch r.Period() {
	case time.Second:
		if r.Requests > math.MaxInt/60 {
			return math.MaxInt
		}
		return r.Requests * 60
	case time.Minute:
		return r.Requests
	case time.Hour:
		return (r.Requests-1)/60 + 1
	case 24 * time.Hour:
		return (r.Requests-1)/(24*60) + 1
	}
	return 0
}

// Accepts reports whether v accepts method m: an empty Methods accepts
// every method.
func Accepts(v *config.Verification, m string) bool {
	return len(v.Methods) == 0 || slices.Contains(v.Methods, m)
}

// WholeGrants are the entries of an agent policy's Capabilities that grant
// a capability whole: every entry but a single tool's (CAPABILITY/TOOL),
// which agents.txt's Capabilities line cannot carry (draft-car 2.5: IDs
// of [a-z0-9-]). nil stays nil: every capability.
func WholeGrants(caps []string) []string {
	if caps == nil {
		return nil
	}
	whole := make([]string, 0, len(caps))
	for _, id := range caps {
		if !strings.Contains(id, "/") {
			whole = append(whole, id)
		}
	}
	return whole
}

// ToolGrants are the single tools an agent policy's Capabilities grant,
// by capability ID, in the order declared; nil for none.
func ToolGrants(caps []string) map[string][]string {
	var tools map[string][]string
	for _, id := range caps {
		if c, t, ok := strings.Cut(id, "/"); ok {
			if tools == nil {
				tools = map[string][]string{}
			}
			tools[c] = append(tools[c], t)
		}
	}
	return tools
}

// AWPType reports whether t is one of AWP section 8's types: a primitive
// (string, integer, float, boolean, ISO8601, url, and number, which the
// JSON Schema side reads as float), enum[...], object[entity], or array[T]
// of one.
func AWPType(t string) bool {
	t = strings.TrimSpace(t)
	switch t {
	case "string", "integer", "float", "number", "boolean", "ISO8601", "url":
		return true
	}
	if inner, ok := strings.CutPrefix(t, "array["); ok && strings.HasSuffix(inner, "]") {
		return AWPType(inner[:len(inner)-1])
	}
	return (strings.HasPrefix(t, "enum[") || strings.HasPrefix(t, "object[")) && strings.HasSuffix(t, "]")
}
