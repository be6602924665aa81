package main

import (
	"cmp"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/fieldcheck"
)

// How check saw a document it looked for (document.Status).
const (
	// docFetched: answered 200; its findings say whether it conforms.
	docFetched = "fetched"
	// docMissing: answered 404 or 410 (any 4xx for robots.txt, RFC 9309
	// 2.3.1.3): the site does not publish it. A fail only where a MUST
	// or another of the site's documents says it is there.
	docMissing = "missing"
	// docUnavailable: another status, or no answer: it could not be
	// checked, which is a fail.
	docUnavailable = "unavailable"
	// docSkipped: not requested; Note says why.
	docSkipped = "skipped"
	// docInline: carried inside another document (an AI Catalog entry's
	// data), checked there.
	docInline = "inline"
)

// document is one document check looked for, and what became of it.
type document struct {
	// Location is the path on the origin checked, or the absolute URL of
	// a document elsewhere.
	Location string `json:"location"`
	// What names the document ("agents.txt", "agent:// descriptor \"a\"").
	What   string `json:"what"`
	Status string `json:"status"`
	// HTTPStatus is the status code of the answer, when there was one.
	HTTPStatus int `json:"httpStatus,omitempty"`
	// From is the document that named this one, when it is not at a
	// location its specification fixes.
	From string `json:"from,omitempty"`
	// Note says why it was skipped, what its absence means, or where it
	// was read from.
	Note string `json:"note,omitempty"`
	// covered marks a skipped document whose content is checked under
	// another location (a duplicate, a fallback not needed): the
	// verdict does not count it as skipped.
	covered bool
}

// declared is an origin one of the site's documents declares as the
// site's.
type declared struct {
	Origin   string `json:"origin"`
	Document string `json:"document"` // where it is declared
	Field    string `json:"field"`    // the field that declares it
}

// request is one document to look for.
type request struct {
	loc  string // a path on the origin checked, or an absolute URL
	what string
	spec string // the specification findings name
	from string // the document that named it ("" for a fixed location)
	// accept is sent as Accept (the media type a catalog entry declares,
	// for a server that negotiates).
	accept string
	// required makes a missing document a fail: a MUST of its
	// specification, or another document of the site names it.
	required bool
	// missingNote says what the document's absence means.
	missingNote string
	// anyClientError: every 4xx means "not published" (robots.txt, RFC
	// 9309 2.3.1.3), not just 404 and 410.
	anyClientError bool
	// json marks a JSON document: looked for where it is optional, a 200
	// of another type (text/html, text/plain) is a page the site serves
	// for every path (a catch-all route, a single-page app), so the
	// document is not published.
	json bool
}

// checkUserAgent names check to the sites it reads: an honest product
// token, as draft-car 4.2 asks of agents.
const checkUserAgent = "agentready-check/1 (+https://github.com/agentready/agentready)"

// get looks for the document r names and records what became of it. ok
// is true when it was fetched (200) and read whole; path is the location
// findings name it by.
func (c *checker) get(r request) (body []byte, h http.Header, path string, ok bool) {
	target, path, note, skip := c.resolve(r.loc)
	d := document{Location: path, What: r.what, From: r.from, Note: note}
	if skip != "" {
		d.Status, d.Note = docSkipped, skip
		c.docs = append(c.docs, d)
		return nil, nil, path, false
	}
	if i, dup := c.seen[target.String()]; dup {
		prev := c.docs[i]
		d.Status, d.Note, d.covered = docSkipped, "the same document as "+prev.What+" ("+prev.Location+"), checked there", true
		c.docs = append(c.docs, d)
		if r.required && prev.Status == docMissing {
			// Looked for where it was optional; this document says it is
			// there.
			c.add(path, r.spec, "fail", "answers %d%s", prev.HTTPStatus, prefixed(": ", r.missingNote))
		}
		return nil, nil, path, false
	}
	c.seen[target.String()] = len(c.docs) // the index d will have
	req, err := http.NewRequest(http.MethodGet, target.String(), nil)
	if err != nil {
		d.Status, d.Note = docUnavailable, err.Error()
		c.docs = append(c.docs, d)
		c.add(path, r.spec, "fail", "cannot fetch: %v", err)
		return nil, nil, path, false
	}
	req.Header.Set("User-Agent", checkUserAgent)
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	res, err := c.client.Do(req)
	if err != nil {
		d.Status, d.Note = docUnavailable, oneLine(err)
		c.docs = append(c.docs, d)
		c.add(path, r.spec, "fail", "cannot fetch, so not checked: %v", oneLine(err))
		return nil, nil, path, false
	}
	defer res.Body.Close()
	d.HTTPStatus = res.StatusCode
	if final := res.Request.URL; final.String() != target.String() {
		d.Note = join(d.Note, "redirected to "+final.String())
	}
	switch {
	case res.StatusCode == http.StatusOK:
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusGone ||
		(r.anyClientError && res.StatusCode >= 400 && res.StatusCode < 500):
		d.Status, d.Note = docMissing, join(d.Note, r.missingNote)
		c.docs = append(c.docs, d)
		if r.required {
			c.add(path, r.spec, "fail", "answers %s%s", res.Status, prefixed(": ", r.missingNote))
		}
		return nil, nil, path, false
	default:
		d.Status = docUnavailable
		c.docs = append(c.docs, d)
		c.add(path, r.spec, "fail", "answers %s, so it was not checked", res.Status)
		return nil, nil, path, false
	}
	if ct := res.Header.Get("Content-Type"); r.json && !r.required && !jsonType(ct) {
		d.Status, d.Note = docMissing, join(d.Note, "answers 200 with "+cmp.Or(ct, "no Content-Type")+", not JSON: a page served for every path, not this document")
		c.docs = append(c.docs, d)
		return nil, nil, path, false
	}
	d.Status = docFetched
	body, err = io.ReadAll(io.LimitReader(res.Body, checkBodyLimit+1))
	c.docs = append(c.docs, d)
	if err != nil {
		c.add(path, r.spec, "fail", "reading the body: %v", oneLine(err))
		return nil, nil, path, false
	}
	if len(body) > checkBodyLimit {
		c.add(path, r.spec, "fail", "larger than %d bytes: not checked", checkBodyLimit)
		return nil, nil, path, false
	}
	return body, res.Header, path, true
}

