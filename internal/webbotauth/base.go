package webbotauth

// This file builds RFC 9421 signature bases. It is the one part of RFC 9421
// written here rather than taken from github.com/remitly-oss/httpsig-go
// (v1.2.2), because that library cannot verify what Web Bot Auth sends:
//
//   - It ignores the "key" parameter of a covered field: for
//     `"signature-agent";key="agent2"` it signs the whole field value instead
//     of the dictionary member (RFC 9421 2.1.2). That is the form the
//     current draft requires (draft-ietf-webbotauth-httpsig-protocol-01
//     5.2.1) and the form of half the Web Bot Auth test vectors.
//   - It derives "@authority" of a response as the empty string and ignores
//     "req" (RFC 9421 2.4), so it cannot check a key directory's possession
//     proof, which covers `"@authority";req`.
//   - Its alg check is inverted (it compares only when reading alg failed),
//     its clock cannot be injected, it takes @authority from r.Host
//     unnormalised and reads only the first Signature/Signature-Input field
//     line.
//   - Whenever a Content-Digest field is present, covered or not, it reads
//     and buffers the whole body, unbounded, before looking at the signature.
//     A verifier that unauthenticated requests reach must not.
//
// Everything structured is still parsed and serialised by
// github.com/dunglas/httpsfv; this file only assembles the lines of RFC 9421
// 2.5 from values the caller controls (the authority the server sees, the
// request's method and target, its fields). httpsig-go remains the
// independent implementation the tests check this one against (interop_test.go).

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	sfv "github.com/dunglas/httpsfv"

	"github.com/agentready/agentready/internal/httpsyntax"
)

// requestView is what a signature base may cover of a request: the values
// are the server's view (authority and scheme as the caller establishes
// them), not whatever the request claims.
type requestView struct {
	method    string
	scheme    string // "https" or "http"
	authority string // lowercased host[:port], default port removed
	path      string // escaped path, "/" when empty
	query     string // raw query without "?"
	hasQuery  bool   // a "?" was present, even with an empty query
	header    http.Header
}

// messageView is the message a signature covers: a request, or a response
// with the request that caused it (for the "req" parameter).
type messageView struct {
	req        requestView
	isResponse bool
	status     int
	header     http.Header // the response's fields (responses only)

	// dicts caches fields parsed as Dictionaries (by name, "req:" prefixed
	// for the request's fields of a response), so that signatures covering
	// many members of one large field parse it once.
	dicts map[string]*sfv.Dictionary
}

// maxComponents bounds the components one signature may cover: Web Bot Auth
// signatures cover a handful, and each costs a field lookup.
const maxComponents = 64

func (rv *requestView) target() string {
	if rv.hasQuery {
		return rv.path + "?" + rv.query
	}
	return rv.path
}

// derived returns the value of a derived component (RFC 9421 2.2).
func (m *messageView) derived(name string, req bool) (string, error) {
	if req && !m.isResponse {
		return "", fmt.Errorf("%q;req on a request", name)
	}
	if m.isResponse && !req {
		switch name {
		case "@status":
			return strconv.Itoa(m.status), nil
		case "@authority":
			// RFC 9421 defines @authority for requests only; a directory
			// response that covers it without "req" can only mean the
			// request's, so it resolves to the value of
			// `"@authority";req` (the drafts' form).
			return m.req.authority, nil
		}
		return "", fmt.Errorf("derived component %q is not supported on a response", name)
	}
	rv := &m.req
	switch name {
	case "@method":
		return rv.method, nil
	case "@authority":
		return rv.authority, nil
	case "@scheme":
		return rv.scheme, nil
	case "@target-uri":
		return rv.scheme + "://" + rv.authority + rv.target(), nil
	case "@request-target":
		return rv.target(), nil
	case "@path":
		return rv.path, nil
	case "@query":
		return "?" + rv.query, nil
	}
	// @query-param (its percent-encoding rules are not implemented),
	// @status on a request, and unknown names.
	return "", fmt.Errorf("derived component %q is not supported", name)
}

