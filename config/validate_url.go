package config

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/format/linetext"
	"github.com/agentready/agentready/internal/httpsyntax"
)

// schemes lists the schemes a URL field accepts: secure ones always, the
// plain ones (http, ws) only for loopback hosts or with Formats.AllowHTTP.
type schemes struct {
	secure, plain []string
}

var (
	webSchemes       = schemes{secure: []string{"https"}, plain: []string{"http"}}
	webOrWSSchemes   = schemes{secure: []string{"https", "wss"}, plain: []string{"http", "ws"}}
	wssSchemes       = schemes{secure: []string{"wss"}, plain: []string{"ws"}}
	grpcSchemes      = schemes{secure: []string{"grpcs", "grpc", "https"}, plain: []string{"http"}}
	transportSchemes = schemes{secure: []string{"https", "wss", "grpcs", "grpc"}, plain: []string{"http", "ws"}}
)

// webURL checks an absolute URL field: it parses, has a host, uses an
// accepted scheme, and carries no credential (draft-car 5.3). It returns
// the parsed URL, or nil after reporting a problem that makes it unusable.
// Empty values are not checked: presence is a separate rule.
func (r *report) webURL(field, value string, sc schemes) *url.URL {
	if value == "" {
		return nil
	}
	u, err := url.Parse(value)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		r.addf(field, "", "is not a URL: %v", err)
		return nil
	}
	if !u.IsAbs() || u.Host == "" || u.Hostname() == "" {
		r.addf(field, "", "%q is not an absolute URL with a scheme and a host", displayURL(u))
		return nil
	}
	// url.Parse decodes a percent-encoded host, and the documents write
	// the host decoded (as the default Agents-JSON and audit URLs).
	if c, p := linetext.Find(u.Host, false); p != linetext.OK {
		r.addf(field, "", "has a host that decodes to %s", linetext.Describe(c, p))
		return nil
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n > 65535 {
			r.addf(field, "", "%q has the invalid port %q", displayURL(u), p)
		}
	}
	switch {
	case contains(sc.secure, u.Scheme):
	case contains(sc.plain, u.Scheme):
		if !r.f.AllowHTTP && !httpsyntax.IsLoopbackHost(u.Hostname()) {
			r.addf(field, "", "%q must use %s: plain %s is accepted only for localhost, 127.0.0.0/8 and [::1]"+alt(", or with Formats.AllowHTTP (agentready.Documents.AllowHTTP; ", " (")+"draft-car 2.1 and agents.md 5 require HTTPS in production)",
				displayURL(u), orList(sc.secure), u.Scheme)
		}
	default:
		r.addf(field, "", "%q has the scheme %q; want %s", displayURL(u), u.Scheme, orList(sc.secure))
		r.urlCredentials(field, u)
		return nil
	}
	r.urlCredentials(field, u)
	return u
}

// urlOrPath checks a field that holds either an absolute URL or a path on
// the site (AWP poll, refresh and status endpoints).
func (r *report) urlOrPath(field, value, format, ref string) {
	if strings.HasPrefix(value, "/") {
		r.path(field, value, format, ref)
		return
	}
	r.webURL(field, value, webSchemes)
}

// path checks a path on the site: it starts with one "/", parses, and has
// no query or fragment. ref names the format's field, for the message.
func (r *report) path(field, value, format, ref string) {
	if value == "" {
		return
	}
	if !strings.HasPrefix(value, "/") || strings.HasPrefix(value, "//") {
		r.addf(field, format, "%q must be a path starting with a single \"/\" (%s)", value, ref)
		return
	}
	u, err := url.Parse(value)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		r.addf(field, format, "is not a valid path (%s): %v", ref, err)
		return
	}
	if strings.ContainsAny(value, " \t") {
		r.addf(field, format, "%q contains whitespace (%s)", value, ref)
	}
	if u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(value, "?#") {
		r.addf(field, format, "%q must be a plain path, without a query or fragment (%s)", displayURL(u), ref)
	}
	if kind := urlCredentialKind(u.EscapedPath()); kind != "" {
		r.addf(field, "", "has %s in its path; %s", kind, credentialRule)
	}
}

