package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/cors"

	"github.com/agentready/agentready/internal/publish/discovery"
)

// Content types the handler and its tests name (discovery holds those
// of the documents).
const (
	contentTypeJSON      = discovery.TypeJSON
	contentTypeAgentJSON = discovery.TypeAgentJSON
	// contentTypeProblemJSON is RFC 9457's; every error this package
	// answers carries it (agent:// 9).
	contentTypeProblemJSON = "application/problem+json"
)

// preflightMaxAge is how long browsers may cache a CORS preflight answer
// (Access-Control-Max-Age), in seconds.
const preflightMaxAge = 300

// allowedMethods is the Allow header value of every document: what a
// document path answers (RFC 9110 10.2.1; 405 and OPTIONS carry it).
const allowedMethods = "GET, HEAD, OPTIONS"

// Document is one pre-rendered discovery document and how it is served:
// the formats render it (discovery.Doc), Render sets its MaxAge and
// LastModified.
type Document = discovery.Doc

// Handler serves pre-rendered Documents.
//
// For every document path:
//
//   - GET and HEAD are answered by http.ServeContent, which brings the
//     conditional requests of RFC 9110 13 (If-Match and If-Unmodified-Since
//     412, If-None-Match and If-Modified-Since 304), HEAD and byte ranges
//     (206, 416). A 200 carries Content-Type, Content-Length,
//     Cache-Control, a strong ETag (a SHA-256 prefix of the body),
//     Last-Modified, Accept-Ranges, X-Content-Type-Options: nosniff,
//     Access-Control-Allow-Origin: * and Vary: Origin (Vary: Accept, Origin
//     for descriptors). A 304 carries ETag, Cache-Control, Vary and the CORS
//     header, and no body or representation metadata (RFC 9110 15.4.5).
//     Errors (412, 416) are problem+json.
//   - Descriptors (Documents with Profiles) negotiate Accept with its
//     profile parameter (RFC 6906, agent:// 7.4) and are labelled
//     `application/agent+json; profile="<first profile>"`. When Accept
//     admits no application/agent+json, or only with profiles the descriptor
//     does not have, or with q=0, the answer is 406 with a problem+json
//     naming the requested and the supported profiles; this is decided
//     before the preconditions.
//   - Documents with Alternates are served as the media type, among
//     ContentType and the Alternates, that Accept weighs highest, ties
//     going to ContentType, which is also served when Accept admits none
//     of them (RFC 9110 12.5.1 lets the server disregard Accept rather than
//     answer 406). Each media type has its own ETag; responses carry
//     Vary: Accept, Origin.
//   - OPTIONS with Access-Control-Request-Method is a CORS preflight,
//     answered 204 by github.com/rs/cors (Access-Control-Allow-Methods
//     echoes the requested method when it is GET, HEAD or OPTIONS); other
//     OPTIONS answer 204 with Allow; every other method answers 405 with
//     Allow and a problem+json.
//
// Paths that are not documents answer 404 from ServeHTTP and reach the
// wrapped handler through Wrap. A Handler is immutable and safe for
// concurrent use.
type Handler struct {
	docs map[string]*entry
	cors *cors.Cors
}

// entry is a Document compiled for serving.
type entry struct {
	body         []byte
	contentType  string // with the profile parameter for descriptors
	cacheControl string
	etag         string    // quoted strong entity-tag
	modified     time.Time // zero: no Last-Modified
	profiles     []string  // non-nil for descriptors
	header       http.Header
	headHeader   http.Header // nil: header
	alternates   []variant   // non-nil for documents with Alternates
}

// variant is one of the other media types a document is served as.
type variant struct {
	mediaType   string // type/subtype, lower case, for matching Accept
	contentType string // as sent
	etag        string
}

// etagBytes is how many bytes of the body's SHA-256 form the ETag: 128 bits
// make an accidental collision between two versions of a document
// negligible, and the value is the same on every replica.
const etagBytes = 16

