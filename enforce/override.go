package enforce

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/policy"
)

// Method overrides. Frameworks route a request as the method an override
// names: Express's method-override (X-HTTP-Method-Override, or _method
// where the app reads it), Rails and Rack (_method in a form body),
// Laravel and Symfony (_method in the query, a form or a JSON body;
// X-HTTP-Method-Override), gorilla/handlers (_method in a form,
// X-HTTP-Method-Override), ASP.NET and OData (X-HTTP-Method), Google's
// APIs (X-HTTP-Method-Override, X-Method-Override). So an agent's request
// is decided on its own method and every override it carries; a request
// is allowed only if each is.

// The reasons for refusing a request's methods (DenyTarget, DenyBody).
var (
	errMethodCase   = &policy.TargetError{Reason: "the method is a case variant of a standard method, which some frameworks upper-case and others route as another method"}
	errManyMethods  = &policy.TargetError{Reason: "the request carries more method overrides than agentready decides on"}
	errBodyMethod   = &policy.TargetError{Reason: "the body could not be read for a _method override"}
	errFormTooLarge = &policy.TargetError{Reason: "a body larger than " + strconv.Itoa(config.DefaultBodyLimit) + " bytes sent to a capability endpoint cannot be checked for a _method override"}
)

// standardMethods are the methods of RFC 9110 9.3 and PATCH (RFC 5789).
var standardMethods = [...]string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

// caseVariant reports whether m is a standard method in another case.
func caseVariant(m string) bool {
	if strings.IndexFunc(m, func(c rune) bool { return 'a' <= c && c <= 'z' }) < 0 {
		return false // no lower-case letter: the common case, and no variant
	}
	for _, s := range standardMethods {
		if m != s && strings.EqualFold(m, s) {
			return true
		}
	}
	return false
}

// overrideHeaders are the method-override headers frameworks honour, in
// canonical form.
var overrideHeaders = [...]string{"X-Http-Method-Override", "X-Http-Method", "X-Method-Override"}

// methodSet is the methods a request may be handled as.
type methodSet struct {
	m [8]string
	n int
}

// add adds a method, upper-cased as frameworks do an override; it
// reports false when the set is full.
func (s *methodSet) add(m string) bool {
	m = strings.ToUpper(strings.TrimSpace(m))
	if m == "" {
		return true
	}
	for _, have := range s.m[:s.n] {
		if have == m {
			return true
		}
	}
	if s.n == len(s.m) {
		return false
	}
	s.m[s.n] = m
	s.n++
	return true
}

// requestMethods fills s with r's method and the overrides its headers and
// query carry. A case-variant method is refused.
func requestMethods(r *http.Request, s *methodSet) error {
	if caseVariant(r.Method) {
		return errMethodCase
	}
	s.m[0], s.n = r.Method, 1
	ok := true
	for _, k := range overrideHeaders {
		for _, v := range r.Header[k] {
			// Node joins repeated fields with ", "; each element counts.
			for m := range strings.SplitSeq(v, ",") {
				ok = s.add(m) && ok
			}
		}
	}
	if q := r.URL.RawQuery; strings.Contains(q, "method") || strings.Contains(q, "%") {
		ok = addFormMethods(s, q) && ok
	}
	if !ok {
		return errManyMethods
	}
	return nil
}

// overrideBody returns the content type of r's body, in lower case, when
// the body may carry a _method override: a POST with a form or JSON body
// (frameworks honour body overrides on POST only). "" otherwise.
func overrideBody(r *http.Request) string {
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		return ""
	}
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	if strings.Contains(ct, "form") || strings.Contains(ct, "json") {
		return ct
	}
	return ""
}

// bodyMethods adds the _method fields of r's body (urlencoded, multipart
// or a JSON object's member), read up to config.DefaultBodyLimit and put
// back for the handler. A body too large to read, or one of a form or
// JSON type that does not parse, is refused: a framework might find a
// _method in it.
func bodyMethods(r *http.Request, s *methodSet) (status int, err error) {
	ct := overrideBody(r)
	b, err := bufferBody(r, config.DefaultBodyLimit)
	if err != nil {
		return http.StatusBadRequest, errBodyMethod
	}
	if len(b) > config.DefaultBodyLimit {
		return http.StatusRequestEntityTooLarge, errFormTooLarge
	}
	var vals []string
	switch {
	case len(b) == 0:
	case strings.HasPrefix(ct, "multipart/"):
		if vals, err = multipartMethods(b, r.Header.Get("Content-Type")); err != nil {
			return http.StatusBadRequest, errBodyMethod
		}
	case strings.Contains(ct, "form"):
		if !addFormMethods(s, string(b)) {
			return http.StatusBadRequest, errManyMethods
		}
	default: // JSON: Laravel reads a top-level _method member
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) != nil {
			// Not an object (an array, a scalar, invalid JSON): no member.
			return 0, nil
		}
		var m string
		if raw, ok := obj["_method"]; ok && json.Unmarshal(raw, &m) == nil {
			vals = append(vals, m)
		}
	}
	for _, v := range vals {
		if !s.add(v) {
			return http.StatusBadRequest, errManyMethods
		}
	}
	return 0, nil
}

// addFormMethods adds the _method values of an urlencoded query or body.
// Pairs are split on '&' and ';' (Rack and older frameworks split on
// both), and keys are unescaped, so "%5Fmethod" counts.
func addFormMethods(s *methodSet, q string) bool {
	ok := true
	for q != "" {
		var pair string
		if i := strings.IndexAny(q, "&;"); i >= 0 {
			pair, q = q[:i], q[i+1:]
		} else {
			pair, q = q, ""
		}
		k, v, _ := strings.Cut(pair, "=")
		if !strings.Contains(k, "method") && !strings.Contains(k, "%") {
			continue
		}
		if uk, err := url.QueryUnescape(k); err != nil || uk != "_method" {
			continue
		}
		uv, _ := url.QueryUnescape(v)
		ok = s.add(uv) && ok
	}
	return ok
}

// multipartMethods returns the values of the _method fields of a
// multipart body (Rails and Laravel read the override there too).
func multipartMethods(body []byte, contentType string) ([]string, error) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return nil, errors.New("multipart body without a boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var vals []string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return vals, nil
		}
		if err != nil {
			return nil, err
		}
		if part.FormName() == "_method" {
			v, err := io.ReadAll(io.LimitReader(part, 64))
			if err != nil {
				return nil, err
			}
			vals = append(vals, string(v))
		}
	}
}
