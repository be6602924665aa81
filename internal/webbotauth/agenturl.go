package webbotauth

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// A Signature-Agent member's value is the URL of the agent's JWK Set
// (draft-ietf-webbotauth-httpsig-protocol-01 4.1, 5.2.1, 5.5): an absolute
// https URI, fetched as it is and never rewritten. The URL is the agent's
// identifier, compared after RFC 3986 6.2.2 (syntax-based) and 6.2.3
// (scheme-based) normalisation, with its query discarded (5.5: "otherwise
// one key set would yield an identifier per spelling").
//
// One form is read differently: a bare origin ("https://chatgpt.com", with
// or without a "/" path). Strictly it names the JWK Set at "/" (6.2.3 makes
// an empty path "/"), which no agent publishes; it is the form of the
// earlier revisions (draft-meunier-webbotauth-httpsig-protocol-01 5.5: "A
// directory value is an origin", resolved at the well-known URI of 8.1),
// and deployed agents still send it. It keeps resolving at
// /.well-known/http-message-signatures-directory. The well-known URL
// spelled out is the same identifier (4.5), and AgentURL gives both as the
// origin, so that a site trusting "https://chatgpt.com" and a log line
// naming it agree whichever form the agent sends.

// AgentURL returns the canonical form of a Signature-Agent URL, the key a
// KeyResolver and the trusted directories are matched on: the origin
// ("https://agent.example") for a bare origin or the well-known URI of
// 8.1, otherwise the normalised URL without its query
// ("https://agent.example/keys/jwks.json"). The scheme must be https or
// http (the caller decides whether http is acceptable); userinfo, a
// fragment and characters outside RFC 3986 are errors.
func AgentURL(s string) (string, error) {
	u, err := parseAgentURL(s)
	if err != nil {
		return "", err
	}
	return u.canonical(), nil
}

// agentURL is a parsed, normalised Signature-Agent URL.
type agentURL struct {
	scheme   string // "https" or "http"
	host     string // lowercased host[:port], default port removed
	path     string // normalised path, "/" at least
	rawPath  string // the path as sent ("" when none)
	query    string // the raw query, without "?" ("" when none)
	hasQuery bool
}

// wellKnown reports whether u names the key directory at the well-known
// URI, or is a bare origin, which resolves there.
func (u agentURL) wellKnown() bool { return u.path == "/" || u.path == DirectoryPath }

// origin is scheme://host[:port].
func (u agentURL) origin() string { return u.scheme + "://" + u.host }

// canonical is the identifier: the origin for the well-known directory,
// else the normalised URL without its query.
func (u agentURL) canonical() string {
	if u.wellKnown() {
		return u.origin()
	}
	return u.origin() + u.path
}

// fetchURL is what is fetched: the well-known URI of a bare origin, else
// the URL with its query.
func (u agentURL) fetchURL() string {
	if u.wellKnown() {
		return u.origin() + DirectoryPath
	}
	if u.hasQuery {
		return u.origin() + u.path + "?" + u.query
	}
	return u.origin() + u.path
}

// parseAgentURL parses an absolute http(s) URI (RFC 3986 4.3) and
// normalises it (6.2.2, 6.2.3). It is written out rather than left to
// net/url, which accepts characters RFC 3986 does not and keeps
// percent-encodings of unreserved characters as they came.
func parseAgentURL(s string) (agentURL, error) {
	var u agentURL
	var err error
	if s == "" || len(s) > 2048 {
		return u, errors.New("not a URL")
	}
	for i := 0; i < len(s); i++ {
		if !httpsyntax.URIChar(s[i]) {
			return u, fmt.Errorf("character %q is not allowed in a URI", s[i])
		}
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return u, errors.New("not an absolute http(s) URL")
	}
	u.scheme = strings.ToLower(scheme)
	if u.scheme != "https" && u.scheme != "http" {
		return u, fmt.Errorf("scheme %q is not https", scheme)
	}
	if strings.IndexByte(rest, '#') >= 0 {
		return u, errors.New("a fragment is not allowed (RFC 3986 4.3)")
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, u.query, u.hasQuery = rest[:i], rest[i+1:], true
		if !validPercent(u.query) {
			return u, errors.New("invalid percent-encoding in the query")
		}
	}
	authority, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if strings.IndexByte(authority, '@') >= 0 {
		return u, errors.New("userinfo is not allowed")
	}
	if u.host, err = normalizeHostPort(authority, u.scheme); err != nil {
		return u, err
	}
	u.rawPath = path
	if u.path, err = normalizePath(path); err != nil {
		return u, err
	}
	return u, nil
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func validPercent(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) {
				return false
			}
			if _, ok := unhex(s[i+1]); !ok {
				return false
			}
			if _, ok := unhex(s[i+2]); !ok {
				return false
			}
			i += 2
		}
	}
	return true
}

// normalizePath applies RFC 3986 6.2.2.2 (percent-encoded unreserved
// characters decoded, hex digits uppercased) and 6.2.2.3 (dot segments
// removed, 5.2.4), and 6.2.3 (an empty path is "/").
func normalizePath(p string) (string, error) {
	if p == "" {
		return "/", nil
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(p) {
			return "", errors.New("invalid percent-encoding in the path")
		}
		hi, ok1 := unhex(p[i+1])
		lo, ok2 := unhex(p[i+2])
		if !ok1 || !ok2 {
			return "", errors.New("invalid percent-encoding in the path")
		}
		if d := hi<<4 | lo; unreserved(d) {
			b.WriteByte(d)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	return removeDotSegments(b.String()), nil
}

// removeDotSegments is RFC 3986 5.2.4 for an absolute path.
func removeDotSegments(in string) string {
	if !strings.Contains(in, "/.") {
		return in
	}
	var out []string
	segs := strings.Split(in[1:], "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// CheckAuthority reports whether a is a host[:port] a request's @authority
// can be compared with (RFC 9421 2.2.3): a host name or an IP literal, an
// optional port from 1 to 65535, nothing else.
func CheckAuthority(a string) error {
	if _, err := normalizeHostPort(a, ""); err != nil || !safeValue(a) {
		return fmt.Errorf("%q is not host[:port]", a)
	}
	return nil
}

// normalizeHostPort lowercases host[:port] and removes the scheme's default
// port. The host must be non-empty; the port, when present, numeric.
func normalizeHostPort(hostport, scheme string) (string, error) {
	hostport = strings.ToLower(hostport)
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.HasSuffix(hostport, "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	if host == "" || strings.ContainsAny(host, "/?#@%") {
		return "", errors.New("invalid host")
	}
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") || net.ParseIP(host[1:len(host)-1]) == nil {
			return "", errors.New("invalid IPv6 literal")
		}
	} else if strings.ContainsAny(host, "[]:") {
		return "", errors.New("invalid host")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' || port[0] == '+' {
			return "", errors.New("invalid port")
		}
		if (scheme == "https" && n == 443) || (scheme == "http" && n == 80) {
			port = ""
		}
	}
	if port == "" {
		return host, nil
	}
	return host + ":" + port, nil
}
