package fieldcheck

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/format/linetext"
	"github.com/agentready/agentready/internal/httpsyntax"
)

// Schemes lists the schemes a URL field accepts: secure ones always, the
// plain ones (http, ws) only for loopback hosts or with Formats.AllowHTTP.
type Schemes struct {
	secure, plain []string
}

// The schemes of URL fields: web pages and APIs, WebSocket endpoints,
// gRPC services and agent:// transports.
var (
	WebSchemes       = Schemes{secure: []string{"https"}, plain: []string{"http"}}
	WebOrWSSchemes   = Schemes{secure: []string{"https", "wss"}, plain: []string{"http", "ws"}}
	WSSSchemes       = Schemes{secure: []string{"wss"}, plain: []string{"ws"}}
	GRPCSchemes      = Schemes{secure: []string{"grpcs", "grpc", "https"}, plain: []string{"http"}}
	TransportSchemes = Schemes{secure: []string{"https", "wss", "grpcs", "grpc"}, plain: []string{"http", "ws"}}
)

// WebURL checks an absolute URL field: it parses, has a host, uses an
// accepted scheme, and carries no credential (draft-car 5.3). It returns
// the parsed URL, or nil after reporting a problem that makes it unusable.
// Empty values are not checked: presence is a separate rule.
func (r *Report) WebURL(field, value string, sc Schemes) *url.URL {
	if value == "" {
		return nil
	}
	u, err := url.Parse(value)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		r.Addf(field, "", "is not a URL: %v", err)
		return nil
	}
	if !u.IsAbs() || u.Host == "" || u.Hostname() == "" {
		r.Addf(field, "", "%q is not an absolute URL with a scheme and a host", DisplayURL(u))
		return nil
	}
	// url.Parse decodes a percent-encoded host, and the documents write
	// the host decoded (as the default Agents-JSON and audit URLs).
	if c, p := linetext.Find(u.Host, false); p != linetext.OK {
		r.Addf(field, "", "has a host that decodes to %s", linetext.Describe(c, p))
		return nil
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n > 65535 {
			r.Addf(field, "", "%q has the invalid port %q", DisplayURL(u), p)
		}
	}
	switch {
	case slices.Contains(sc.secure, u.Scheme):
	case slices.Contains(sc.plain, u.Scheme):
		if !r.AllowHTTP && !httpsyntax.IsLoopbackHost(u.Hostname()) {
			r.Addf(field, "", "%q must use %s: plain %s is accepted only for localhost, 127.0.0.0/8 and [::1]"+Alt(", or with Formats.AllowHTTP (agentready.Documents.AllowHTTP; ", " (")+"draft-car 2.1 and agents.md 5 require HTTPS in production)",
				DisplayURL(u), OrList(sc.secure), u.Scheme)
		}
	default:
		r.Addf(field, "", "%q has the scheme %q; want %s", DisplayURL(u), u.Scheme, OrList(sc.secure))
		r.URLCredentials(field, u)
		return nil
	}
	r.URLCredentials(field, u)
	return u
}

// URLOrPath checks a field that holds either an absolute URL or a path on
// the site (AWP poll, refresh and status endpoints).
func (r *Report) URLOrPath(field, value, format, ref string) {
	if strings.HasPrefix(value, "/") {
		r.Path(field, value, format, ref)
		return
	}
	r.WebURL(field, value, WebSchemes)
}

// Path checks a path on the site: it starts with one "/", parses, and has
// no query or fragment. ref names the format's field, for the message.
func (r *Report) Path(field, value, format, ref string) {
	if value == "" {
		return
	}
	if !strings.HasPrefix(value, "/") || strings.HasPrefix(value, "//") {
		r.Addf(field, format, "%q must be a path starting with a single \"/\" (%s)", value, ref)
		return
	}
	u, err := url.Parse(value)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		r.Addf(field, format, "is not a valid path (%s): %v", ref, err)
		return
	}
	if strings.ContainsAny(value, " \t") {
		r.Addf(field, format, "%q contains whitespace (%s)", value, ref)
	}
	if u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(value, "?#") {
		r.Addf(field, format, "%q must be a plain path, without a query or fragment (%s)", DisplayURL(u), ref)
	}
	if kind := URLCredentialKind(u.EscapedPath()); kind != "" {
		r.Addf(field, "", "has %s in its path; %s", kind, CredentialRule)
	}
}

// DisplayURL renders u for an error message without its user
// information, the values of credential-like query parameters and
// fragment members, or anything URLCredentialKind finds: messages end up
// in logs.
func DisplayURL(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			if CredentialParam(k) {
				q[k] = []string{"REDACTED"}
			}
		}
		c.RawQuery = q.Encode()
	}
	if c.Fragment != "" && len(CredentialMembers(c.EscapedFragment(), true)) > 0 {
		c.Fragment, c.RawFragment = "REDACTED", ""
	}
	out := c.String()
	for URLCredentialKind(out) != "" {
		redacted := redactKeys(out)
		if redacted == out { // only its percent-decoded form holds one
			return "(a URL holding a credential)"
		}
		out = redacted
	}
	return out
}

// redactKeys replaces in s the JWTs, AWS key IDs and prefixed keys that
// URLCredentialKind finds as written.
func redactKeys(s string) string {
	s = JWTPattern.ReplaceAllString(s, "REDACTED")
	s = AWSKeyPattern.ReplaceAllString(s, "REDACTED")
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && urlKeyChar(rune(s[j])) {
			j++
		}
		if j == i {
			b.WriteByte(s[i])
			i++
			continue
		}
		w := s[i:j]
		if URLCredentialKind(w) != "" {
			w = "REDACTED"
		}
		b.WriteString(w)
		i = j
	}
	return b.String()
}
