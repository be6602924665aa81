package gatewaydecl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
	"strings"

	"github.com/agentready/agentready/config"
)

// Call is the HTTP request a tools/call makes of the called capability, in
// parts: the server may send it through agentready to the site's handler
// (Request), or read the parts.
type Call struct {
	Method string
	// URL is absolute, on the site's origin: the endpoint's path with each
	// "{name}" replaced by its argument, escaped as one segment
	// (url.PathEscape), then the endpoint's own query and the query
	// arguments in the order of their names (url.QueryEscape: "&", "#",
	// "+", "=", CR and LF are escaped, an array is its name repeated).
	URL *url.URL
	// Header holds the header arguments (an array as one field line per
	// item) and, with a body, Content-Type: application/json. Nothing
	// else: the server adds the credentials it carries.
	Header http.Header
	// Body is the body arguments as one JSON object, nil when the
	// capability declares no body param.
	Body []byte
}

// Request is the call as an *http.Request (http.NewRequestWithContext), its
// body a reader of Body.
func (c *Call) Request(ctx context.Context) (*http.Request, error) {
	var body *bytes.Reader
	if c.Body != nil {
		body = bytes.NewReader(c.Body)
	}
	var r *http.Request
	var err error
	if body != nil {
		r, err = http.NewRequestWithContext(ctx, c.Method, c.URL.String(), body)
	} else {
		r, err = http.NewRequestWithContext(ctx, c.Method, c.URL.String(), nil)
	}
	if err != nil {
		return nil, err
	}
	r.Header = c.Header.Clone()
	return r, nil
}

// Call builds the request of a validated call: only Arguments that
// Validate returned for this tool, so that no call is built unchecked.
func (t *Tool) Call(a *Arguments) (*Call, error) {
	if a == nil || a.tool != t {
		return nil, errors.New("gatewaydecl: the arguments were not validated for this tool")
	}
	var path strings.Builder
	for _, s := range t.path {
		path.WriteByte('/')
		if s.param == "" {
			path.WriteString(s.text)
			continue
		}
		v, ok := a.values[s.param]
		if !ok {
			return nil, fmt.Errorf("gatewaydecl: no argument for the path param %q", s.param)
		}
		path.WriteString(url.PathEscape(text(t.args[s.param], v)))
	}
	if path.Len() == 0 {
		path.WriteByte('/')
	}
	query := []string{}
	if t.query != "" {
		query = append(query, t.query)
	}
	c := &Call{Method: t.Method, Header: http.Header{}}
	body := map[string]any{}
	hasBody := false
	names := make([]string, 0, len(t.Args))
	for _, arg := range t.Args {
		names = append(names, arg.Name)
		hasBody = hasBody || arg.In == config.InBody
	}
	sort.Strings(names)
	for _, name := range names {
		arg := t.args[name]
		v, ok := a.values[name]
		if !ok {
			continue
		}
		switch arg.In {
		case config.InQuery:
			for _, item := range items(arg, v) {
				query = append(query, url.QueryEscape(name)+"="+url.QueryEscape(item))
			}
		case config.InHeader:
			key := textproto.CanonicalMIMEHeaderKey(name)
			for _, item := range items(arg, v) {
				c.Header[key] = append(c.Header[key], item)
			}
		case config.InBody:
			body[name] = canonical(arg.Type, v)
		}
	}
	if hasBody {
		b, err := encode(body)
		if err != nil {
			return nil, fmt.Errorf("gatewaydecl: body: %w", err)
		}
		c.Body = b
		c.Header.Set("Content-Type", "application/json")
	}
	raw := t.origin + path.String()
	if len(query) > 0 {
		raw += "?" + strings.Join(query, "&")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("gatewaydecl: the call's URL: %w", err)
	}
	if u.EscapedPath() != path.String() || u.Fragment != "" {
		return nil, fmt.Errorf("gatewaydecl: the call's URL %q does not read back as built", raw)
	}
	c.URL = u
	return c, nil
}

// NewRequest validates raw and builds the call's request: Validate, Call
// and Call.Request at once. A validation error is Faults.
func (t *Tool) NewRequest(ctx context.Context, raw json.RawMessage) (*http.Request, error) {
	a, err := t.Validate(raw)
	if err != nil {
		return nil, err
	}
	c, err := t.Call(a)
	if err != nil {
		return nil, err
	}
	return c.Request(ctx)
}

// items are the texts a query or header argument is sent as: one per item
// of an array, else one.
func items(a *Arg, v any) []string {
	if arr, ok := v.([]any); ok && a.Type == config.TypeArray {
		out := make([]string, len(arr))
		for i, x := range arr {
			out[i] = text(a, x)
		}
		return out
	}
	return []string{text(a, v)}
}

// text is a scalar argument's text: a string as it is, a number as sent
// (an integer param's in plain decimal: 1e3 and 1000.0 are 1000), a boolean
// as true or false; an object or array is its compact JSON.
func text(a *Arg, v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case json.Number:
		return string(canonical(a.Type, x).(json.Number))
	case nil:
		return "null"
	}
	b, err := encode(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// canonical is v with an integer param's number in plain decimal, which
// JSON Schema counts as an integer whatever its spelling ("1e3", "20.0")
// and a REST handler's integer parser may not.
func canonical(typ string, v any) any {
	n, ok := v.(json.Number)
	if !ok || typ != config.TypeInteger {
		return v
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return v
	}
	return json.Number(r.Num().String())
}
