// Package problem writes RFC 9457 problem details, the error bodies of
// every response agentready refuses (enforce) or fails (the session and
// audit endpoints), with the headers that go with them.
package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// ContentType is the media type of RFC 9457 problem details.
const ContentType = "application/problem+json"

// Problem types agentready uses. QuotaExceeded is registered by
// draft-ietf-httpapi-ratelimit-headers-11 section 5.1, whose extension
// member "violated-policies" lists the names of the exceeded policies
// (ExtViolatedPolicies).
const (
	QuotaExceeded       = "https://iana.org/assignments/http-problem-types#quota-exceeded"
	ExtViolatedPolicies = "violated-policies"
)

// Problem is an RFC 9457 problem details object.
type Problem struct {
	// Type is a URI reference identifying the problem type (section 3.1.1).
	// Empty means "about:blank": the problem is just the status code.
	Type string
	// Title is a short summary of the problem type (3.1.4). Empty with
	// about:blank means the status code's reason phrase, as 4.2.1 advises.
	Title string
	// Status is the HTTP status code (3.1.2), used for the response too.
	// A value outside 100-599 is sent as 500.
	Status int
	// Detail explains this occurrence (3.1.3).
	Detail string
	// Instance is a URI reference for this occurrence (3.1.5).
	Instance string
	// Extra holds extension members (3.2), rendered after the standard
	// members with keys sorted. A key naming a standard member is ignored:
	// it must not change what the standard members say.
	Extra map[string]any
}

var problemMembers = []string{"detail", "instance", "status", "title", "type"}

// MarshalJSON renders p deterministically: type, title, status, detail,
// instance, then the extensions sorted by key. Empty optional members are
// omitted. Strings are escaped as encoding/json does, including '<', '>'
// and '&', so a body shown by a careless client cannot become markup.
func (p Problem) MarshalJSON() ([]byte, error) {
	status := p.status()
	typ, title := p.Type, p.Title
	if typ == "" {
		typ = "about:blank"
	}
	if title == "" && typ == "about:blank" {
		title = http.StatusText(status)
	}
	var buf bytes.Buffer
	member := func(key string, v any) error {
		if buf.Len() > 1 { // past the '{'
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(key) // a string always encodes
		val, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("problem member %q: %w", key, err)
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(val)
		return nil
	}
	buf.WriteByte('{')
	for _, m := range [...]struct {
		k  string
		v  any
		ok bool
	}{{"type", typ, true}, {"title", title, title != ""}, {"status", status, true}, {"detail", p.Detail, p.Detail != ""}, {"instance", p.Instance, p.Instance != ""}} {
		if m.ok {
			if err := member(m.k, m.v); err != nil {
				return nil, err
			}
		}
	}
	keys := make([]string, 0, len(p.Extra))
	for k := range p.Extra {
		if _, std := slices.BinarySearch(problemMembers, k); !std {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := member(k, p.Extra[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (p Problem) status() int {
	if p.Status < 100 || p.Status > 599 {
		return http.StatusInternalServerError
	}
	return p.Status
}

// Write writes p as an application/problem+json response with status
// p.Status. Headers the caller set before (Retry-After, RateLimit, Link) are
// kept. If an extension member cannot be encoded, the problem is still sent
// without its extensions, so the client gets the right status and standard
// members, and the encoding error is returned for the caller to log; a
// write error is returned too.
func Write(w http.ResponseWriter, p Problem) error {
	body, err := p.MarshalJSON()
	if err != nil {
		bare := p
		bare.Extra = nil
		var err2 error
		if body, err2 = bare.MarshalJSON(); err2 != nil {
			return errors.Join(err, err2) // unreachable: standard members are strings and an int
		}
	}
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.status())
	if _, werr := w.Write(body); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// DescribedBy returns a Link header value pointing agents at the document
// that describes the rules (RFC 8288; relation "describedby" from POWDER):
//
//	<https://site.example/.well-known/agents.txt>; rel="describedby"
//
// It is meant to be computed once. A target that is empty or holds
// characters that cannot appear in a URI reference between "<" and ">"
// (controls, space, '<', '>', '"', non-ASCII) is an error.
func DescribedBy(target string) (string, error) {
	if target == "" {
		return "", errors.New("problem: empty Link target")
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '"' {
			return "", fmt.Errorf("problem: Link target %q: byte %#02x at %d is not allowed in a URI reference", target, c, i)
		}
	}
	return "<" + target + `>; rel="describedby"`, nil
}

// RetryAfterSeconds is the Retry-After value (delay-seconds, RFC 9110
// section 10.2.3) for a refused request that must wait d: d rounded up to
// whole seconds, never less than 1, because a client told 0 retries at once
// and is refused again.
func RetryAfterSeconds(d time.Duration) int {
	s := int(d / time.Second)
	if d%time.Second > 0 {
		s++
	}
	return max(s, 1)
}
