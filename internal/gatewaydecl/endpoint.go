package gatewaydecl

import (
	"fmt"
	"net/textproto"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/endpoint"
	"github.com/agentready/agentready/internal/resolve"
)

// segment is one segment of an endpoint's path: literal text as written
// (already in its escaped form), or the name of the path param filling it.
type segment struct {
	text  string
	param string
}

// parseEndpoint reads c's endpoint into the tool: its origin, its path as
// segments and its own query.
//
// A path param fills a segment that is a whole "{name}", as the enforcer
// routes a templated endpoint (internal/policy, canonicalEndpoint): one
// non-empty segment. A brace inside a segment ("/files/{name}.json") is
// literal there, so it is here. A path param the endpoint does not
// template, and a template no path param fills, are errors: the first
// could never be sent, the second would send the braces.
func (t *Tool) parseEndpoint(c *config.Capability) error {
	t.origin = endpoint.Origin(c.Endpoint)
	if !strings.Contains(t.origin, "://") {
		return fmt.Errorf("%q has the endpoint %q, which is not an absolute URL", c.ID, c.Endpoint)
	}
	path, query, _ := strings.Cut(endpoint.Path(c.Endpoint), "?")
	t.query = query
	used := map[string]bool{}
	var errs []string
	for i, seg := range strings.Split(path, "/") {
		if i == 0 {
			continue // the empty text before the leading "/"
		}
		if len(seg) >= 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
			name := seg[1 : len(seg)-1]
			if a := t.args[name]; a == nil || a.In != config.InPath {
				errs = append(errs, fmt.Sprintf("the endpoint %q templates {%s}, which no path param of %q fills", c.Endpoint, name, c.ID))
			}
			used[name] = true
			t.path = append(t.path, segment{param: name})
			continue
		}
		t.path = append(t.path, segment{text: seg})
	}
	for _, a := range t.Args {
		if a.In == config.InPath && !used[a.Name] {
			errs = append(errs, fmt.Sprintf("path param %q of %q is not a whole segment {%s} of its endpoint %q", a.Name, c.ID, a.Name, c.Endpoint))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// forbiddenHeaders are the header fields no argument may set, by canonical
// name: the hop-by-hop fields (RFC 9110 7.6.1) and those a proxy or the
// server reads as framing, routing, identity, credentials or client
// address. A header param named so is refused at New, so that a model's
// argument never carries a credential, another agent's identity (User-Agent,
// a Web Bot Auth signature), a session, a method override that routes the
// call elsewhere (docs/design.md: the decision takes every override's
// reading) or a forwarded address.
var forbiddenHeaders = map[string]string{
	"Connection": "hop-by-hop", "Keep-Alive": "hop-by-hop", "Proxy-Connection": "hop-by-hop",
	"Te": "hop-by-hop", "Trailer": "hop-by-hop", "Transfer-Encoding": "hop-by-hop",
	"Upgrade": "hop-by-hop", "Proxy-Authenticate": "hop-by-hop",
	"Host": "routing", "Content-Length": "framing", "Content-Type": "framing (a call sets it)",
	"Content-Encoding": "framing", "Expect": "framing",
	"Authorization": "a credential", "Proxy-Authorization": "a credential", "Cookie": "a credential",
	"X-Agent-Session": "a v0.1.0 session", "User-Agent": "the agent's identity",
	"Signature": "a Web Bot Auth proof", "Signature-Input": "a Web Bot Auth proof", "Signature-Agent": "a Web Bot Auth proof",
	"Forwarded": "a forwarded address", "X-Real-Ip": "a forwarded address",
	"True-Client-Ip": "a forwarded address", "Cf-Connecting-Ip": "a forwarded address",
	"X-Original-Url": "routing", "X-Rewrite-Url": "routing",
	"X-Http-Method-Override": "a method override", "X-Http-Method": "a method override", "X-Method-Override": "a method override",
	"Mcp-Session-Id": "an MCP session", "Mcp-Method": "MCP routing", "Mcp-Name": "MCP routing",
}

// checkArg refuses a header param no call may send (forbiddenHeaders, any
// Agentready-*, X-Forwarded-* or Proxy-* field, and the header an api-key
// credential of the capability travels in) and a param whose type has no
// encoding where it goes (an array or object in the path).
func checkArg(c *config.Capability, a *Arg) error {
	switch a.In {
	case config.InHeader:
		if !token(a.Name) {
			return fmt.Errorf("header param %q of %q is not an HTTP field name", a.Name, c.ID)
		}
		name := textproto.CanonicalMIMEHeaderKey(a.Name)
		why, bad := forbiddenHeaders[name]
		switch {
		case bad:
		case strings.HasPrefix(name, "Agentready-"):
			why, bad = "agentready's own", true
		case strings.HasPrefix(name, "X-Forwarded-"):
			why, bad = "a forwarded field", true
		case strings.HasPrefix(name, "Proxy-"):
			why, bad = "a proxy's", true
		case resolve.AuthType(c.Auth) == config.AuthAPIKey && name == textproto.CanonicalMIMEHeaderKey(resolve.Header(c.Auth)):
			why, bad = "the api-key credential's", true
		}
		if bad {
			return fmt.Errorf("header param %q of %q names %s, a field (%s) no tool argument may set: rename or drop the param", a.Name, c.ID, name, why)
		}
	case config.InPath:
		if a.Type == config.TypeArray || a.Type == config.TypeObject {
			return fmt.Errorf("path param %q of %q is of type %s, which fills no single path segment", a.Name, c.ID, a.Type)
		}
	}
	return nil
}

// token reports whether s is an RFC 9110 5.6.2 token, as a field name is.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}
