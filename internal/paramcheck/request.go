package paramcheck

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/config"
	"github.com/agentready/agentready/internal/policy"
)

// Request checks r, a call to the capability, against its params: the
// query, the header fields, the path params where the endpoint declares
// them ({name} segments of path, the request's path in its canonical
// escaped form, on each of its readings that matches the endpoint; a path
// that matches on none, a route bound elsewhere, has its path params
// unread) and body, the body r carries (nil when it has none; read only
// when ReadsBody). It returns every fault, nil when there is none.
func (c *Checker) Request(r *http.Request, path string, body []byte) []Fault {
	if c == nil {
		return nil
	}
	var fs faults
	if c.query {
		c.form(&fs, r.URL.RawQuery, "&", config.InQuery)
		if strings.IndexByte(r.URL.RawQuery, ';') >= 0 {
			// Rack splits a query at ';' too: both readings are checked.
			c.form(&fs, r.URL.RawQuery, "&;", config.InQuery)
		}
	}
	if c.path {
		c.pathParams(&fs, path)
	}
	if c.header {
		c.headers(&fs, r.Header)
	}
	if c.body {
		c.readBody(&fs, r.Header, body)
	}
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// Args checks JSON arguments (an MCP tool call's, decoded with or without
// UseNumber) against every param, whatever its location: Fault.In is
// InArguments. A member that spells a param's name in another case is a
// fault, as in a body.
func (c *Checker) Args(args map[string]any) []Fault {
	if c == nil {
		return nil
	}
	var fs faults
	for k := range args {
		c.caseVariant(&fs, k, "", InArguments)
	}
	for i := range c.params {
		p := &c.params[i]
		v, ok := args[p.name]
		switch {
		case !ok && p.required:
			fs.add(p, InArguments, CodeMissing, "is required and missing")
		case ok:
			fs.json(p, InArguments, v)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// caseVariant adds a fault when got spells the name of a param read at in
// (every param when in is "") in another case and is not itself a
// declared name there; faultIn is the location to name.
func (c *Checker) caseVariant(fs *faults, got, in, faultIn string) {
	var variant *param
	for i := range c.params {
		p := &c.params[i]
		if in != "" && p.in != in {
			continue
		}
		if p.name == got {
			return
		}
		if variant == nil && strings.EqualFold(p.name, got) {
			variant = p
		}
	}
	if variant != nil {
		fs.add(variant, faultIn, CodeCase, clip(got)+" spells "+clip(variant.name)+" in another case")
	}
}

// form checks the members of a query or a form body raw, split at any of
// seps, against the params read at in.
func (c *Checker) form(fs *faults, raw, seps, in string) {
	var vals [8][]string // most capabilities declare few params
	all := vals[:0]
	if len(c.params) <= len(vals) {
		all = vals[:len(c.params)]
	} else {
		all = make([][]string, len(c.params))
	}
	for raw != "" {
		var member string
		if i := strings.IndexAny(raw, seps); i >= 0 {
			member, raw = raw[:i], raw[i+1:]
		} else {
			member, raw = raw, ""
		}
		if member == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(member, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			continue // no name a framework agrees on: not a declared one
		}
		matched := false
		for i := range c.params {
			p := &c.params[i]
			if !reads(p.in, in) {
				continue
			}
			switch {
			case name == p.name:
				matched = true
				v, err := url.QueryUnescape(rawValue)
				if err != nil {
					fs.add(p, in, CodeBadEscape, clip(rawValue)+" is not percent-encoded (a '%' not followed by two hex digits)")
					continue
				}
				all[i] = append(all[i], v)
			case structured(name, p.name):
				matched = true
				if p.typ == config.TypeObject {
					all[i] = append(all[i], "")
				} else {
					fs.add(p, in, CodeType, "is sent as "+clip(name)+", which PHP, Rails and qs read as an array or object member, not "+typeText(p.typ))
				}
			}
		}
		if !matched {
			c.caseVariant(fs, name, in, in)
		}
	}
	for i := range c.params {
		switch p := &c.params[i]; {
		case p.in == in:
			fs.strings(p, in, all[i])
		case len(all[i]) > 0: // merged: held to its rules where sent
			fs.strings(p, in, all[i])
		}
	}
}

// reads reports whether a param declared at declared is read at in: its
// own location, and, for a query or body param, the other of the two.
// Rails' params, PHP's $_REQUEST and Flask's request.values merge the
// query and the body, so a handler may read a body param from the query
// (or a query param from the body, which wins there): a value sent for a
// declared name at the other location is held to the param's rules too,
// but its absence there is no fault.
func reads(declared, in string) bool {
	return declared == in || declared == config.InQuery && in == config.InBody || declared == config.InBody && in == config.InQuery
}

// pathParams checks the path params on each reading of path (without a
// trailing slash, without a format extension: policy.Readings) that
// matches the endpoint's segments.
func (c *Checker) pathParams(fs *faults, path string) {
	if c.segs == nil {
		return
	}
	var ends [4]int
	for _, n := range policy.Readings(path, &ends) {
		segs := strings.Split(path[:n], "/")
		if len(segs) != len(c.segs) {
			continue
		}
		match := true
		for i, s := range c.segs {
			if isTemplate(s) {
				match = match && segs[i] != ""
			} else {
				match = match && (segs[i] == s || c.fold && strings.EqualFold(segs[i], s))
			}
		}
		if !match {
			continue
		}
		for i := range c.params {
			p := &c.params[i]
			if p.in != config.InPath || p.seg < 0 {
				continue
			}
			v, err := url.PathUnescape(segs[p.seg])
			if err != nil {
				fs.add(p, config.InPath, CodeBadEscape, clip(segs[p.seg])+" is not percent-encoded")
				continue
			}
			fs.strings(p, config.InPath, []string{v})
		}
	}
}

func isTemplate(seg string) bool { return len(seg) >= 2 && seg[0] == '{' && seg[len(seg)-1] == '}' }

// headers checks the header params: a field's lines (and, for an array,
// their comma-separated elements, RFC 9110 5.3). A field spelled so that
// CGI, WSGI and PHP read it as a param's and Go does not ("X_Limit" for
// X-Limit) is a fault.
func (c *Checker) headers(fs *faults, h http.Header) {
	for i := range c.params {
		p := &c.params[i]
		if p.in != config.InHeader {
			continue
		}
		var vals []string
		for k, vs := range h {
			switch {
			case strings.EqualFold(k, p.header): // Go's server canonicalizes: the same field
				if p.typ != config.TypeArray {
					vals = append(vals, vs...)
					continue
				}
				for _, v := range vs {
					for e := range strings.SplitSeq(v, ",") {
						if e = strings.Trim(e, " \t"); e != "" {
							vals = append(vals, e)
						}
					}
				}
			case sameField(k, p.name):
				fs.add(p, config.InHeader, CodeCase, "is sent as "+clip(k)+", which CGI, WSGI and PHP read as "+clip(p.header)+" and Go does not")
			}
		}
		fs.strings(p, config.InHeader, vals)
	}
}

// readBody checks the body params in body: a JSON object (a body with a
// JSON media type, or none) or a form (application/x-www-form-urlencoded,
// as strings).
func (c *Checker) readBody(fs *faults, h http.Header, body []byte) {
	if ce := h.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		fs.add(nil, config.InBody, CodeBody, "the body is compressed (Content-Encoding "+clip(ce)+"): body params are read from a body as sent")
		return
	}
	kind := "json"
	if ct := h.Get("Content-Type"); ct != "" {
		mt, params, err := mime.ParseMediaType(ct)
		switch {
		case err != nil:
			fs.add(nil, config.InBody, CodeBody, "the Content-Type "+clip(ct)+" does not parse")
			return
		case mt == "application/x-www-form-urlencoded":
			kind = "form"
		case mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		default:
			fs.add(nil, config.InBody, CodeBody, "the Content-Type is "+clip(mt)+": body params are read from a JSON object (application/json) or a form (application/x-www-form-urlencoded)")
			return
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			fs.add(nil, config.InBody, CodeBody, "the body's charset is "+clip(cs)+": body params are read from UTF-8")
			return
		}
	}
	if kind == "form" {
		c.form(fs, string(body), "&", config.InBody)
		return
	}
	if len(bytes.Trim(body, " \t\n\r")) == 0 { // JSON's whitespace (RFC 8259 2), not Unicode's
		for i := range c.params {
			if c.params[i].in == config.InBody {
				fs.strings(&c.params[i], config.InBody, nil) // the required ones are missing
			}
		}
		return
	}
	c.jsonBody(fs, body)
}

// jsonBody reads body, a JSON object, member by member: a member of a
// declared name sent twice, or spelt in another case, is a fault (Go's
// encoding/json keeps the last of duplicates and matches names without
// case), so that no handler reads it otherwise than the check did.
func (c *Checker) jsonBody(fs *faults, body []byte) {
	notObject := func(why string) {
		fs.add(nil, config.InBody, CodeBody, "the body is not a JSON object: "+why)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		notObject("it does not start with '{'")
		return
	}
	var vals [8][]any
	all := vals[:0]
	if len(c.params) <= len(vals) {
		all = vals[:len(c.params)]
	} else {
		all = make([][]any, len(c.params))
	}
	seen := make([]bool, len(c.params))
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			notObject(err.Error())
			return
		}
		k, _ := t.(string)
		idx := -1
		for i := range c.params {
			if reads(c.params[i].in, config.InBody) && c.params[i].name == k {
				idx = i
				break
			}
		}
		if idx < 0 {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				notObject(err.Error())
				return
			}
			c.caseVariant(fs, k, config.InBody, config.InBody)
			continue
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			notObject(err.Error())
			return
		}
		if seen[idx] {
			fs.add(&c.params[idx], config.InBody, CodeRepeated, "is a member sent twice; Go's encoding/json reads the last, other decoders the first")
		}
		seen[idx] = true
		all[idx] = append(all[idx], v)
	}
	if _, err := dec.Token(); err != nil { // '}'
		notObject(err.Error())
		return
	}
	if dec.InputOffset() != int64(len(bytes.TrimRight(body, " \t\n\r"))) {
		notObject("data follows the object")
		return
	}
	for i := range c.params {
		p := &c.params[i]
		if !reads(p.in, config.InBody) {
			continue
		}
		if len(all[i]) == 0 && p.in == config.InBody {
			fs.strings(p, config.InBody, nil)
		}
		for _, v := range all[i] {
			fs.json(p, config.InBody, v)
		}
	}
}