// resolve says where to fetch loc: a path, or an absolute URL the site's
// documents give. A URL on the origin checked is fetched as is; one on an
// origin the site declares as its own is read from the origin checked,
// at the same path, since that is the deployment being checked (a staging
// host, a port behind a proxy) and the warning about the declared origin
// says the two differ; any other origin is not fetched: check that site.
func (c *checker) resolve(loc string) (target *url.URL, path, note, skip string) {
	u, err := c.base.Parse(loc)
	if err != nil {
		return nil, loc, "", "not a URL: " + oneLine(err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, loc, "", "not an http(s) URL"
	}
	u.Fragment = ""
	o := origin(u)
	onBase := o == c.origin
	if !onBase {
		for _, d := range c.declared {
			if d.Origin == o {
				onBase, note = true, "named as "+u.String()+", on the site's declared origin: read from the origin checked"
				break
			}
		}
	}
	if !onBase {
		return nil, u.String(), "", "on another origin, " + o + ": not fetched (run agentready check " + o + ")"
	}
	t := *c.base
	t.Path, t.RawPath, t.RawQuery, t.Fragment = u.Path, u.RawPath, u.RawQuery, ""
	return &t, t.RequestURI(), note, ""
}

// origin is the RFC 6454 origin of u as scheme://host[:port]: scheme and
// host in lower case, the scheme's default port left out, so that
// https://Shop.example:443 and https://shop.example compare equal.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// declare records the site URL a document declares, and warns when its
// origin is not the one checked: agents resolve the site's paths against
// the declared URL, so a site that names another scheme, host or port
// sends them elsewhere, and agentready derives the default agent:// name
// and the descriptor's path from that host and port.
func (c *checker) declare(doc, spec, field, raw string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add(doc, spec, "warn", "%s %q is not an absolute http(s) URL", field, raw)
		return
	}
	o := origin(u)
	for _, d := range c.declared {
		if d.Origin == o {
			return
		}
	}
	c.declared = append(c.declared, declared{Origin: o, Document: doc, Field: field})
	if c.siteURL == "" {
		c.siteURL = raw
	}
	if o == c.origin {
		return
	}
	c.add(doc, "origin", "warn", "%s %s is not the origin checked, %s (%s): agents go to %s; what the site's documents name there was read from %s",
		field, raw, c.origin, differs(u, c.base), o, c.origin)
}

// differs names what sets two origins apart.
func differs(a, b *url.URL) string {
	var parts []string
	if !strings.EqualFold(a.Scheme, b.Scheme) {
		parts = append(parts, "scheme")
	}
	if !strings.EqualFold(a.Hostname(), b.Hostname()) {
		parts = append(parts, "host")
	}
	if port(a) != port(b) {
		parts = append(parts, "port")
	}
	if len(parts) == 0 {
		return "the same site"
	}
	return fieldcheck.Prose(parts) + " differ"
}

// port is u's port, its scheme's default when it names none.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "http") {
		return "80"
	}
	return "443"
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// skipped records a document check did not request, and why.
func (c *checker) skipped(loc, what, from, why string) {
	c.docs = append(c.docs, document{Location: loc, What: what, From: from, Status: docSkipped, Note: why})
}

// covered records a document check did not request because what it would
// show is checked elsewhere.
func (c *checker) covered(loc, what, why string) {
	c.docs = append(c.docs, document{Location: loc, What: what, Status: docSkipped, Note: why, covered: true})
}

// inline records a document carried inside another.
func (c *checker) inline(loc, what, from string) {
	c.docs = append(c.docs, document{Location: loc, What: what, From: from, Status: docInline, Note: "carried inline in " + from})
}

// jsonType reports whether a Content-Type is JSON: application/json or a
// +json structured syntax suffix (RFC 6839 3.1).
func jsonType(ct string) bool {
	t, _, err := mime.ParseMediaType(ct)
	return err == nil && (t == "application/json" || strings.HasSuffix(t, "+json"))
}
