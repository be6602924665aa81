// Package override reads the method overrides a request carries.
// Frameworks route a request as the method an override
// names: Express's method-override (X-HTTP-Method-Override, or _method
// where the app reads it), Rails and Rack (_method in a form body),
// Laravel and Symfony (_method in the query, a form or a JSON body;
// X-HTTP-Method-Override), gorilla/handlers (_method in a form,
// X-HTTP-Method-Override), ASP.NET and OData (X-HTTP-Method), Google's
// APIs (X-HTTP-Method-Override, X-Method-Override). So an agent's request
// is decided on its own method and every override it carries; a request
// is allowed only if each is.
package override

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/fieldcheck"
	"github.com/agentready/agentready/internal/policy"
	"github.com/agentready/agentready/internal/reqbody"
	"github.com/agentready/agentready/internal/resolve"
)

// The reasons for refusing a request's methods (DenyTarget, DenyBody).
var (
	ErrMethodCase   = &policy.TargetError{Code: "method-case", Reason: "the method is a case variant of a standard method, which some frameworks upper-case and others route as another method"}
	errManyMethods  = &policy.TargetError{Code: "many-overrides", Reason: "the request carries more method overrides than agentready decides on"}
	errBodyMethod   = &policy.TargetError{Code: "unread-body", Reason: "the body could not be read for a _method override as frameworks read it"}
	errBadOverride  = &policy.TargetError{Code: "bad-override", Reason: "a method override's value is not a method name"}
	errEncodedBody  = &policy.TargetError{Code: "encoded-body", Reason: "a compressed body (Content-Encoding) cannot be checked for a _method override"}
	errBodyCharset  = &policy.TargetError{Code: "body-charset", Reason: "a body in a charset other than UTF-8 cannot be checked for a _method override"}
	errFormTooLarge = &policy.TargetError{Code: "form-too-large", Reason: "a body larger than " + strconv.Itoa(resolve.DefaultBodyLimit) + " bytes sent to a capability endpoint cannot be checked for a _method override"}
)

// standardMethods are the methods of RFC 9110 9.3 and PATCH (RFC 5789).
var standardMethods = [...]string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

// CaseVariant reports whether m is a standard method in another case.
func CaseVariant(m string) bool {
	if strings.IndexFunc(m, func(c rune) bool { return 'a' <= c && c <= 'z' }) < 0 {
		return false // no lower-case letter: the common case, and no variant
	}
	return slices.ContainsFunc(standardMethods[:], func(s string) bool { return m != s && strings.EqualFold(m, s) })
}

// Headers are the method-override headers frameworks honour, in
// canonical form.
var Headers = [...]string{"X-Http-Method-Override", "X-Http-Method", "X-Method-Override"}

// Set is the methods a request may be handled as.
type Set struct {
	m [8]string
	n int
}

// NewSet is the set of the one method m, the request's own.
func NewSet(m string) Set {
	var s Set
	s.m[0], s.n = m, 1
	return s
}

// List is the methods of s.
func (s *Set) List() []string { return s.m[:s.n] }

// add adds an override method, upper-cased as frameworks do; it reports
// false when the set is full.
func (s *Set) add(m string) bool {
	m = strings.ToUpper(m)
	if slices.Contains(s.m[:s.n], m) {
		return true
	}
	if s.n == len(s.m) {
		return false
	}
	s.m[s.n] = m
	s.n++
	return true
}

// addOverride adds the value of a method override. A framework trims it
// first, and more than Go's ASCII spaces (Node's trim takes U+00A0, which
// latin1 makes of a 0xA0 byte): so a value that is not a method name (an
// RFC 9110 token) once spaces and tabs are trimmed is refused rather than
// read otherwise than the framework reads it.
func (s *Set) addOverride(v string) error {
	v = strings.Trim(v, " \t")
	if v == "" {
		return nil
	}
	if !fieldcheck.IsToken(v) {
		return errBadOverride
	}
	if !s.add(v) {
		return errManyMethods
	}
	return nil
}

// Read adds to s the overrides r carries: in its headers, its query
// and, on a POST, its body. status is a refusal's (400, or 413 for a body
// too large to read).
func Read(r *http.Request, s *Set) (status int, err error) {
	for _, k := range Headers {
		for _, v := range r.Header[k] {
			// Node joins repeated fields with ", "; each element counts.
			for m := range strings.SplitSeq(v, ",") {
				if err := s.addOverride(m); err != nil {
					return http.StatusBadRequest, err
				}
			}
		}
	}
	if q := r.URL.RawQuery; strings.Contains(q, "method") || strings.Contains(q, "%") {
		if err := addFormMethods(s, q); err != nil {
			return http.StatusBadRequest, err
		}
	}
	if overrideBody(r) {
		return bodyMethods(r, s)
	}
	return 0, nil
}

// phpName turns the '.' and ' ' of a field name into '_', as PHP does.
var phpName = strings.NewReplacer(".", "_", " ", "_")

// methodField says how a form field's name reads to the frameworks that
// take a _method override from a form: exact when one of them reads it
// as "_method" (PHP cuts a name at NUL, drops leading spaces and turns '.'
// and ' ' into '_', Laravel's "[_method]" and Rack's "_method]" and
// "_method[]" are "_method" too), loose when it merely holds "method"
// (another spelling some framework or middleware may read).
func methodField(name string) (exact, loose bool) {
	n, _, _ := strings.Cut(name, "\x00")
	n = strings.TrimLeft(n, " [")
	n = phpName.Replace(n)
	if i := strings.IndexByte(n, '['); i > 0 {
		n = n[:i]
	}
	n = strings.TrimRight(n, "]")
	return n == "_method", strings.Contains(strings.ToLower(name), "method")
}