// displayURL renders u for an error message without its user
// information, the values of credential-like query parameters and
// fragment members, or anything urlCredentialKind finds: messages end up
// in logs.
func displayURL(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q := c.Query()
		for k := range q {
			if credentialParam(k) {
				q[k] = []string{"REDACTED"}
			}
		}
		c.RawQuery = q.Encode()
	}
	if c.Fragment != "" && len(credentialMembers(c.EscapedFragment(), true)) > 0 {
		c.Fragment, c.RawFragment = "REDACTED", ""
	}
	out := c.String()
	for urlCredentialKind(out) != "" {
		redacted := redactKeys(out)
		if redacted == out { // only its percent-decoded form holds one
			return "(a URL holding a credential)"
		}
		out = redacted
	}
	return out
}

// redactKeys replaces in s the JWTs, AWS key IDs and prefixed keys that
// urlCredentialKind finds as written.
func redactKeys(s string) string {
	s = jwtPattern.ReplaceAllString(s, "REDACTED")
	s = awsKeyPattern.ReplaceAllString(s, "REDACTED")
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
		if urlCredentialKind(w) != "" {
			w = "REDACTED"
		}
		b.WriteString(w)
		i = j
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// orList joins alternatives as "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// agentScheme matches the schemes of agent:// URIs (agent:// 4.2:
// "agent" ["+" protocol], protocol = ALPHA *( ALPHA / DIGIT / "-" )).
var agentScheme = regexp.MustCompile(`^agent(\+[A-Za-z][A-Za-z0-9-]*)?$`)

// agentURI is a parsed agent:// URI. url.Parse cannot be used: it rejects
// the percent-encoded colons of DID authorities (agent:// 4.3).
type agentURI struct {
	scheme, authority, path string
}

// parseAgentURI splits an agent:// URI (agent:// 4.2) into its parts.
func parseAgentURI(s string) (agentURI, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return agentURI{}, errors.New(`is not an agent:// URI: it lacks "://"`)
	}
	if !agentScheme.MatchString(scheme) {
		return agentURI{}, errors.New(`has the scheme "` + scheme + `"; agent:// URIs use agent or agent+<protocol> (agent:// 4.2)`)
	}
	for i := 0; i < len(s); i++ {
		if !uriChar(s[i]) {
			return agentURI{}, errors.New("contains " + strconv.QuoteRune(rune(s[i])) + ", which is not allowed in an agent:// URI (RFC 3986)")
		}
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	auth, path, _ := strings.Cut(rest, "/")
	if auth == "" {
		return agentURI{}, errors.New("has an empty authority (agent:// 4.2: the authority MUST NOT be empty)")
	}
	if strings.Contains(auth, "@") {
		return agentURI{}, errors.New("is an agent:// URI with user information; " + credentialRule)
	}
	return agentURI{scheme: strings.ToLower(scheme), authority: strings.ToLower(auth), path: path}, nil
}

// uriChar reports whether c may appear in a URI (RFC 3986 2: unreserved,
// reserved and "%").
func uriChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}

// agentURIField checks a field that holds an agent:// URI.
func (r *report) agentURIField(field, value string) (agentURI, bool) {
	if value == "" {
		return agentURI{}, false
	}
	u, err := parseAgentURI(value)
	if err != nil {
		r.add(field, fmtAgentURI, err.Error())
		return agentURI{}, false
	}
	rest, fragment, _ := strings.Cut(value, "#")
	_, query, _ := strings.Cut(rest, "?")
	for _, k := range credentialMembers(query, false) {
		r.addf(field, "", "has the query parameter %q, which carries a credential; %s", k, credentialRule)
	}
	for _, k := range credentialMembers(fragment, true) {
		r.addf(field, "", "has the fragment member %q, which carries a credential; %s", k, credentialRule)
	}
	if kind := urlCredentialKind(value); kind != "" {
		r.addf(field, "", "has %s; %s", kind, credentialRule)
	}
	return u, true
}

// transportURL checks the default transport endpoint of an agent://
// descriptor: any transport URL, or an agent+<protocol>:// URI.
func (r *report) transportURL(field, value string) {
	if strings.HasPrefix(strings.ToLower(value), "agent") {
		if scheme, _, ok := strings.Cut(value, "://"); ok && agentScheme.MatchString(scheme) {
			r.agentURIField(field, value)
			return
		}
	}
	r.webURL(field, value, transportSchemes)
}
