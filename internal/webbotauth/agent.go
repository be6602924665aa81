package webbotauth

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	sfv "github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// agentMember is one Signature-Agent member.
type agentMember struct {
	name string // Dictionary member name; "" for the legacy sf-string form
	uri  string // the member's String value
	typ  string // its "type" parameter; "directory" when absent
}

// agentField is a parsed Signature-Agent field
// (draft-meunier-webbotauth-httpsig-protocol 5.2.1).
type agentField struct {
	present bool
	legacy  bool          // the field is a bare sf-string (the earlier form)
	members []agentMember // in field order; one unnamed member when legacy
	err     error         // why the field does not parse (wraps ErrMalformed)
}

// parseSignatureAgent parses every line of a Signature-Agent field. The
// current form is an SF Dictionary whose members are Strings holding a URI,
// each with an optional Token parameter "type"; the legacy form is a bare
// String Item. They differ at the first character: a String starts with a
// double quote, a Dictionary key never does (5.2.1). A member that is not a
// String, or a "type" that is not a Token, makes the whole field malformed.
func parseSignatureAgent(lines []string) agentField {
	if len(lines) == 0 {
		return agentField{}
	}
	f := agentField{present: true}
	joined := make([]string, len(lines))
	for i, l := range lines {
		joined[i] = httpsyntax.TrimOWS(l)
	}
	if strings.HasPrefix(joined[0], `"`) {
		it, err := sfv.UnmarshalItem(joined)
		if err != nil {
			f.err = fmt.Errorf("%w: Signature-Agent: %v", ErrMalformed, err)
			return f
		}
		m, err := agentFromItem("", it)
		if err != nil {
			f.err = err
			return f
		}
		f.legacy = true
		f.members = []agentMember{m}
		return f
	}
	d, err := sfv.UnmarshalDictionary(joined)
	if err != nil {
		f.err = fmt.Errorf("%w: Signature-Agent: %v", ErrMalformed, err)
		return f
	}
	if len(d.Names()) == 0 {
		f.err = fmt.Errorf("%w: Signature-Agent is empty", ErrMalformed)
		return f
	}
	for _, name := range d.Names() {
		v, _ := d.Get(name)
		it, ok := v.(sfv.Item)
		if !ok {
			return agentField{present: true, err: fmt.Errorf("%w: Signature-Agent member %q is an Inner List", ErrMalformed, name)}
		}
		m, err := agentFromItem(name, it)
		if err != nil {
			return agentField{present: true, err: err}
		}
		f.members = append(f.members, m)
	}
	return f
}

func agentFromItem(name string, it sfv.Item) (agentMember, error) {
	s, ok := it.Value.(string)
	if !ok {
		return agentMember{}, fmt.Errorf("%w: Signature-Agent member %q is not a String", ErrMalformed, name)
	}
	m := agentMember{name: name, uri: s, typ: "directory"}
	if it.Params != nil {
		if t, ok := it.Params.Get("type"); ok {
			tok, ok := t.(sfv.Token)
			if !ok {
				return agentMember{}, fmt.Errorf("%w: Signature-Agent member %q: type is not a Token", ErrMalformed, name)
			}
			m.typ = string(tok)
		}
	}
	return m, nil
}

func (f *agentField) member(name string) (agentMember, bool) {
	for _, m := range f.members {
		if m.name == name {
			return m, true
		}
	}
	return agentMember{}, false
}

// boundAgent returns the Signature-Agent member the candidate's signature
// covers, and so is bound to; ok is false when no Signature-Agent was sent.
//
// A signature binds a member by covering `"signature-agent";key="k"` (the
// member's name need not be the label: labels are not signed and may be
// changed in transit, 6.6.1) or by covering the whole field. With several
// keyed components the one named by the label is the signer's own (5.2.2);
// with the whole field covered, a legacy string is the agent, and so is a
// Dictionary's only member or else its member named by the label (5.2.1).
// Signature-Agent sent but not covered, covered but not sent, or a binding
// that stays ambiguous is ErrMalformed: "a verifier MUST NOT attribute a
// signature to a member that signature does not cover" (5.2.2).
func (c *candidate) boundAgent(f *agentField) (agentMember, bool, error) {
	var keys []string
	whole := false
	for _, it := range c.input.Items {
		if s, ok := it.Value.(string); !ok || s != "signature-agent" {
			continue
		}
		if it.Params != nil {
			if k, ok := it.Params.Get("key"); ok {
				if ks, ok := k.(string); ok {
					keys = append(keys, ks)
				}
				continue
			}
		}
		whole = true
	}
	if !f.present {
		if whole || len(keys) > 0 {
			return agentMember{}, false, fmt.Errorf("%w: %s covers Signature-Agent but none was sent", ErrMalformed, c.label)
		}
		return agentMember{}, false, nil
	}
	if f.err != nil {
		return agentMember{}, false, f.err
	}
	if !whole && len(keys) == 0 {
		return agentMember{}, false, fmt.Errorf("%w: Signature-Agent is sent but %s does not cover it", ErrMalformed, c.label)
	}
	if len(keys) > 0 {
		if f.legacy {
			return agentMember{}, false, fmt.Errorf("%w: %s covers a Signature-Agent member but the field is a legacy string", ErrMalformed, c.label)
		}
		key := keys[0]
		if len(keys) > 1 {
			key = ""
			for _, k := range keys {
				if k == c.label {
					key = k
				}
			}
			if key == "" {
				return agentMember{}, false, fmt.Errorf("%w: %s covers several Signature-Agent members, none named by its label", ErrMalformed, c.label)
			}
		}
		m, ok := f.member(key)
		if !ok {
			return agentMember{}, false, fmt.Errorf("%w: Signature-Agent has no member %q", ErrMalformed, key)
		}
		return m, true, nil
	}
	if f.legacy || len(f.members) == 1 {
		return f.members[0], true, nil
	}
	if m, ok := f.member(c.label); ok {
		return m, true, nil
	}
	return agentMember{}, false, fmt.Errorf("%w: Signature-Agent has several members and none is named %q", ErrMalformed, c.label)
}

// NormalizeOrigin checks that s is the ASCII serialisation of an http or
// https origin (RFC 6454 6.2; a "/" path is tolerated, as
// draft-meunier-webbotauth-httpsig-protocol 5.5 allows) and returns it
// normalised: scheme and host lowercased, default port and "/" removed.
// Userinfo, a query, a fragment or any other path is an error.
func NormalizeOrigin(s string) (string, error) {
	if s == "" || !safeValue(s) || strings.ContainsAny(s, " \t\\") {
		return "", errors.New("not an origin")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", errors.New("not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", fmt.Errorf("scheme %q is not https", u.Scheme)
	}
	if u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return "", errors.New("an origin has no userinfo, query or fragment")
	}
	if u.Path != "" && u.Path != "/" || u.RawPath != "" {
		return "", errors.New("an origin has no path")
	}
	host, err := normalizeHostPort(u.Host, scheme)
	if err != nil {
		return "", err
	}
	return scheme + "://" + host, nil
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