// addField adds the value of a form field (or a JSON member) whose name
// methodField reads: an exact _method must be a method name; a loose one
// counts when it is one, and is ignored otherwise ("shipping_method=UPS
// Ground" is no override).
func (s *Set) addField(name, value string) error {
	exact, loose := methodField(name)
	switch {
	case exact:
		return s.addOverride(value)
	case loose:
		if v := strings.Trim(value, " \t"); fieldcheck.IsToken(v) && !s.add(v) {
			return errManyMethods
		}
	}
	return nil
}

// overrideBody reports whether r's body may carry a _method override: a
// POST with a body (frameworks honour body overrides on POST only).
func overrideBody(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody
}

// bodyMethods adds the _method fields of r's body, read up to
// resolve.DefaultBodyLimit and put back for the handler: a form (urlencoded,
// or no Content-Type at all, which Rack reads as a form), any multipart
// body, a JSON object's members. A body it cannot read as the frameworks
// do is refused: too large, compressed (body-parser inflates gzip), in a
// charset other than UTF-8, JSON that does not parse, a multipart part
// whose disposition does not parse.
func bodyMethods(r *http.Request, s *Set) (status int, err error) {
	for _, ce := range r.Header["Content-Encoding"] {
		if ce = strings.TrimSpace(ce); ce != "" && !strings.EqualFold(ce, "identity") {
			return http.StatusBadRequest, errEncodedBody
		}
	}
	ct := r.Header.Get("Content-Type")
	mt, params, perr := mime.ParseMediaType(ct)
	switch {
	case ct == "":
		mt = "application/x-www-form-urlencoded"
	case perr != nil:
		mt, _, _ = strings.Cut(strings.ToLower(ct), ";")
		mt = strings.TrimSpace(mt)
	}
	if cs := params["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
		return http.StatusBadRequest, errBodyCharset
	}
	b, err := reqbody.Buffer(r, resolve.DefaultBodyLimit)
	if err != nil {
		return http.StatusBadRequest, errBodyMethod
	}
	if len(b) > resolve.DefaultBodyLimit {
		return http.StatusRequestEntityTooLarge, errFormTooLarge
	}
	switch {
	case len(b) == 0:
	case strings.HasPrefix(mt, "multipart/"):
		err = multipartMethods(s, b, params["boundary"])
	case strings.Contains(mt, "json"):
		err = jsonMethods(s, b)
	case strings.Contains(mt, "form"):
		err = addFormMethods(s, string(b))
	}
	if err != nil {
		return http.StatusBadRequest, err
	}
	return 0, nil
}

// jsonMethods adds the override members of a JSON object body: a string,
// or an array of strings (method-override takes an array's first).
func jsonMethods(s *Set, b []byte) error {
	var v any
	if json.Unmarshal(bytes.TrimPrefix(b, []byte("\uFEFF")), &v) != nil {
		// body-parser may read what encoding/json does not (its depth
		// limit, say): refuse rather than guess there is no member.
		return errBodyMethod
	}
	obj, _ := v.(map[string]any)
	for k, m := range obj {
		vals, _ := m.([]any)
		if vals == nil {
			vals = []any{m}
		}
		for _, e := range vals {
			if str, ok := e.(string); ok {
				if err := s.addField(k, str); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// addFormMethods adds the override fields of an urlencoded query or body.
// Pairs are split on '&' and ';' (Rack and older frameworks split on
// both), and names are unescaped, so "%5Fmethod" counts.
func addFormMethods(s *Set, q string) error {
	for pair := range strings.FieldsFuncSeq(q, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if !strings.Contains(k, "method") && !strings.Contains(k, "%") {
			continue
		}
		uk, err := url.QueryUnescape(k)
		if err != nil {
			uk = k
		}
		uv, err := url.QueryUnescape(v)
		if err != nil {
			uv = v
		}
		if err := s.addField(uk, uv); err != nil {
			return err
		}
	}
	return nil
}

// multipartMethods adds the override fields of a multipart body (Rails
// and Laravel read the override there too). A part is named by its
// Content-Disposition's name, whatever the disposition's type, and by its
// Content-ID (Rack's name for a part without one).
func multipartMethods(s *Set, body []byte, boundary string) error {
	if boundary == "" {
		return errBodyMethod
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errBodyMethod
		}
		var names []string
		if cd := part.Header.Get("Content-Disposition"); cd != "" {
			_, ps, err := mime.ParseMediaType(cd)
			if err != nil {
				return errBodyMethod
			}
			names = append(names, ps["name"])
		}
		if id := part.Header.Get("Content-Id"); id != "" {
			names = append(names, strings.Trim(id, "<> "))
		}
		for _, n := range names {
			if exact, loose := methodField(n); !exact && !loose {
				continue
			}
			v, err := io.ReadAll(io.LimitReader(part, 256))
			if err != nil {
				return errBodyMethod
			}
			if err := s.addField(n, string(v)); err != nil {
				return err
			}
			break
		}
	}
}