// NewHandler compiles docs for serving. It reports every problem at once:
// a document without paths, an empty path or one not starting with "/", a
// path served twice, an unparsable ContentType, a negative MaxAge, and
// Profiles on a document that is not application/agent+json or that are
// not usable as RFC 6906 profile URIs.
func NewHandler(docs []Document) (*Handler, error) {
	h := &Handler{
		docs: make(map[string]*entry),
		cors: cors.New(cors.Options{
			AllowedOrigins: []string{"*"},
			// draft-car 5.2 shows "Access-Control-Allow-Methods: GET,
			// OPTIONS"; HEAD is as safe as GET. rs/cors answers a preflight
			// with the requested method when it is one of these, as the
			// Fetch standard allows.
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodOptions},
			// Accept with a quoted profile is not CORS-safelisted (the
			// quote is a CORS-unsafe byte), nor are the conditional
			// headers; allowing them lets browser agents negotiate and
			// revalidate cross-origin. Content-Type is in the list the
			// MCP discovery document requires of card hosts
			// (discovery.md, "CORS Requirements").
			AllowedHeaders: []string{"Accept", "Content-Type", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"},
			// A script reads only CORS-safelisted response fields unless
			// exposed: the ETag it revalidates with (discovery.md, "CORS
			// Requirements": Access-Control-Expose-Headers: ETag) and the
			// fields that let it verify a signed descriptor (RFC 9421,
			// RFC 9530).
			ExposedHeaders: []string{"ETag", "Content-Digest", "Repr-Digest", "Signature-Input", "Signature"},
			MaxAge:         preflightMaxAge,
		}),
	}
	var errs []error
	owner := make(map[string]string)
	for i := range docs {
		d := &docs[i]
		name := d.Name
		if name == "" {
			name = "document " + strconv.Itoa(i)
		}
		e, derrs := compile(d, name)
		errs = append(errs, derrs...)
		if len(d.Paths) == 0 {
			errs = append(errs, fmt.Errorf("publish: %s: no path to serve it at", name))
		}
		for _, p := range d.Paths {
			if err := checkPath(p); err != nil {
				errs = append(errs, fmt.Errorf("publish: %s: %w", name, err))
				continue
			}
			if prev, dup := owner[p]; dup {
				errs = append(errs, fmt.Errorf("publish: path %q is served by both %s and %s", p, prev, name))
				continue
			}
			owner[p] = name
			h.docs[p] = e
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return h, nil
}

// checkPath accepts what can equal a request's URL.Path: absolute, without
// query, fragment, whitespace or control characters.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case p[0] != '/':
		return fmt.Errorf("path %q does not start with /", p)
	case strings.ContainsAny(p, "?#"):
		return fmt.Errorf("path %q contains a query or fragment", p)
	case strings.ContainsFunc(p, func(c rune) bool { return c <= ' ' || c == 0x7f }):
		return fmt.Errorf("path %q contains whitespace or a control character", p)
	}
	return nil
}

// compile checks d and computes its header values.
func compile(d *Document, name string) (*entry, []error) {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("publish: %s: "+format, append([]any{name}, args...)...))
	}
	e := &entry{body: slices.Clone(d.Body)}

	ctype := d.ContentType
	mediatype, params, err := mime.ParseMediaType(ctype)
	switch {
	case ctype == "":
		fail("no content type")
	case err != nil:
		fail("content type %q: %v", ctype, err)
	case strings.ContainsAny(ctype, "\r\n"):
		fail("content type %q contains a line break", ctype)
	}
	if len(d.Profiles) > 0 {
		if err == nil && mediatype != contentTypeAgentJSON {
			fail("profiles need content type %s, not %q", contentTypeAgentJSON, mediatype)
		}
		if _, ok := params["profile"]; ok {
			fail("content type %q has a profile parameter; Profiles sets it", ctype)
		}
		for _, p := range d.Profiles {
			if err := checkProfile(p); err != nil {
				fail("%v", err)
			}
		}
		e.profiles = slices.Clone(d.Profiles)
		// agent:// 7.4: servers SHOULD indicate the selected version.
		ctype += `; profile="` + d.Profiles[0] + `"`
	}
	e.contentType = ctype
	e.header = cloneHeader(d.Header, fail)
	e.headHeader = cloneHeader(d.HeadHeader, fail)

	if d.MaxAge < 0 {
		fail("negative max-age %v", d.MaxAge)
	}
	e.cacheControl = "public, max-age=" + strconv.FormatInt(int64(d.MaxAge/time.Second), 10)

	sum := sha256.Sum256(e.body)
	e.etag = `"` + hex.EncodeToString(sum[:etagBytes]) + `"`
	e.compileAlternates(d, mediatype, fail)
	if !d.LastModified.IsZero() {
		e.modified = d.LastModified.UTC().Truncate(time.Second)
	}
	return e, errs
}

// cloneHeader copies h with canonical keys, failing on a value with a
// line break; nil for an empty h.
func cloneHeader(h http.Header, fail func(string, ...any)) http.Header {
	var out http.Header
	for k, v := range h {
		if out == nil {
			out = http.Header{}
		}
		for _, x := range v {
			if strings.ContainsAny(x, "\r\n") {
				fail("header %s holds a line break", k)
			}
		}
		out[http.CanonicalHeaderKey(k)] = slices.Clone(v)
	}
	return out
}