// field returns the value of a covered HTTP field (RFC 9421 2.1): the field
// lines with surrounding whitespace removed, joined by ", "; with key, the
// serialisation of that member of the field parsed as a Dictionary (2.1.2).
func (m *messageView) field(name string, req bool, key *string) (string, error) {
	h := m.req.header
	if m.isResponse && !req {
		h = m.header
	} else if req && !m.isResponse {
		return "", fmt.Errorf("%q;req on a request", name)
	}
	lines := h.Values(name)
	if len(lines) == 0 {
		return "", fmt.Errorf("covered field %q is absent", name)
	}
	trimmed := make([]string, len(lines))
	for i, l := range lines {
		trimmed[i] = httpsyntax.TrimOWS(l)
	}
	if key == nil {
		return strings.Join(trimmed, ", "), nil
	}
	ck := name
	if req {
		ck = "req:" + name
	}
	dict, cached := m.dicts[ck]
	if !cached {
		var err error
		if dict, err = sfv.UnmarshalDictionary(trimmed); err != nil {
			dict = nil
		}
		if m.dicts == nil {
			m.dicts = make(map[string]*sfv.Dictionary)
		}
		m.dicts[ck] = dict
	}
	if dict == nil {
		return "", fmt.Errorf("covered field %q is not a Dictionary", name)
	}
	member, ok := dict.Get(*key)
	if !ok {
		return "", fmt.Errorf("covered field %q has no member %q", name, *key)
	}
	return marshalMember(member)
}

// marshalMember serialises a Dictionary member (an Item or an Inner List).
func marshalMember(m sfv.Member) (string, error) {
	switch v := m.(type) {
	case sfv.Item:
		return sfv.Marshal(v)
	case sfv.InnerList:
		return sfv.Marshal(v)
	}
	return "", fmt.Errorf("unexpected member type %T", m)
}

// signatureBase builds the RFC 9421 2.5 signature base of the covered
// components listed in input, resolved against m. Every failure is a
// reason to refuse the signature (the caller wraps it in ErrMalformed).
func signatureBase(input sfv.InnerList, m *messageView) ([]byte, error) {
	if len(input.Items) > maxComponents {
		return nil, fmt.Errorf("%d covered components (at most %d)", len(input.Items), maxComponents)
	}
	var b strings.Builder
	seen := make(map[string]bool, len(input.Items))
	for _, it := range input.Items {
		name, ok := it.Value.(string)
		if !ok {
			return nil, errors.New("a covered component is not a String")
		}
		if !validComponentName(name) {
			return nil, fmt.Errorf("invalid component name %q", name)
		}
		id, err := sfv.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("component %q: %v", name, err)
		}
		// RFC 9421 2.5: a component identifier appears at most once.
		if seen[id] {
			return nil, fmt.Errorf("component %s covered twice", id)
		}
		seen[id] = true
		req, key, err := componentParams(it.Params, name)
		if err != nil {
			return nil, err
		}
		var val string
		if name[0] == '@' {
			val, err = m.derived(name, req)
		} else {
			val, err = m.field(name, req, key)
		}
		if err != nil {
			return nil, err
		}
		// A line break in a value would let one component forge others.
		if !safeValue(val) {
			return nil, fmt.Errorf("component %s has a control character", id)
		}
		b.WriteString(id)
		b.WriteString(": ")
		b.WriteString(val)
		b.WriteByte('\n')
	}
	params, err := sfv.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("signature parameters: %v", err)
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(params)
	return []byte(b.String()), nil
}

// componentParams reads the parameters of a component identifier. Only
// "req" (a flag) and, on fields, "key" (a String) are supported; "sf",
// "bs", "tr" and "name" (of @query-param) refuse the signature rather than
// be verified with the wrong value.
func componentParams(p *sfv.Params, name string) (req bool, key *string, err error) {
	if p == nil {
		return false, nil, nil
	}
	for _, pn := range p.Names() {
		v, _ := p.Get(pn)
		switch pn {
		case "req":
			if v != true {
				return false, nil, fmt.Errorf("component %q: req must be a flag", name)
			}
			req = true
		case "key":
			s, ok := v.(string)
			if !ok || name[0] == '@' {
				return false, nil, fmt.Errorf("component %q: invalid key parameter", name)
			}
			key = &s
		default:
			return false, nil, fmt.Errorf("component %q: parameter %q is not supported", name, pn)
		}
	}
	return req, key, nil
}

// validComponentName accepts a lowercase field name (an RFC 9110 token) or a
// derived component name ("@" and lowercase letters or "-").
func validComponentName(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '@' {
		if len(s) == 1 {
			return false
		}
		for i := 1; i < len(s); i++ {
			c := s[i]
			if (c < 'a' || c > 'z') && c != '-' {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// safeValue reports whether v has no control character other than HTAB.
func safeValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