// checkProfile accepts what fits in a quoted profile parameter as one URI
// of RFC 6906's space-separated list: visible ASCII except '"' and '\'.
func checkProfile(p string) error {
	if p == "" {
		return errors.New("empty profile")
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return fmt.Errorf("profile %q: byte %q is not allowed in a profile URI", p, c)
		}
	}
	return nil
}

// Lookup reports whether path is a document path.
func (h *Handler) Lookup(path string) bool {
	_, ok := h.docs[path]
	return ok
}

// ServeHTTP serves the document at r.URL.Path, or 404 (problem+json).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := h.docs[r.URL.Path]; e != nil {
		h.serve(w, r, e)
		return
	}
	writeProblem(w, r, http.StatusNotFound, "no discovery document is published at this path", nil, nil)
}

// Wrap returns a handler that serves the documents and passes every other
// path to next (nil next: 404 as ServeHTTP).
func (h *Handler) Wrap(next http.Handler) http.Handler {
	if next == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := h.docs[r.URL.Path]; e != nil {
			h.serve(w, r, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serve answers a request for a document. rs/cors writes the CORS headers
// of every method and answers preflights.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, e *entry) {
	hdr := w.Header()
	if e.profiles != nil || e.alternates != nil {
		hdr.Add("Vary", "Accept") // rs/cors adds Origin
	}
	h.cors.HandlerFunc(w, r)
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		if r.Header.Get("Access-Control-Request-Method") == "" { // else a preflight rs/cors answered
			hdr.Set("Allow", allowedMethods)
			w.WriteHeader(http.StatusNoContent) // no Content-Length: RFC 9110 8.6
		}
		return
	default:
		hdr.Set("Allow", allowedMethods)
		writeProblem(w, r, http.StatusMethodNotAllowed, "discovery documents answer "+allowedMethods, nil, nil)
		return
	}
	// rs/cors sends Access-Control-Allow-Origin only to requests with an
	// Origin; draft-car 5.2 says servers SHOULD send it. It is inert for
	// non-browser clients, and Vary: Origin keeps shared caches correct.
	hdr.Set("Access-Control-Allow-Origin", "*")
	if e.profiles != nil && !e.acceptable(r.Header.Values("Accept")) {
		e.notAcceptable(w, r)
		return
	}
	ctype, etag := e.contentType, e.etag
	if e.alternates != nil {
		ctype, etag = e.negotiate(r.Header.Values("Accept"))
	}
	hdr.Set("Content-Type", ctype)
	hdr.Set("Cache-Control", e.cacheControl)
	hdr.Set("Etag", etag) // set first, so that ServeContent evaluates If-Match and If-None-Match
	hdr.Set("X-Content-Type-Options", "nosniff")
	fields := e.header
	if r.Method == http.MethodHead && e.headHeader != nil {
		fields = e.headHeader
	}
	dw := &docWriter{ResponseWriter: w, header: fields}
	http.ServeContent(dw, r, "", e.modified, bytes.NewReader(e.body))
	if dw.status != 0 {
		detail := strings.TrimSpace(dw.detail.String())
		if dw.status == http.StatusPreconditionFailed {
			detail = "If-Match or If-Unmodified-Since does not hold for the current document"
		}
		for _, k := range []string{"Etag", "Last-Modified", "Cache-Control", "Accept-Ranges"} {
			hdr.Del(k)
		}
		writeProblem(w, r, dw.status, detail, nil, nil)
	}
}

// docWriter stands between http.ServeContent and the response. It adds the
// document's own header fields to a 200 only, and holds back an error
// status (412, 416) with its text/plain message, which serve then answers
// as problem+json like every other error of this package.
type docWriter struct {
	http.ResponseWriter
	header http.Header
	status int
	detail strings.Builder
}

func (w *docWriter) WriteHeader(code int) {
	if code >= 400 {
		w.status = code
		return
	}
	if code == http.StatusOK {
		for k, v := range w.header {
			w.Header()[k] = slices.Clone(v)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *docWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.detail.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// problem is an RFC 9457 document. The type is about:blank, which makes
// the title the status phrase (RFC 9457 4.2.1); the profile members are
// extensions (agent:// 7.3: "MAY include supported formats").
type problem struct {
	Type      string   `json:"type"`
	Title     string   `json:"title"`
	Status    int      `json:"status"`
	Detail    string   `json:"detail"`
	Requested []string `json:"requestedProfiles,omitempty"`
	Supported []string `json:"supportedProfiles,omitempty"`
}

// writeProblem answers status with a problem+json; HEAD gets the headers
// only.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, detail string, requested, supported []string) {
	// Strings, string slices and an int always marshal.
	body, _ := json.Marshal(problem{"about:blank", http.StatusText(status), status, detail, requested, supported})
	hdr := w.Header()
	hdr.Set("Content-Type", contentTypeProblemJSON)
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
